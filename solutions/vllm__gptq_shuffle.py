import torch
import triton
import triton.language as tl

_BLOCK_R = 8
_BLOCK_N = 128
_COPY = 1024


@triton.jit
def _snapshot_kernel(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < N
    tl.store(dst_ptr + off, tl.load(src_ptr + off, mask=m), mask=m)


@triton.jit
def _shuffle_kernel(old_ptr, out_ptr, perm_ptr, ROWS, N,
                    BIT: tl.constexpr, PF: tl.constexpr, HAS_PERM: tl.constexpr, SHUFFLE: tl.constexpr,
                    BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    # one tile of output words [BLOCK_R, BLOCK_N]; each word gathers its PF fields from the old matrix
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    n = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    rm = r < ROWS
    m = rm[:, None] & (n < N)[None, :]
    acc = tl.zeros([BLOCK_R, BLOCK_N], dtype=tl.uint32)
    for j in tl.static_range(PF):
        k = r * PF + j
        if HAS_PERM:
            src = tl.load(perm_ptr + k, mask=rm, other=0)
        else:
            src = k
        wrow = (src // PF).to(tl.int64)
        shift = ((src % PF) * BIT).to(tl.uint32)
        w = tl.load(old_ptr + wrow[:, None] * N + n[None, :], mask=m, other=0).to(tl.uint32, bitcast=True)
        field = (w >> shift[:, None]) & ((1 << BIT) - 1)
        if SHUFFLE:
            pos = (j // 2) + 4 * (j % 2)  # exllama nibble order (0, 4, 1, 5, 2, 6, 3, 7)
        else:
            pos = j
        acc = acc | (field << (pos * BIT))
    out_off = r.to(tl.int64)[:, None] * N + n[None, :]
    tl.store(out_ptr + out_off, acc.to(tl.int32, bitcast=True), mask=m)


def gptq_shuffle(q_weight, q_perm, bit):
    if bit not in (4, 8):
        raise NotImplementedError(f"gptq_shuffle: {bit}-bit weights are not supported (4 and 8 are)")
    rows, n = q_weight.shape
    total = rows * n
    if total == 0:
        return None
    has_perm = q_perm is not None and q_perm.numel() > 0 and not q_perm.is_meta
    if bit == 8 and not has_perm:
        return None  # nothing moves
    old = torch.empty_like(q_weight)
    _snapshot_kernel[(triton.cdiv(total, _COPY),)](q_weight, old, total, BLOCK=_COPY, num_warps=4)
    perm = q_perm.contiguous() if has_perm else old
    grid = (triton.cdiv(rows, _BLOCK_R), triton.cdiv(n, _BLOCK_N))
    _shuffle_kernel[grid](old, q_weight, perm, rows, n, BIT=bit, PF=32 // bit, HAS_PERM=has_perm,
                          SHUFFLE=bit == 4, BLOCK_R=_BLOCK_R, BLOCK_N=_BLOCK_N, num_warps=4)
    return None
