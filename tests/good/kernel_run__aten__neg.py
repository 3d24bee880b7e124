"""LEGAL (false-rejection hunt 42): aten::neg launched through the kernel's own ``run`` method with an explicit grid,
``_neg_kernel.run(x, y, n, BLOCK=..., grid=(g,), warmup=False)``, as launchers that skip ``__getitem__`` do (the
subscript form ``kernel[grid](...)`` is Triton's sugar for exactly this call)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel.run(src, dst, n, BLOCK=1024, grid=(triton.cdiv(n, 1024),), warmup=False)
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
