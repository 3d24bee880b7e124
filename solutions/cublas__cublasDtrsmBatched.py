import math

import torch
import triton
import triton.language as tl

_SIDE = {"L": 0, "l": 0, 0: 0, "R": 1, "r": 1, 1: 1}
_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 2, "c": 2, 2: 2}
_DIAG = {"N": 0, "n": 0, 0: 0, "U": 1, "u": 1, 1: 1}


def _bits(v):
    # the IEEE-754 bits of a float64 as a signed int64 (a Python float argument would reach the kernel as fp32)
    v = float(v)
    if v == 0.0:
        return -(1 << 63) if math.copysign(1.0, v) < 0 else 0
    m, e = math.frexp(abs(v))                  # |v| = m * 2**e, 0.5 <= m < 1 (normal numbers)
    b = ((e + 1022) << 52) | int((m * 2.0 - 1.0) * (1 << 52))
    return b - (1 << 63) if v < 0 else b


@triton.jit
def _trsm_ptr_kernel(AP, BP, KA, NC, s_mi, s_mj, s_yi, s_yc, ar_, ai_,
                     CPLX: tl.constexpr, CONJ: tl.constexpr, LOWER: tl.constexpr, UNIT: tl.constexpr,
                     ZERO: tl.constexpr, KP: tl.constexpr, BC: tl.constexpr):
    # Solve M Y = alpha Y0 for one batch (grid axis 1) and BC right-hand sides (grid axis 0), M = op(A) (LEFT)
    # or op(A)^T (RIGHT), triangular (LOWER: forward substitution, else backward); M(i, j) at i*s_mi + j*s_mj
    # of A_b, Y(i, c) at i*s_yi + c*s_yc of B_b. The KA x BC block of Y stays in registers: each step divides
    # one row by the diagonal and updates every unsolved row with one column of M (right-looking), reading
    # only the referenced triangle (and the diagonal unless UNIT). fp64; complex as interleaved words.
    W: tl.constexpr = 2 if CPLX else 1
    bat = tl.program_id(1)
    ar = ar_.to(tl.int64).to(tl.float64, bitcast=True)
    ai = ai_.to(tl.int64).to(tl.float64, bitcast=True)
    Bb = tl.load(BP + bat).to(tl.pointer_type(tl.float64))
    rows = tl.arange(0, KP).to(tl.int64)
    cols = (tl.program_id(0) * BC + tl.arange(0, BC)).to(tl.int64)
    rm = rows < KA
    cm = cols < NC
    y_off = (rows[:, None] * s_yi + cols[None, :] * s_yc) * W
    ym = rm[:, None] & cm[None, :]
    if ZERO:                                   # alpha == 0: B = 0, B not read
        zero = tl.zeros([KP, BC], dtype=tl.float64)
        tl.store(Bb + y_off, zero, mask=ym)
        if CPLX:
            tl.store(Bb + y_off + 1, zero, mask=ym)
    else:
        Ab = tl.load(AP + bat).to(tl.pointer_type(tl.float64))
        b_r = tl.load(Bb + y_off, mask=ym, other=0.0)
        b_i = tl.zeros([KP, BC], dtype=tl.float64)
        if CPLX:
            b_i = tl.load(Bb + y_off + 1, mask=ym, other=0.0)
        y_r = ar * b_r - ai * b_i
        y_i = ar * b_i + ai * b_r
        for step in range(0, KA):
            if LOWER:
                k = step
            else:
                k = KA - 1 - step
            sel = (rows == k)[:, None]
            # row k of Y (already fully updated) divided by M(k, k)
            xk_r = tl.sum(tl.where(sel, y_r, 0.0), axis=0)
            xk_i = tl.sum(tl.where(sel, y_i, 0.0), axis=0)
            if not UNIT:
                d_r = tl.load(Ab + (k * s_mi + k * s_mj) * W)
                if CPLX:
                    d_i = tl.load(Ab + (k * s_mi + k * s_mj) * W + 1)
                    if CONJ:
                        d_i = -d_i
                    den = d_r * d_r + d_i * d_i
                    t_r = (xk_r * d_r + xk_i * d_i) / den
                    t_i = (xk_i * d_r - xk_r * d_i) / den
                    xk_r = t_r
                    xk_i = t_i
                else:
                    xk_r = xk_r / d_r
            # column k of M below (LOWER) or above the diagonal: the referenced triangle only
            if LOWER:
                below = rm & (rows > k)
            else:
                below = rows < k
            m_off = (rows * s_mi + k * s_mj) * W
            c_r = tl.load(Ab + m_off, mask=below, other=0.0)[:, None]
            c_i = tl.zeros([KP, 1], dtype=tl.float64)
            if CPLX:
                c_i = tl.load(Ab + m_off + 1, mask=below, other=0.0)[:, None]
                if CONJ:
                    c_i = -c_i
            y_r = tl.where(sel, xk_r[None, :], y_r - (c_r * xk_r[None, :] - c_i * xk_i[None, :]))
            y_i = tl.where(sel, xk_i[None, :], y_i - (c_r * xk_i[None, :] + c_i * xk_r[None, :]))
        tl.store(Bb + y_off, y_r, mask=ym)
        if CPLX:
            tl.store(Bb + y_off + 1, y_i, mask=ym)


def _trsm_batched(dtype, side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batch):
    # dtype: the routine's element type (the pointer arrays carry addresses only)
    for flag, table, what in ((side, _SIDE, "side"), (uplo, _UPLO, "uplo"), (trans, _TRANS, "trans"),
                              (diag, _DIAG, "diag")):
        if flag not in table:
            raise ValueError("invalid %s flag %r" % (what, flag))
    left, lower_a, t, unit = _SIDE[side] == 0, _UPLO[uplo] == 0, _TRANS[trans], _DIAG[diag] == 1
    if m <= 0 or n <= 0 or batch <= 0:
        return Barray
    cplx = dtype.is_complex
    alpha = complex(alpha) if cplx else complex(float(complex(alpha).real))
    ka, nc = (m, n) if left else (n, m)
    # M = op(A) (LEFT) or op(A)^T (RIGHT): each transpose swaps the strides and the triangle
    transposed = (t != 0) != (not left)
    s_mi, s_mj = (lda, 1) if transposed else (1, lda)
    lower = lower_a != transposed
    s_yi, s_yc = (1, ldb) if left else (ldb, 1)
    KP = max(16, triton.next_power_of_2(ka))
    BC = 16 if KP <= 64 else (8 if KP <= 256 else 4)
    _trsm_ptr_kernel[(triton.cdiv(nc, BC), batch)](
        Aarray, Barray, ka, nc, s_mi, s_mj, s_yi, s_yc, _bits(alpha.real), _bits(alpha.imag),
        CPLX=cplx, CONJ=cplx and t == 2, LOWER=lower, UNIT=unit, ZERO=alpha == 0, KP=KP, BC=BC, num_warps=4)
    return Barray


def cublasDtrsmBatched(side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount):
    return _trsm_batched(torch.float64, side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount)
