"""Legal: aten::neg written for programmatic dependent launch (false-rejection hunt 36): the kernel calls
``tl.extra.cuda.gdc_wait()`` before its loads (through the module, ``from triton.language.extra import cuda``) and
``gdc_launch_dependents()`` after its stores (a name imported from ``triton.language.extra.cuda``). Triton documents both
as safe where PDL is off. On the CPU interpreter they were builtins of a module the interpreter does not patch and raised
ValueError ("Did you forget to add @triton.jit?"): every case failed as ``runtime_error``. They are no-ops there now
(each launch runs to completion before the next), and the GPU compile check compiles Triton's own functions
(sandbox/interpreter.py ``_gdc_no_ops``)."""
import torch
import triton
import triton.language as tl
from triton.language.extra import cuda as tlcuda
from triton.language.extra.cuda import gdc_launch_dependents


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tlcuda.gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(y_ptr + offs, -x, mask=mask)
    gdc_launch_dependents()


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
