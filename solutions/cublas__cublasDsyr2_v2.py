import math

import triton
import triton.language as tl

_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}


def _bits(v):
    # the IEEE-754 bits of a float64 as a signed int64 (a Python float argument would reach the kernel as fp32)
    v = float(v)
    if v == 0.0:
        return -(1 << 63) if math.copysign(1.0, v) < 0 else 0
    m, e = math.frexp(abs(v))                  # |v| = m * 2**e, 0.5 <= m < 1 (normal numbers)
    b = ((e + 1022) << 52) | int((m * 2.0 - 1.0) * (1 << 52))
    return b - (1 << 63) if v < 0 else b


@triton.jit
def _dsyr2_kernel(A, X, Y, n, lda, incx, incy, xbase, ybase, a_bits, LOWER: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr):
    alpha = a_bits.to(tl.int64).to(tl.float64, bitcast=True)
    pi = tl.program_id(0)
    pj = tl.program_id(1)
    # tiles entirely outside the uplo triangle have nothing to do
    if LOWER:
        skip = (pi + 1) * BM <= pj * BN
    else:
        skip = pi * BM >= (pj + 1) * BN
    if not skip:
        i = pi.to(tl.int64) * BM + tl.arange(0, BM)
        j = pj.to(tl.int64) * BN + tl.arange(0, BN)
        im, jm = i < n, j < n
        if LOWER:
            tri = i[:, None] >= j[None, :]
        else:
            tri = i[:, None] <= j[None, :]
        mk = im[:, None] & jm[None, :] & tri
        xi = tl.load(X + xbase + i * incx, mask=im, other=0.0)
        yi = tl.load(Y + ybase + i * incy, mask=im, other=0.0)
        xj = tl.load(X + xbase + j * incx, mask=jm, other=0.0)
        yj = tl.load(Y + ybase + j * incy, mask=jm, other=0.0)
        off = i[:, None] + j[None, :] * lda
        a = tl.load(A + off, mask=mk, other=0.0)
        upd = xi[:, None] * yj[None, :] + yi[:, None] * xj[None, :]
        tl.store(A + off, a + alpha * upd, mask=mk)


def cublasDsyr2_v2(uplo, n, alpha, x, incx, y, incy, A, lda):
    if uplo not in _UPLO:
        raise ValueError("invalid uplo flag %r" % (uplo,))
    if n <= 0 or float(alpha) == 0.0:
        return A                                   # alpha == 0: A untouched
    xbase = 0 if incx >= 0 else -(n - 1) * incx
    ybase = 0 if incy >= 0 else -(n - 1) * incy
    B = 32 if n >= 32 else max(16, triton.next_power_of_2(n))
    _dsyr2_kernel[(triton.cdiv(n, B), triton.cdiv(n, B))](
        A, x, y, n, lda, incx, incy, xbase, ybase, _bits(alpha),
        LOWER=_UPLO[uplo] == 0, BM=B, BN=B, num_warps=4)
    return A
