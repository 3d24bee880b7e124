"""Legal: aten::neg whose kernel takes a namedtuple (collections.namedtuple, nothing added) and a plain
tuple as launch arguments; the launch rule accepts both and checks their elements."""
import collections

import torch
import triton
import triton.language as tl

_Span = collections.namedtuple("_Span", ["start", "n"])


@triton.jit
def _neg(x_ptr, o_ptr, span, blocks, BLOCK: tl.constexpr):
    offs = span.start + tl.program_id(0) * blocks[0] + tl.arange(0, BLOCK)
    mask = offs < span.n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(o_ptr + offs, x * -1, mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _neg[(triton.cdiv(n, 512),)](xc, res, _Span(0, n), (512, 1), BLOCK=512)
    if out is None:
        return res
    if out.shape != x.shape:
        out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
