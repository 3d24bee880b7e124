"""LEGAL (false-rejection hunt 31): aten::neg written as typed code: the launch helper's parameter is annotated with
Triton's runtime class, imported for type checkers only (``if TYPE_CHECKING: from triton.runtime.jit import
JITFunction``; with ``from __future__ import annotations`` the annotation is never evaluated), plus ``Optional``/
``Tuple`` annotations. L1 refused the import itself (rule introspection) although the name is read only in an
annotation, where the dotted ``triton.JITFunction`` passes; a runtime class imported by name is now judged where it
is read (a call, alias, default or base class is still refused)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

import torch
import triton
import triton.language as tl

if TYPE_CHECKING:
    from triton.runtime.jit import JITFunction


@triton.jit
def _neg_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(o_ptr + offs, -x, mask=m)


def _launch(kernel: JITFunction, x: torch.Tensor, out: torch.Tensor, block: int = 1024) -> torch.Tensor:
    n = out.numel()
    if n == 0:
        return out
    grid: Tuple[int] = (triton.cdiv(n, block),)
    kernel[grid](x, out, n, BLOCK=block)
    return out


def _dense(x: torch.Tensor) -> torch.Tensor:
    return x if x.is_contiguous() else x.contiguous()


def neg(self: torch.Tensor) -> torch.Tensor:
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    x = _dense(self)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    return _launch(_neg_kernel, x, out)


def neg_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    res = neg(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out


def neg_int(a: int) -> int:
    return -a


def neg_float(a: float) -> float:
    return -a


def neg_complex(a: complex) -> complex:
    return -a


def neg_Scalar(a):
    return -a
