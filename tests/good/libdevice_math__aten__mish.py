"""Legal: aten::mish with the math of libdevice functions that ``tl.math`` lacks (false-rejection hunt 36):
``libdevice.tanh`` and ``libdevice.log1p`` from ``triton.language.extra.libdevice``, and ``isnan`` from the CUDA
module (``triton.language.extra.cuda.libdevice``), as GELU/Mish kernels in the wild write them. A GPU computes
these; Triton 3.6's CPU interpreter runs no libdevice call (``NotImplementedError: extern_elementwise not supported
in interpreter mode``), so every case was ``unsupported`` on the interpreter, never judged. The harness now computes
the common elementwise libdevice functions with NumPy there (sandbox/interpreter_numerics.py ``_libdevice_numpy``).
"""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n, COMPUTE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(COMPUTE)
    softplus = tl.where(x > 20.0, x, libdevice.log1p(tl.exp(x)))
    y = x * libdevice.tanh(softplus)
    y = tl.where(cuda_libdevice.isnan(x), x, y)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    compute = tl.float64 if x.dtype == torch.float64 else tl.float32
    _mish_kernel[(triton.cdiv(n, 1024),)](src, dst, n, COMPUTE=compute, BLOCK=1024)
    if dst is not out:
        out.copy_(dst)
    return out


def mish(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("mish needs a floating input")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def mish_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
