import triton
import triton.language as tl

_SIDE = {"L": 0, "l": 0, 0: 0, "R": 1, "r": 1, 1: 1}


@triton.jit
def _sdgmm_kernel(A, X, C, M, N, lda, ldc, incx, xbase, LEFT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM)).to(tl.int64)
    j = (tl.program_id(1) * BN + tl.arange(0, BN)).to(tl.int64)
    im = i < M
    jm = j < N
    mk = im[:, None] & jm[None, :]
    a = tl.load(A + i[:, None] + j[None, :] * lda, mask=mk, other=0.0)
    if LEFT:                                      # x has m elements (incx = 0: x[0] everywhere)
        x = tl.load(X + xbase + i * incx, mask=im, other=0.0)[:, None]
    else:
        x = tl.load(X + xbase + j * incx, mask=jm, other=0.0)[None, :]
    tl.store(C + i[:, None] + j[None, :] * ldc, a * x, mask=mk)


def cublasSdgmm(mode, m, n, A, lda, x, incx, C, ldc):
    if mode not in _SIDE:
        raise ValueError("invalid mode flag %r" % (mode,))
    if m <= 0 or n <= 0:
        return C
    left = _SIDE[mode] == 0
    nx = m if left else n
    xbase = 0 if incx >= 0 else -(nx - 1) * incx
    BM = 64 if m >= 64 else max(16, triton.next_power_of_2(m))
    BN = 32 if n >= 32 else max(16, triton.next_power_of_2(n))
    _sdgmm_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](A, x, C, m, n, lda, ldc, incx, xbase, LEFT=left,
                                                             BM=BM, BN=BN, num_warps=4)
    return C
