"""LEGAL (false-rejection hunt 43): aten::hardsigmoid written with Python's ``min``/``max`` on blocks inside the kernel,
``min(max(x + 3.0, 0.0), 6.0) / 6.0``, as many hand-written and generated kernels do (Triton's code generator maps
them to ``tl.minimum``/``tl.maximum``, elementwise; Triton 3.6 warns they are deprecated on blocks), plus
``max(BLOCK // 4, 1)`` on constexprs. On the interpreter Python's ``min`` compared the blocks with ``<`` and kept one
whole block (its truth is ``all()``): every case failed as wrong_result. NaN: ``tl.minimum``/``maximum`` return the
other operand (as the GPU's ``min.f32``), so the kernel keeps a NaN input explicitly, as PyTorch does."""
import torch
import triton
import triton.language as tl


@triton.jit
def _hardsigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = min(max(x + 3.0, 0.0), 6.0) / 6.0
    y = tl.where(x != x, x, y)
    tl.static_assert(max(BLOCK // 4, 1) >= 1)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _hardsigmoid_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    if dst is not out:
        out.copy_(dst)
    return out


def hardsigmoid(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("hardsigmoid needs a floating input")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def hardsigmoid_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
