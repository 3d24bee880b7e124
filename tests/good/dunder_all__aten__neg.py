"""LEGAL (false-rejection hunt 42): aten::neg in a library module that declares its public names with
``__all__ = ["neg", "neg_out"]`` and a module docstring-free ``__version__`` string, as packaged kernels do."""
import torch
import triton
import triton.language as tl

__all__ = ["neg", "neg_out"]
__version__ = "0.3.1"


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 1024):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, n)
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
