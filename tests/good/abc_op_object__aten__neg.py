"""LEGAL (false-rejection hunt 31): aten::neg's wrapper is an op object whose class derives from an abstract base
class (``class UnaryOp(abc.ABC)`` with an ``@abc.abstractmethod``), the common way to share a launcher between
elementwise ops. L1 refused ``import abc`` (forbidden-import) and the harness refused the instance as a wrapper (its
metaclass, abc.ABCMeta, is not type); abc.ABC, ABCMeta and the abstract* decorators are now allowed (metaclasses and
ABC registration were already possible with ``type`` and ``numbers.Number.register``; the harness tells types apart
with ``type()``)."""
import abc

import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(o_ptr + offs, x * -1, mask=m)


class UnaryOp(abc.ABC):
    @abc.abstractmethod
    def kernel(self):
        ...

    def check(self, x):
        pass

    def __call__(self, x):
        self.check(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = out.numel()
        if n:
            self.kernel()[(triton.cdiv(n, 512),)](x, out, n, BLOCK=512)
        return out


class Neg(UnaryOp):
    def kernel(self):
        return _neg_kernel

    def check(self, x):
        if x.dtype == torch.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")


neg = Neg()


def neg_out(self, *, out):
    res = neg(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out


def neg_int(a):
    return -a


def neg_float(a):
    return -a


def neg_complex(a):
    return -a


def neg_Scalar(a):
    return -a
