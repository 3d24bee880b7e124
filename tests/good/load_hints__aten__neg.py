"""LEGAL (false-rejection hunt 42): aten::neg with the compiler hints vLLM's and FlagGems' memory-bound kernels
carry: ``tl.multiple_of`` / ``tl.max_contiguous`` on the offsets, ``cache_modifier=".cg"`` and
``eviction_policy="evict_first"`` on the load, ``cache_modifier=".cs"`` on the store, and
``do_not_specialize=["n"]`` on the jit."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n"])
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)
    offs = tl.max_contiguous(start + tl.arange(0, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0, cache_modifier=".cg", eviction_policy="evict_first")
    tl.store(y_ptr + offs, -x, mask=mask, cache_modifier=".cs")


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    if dst is not out:
        out.copy_(dst)
    return out


def neg(self):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
