"""LEGAL (false-rejection hunt 32): aten::silu written with names imported from ``triton.language`` (``from
triton.language import arange, constexpr, exp, float32, load, program_id, store, where``) and no ``tl`` module in the
file, a style some generators emit. A GPU compiles it (Triton's code generator admits builtins and dtypes as
globals), but Triton 3.6's CPU interpreter asserted "triton.language must be visible from within jit'd function" at
every launch (runtime_error, the submission's). The harness's interpreter now patches the language for such a kernel
and runs the imported builtins with its semantic (sandbox/interpreter.py _builtin_aliases)."""
import torch
import triton
from triton.language import arange, constexpr, exp, float32, float64, load, program_id, store, where


@triton.jit
def _silu_kernel(x_ptr, o_ptr, n, BLOCK: constexpr):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    x = load(x_ptr + offs, mask=m, other=0.0)
    xf = x if x.dtype == float64 else x.to(float32)
    y = xf / (1.0 + exp(-xf))
    y = where(xf < -80.0, 0.0 * xf, y)
    store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=m)


def silu(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"\"silu\" not implemented for '{self.dtype}'")
    x = self.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        _silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def silu_out(self, *, out):
    res = silu(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
