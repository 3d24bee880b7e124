import torch
import triton
import triton.language as tl

_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32}
_ROWS = 8


@triton.jit
def _gather_kernel(src_ptr, dst_ptr, table_ptr, cu_ptr, starts_ptr, s_s0, s_s1, d_s0, t_s0, BS, ES,
                   HAS_STARTS: tl.constexpr, ROWS: tl.constexpr, BLOCK_E: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    lo = tl.load(cu_ptr + b)
    n = tl.load(cu_ptr + b + 1) - lo
    if HAS_STARTS:
        st = tl.load(starts_ptr + b)
    else:
        st = 0
    for i0 in range(0, n, ROWS):
        i = i0 + tl.arange(0, ROWS)
        rm = i < n
        p = (i + st).to(tl.int64)
        blk = tl.load(table_ptr + b * t_s0 + p // BS, mask=rm, other=0).to(tl.int64)
        src_row = blk * s_s0 + (p % BS) * s_s1
        dst_row = (lo + i).to(tl.int64) * d_s0
        for e0 in range(0, ES, BLOCK_E):
            e = e0 + tl.arange(0, BLOCK_E)
            m = rm[:, None] & (e < ES)[None, :]
            v = tl.load(src_ptr + src_row[:, None] + e[None, :], mask=m)
            tl.store(dst_ptr + dst_row[:, None] + e[None, :], v, mask=m)


def cp_gather_cache(src_cache, dst, block_table, cu_seq_lens, batch_size, seq_starts=None):
    B = int(batch_size)
    if B == 0:
        return None
    es = 1
    for s in src_cache.shape[2:]:
        es *= s
    it = _INT[src_cache.element_size()]
    has = seq_starts is not None
    _gather_kernel[(B,)](src_cache.view(it), dst.view(it), block_table, cu_seq_lens, seq_starts if has else cu_seq_lens,
                         src_cache.stride(0), src_cache.stride(1), dst.stride(0), block_table.stride(0),
                         src_cache.shape[1], es, HAS_STARTS=has, ROWS=_ROWS,
                         BLOCK_E=min(1024, triton.next_power_of_2(es)), num_warps=4)
    return None
