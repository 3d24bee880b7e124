"""Legal: aten::hardsigmoid through ``tl.map_elementwise`` of a scalar ``@triton.jit`` function with per-element early
returns (Triton 3.5+; the documented use: control flow over single elements instead of ``tl.where`` of both sides),
and a NaN test outside it (false-rejection hunt 36). A GPU compiles the region; Triton 3.6's CPU interpreter cannot
build it ("'InterpreterBuilder' object has no attribute 'new_block'", raised inside Triton), and every case failed as
``runtime_error``. On the interpreter the harness now calls the scalar function once per element
(sandbox/interpreter.py ``_map_elementwise``)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _hardsigmoid_scalar(x):
    if x <= -3.0:
        return 0.0
    if x >= 3.0:
        return 1.0
    return x / 6.0 + 0.5


@triton.jit
def _hardsigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.map_elementwise(_hardsigmoid_scalar, x)
    y = tl.where(x != x, x, y)  # NaN propagates
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
