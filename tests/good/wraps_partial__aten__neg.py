"""LEGAL (false-rejection hunt 31): aten::neg's wrappers are one generic launcher bound per op with
``functools.partial(_unary, op=0)``, each wrapped by a checking decorator that uses ``functools.wraps`` (so its
``__wrapped__`` is the partial). The harness read the wraps chain only down to Python functions and failed every call
as ``signature`` ("it wraps (__wrapped__) a <class 'functools.partial'>, not a Python function"), although it reads a
partial itself; the chain's last object is now read by the same rules (sandbox/dispatch.py wrapper_signature)."""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _unary_kernel(x_ptr, o_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    if OP == 0:
        y = x * -1
    else:
        y = x
    tl.store(o_ptr + offs, y, mask=m)


def _checked(fn):
    @functools.wraps(fn)
    def inner(self, *args, **kwargs):
        if not isinstance(self, torch.Tensor):
            raise TypeError(f"expected a tensor, got {type(self).__name__}")
        if self.dtype == torch.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
        return fn(self, *args, **kwargs)

    return inner


def _unary(self, *, op):
    x = self.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        _unary_kernel[(triton.cdiv(n, 256),)](x, out, n, OP=op, BLOCK=256)
    return out


def _unary_out(self, *, out, op):
    res = _unary(self, op=op)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out


neg = _checked(functools.partial(_unary, op=0))
neg_out = _checked(functools.partial(_unary_out, op=0))


def neg_int(a):
    return -a


def neg_float(a):
    return -a


def neg_complex(a):
    return -a


def neg_Scalar(a):
    return -a
