import torch
import triton
import triton.language as tl

_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}
_DIAG = {"N": 0, "n": 0, 0: 0, "U": 1, "u": 1, 1: 1}


@triton.jit
def _stage_kernel(X, S, n, incx, xbase, BLOCK: tl.constexpr):
    # in place: copy the old x into a scratch vector before any output is written
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(S + i, tl.load(X + xbase + i * incx, mask=m), mask=m)


@triton.jit
def _tbmv_kernel(A, S, X, n, k, lda, incx, xbase, UPPER: tl.constexpr, TRANS: tl.constexpr, UNIT: tl.constexpr,
                 BM: tl.constexpr, BW: tl.constexpr):
    # x[i] = sum_j op(A)(i, j) s[j] over the k+1 band entries of row i of op(A)
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BM + tl.arange(0, BM)
    rmask = rows < n
    acc = tl.zeros([BM, BW], dtype=tl.float32)
    # the window of row i: j = i .. i+k when op(A) is upper (UPPER and N, or LOWER and T), else i-k .. i
    OPUP: tl.constexpr = UPPER != TRANS
    for t0 in range(0, k + 1, BW):
        t = t0 + tl.arange(0, BW).to(tl.int64)
        if OPUP:
            j = rows[:, None] + t[None, :]
        else:
            j = rows[:, None] - k + t[None, :]
        ok = rmask[:, None] & (t[None, :] <= k) & (j >= 0) & (j < n)
        # stored element A(r, c): op(A)(i, j) = A(i, j) for N, A(j, i) for T
        if TRANS:
            r = j
            c = rows[:, None]
        else:
            r = rows[:, None]
            c = j
        if UPPER:
            off = (k + r - c) + c * lda
        else:
            off = (r - c) + c * lda
        diag = r == c
        if UNIT:
            a = tl.load(A + off, mask=ok & (r != c), other=0.0)
            a = tl.where(diag & ok, 1.0, a)
        else:
            a = tl.load(A + off, mask=ok, other=0.0)
        s = tl.load(S + j, mask=ok, other=0.0)
        acc += a * s
    tl.store(X + xbase + rows * incx, tl.sum(acc, axis=1), mask=rmask)


def cublasStbmv_v2(uplo, trans, diag, n, k, A, lda, x, incx):
    for flag, table in ((uplo, _UPLO), (trans, _TRANS), (diag, _DIAG)):
        if flag not in table:
            raise ValueError("invalid flag %r" % (flag,))
    if n <= 0:
        return x
    xbase = 0 if incx >= 0 else -(n - 1) * incx
    s = torch.empty(n, dtype=torch.float32, device=x.device)
    SB = 1024 if n >= 1024 else max(16, triton.next_power_of_2(n))
    _stage_kernel[(triton.cdiv(n, SB),)](x, s, n, incx, xbase, BLOCK=SB, num_warps=4)
    BM = 64 if n >= 64 else max(16, triton.next_power_of_2(n))
    BW = min(64, max(4, triton.next_power_of_2(k + 1)))
    _tbmv_kernel[(triton.cdiv(n, BM),)](
        A, s, x, n, k, lda, incx, xbase, UPPER=_UPLO[uplo] == 1, TRANS=_TRANS[trans] == 1,
        UNIT=_DIAG[diag] == 1, BM=BM, BW=BW, num_warps=4)
    return x
