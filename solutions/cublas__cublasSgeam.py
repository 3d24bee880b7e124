import triton
import triton.language as tl

_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}


@triton.jit
def _sgeam_kernel(A, B, C, M, N, sar, sac, sbr, sbc, ldc, alpha, beta, HAS_A: tl.constexpr, HAS_B: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr):
    # C(i, j) = alpha op(A)(i, j) + beta op(B)(i, j); op(X)(i, j) at i*sxr + j*sxc. Each element is read
    # and written by one program, so C may be A itself (transa N, lda = ldc).
    i = (tl.program_id(0) * BM + tl.arange(0, BM)).to(tl.int64)
    j = (tl.program_id(1) * BN + tl.arange(0, BN)).to(tl.int64)
    mk = (i < M)[:, None] & (j < N)[None, :]
    out = tl.zeros([BM, BN], dtype=tl.float32)
    if HAS_A:                                     # alpha == 0: A is not read
        out += alpha * tl.load(A + i[:, None] * sar + j[None, :] * sac, mask=mk, other=0.0)
    if HAS_B:                                     # beta == 0: B is not read
        out += beta * tl.load(B + i[:, None] * sbr + j[None, :] * sbc, mask=mk, other=0.0)
    tl.store(C + i[:, None] + j[None, :] * ldc, out, mask=mk)


def cublasSgeam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    if transa not in _TRANS or transb not in _TRANS:
        raise ValueError("invalid trans flag %r / %r" % (transa, transb))
    if m <= 0 or n <= 0:
        return C
    sar, sac = (lda, 1) if _TRANS[transa] else (1, lda)
    sbr, sbc = (ldb, 1) if _TRANS[transb] else (1, ldb)
    BM = 64 if m >= 64 else max(16, triton.next_power_of_2(m))
    BN = 32 if n >= 32 else max(16, triton.next_power_of_2(n))
    _sgeam_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](
        A, B, C, m, n, sar, sac, sbr, sbc, ldc, float(alpha), float(beta),
        HAS_A=abs(float(alpha)) > 2.0 ** -150, HAS_B=abs(float(beta)) > 2.0 ** -150, BM=BM, BN=BN, num_warps=4)
    return C
