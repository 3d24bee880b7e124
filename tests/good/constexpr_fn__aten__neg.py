"""Legal: aten::neg whose kernel takes the element function as a ``tl.constexpr`` parameter (a jit
function passed in, ``FN: tl.constexpr`` called as ``FN(x)`` in the body): L1 admits the call of a
constexpr parameter and the launch rule admits the jit function as its value."""
import torch
import triton
import triton.language as tl

_COMPUTE = {torch.float16: tl.float32, torch.bfloat16: tl.float32, torch.float32: tl.float32,
            torch.float64: tl.float64}


@triton.jit
def _negate(x):
    return -x


@triton.jit
def _map(x_ptr, o_ptr, n, FN: tl.constexpr, CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(CDT)
    tl.store(o_ptr + offs, FN(x).to(o_ptr.dtype.element_ty), mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _map[(triton.cdiv(n, 512),)](xc, res, n, FN=_negate, CDT=_COMPUTE.get(x.dtype, tl.int64), BLOCK=512)
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
