"""LEGAL (false-rejection hunt 32): vllm::fused_add_rms_norm with typed helpers: the argument checker names the tensor
it checks with ``role: Literal["input", "residual", "weight"]`` (the common way to type a fixed set of names), plus a
frozen dataclass for the row layout. Red team 31's rule scans string annotations as code, and it read the Literal's
values as code too: ``"input"`` became a read of the builtin input, "line N: "input" reads from standard input (rule
exec-eval)". Literal values and Annotated metadata are values typing never evaluates; they are no longer scanned (a
rebound ``Literal`` name still is). Input rows may be padded (row stride input.stride(-2)); the residual is written
first, then the normalised rows."""
import dataclasses
from typing import Literal, Optional, Tuple

import torch
import triton
import triton.language as tl

@dataclasses.dataclass(frozen=True)
class _RowLayout:
    rows: int
    inner: int        # rows per outer index (the second-to-last dim)
    outer_stride: int
    row_stride: int


@triton.jit
def _fused_add_rms_kernel(x_ptr, r_ptr, w_ptr, H, inner, x_s0, x_s1, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + (row // inner) * x_s0 + (row % inner) * x_s1
    r_row = r_ptr + row * H
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < H
        x = tl.load(x_row + c, mask=m, other=0.0)
        r = tl.load(r_row + c, mask=m, other=0.0)
        z = x + r  # rounded to the tensors' dtype
        tl.store(r_row + c, z, mask=m)
        zf = z.to(tl.float32)
        acc += zf * zf
    inv = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / H + eps)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < H
        z = tl.load(r_row + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m, other=0.0)
        y = (z * inv).to(x_ptr.dtype.element_ty) * w
        tl.store(x_row + c, y, mask=m)


def _check(t: torch.Tensor, role: Literal["input", "residual", "weight"], hidden: Optional[int] = None) -> None:
    if t.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"{role}: unsupported dtype {t.dtype}")
    if t.shape[-1] and t.stride(-1) != 1:
        raise ValueError(f"{role}: the last dim must be contiguous")
    if hidden is not None and t.shape[-1] != hidden:
        raise ValueError(f"{role}: hidden size {t.shape[-1]} != {hidden}")


def _layout(t: torch.Tensor) -> _RowLayout:
    H = t.shape[-1]
    lead: Tuple[int, ...] = tuple(t.shape[:-1])
    rows = t.numel() // H if H else 0
    if len(lead) <= 1:
        return _RowLayout(rows, max(rows, 1), 0, t.stride(0) if lead else 0)
    for i in range(len(lead) - 2):  # outer dims merge into one (padding only between rows)
        if lead[i + 1] > 1 and t.stride(i) != lead[i + 1] * t.stride(i + 1):
            raise ValueError("input: its outer dims do not merge")
    return _RowLayout(rows, max(lead[-1], 1), t.stride(-3), t.stride(-2))


def fused_add_rms_norm(input, residual, weight, epsilon):
    H = input.shape[-1]
    _check(input, "input")
    _check(residual, "residual", H)
    _check(weight, "weight", H)
    lay = _layout(input)
    if lay.rows == 0 or H == 0:
        return None
    block = min(1024, triton.next_power_of_2(H))
    _fused_add_rms_kernel[(lay.rows,)](input, residual, weight, H, lay.inner, lay.outer_stride, lay.row_stride,
                                       float(epsilon), BLOCK=block)
    return None
