import math

import triton
import triton.language as tl

_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}   # real data: C = T


def _bits(v):
    # the IEEE-754 bits of a float64 as a signed int64 (a Python float argument would reach the kernel as fp32)
    v = float(v)
    if v == 0.0:
        return -(1 << 63) if math.copysign(1.0, v) < 0 else 0
    m, e = math.frexp(abs(v))                  # |v| = m * 2**e, 0.5 <= m < 1 (normal numbers)
    b = ((e + 1022) << 52) | int((m * 2.0 - 1.0) * (1 << 52))
    return b - (1 << 63) if v < 0 else b


@triton.jit
def _dgemv_kernel(A, X, Y, M_out, K, s_r, s_c, incx, incy, xbase, ybase, a_bits, b_bits,
                  HAS_ALPHA: tl.constexpr, HAS_BETA: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    # y[r] = alpha * sum_c op(A)(r, c) x[c] + beta * y[r], op(A)(r, c) = A[r*s_r + c*s_c]
    alpha = a_bits.to(tl.int64).to(tl.float64, bitcast=True)
    beta = b_bits.to(tl.int64).to(tl.float64, bitcast=True)
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BM + tl.arange(0, BM)
    rmask = rows < M_out
    out = tl.zeros([BM], dtype=tl.float64)
    if HAS_ALPHA:                         # alpha == 0: A and x are not read
        acc = tl.zeros([BM, BK], dtype=tl.float64)
        for k0 in range(0, K, BK):
            cols = k0 + tl.arange(0, BK).to(tl.int64)
            cmask = cols < K
            a = tl.load(A + rows[:, None] * s_r + cols[None, :] * s_c, mask=rmask[:, None] & cmask[None, :], other=0.0)
            x = tl.load(X + xbase + cols * incx, mask=cmask, other=0.0)
            acc += a * x[None, :]
        out = alpha * tl.sum(acc, axis=1)
    if HAS_BETA:                          # beta == 0: y is not read
        out += beta * tl.load(Y + ybase + rows * incy, mask=rmask, other=0.0)
    tl.store(Y + ybase + rows * incy, out, mask=rmask)


def cublasDgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    if trans not in _TRANS:
        raise ValueError("invalid trans flag %r" % (trans,))
    t = _TRANS[trans]
    m_out, k = (m, n) if t == 0 else (n, m)
    if m_out <= 0:
        return y
    s_r, s_c = (1, lda) if t == 0 else (lda, 1)
    xbase = 0 if incx >= 0 else -(k - 1) * incx
    ybase = 0 if incy >= 0 else -(m_out - 1) * incy
    BM = 64 if m_out >= 64 else max(16, triton.next_power_of_2(m_out))
    BK = 64
    _dgemv_kernel[(triton.cdiv(m_out, BM),)](
        A, x, y, m_out, k, s_r, s_c, incx, incy, xbase, ybase, _bits(alpha), _bits(beta),
        HAS_ALPHA=float(alpha) != 0.0 and k > 0, HAS_BETA=float(beta) != 0.0, BM=BM, BK=BK, num_warps=4)
    return y
