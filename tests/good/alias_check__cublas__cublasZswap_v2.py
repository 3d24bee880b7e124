"""LEGAL (false-rejection hunt 32): cublas::cublasZswap_v2 through a callable launcher object (``__slots__``, the
kernel and block size as attributes, ``typing.Final`` block constant): complex vectors viewed as interleaved float64
pairs with ``torch.view_as_real``, a [BLOCK, 2] tile per program, BLAS offsets (negative increments count from the
end) from a @triton.jit helper; a vector swapped with itself returns at once, found by the aliasing check
``x.data_ptr() == y.data_ptr() and incx == incy``. L1 refused that check: "x.data_ptr touches .data_ptr, a tensor's
raw storage" (rule raw-storage). A comparison of data_ptr reads with each other (==, !=, in a tuple) is a bool, no
address; it is now allowed like the alignment checks."""
from typing import Final

import torch
import triton
import triton.language as tl

_BLOCK: Final = 256


@triton.jit
def _blas_offsets(i, n, inc):
    # BLAS layout: element i at i*inc, or counted from the end when inc < 0
    return tl.where(inc >= 0, i * inc, (n - 1 - i) * (-inc))


@triton.jit
def _zswap_kernel(x_ptr, y_ptr, n, incx, incy, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = (i < n)[:, None]
    part = tl.arange(0, 2)[None, :]
    xo = _blas_offsets(i, n, incx)[:, None] * 2 + part
    yo = _blas_offsets(i, n, incy)[:, None] * 2 + part
    xv = tl.load(x_ptr + xo, mask=m)
    yv = tl.load(y_ptr + yo, mask=m)
    tl.store(x_ptr + xo, yv, mask=m)
    tl.store(y_ptr + yo, xv, mask=m)


class _Swap:
    __slots__ = ("kernel", "block")

    def __init__(self, kernel, block: int) -> None:
        self.kernel = kernel
        self.block = block

    def __call__(self, n, x, incx, y, incy):
        if n <= 0:
            return x
        if x.data_ptr() == y.data_ptr() and incx == incy:
            return x  # a vector swapped with itself
        xr = torch.view_as_real(x)
        yr = torch.view_as_real(y)
        self.kernel[(triton.cdiv(n, self.block),)](xr, yr, n, incx, incy, BLOCK=self.block)
        return x


_swap = _Swap(_zswap_kernel, _BLOCK)


def cublasZswap_v2(n, x, incx, y, incy):
    return _swap(n, x, incx, y, incy)
