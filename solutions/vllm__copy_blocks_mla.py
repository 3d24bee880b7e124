import torch
import triton
import triton.language as tl

_BLOCK = 2048
_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _copy_pairs_kernel(cache_ptr, map_ptr, F, BLOCK: tl.constexpr):
    # one program: one (src, dst) pair, one BLOCK-element chunk of the F-element block footprint
    i = tl.program_id(0)
    s = tl.load(map_ptr + 2 * i).to(tl.int64)
    d = tl.load(map_ptr + 2 * i + 1).to(tl.int64)
    off = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < F
    v = tl.load(cache_ptr + s * F + off, mask=m)
    tl.store(cache_ptr + d * F + off, v, mask=m)


def copy_blocks_mla(kv_caches, block_mapping):
    if len(kv_caches) == 0:
        return None
    P = block_mapping.shape[0]
    if P == 0:
        return None
    F = kv_caches[0].stride(0)  # block footprint in elements, padding included
    mapping = block_mapping.contiguous()
    grid = (P, triton.cdiv(F, _BLOCK))
    for cache in kv_caches:
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, F, BLOCK=_BLOCK, num_warps=4)
    return None
