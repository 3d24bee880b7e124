import math

import torch
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
def _ger_kernel(A, X, Y, m, n, lda, incx, incy, xbase, ybase, ar_bits, ai_bits, CONJ: tl.constexpr, F64: tl.constexpr,
                BM: tl.constexpr, BN: tl.constexpr):
    # complex storage as interleaved (re, im) pairs; A(i, j) += alpha * x[i] * (conj) y[j]
    if F64:
        ar = ar_bits.to(tl.int64).to(tl.float64, bitcast=True)
        ai = ai_bits.to(tl.int64).to(tl.float64, bitcast=True)
    i = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    j = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    im, jm = i < m, j < n
    xo = 2 * (xbase + i * incx)
    yo = 2 * (ybase + j * incy)
    x_r = tl.load(X + xo, mask=im, other=0.0)
    x_i = tl.load(X + xo + 1, mask=im, other=0.0)
    y_r = tl.load(Y + yo, mask=jm, other=0.0)
    y_i = tl.load(Y + yo + 1, mask=jm, other=0.0)
    if CONJ:
        y_i = -y_i
    ax_r = ar * x_r - ai * x_i                    # alpha * x[i]
    ax_i = ar * x_i + ai * x_r
    off = 2 * (i[:, None] + j[None, :] * lda)
    mk = im[:, None] & jm[None, :]
    a_r = tl.load(A + off, mask=mk, other=0.0)
    a_i = tl.load(A + off + 1, mask=mk, other=0.0)
    tl.store(A + off, a_r + (ax_r[:, None] * y_r[None, :] - ax_i[:, None] * y_i[None, :]), mask=mk)
    tl.store(A + off + 1, a_i + (ax_r[:, None] * y_i[None, :] + ax_i[:, None] * y_r[None, :]), mask=mk)


def cublasZgerc_v2(m, n, alpha, x, incx, y, incy, A, lda):
    alpha = complex(alpha)
    if m <= 0 or n <= 0 or alpha == 0:
        return A                                  # alpha == 0: A untouched, x and y not read
    xbase = 0 if incx >= 0 else -(m - 1) * incx
    ybase = 0 if incy >= 0 else -(n - 1) * incy
    BM = 64 if m >= 64 else max(16, triton.next_power_of_2(m))
    BN = 32 if n >= 32 else max(16, triton.next_power_of_2(n))
    _ger_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](
        torch.view_as_real(A), torch.view_as_real(x), torch.view_as_real(y), m, n, lda, incx, incy, xbase, ybase,
        _bits(alpha.real), _bits(alpha.imag), CONJ=True, F64=A.dtype == torch.complex128, BM=BM, BN=BN, num_warps=4)
    return A
