import torch
import triton
import triton.language as tl

_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}


@triton.jit
def _csymv_kernel(A, X, Y, n, lda, incx, incy, xbase, ybase, ar, ai, br, bi, LOWER: tl.constexpr,
                  HAS_ALPHA: tl.constexpr, HAS_BETA: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    # complex symmetric: A(i, j) = A(j, i), read from the stored triangle only (index swap)
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BM + tl.arange(0, BM)
    rmask = rows < n
    out_r = tl.zeros([BM], dtype=tl.float32)
    out_i = tl.zeros([BM], dtype=tl.float32)
    if HAS_ALPHA:
        acc_r = tl.zeros([BM, BK], dtype=tl.float32)
        acc_i = tl.zeros([BM, BK], dtype=tl.float32)
        for k0 in range(0, n, BK):
            cols = k0 + tl.arange(0, BK).to(tl.int64)
            cmask = cols < n
            r2 = rows[:, None]
            c2 = cols[None, :]
            if LOWER:
                stored = r2 >= c2
            else:
                stored = r2 <= c2
            ri = tl.where(stored, r2, c2)
            ci = tl.where(stored, c2, r2)
            off = 2 * (ri + ci * lda)
            m2 = rmask[:, None] & cmask[None, :]
            a_r = tl.load(A + off, mask=m2, other=0.0)
            a_i = tl.load(A + off + 1, mask=m2, other=0.0)
            xo = 2 * (xbase + cols * incx)
            x_r = tl.load(X + xo, mask=cmask, other=0.0)[None, :]
            x_i = tl.load(X + xo + 1, mask=cmask, other=0.0)[None, :]
            acc_r += a_r * x_r - a_i * x_i
            acc_i += a_r * x_i + a_i * x_r
        s_r = tl.sum(acc_r, axis=1)
        s_i = tl.sum(acc_i, axis=1)
        out_r = ar * s_r - ai * s_i
        out_i = ar * s_i + ai * s_r
    yo = 2 * (ybase + rows * incy)
    if HAS_BETA:
        y_r = tl.load(Y + yo, mask=rmask, other=0.0)
        y_i = tl.load(Y + yo + 1, mask=rmask, other=0.0)
        out_r += br * y_r - bi * y_i
        out_i += br * y_i + bi * y_r
    tl.store(Y + yo, out_r, mask=rmask)
    tl.store(Y + yo + 1, out_i, mask=rmask)


def cublasCsymv_v2(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    if uplo not in _UPLO:
        raise ValueError("invalid uplo flag %r" % (uplo,))
    alpha, beta = complex(alpha), complex(beta)
    if n <= 0:
        return y
    xbase = 0 if incx >= 0 else -(n - 1) * incx
    ybase = 0 if incy >= 0 else -(n - 1) * incy
    BM = 64 if n >= 64 else max(16, triton.next_power_of_2(n))
    _csymv_kernel[(triton.cdiv(n, BM),)](
        torch.view_as_real(A), torch.view_as_real(x), torch.view_as_real(y), n, lda, incx, incy, xbase, ybase,
        alpha.real, alpha.imag, beta.real, beta.imag, LOWER=_UPLO[uplo] == 0, HAS_ALPHA=alpha != 0,
        HAS_BETA=beta != 0, BM=BM, BK=32, num_warps=4)
    return y
