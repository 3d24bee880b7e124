"""Legal: aten::neg whose kernel takes None for an optional pointer, a tl.constexpr string, a Triton
dtype as tl.constexpr, and reads a tl.constexpr global and a jit helper; the launch rule accepts them."""
import torch
import triton
import triton.language as tl

_SIGN = tl.constexpr(-1)
_COMPUTE = {torch.float16: tl.float32, torch.bfloat16: tl.float32, torch.float32: tl.float32,
            torch.float64: tl.float64}


@triton.jit
def _apply(x, OP: tl.constexpr):
    if OP == "neg":
        return x * _SIGN
    return x


@triton.jit
def _neg(x_ptr, o_ptr, bias_ptr, n, OP: tl.constexpr, CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(CDT)
    y = _apply(x, OP)
    if bias_ptr is not None:
        y += tl.load(bias_ptr + offs, mask=mask, other=0)
    tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    cdt = _COMPUTE.get(x.dtype, tl.int64)
    if n:
        _neg[(triton.cdiv(n, 512),)](xc, res, None, n, OP="neg", CDT=cdt, BLOCK=512)
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
