import torch
import triton
import triton.language as tl

_BLOCK_K = 1024


@triton.jit
def _permute_cols_kernel(a_ptr, perm_ptr, out_ptr, K, BLOCK_K: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    m = j < K
    src = tl.load(perm_ptr + j, mask=m, other=0).to(tl.int64)
    v = tl.load(a_ptr + r * K + src, mask=m)
    tl.store(out_ptr + r * K + j, v, mask=m)


def permute_cols(a, perm):
    K = a.shape[-1]
    out = torch.empty(a.shape, dtype=a.dtype, device=a.device)
    rows = a.numel() // K if K else 0
    if rows == 0:
        return out
    _permute_cols_kernel[(rows, triton.cdiv(K, _BLOCK_K))](a, perm, out, K, BLOCK_K=_BLOCK_K, num_warps=4)
    return out
