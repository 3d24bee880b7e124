"""LEGAL (tp39, real third-party kernels): aten::hardsigmoid through an autograd Function in the style of kernl's
layer norm: the forward, decorated ``@staticmethod`` and ``@custom_fwd(cast_inputs=torch.float16)`` (a no-op outside
autocast), takes the kernel to launch as a parameter annotated ``implementation: JITFunction`` (``from triton import
JITFunction``). L1 refused the annotation (introspection: Triton's runtime internals), since the annotations of a
decorated function were judged as values a decorator could hand back (rb38: ``functools.singledispatch``'s
``register`` does). ``staticmethod``, ``classmethod``, ``property`` and PyTorch's autograd decorators keep nothing of
them, so there the annotation is a type position again (verify/scan/class_rules.py ``_annotation_blind``)."""
from typing import Optional

import torch
import triton
import triton.language as tl
from torch.cuda.amp import custom_fwd
from triton import JITFunction


@triton.jit
def _hardsigmoid_flat(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(in_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0
    y = tl.where(x != x, x, y)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _hardsigmoid_looped(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK * 4
    for i in tl.static_range(4):
        offs = start + i * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(in_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.where(x <= -3.0, 0.0, tl.where(x >= 3.0, 1.0, x / 6.0 + 0.5))
        y = tl.where(x != x, x, y)
        tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


class HardSigmoid(torch.autograd.Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float16)
    def forward(ctx, x: torch.Tensor, implementation: JITFunction, out: Optional[torch.Tensor] = None):
        src = x.contiguous()
        dst = torch.empty_like(src) if out is None or not out.is_contiguous() else out
        n = src.numel()
        block = 256
        per_program = block * 4 if implementation == _hardsigmoid_looped else block
        if n:
            implementation[(triton.cdiv(n, per_program),)](dst, src, n, BLOCK=block)
        if out is not None and dst is not out:
            out.copy_(dst)
            return out
        return dst


def hardsigmoid(self, implementation: JITFunction = _hardsigmoid_flat):
    return HardSigmoid.apply(self, implementation)


def hardsigmoid_out(self, *, out):
    return HardSigmoid.apply(self, _hardsigmoid_looped, out)
