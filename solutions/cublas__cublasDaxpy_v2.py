import math

import triton
import triton.language as tl


def _bits(v):
    # the IEEE-754 bits of a float64 as a signed int64 (a Python float argument would reach the kernel as fp32)
    v = float(v)
    if v == 0.0:
        return -(1 << 63) if math.copysign(1.0, v) < 0 else 0
    m, e = math.frexp(abs(v))                  # |v| = m * 2**e, 0.5 <= m < 1 (normal numbers)
    b = ((e + 1022) << 52) | int((m * 2.0 - 1.0) * (1 << 52))
    return b - (1 << 63) if v < 0 else b


@triton.jit
def _daxpy_kernel(x_ptr, y_ptr, n, alpha_bits, incx, incy, BLOCK: tl.constexpr):
    # alpha arrives as the bits of a float64 (a Python float argument would be passed as fp32)
    alpha = alpha_bits.to(tl.int64).to(tl.float64, bitcast=True)
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    nn = n + pid * 0
    # backwards layout for a negative increment: element i at (n-1-i)*|inc|
    xo = tl.where(incx < 0, (1 - nn) * incx, 0) + i * incx
    yo = tl.where(incy < 0, (1 - nn) * incy, 0) + i * incy
    x = tl.load(x_ptr + xo, mask=mask, other=0.0)
    y = tl.load(y_ptr + yo, mask=mask, other=0.0)
    tl.store(y_ptr + yo, alpha * x + y, mask=mask)


def cublasDaxpy_v2(n, alpha, x, incx, y, incy):
    alpha = float(alpha)
    if n <= 0 or alpha == 0.0:
        return y          # cuBLAS returns at once: y untouched, x not read
    BLOCK = 1024 if n >= 1024 else max(32, triton.next_power_of_2(n))
    _daxpy_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, _bits(alpha), incx, incy,
                                                 BLOCK=BLOCK, num_warps=4)
    return y
