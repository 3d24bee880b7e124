import torch
import triton
import triton.language as tl

_BLOCK = 2048
_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _swap_kernel(src_ptr, dst_ptr, map_ptr, P, BB, BLOCK: tl.constexpr, BLOCK_P: tl.constexpr):
    i = tl.program_id(0)
    s = tl.load(map_ptr + 2 * i).to(tl.int64)
    d = tl.load(map_ptr + 2 * i + 1).to(tl.int64)
    # rows run in order: a later row with the same destination wins, so this one is skipped
    j = tl.arange(0, BLOCK_P)
    later = (j > i) & (j < P)
    dj = tl.load(map_ptr + 2 * j + 1, mask=later, other=-1).to(tl.int64)
    overwritten = tl.max((dj == d).to(tl.int32), axis=0) > 0
    if not overwritten:
        off = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = off < BB
        v = tl.load(src_ptr + s * BB + off, mask=m)
        tl.store(dst_ptr + d * BB + off, v, mask=m)


def swap_blocks(src, dst, block_mapping):
    P = block_mapping.shape[0]
    if P == 0:
        return None
    BB = src.stride(0)  # block size in elements (bytes / element size), used for both tensors
    it = _INT[src.element_size()]
    mapping = block_mapping.contiguous()
    grid = (P, triton.cdiv(BB, _BLOCK))
    _swap_kernel[grid](src.view(it), dst.view(it), mapping, P, BB, BLOCK=_BLOCK,
                       BLOCK_P=triton.next_power_of_2(P), num_warps=4)
    return None
