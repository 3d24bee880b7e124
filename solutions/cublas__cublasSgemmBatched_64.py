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
def _mma(a, b, KIND: tl.constexpr):
    # KIND 0: fp32 (true fp32, no TF32); 1: fp64 (DMMA; added to the accumulator outside, the three-argument
    # form does not compile for fp64 on sm_90); 2: fp16 inputs with fp32 accumulation
    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    else:
        return tl.dot(a, b)


@triton.jit
def _elt_ptr(addr, KIND: tl.constexpr):
    # an address loaded from a pointer array, as a pointer to the routine's (real) element type
    if KIND == 1:
        return addr.to(tl.pointer_type(tl.float64))
    elif KIND == 2:
        return addr.to(tl.pointer_type(tl.float16))
    else:
        return addr.to(tl.pointer_type(tl.float32))


@triton.jit
def _gemm_ptr_kernel(AP, BP, CP, M, N, K, s_am, s_ak, s_bk, s_bn, ldc, ar_, ai_, br_, bi_,
                 KIND: tl.constexpr, CPLX: tl.constexpr, CONJ_A: tl.constexpr, CONJ_B: tl.constexpr,
                 HAS_AB: tl.constexpr, READ_C: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C_b = alpha op(A_b) op(B_b) + beta C_b; op(A)(i, p) at i*s_am + p*s_ak, op(B)(p, j) at p*s_bk + j*s_bn;
    # X_b at the device address XP[b]. Complex data: interleaved (re, im) words, W = 2 words per element.
    W: tl.constexpr = 2 if CPLX else 1
    if KIND == 1:
        ar = ar_.to(tl.int64).to(tl.float64, bitcast=True)
        ai = ai_.to(tl.int64).to(tl.float64, bitcast=True)
        br = br_.to(tl.int64).to(tl.float64, bitcast=True)
        bi = bi_.to(tl.int64).to(tl.float64, bitcast=True)
        ACC: tl.constexpr = tl.float64
    else:
        ar = ar_
        ai = ai_
        br = br_
        bi = bi_
        if KIND == 2:                              # fp16 scalars
            ar = ar.to(tl.float16).to(tl.float32)
            br = br.to(tl.float16).to(tl.float32)
        ACC: tl.constexpr = tl.float32
    pid = tl.program_id(0)
    bat = tl.program_id(1).to(tl.int64)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    rm = (pm * BM + tl.arange(0, BM)).to(tl.int64)
    rn = (pn * BN + tl.arange(0, BN)).to(tl.int64)
    mm = rm < M
    nm = rn < N
    acc_r = tl.zeros([BM, BN], dtype=ACC)
    acc_i = tl.zeros([BM, BN], dtype=ACC)
    Cb = _elt_ptr(tl.load(CP + bat), KIND)
    if HAS_AB:                                     # alpha == 0 or k == 0: A and B are not read
        Ab = _elt_ptr(tl.load(AP + bat), KIND)
        Bb = _elt_ptr(tl.load(BP + bat), KIND)
        rk = tl.arange(0, BK).to(tl.int64)
        for k0 in range(0, K, BK):
            kk = k0 + rk
            km = kk < K
            a_off = (rm[:, None] * s_am + kk[None, :] * s_ak) * W
            b_off = (kk[:, None] * s_bk + rn[None, :] * s_bn) * W
            am = mm[:, None] & km[None, :]
            bm = km[:, None] & nm[None, :]
            a_r = tl.load(Ab + a_off, mask=am, other=0.0)
            b_r = tl.load(Bb + b_off, mask=bm, other=0.0)
            if CPLX:
                a_i = tl.load(Ab + a_off + 1, mask=am, other=0.0)
                b_i = tl.load(Bb + b_off + 1, mask=bm, other=0.0)
                if CONJ_A:
                    a_i = -a_i
                if CONJ_B:
                    b_i = -b_i
                # four real products on the de-interleaved tiles: Re = ArBr - AiBi, Im = ArBi + AiBr
                acc_r += _mma(a_r, b_r, KIND) - _mma(a_i, b_i, KIND)
                acc_i += _mma(a_r, b_i, KIND) + _mma(a_i, b_r, KIND)
            else:
                acc_r += _mma(a_r, b_r, KIND)
    out_r = ar * acc_r - ai * acc_i
    out_i = ar * acc_i + ai * acc_r
    c_off = (rm[:, None] + rn[None, :] * ldc) * W
    cm = mm[:, None] & nm[None, :]
    if READ_C:                                     # beta == 0: C is not read
        c_r = tl.load(Cb + c_off, mask=cm, other=0.0).to(ACC)
        if CPLX:
            c_i = tl.load(Cb + c_off + 1, mask=cm, other=0.0).to(ACC)
            out_r += br * c_r - bi * c_i
            out_i += br * c_i + bi * c_r
        else:
            out_r += br * c_r
    tl.store(Cb + c_off, out_r.to(Cb.dtype.element_ty), mask=cm)
    if CPLX:
        tl.store(Cb + c_off + 1, out_i.to(Cb.dtype.element_ty), mask=cm)


def _gemm_batched(dtype, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batch):
    # dtype: the routine's element type (the pointer arrays carry addresses only)
    if transa not in _TRANS or transb not in _TRANS:
        raise ValueError("invalid trans flag %r / %r" % (transa, transb))
    ta, tb = _TRANS[transa], _TRANS[transb]
    if m <= 0 or n <= 0 or batch <= 0:
        return Carray
    cplx = dtype.is_complex
    kind = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.complex64: 0, torch.complex128: 1}[dtype]
    alpha, beta = complex(alpha), complex(beta)
    if not cplx:
        alpha, beta = complex(alpha.real), complex(beta.real)
    # a scalar that rounds to zero in the routine's type counts as zero (fp16: |v| <= 2**-25; fp32: 2**-150)
    zero = 2.0 ** -25 if kind == 2 else (2.0 ** -150 if kind == 0 else 0.0)
    has_ab = k > 0 and abs(alpha) > zero
    read_c = abs(beta) > zero
    s_am, s_ak = (lda, 1) if ta else (1, lda)
    s_bk, s_bn = (ldb, 1) if tb else (1, ldb)
    if kind == 1:
        sc = (_bits(alpha.real), _bits(alpha.imag), _bits(beta.real), _bits(beta.imag))
    else:
        sc = (alpha.real, alpha.imag, beta.real, beta.imag)
    BM = 64 if m >= 64 else max(16, triton.next_power_of_2(m))
    BN = 64 if n >= 64 else max(16, triton.next_power_of_2(n))
    BK = 16 if kind == 1 else 32
    grid = (triton.cdiv(m, BM) * triton.cdiv(n, BN), batch)
    _gemm_ptr_kernel[grid](Aarray, Barray, Carray, m, n, k, s_am, s_ak, s_bk, s_bn, ldc, *sc,
                           KIND=kind, CPLX=cplx, CONJ_A=cplx and ta == 2, CONJ_B=cplx and tb == 2,
                           HAS_AB=has_ab, READ_C=read_c, BM=BM, BN=BN, BK=BK, num_warps=4)
    return Carray


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    return _gemm_batched(torch.float32, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
                         batchCount)
