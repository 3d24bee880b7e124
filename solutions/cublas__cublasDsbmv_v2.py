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
def _dsbmv_kernel(A, X, Y, n, k, lda, incx, incy, xbase, ybase, a_bits, b_bits, UPPER: tl.constexpr,
                  HAS_ALPHA: tl.constexpr, HAS_BETA: tl.constexpr, BM: tl.constexpr, BW: tl.constexpr):
    # y[i] = alpha * sum_{|i-j| <= k} A(i, j) x[j] + beta * y[i]; A(i, j) = A(j, i) from band storage:
    # UPPER keeps (r, c), r <= c, at (k + r - c) + c*lda; LOWER keeps r >= c at (r - c) + c*lda
    alpha = a_bits.to(tl.int64).to(tl.float64, bitcast=True)
    beta = b_bits.to(tl.int64).to(tl.float64, bitcast=True)
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BM + tl.arange(0, BM)
    rmask = rows < n
    out = tl.zeros([BM], dtype=tl.float64)
    if HAS_ALPHA:
        acc = tl.zeros([BM, BW], dtype=tl.float64)
        for t0 in range(0, 2 * k + 1, BW):
            t = t0 + tl.arange(0, BW).to(tl.int64)
            j = rows[:, None] - k + t[None, :]
            ok = rmask[:, None] & (t[None, :] <= 2 * k) & (j >= 0) & (j < n)
            r = tl.minimum(rows[:, None], j)
            c = tl.maximum(rows[:, None], j)
            if UPPER:
                off = (k + r - c) + c * lda
            else:
                off = (c - r) + r * lda
            a = tl.load(A + off, mask=ok, other=0.0)
            x = tl.load(X + xbase + j * incx, mask=ok, other=0.0)
            acc += a * x
        out = alpha * tl.sum(acc, axis=1)
    if HAS_BETA:
        out += beta * tl.load(Y + ybase + rows * incy, mask=rmask, other=0.0)
    tl.store(Y + ybase + rows * incy, out, mask=rmask)


def cublasDsbmv_v2(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    if uplo not in _UPLO:
        raise ValueError("invalid uplo flag %r" % (uplo,))
    if n <= 0:
        return y
    xbase = 0 if incx >= 0 else -(n - 1) * incx
    ybase = 0 if incy >= 0 else -(n - 1) * incy
    BM = 64 if n >= 64 else max(16, triton.next_power_of_2(n))
    BW = min(64, max(4, triton.next_power_of_2(2 * k + 1)))
    _dsbmv_kernel[(triton.cdiv(n, BM),)](
        A, x, y, n, k, lda, incx, incy, xbase, ybase, _bits(alpha), _bits(beta), UPPER=_UPLO[uplo] == 1,
        HAS_ALPHA=float(alpha) != 0.0, HAS_BETA=float(beta) != 0.0, BM=BM, BW=BW, num_warps=4)
    return y
