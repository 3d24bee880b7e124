import triton
import triton.language as tl


@triton.jit
def _sger_kernel(A, X, Y, m, n, lda, incx, incy, xbase, ybase, alpha, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    j = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    im, jm = i < m, j < n
    x = tl.load(X + xbase + i * incx, mask=im, other=0.0)
    y = tl.load(Y + ybase + j * incy, mask=jm, other=0.0)
    off = i[:, None] + j[None, :] * lda          # column-major: coalesced along i
    mk = im[:, None] & jm[None, :]
    a = tl.load(A + off, mask=mk, other=0.0)
    tl.store(A + off, a + (alpha * x)[:, None] * y[None, :], mask=mk)


def cublasSger_v2(m, n, alpha, x, incx, y, incy, A, lda):
    if m <= 0 or n <= 0 or float(alpha) == 0.0:
        return A                                  # alpha == 0: A untouched, x and y not read
    xbase = 0 if incx >= 0 else -(m - 1) * incx
    ybase = 0 if incy >= 0 else -(n - 1) * incy
    BM = 64 if m >= 64 else max(16, triton.next_power_of_2(m))
    BN = 32 if n >= 32 else max(16, triton.next_power_of_2(n))
    _sger_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](A, x, y, m, n, lda, incx, incy, xbase, ybase,
                                                            float(alpha), BM=BM, BN=BN, num_warps=4)
    return A
