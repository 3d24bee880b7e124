import math

import torch
import triton
import triton.language as tl

_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 2, "c": 2, 2: 2}


def _bits(v):
    # the IEEE-754 bits of a float64 as a signed int64 (a Python float argument would reach the kernel as fp32)
    v = float(v)
    if v == 0.0:
        return -(1 << 63) if math.copysign(1.0, v) < 0 else 0
    m, e = math.frexp(abs(v))                  # |v| = m * 2**e, 0.5 <= m < 1 (normal numbers)
    b = ((e + 1022) << 52) | int((m * 2.0 - 1.0) * (1 << 52))
    return b - (1 << 63) if v < 0 else b


@triton.jit
def _gemv_ptr_kernel(AP, XP, YP, M_out, K, s_r, s_c, incx, incy, xbase, ybase, ar_, ai_, br_, bi_,
                     F64: tl.constexpr, CPLX: tl.constexpr, CONJ: tl.constexpr, HAS_ALPHA: tl.constexpr,
                     HAS_BETA: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    # y_b[r] = alpha * sum_c op(A_b)(r, c) x_b[c] + beta * y_b[r], op(A)(r, c) = A[r*s_r + c*s_c]; A_b, x_b, y_b
    # at the device addresses AP[b], XP[b], YP[b]; complex data as interleaved (re, im) words (W = 2 per element)
    W: tl.constexpr = 2 if CPLX else 1
    bat = tl.program_id(1)
    if F64:
        ar = ar_.to(tl.int64).to(tl.float64, bitcast=True)
        ai = ai_.to(tl.int64).to(tl.float64, bitcast=True)
        br = br_.to(tl.int64).to(tl.float64, bitcast=True)
        bi = bi_.to(tl.int64).to(tl.float64, bitcast=True)
        ACC: tl.constexpr = tl.float64
        Y = tl.load(YP + bat).to(tl.pointer_type(tl.float64))
    else:
        ar = ar_
        ai = ai_
        br = br_
        bi = bi_
        ACC: tl.constexpr = tl.float32
        Y = tl.load(YP + bat).to(tl.pointer_type(tl.float32))
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BM + tl.arange(0, BM)
    rmask = rows < M_out
    out_r = tl.zeros([BM], dtype=ACC)
    out_i = tl.zeros([BM], dtype=ACC)
    if HAS_ALPHA:                              # alpha == 0: A and x are not read
        if F64:
            Ab = tl.load(AP + bat).to(tl.pointer_type(tl.float64))
            Xb = tl.load(XP + bat).to(tl.pointer_type(tl.float64))
        else:
            Ab = tl.load(AP + bat).to(tl.pointer_type(tl.float32))
            Xb = tl.load(XP + bat).to(tl.pointer_type(tl.float32))
        acc_r = tl.zeros([BM, BK], dtype=ACC)
        acc_i = tl.zeros([BM, BK], dtype=ACC)
        for k0 in range(0, K, BK):
            cols = k0 + tl.arange(0, BK).to(tl.int64)
            cmask = cols < K
            off = (rows[:, None] * s_r + cols[None, :] * s_c) * W
            m2 = rmask[:, None] & cmask[None, :]
            xo = (xbase + cols * incx) * W
            a_r = tl.load(Ab + off, mask=m2, other=0.0)
            x_r = tl.load(Xb + xo, mask=cmask, other=0.0)[None, :]
            if CPLX:
                a_i = tl.load(Ab + off + 1, mask=m2, other=0.0)
                if CONJ:
                    a_i = -a_i
                x_i = tl.load(Xb + xo + 1, mask=cmask, other=0.0)[None, :]
                acc_r += a_r * x_r - a_i * x_i
                acc_i += a_r * x_i + a_i * x_r
            else:
                acc_r += a_r * x_r
        s_r_ = tl.sum(acc_r, axis=1)
        s_i_ = tl.sum(acc_i, axis=1)
        out_r = ar * s_r_ - ai * s_i_
        out_i = ar * s_i_ + ai * s_r_
    yo = (ybase + rows * incy) * W
    if HAS_BETA:                               # beta == 0: y is not read
        y_r = tl.load(Y + yo, mask=rmask, other=0.0)
        if CPLX:
            y_i = tl.load(Y + yo + 1, mask=rmask, other=0.0)
            out_r += br * y_r - bi * y_i
            out_i += br * y_i + bi * y_r
        else:
            out_r += br * y_r
    tl.store(Y + yo, out_r, mask=rmask)
    if CPLX:
        tl.store(Y + yo + 1, out_i, mask=rmask)


def _gemv_batched(dtype, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batch):
    # dtype: the routine's element type (the pointer arrays carry addresses only)
    if trans not in _TRANS:
        raise ValueError("invalid trans flag %r" % (trans,))
    t = _TRANS[trans]
    cplx = dtype.is_complex
    f64 = dtype in (torch.float64, torch.complex128)
    alpha, beta = complex(alpha), complex(beta)
    if not cplx:
        alpha, beta = complex(alpha.real), complex(beta.real)
    m_out, k = (m, n) if t == 0 else (n, m)
    if m_out <= 0 or batch <= 0:
        return yarray
    s_r, s_c = (1, lda) if t == 0 else (lda, 1)
    xbase = 0 if incx >= 0 else -(k - 1) * incx
    ybase = 0 if incy >= 0 else -(m_out - 1) * incy
    if f64:
        sc = (_bits(alpha.real), _bits(alpha.imag), _bits(beta.real), _bits(beta.imag))
    else:
        sc = (alpha.real, alpha.imag, beta.real, beta.imag)
    has_alpha = k > 0 and alpha != 0
    has_beta = beta != 0
    BM = 64 if m_out >= 64 else max(16, triton.next_power_of_2(m_out))
    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), batch)](
        Aarray, xarray, yarray, m_out, k, s_r, s_c, incx, incy, xbase, ybase, *sc,
        F64=f64, CPLX=cplx, CONJ=cplx and t == 2, HAS_ALPHA=has_alpha, HAS_BETA=has_beta,
        BM=BM, BK=32, num_warps=4)
    return yarray


def cublasSgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    return _gemv_batched(torch.float32, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount)
