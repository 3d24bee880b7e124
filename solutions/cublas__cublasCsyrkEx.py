import torch
import triton
import triton.language as tl

_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}   # syrk: C is a plain transpose


@triton.jit
def _syrk_kernel(A, C, N, K, s_r, s_c, ldc, ar, ai, br, bi, CPLX: tl.constexpr, LOWER: tl.constexpr,
                 HAS_A: tl.constexpr, READ_C: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
    # C(i, j) = alpha sum_p op(A)(i, p) op(A)(j, p) + beta C(i, j) on the uplo triangle only; op(A)(i, p) at
    # i*s_r + p*s_c; complex data as interleaved (re, im) words, never conjugated
    W: tl.constexpr = 2 if CPLX else 1
    pi = tl.program_id(0)
    pj = tl.program_id(1)
    if LOWER:
        skip = (pi + 1) * BT <= pj * BT
    else:
        skip = pi * BT >= (pj + 1) * BT
    if not skip:                                 # tiles strictly outside the triangle are never touched
        ri = (pi * BT + tl.arange(0, BT)).to(tl.int64)
        rj = (pj * BT + tl.arange(0, BT)).to(tl.int64)
        im = ri < N
        jm = rj < N
        acc_r = tl.zeros([BT, BT], dtype=tl.float32)
        acc_i = tl.zeros([BT, BT], dtype=tl.float32)
        if HAS_A:                                # alpha == 0: A is not read
            rk = tl.arange(0, BK).to(tl.int64)
            for k0 in range(0, K, BK):
                kk = k0 + rk
                km = kk < K
                xo = (ri[:, None] * s_r + kk[None, :] * s_c) * W          # op(A) rows i      [BT, BK]
                yo = (kk[:, None] * s_c + rj[None, :] * s_r) * W          # op(A)^T cols j    [BK, BT]
                xm = im[:, None] & km[None, :]
                ym = km[:, None] & jm[None, :]
                x_r = tl.load(A + xo, mask=xm, other=0.0)
                y_r = tl.load(A + yo, mask=ym, other=0.0)
                if CPLX:
                    x_i = tl.load(A + xo + 1, mask=xm, other=0.0)
                    y_i = tl.load(A + yo + 1, mask=ym, other=0.0)
                    acc_r += tl.dot(x_r, y_r, input_precision="ieee") - tl.dot(x_i, y_i, input_precision="ieee")
                    acc_i += tl.dot(x_r, y_i, input_precision="ieee") + tl.dot(x_i, y_r, input_precision="ieee")
                else:
                    acc_r = tl.dot(x_r, y_r, acc_r, input_precision="ieee")
        out_r = ar * acc_r - ai * acc_i
        out_i = ar * acc_i + ai * acc_r
        if LOWER:
            tri = ri[:, None] >= rj[None, :]
        else:
            tri = ri[:, None] <= rj[None, :]
        cm = im[:, None] & jm[None, :] & tri
        co = (ri[:, None] + rj[None, :] * ldc) * W
        if READ_C:                               # beta == 0: C is not read
            c_r = tl.load(C + co, mask=cm, other=0.0)
            if CPLX:
                c_i = tl.load(C + co + 1, mask=cm, other=0.0)
                out_r += br * c_r - bi * c_i
                out_i += br * c_i + bi * c_r
            else:
                out_r += br * c_r
        tl.store(C + co, out_r, mask=cm)
        if CPLX:
            tl.store(C + co + 1, out_i, mask=cm)


def _syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    if uplo not in _UPLO or trans not in _TRANS:
        raise ValueError("invalid flag uplo=%r trans=%r" % (uplo, trans))
    if n <= 0:
        return C
    alpha, beta = complex(alpha), complex(beta)
    cplx = C.is_complex()
    t = _TRANS[trans]
    s_r, s_c = (lda, 1) if t else (1, lda)
    A2, C2 = (torch.view_as_real(A), torch.view_as_real(C)) if cplx else (A, C)
    BT = 32 if n >= 32 else 16
    nb = triton.cdiv(n, BT)
    _syrk_kernel[(nb, nb)](A2, C2, n, k, s_r, s_c, ldc, alpha.real, alpha.imag, beta.real, beta.imag,
                           CPLX=cplx, LOWER=_UPLO[uplo] == 0, HAS_A=alpha != 0 and k > 0, READ_C=beta != 0,
                           BT=BT, BK=32, num_warps=4)
    return C

_CUDA_C_32F = 4


def cublasCsyrkEx(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
    if (Atype, Ctype) != (_CUDA_C_32F, _CUDA_C_32F):
        raise ValueError("cublasCsyrkEx: only Atype = Ctype = CUDA_C_32F (4) is implemented, got %r"
                         % ((Atype, Ctype),))
    return _syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)
