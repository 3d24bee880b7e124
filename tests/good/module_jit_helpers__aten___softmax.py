"""LEGAL (false-rejection hunt 31): aten::_softmax as an online softmax (running max and rescaled sum in blocks)
whose two @triton.jit helpers are made by a function and bound to module-level names
(``_rescale, _shifted_exp = _helpers()``), which the kernel calls. L1 refused the calls (rule kernel-body: "not a
@triton.jit function defined once in the submission, a tl.constexpr parameter or a variable of an enclosing
function") although the same helpers read as closure variables pass and Triton compiles them on GPUs: the launch
rule judges every global a kernel body reads at each launch (only Triton values, jit functions among them, whose
bodies L1 judged). The reduced dim goes last through movedim + contiguous, rows of a 2-D view."""
from typing import Tuple

import torch
import triton
import triton.language as tl


def _helpers() -> Tuple[object, object]:
    @triton.jit
    def rescale(m_old, m_new):
        return tl.where(m_old == m_new, 1.0, tl.exp(m_old - m_new))

    @triton.jit
    def shifted_exp(x, m):
        return tl.where(x == float("-inf"), 0.0, tl.exp(x - m))

    return rescale, shifted_exp


_rescale, _shifted_exp = _helpers()


@triton.jit
def _softmax_rows(x_ptr, o_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * _rescale(m, m_new) + _shifted_exp(x, m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * _rescale(m, tl.full((BLOCK,), row_max, tl.float32)), axis=0)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) / total
        tl.store(o_ptr + base + cols, y.to(o_ptr.dtype.element_ty), mask=cols < N)


def _softmax_impl(x: torch.Tensor, dim: int) -> torch.Tensor:
    if x.dim() == 0:
        x = x.reshape(1)
        dim = 0
        squeeze = True
    else:
        squeeze = False
    dim = dim % x.dim()
    xt = x.movedim(dim, -1).contiguous()
    N = xt.shape[-1]
    rows = xt.numel() // max(N, 1)
    yt = torch.empty_like(xt)
    if xt.numel():
        _softmax_rows[(rows,)](xt, yt, N, BLOCK=min(1024, triton.next_power_of_2(N)))
    y = yt.movedim(-1, dim)
    return y.reshape(()) if squeeze else y


def _softmax(self, dim, half_to_float):
    if half_to_float:
        raise NotImplementedError("half_to_float=True is not supported")
    y = _softmax_impl(self, dim)
    return y.contiguous() if not y.is_contiguous() else y


def _softmax_out(self, dim, half_to_float, *, out):
    y = _softmax(self, dim, half_to_float)
    if out.shape != y.shape:
        out.resize_(y.shape)
    out.copy_(y)
    return out
