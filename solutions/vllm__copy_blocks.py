import torch
import triton
import triton.language as tl

_BLOCK = 2048
_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _copy_pairs_kernel(cache_ptr, map_ptr, NPB, BLOCK: tl.constexpr):
    # one program: one (src, dst) pair, one BLOCK-element chunk of the block; pairs are disjoint
    i = tl.program_id(0)
    s = tl.load(map_ptr + 2 * i).to(tl.int64)
    d = tl.load(map_ptr + 2 * i + 1).to(tl.int64)
    off = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < NPB
    v = tl.load(cache_ptr + s * NPB + off, mask=m)
    tl.store(cache_ptr + d * NPB + off, v, mask=m)


def copy_blocks(key_caches, value_caches, block_mapping):
    if len(key_caches) == 0:
        return None
    P = block_mapping.shape[0]
    if P == 0:
        return None
    npb = key_caches[0][0].numel()  # elements per block, for every tensor of both lists
    mapping = block_mapping.contiguous()
    grid = (P, triton.cdiv(npb, _BLOCK))
    for cache in list(key_caches) + list(value_caches):
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)
    return None
