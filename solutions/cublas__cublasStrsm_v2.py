import triton
import triton.language as tl

_SIDE = {"L": 0, "l": 0, 0: 0, "R": 1, "r": 1, 1: 1}
_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}
_DIAG = {"N": 0, "n": 0, 0: 0, "U": 1, "u": 1, 1: 1}


@triton.jit
def _trsm_kernel(A, Z, R, Q, s_tr, s_tc, s_zr, s_zc, alpha, LOWER: tl.constexpr, UNIT: tl.constexpr,
                 HAS_ALPHA: tl.constexpr, BS: tl.constexpr, BQ: tl.constexpr):
    # Blocked substitution for T Y = alpha Z, T (R x R) lower or upper triangular with T(r, c) at
    # r*s_tr + c*s_tc, Z (R x Q) at r*s_zr + c*s_zc, overwritten by Y. Columns of Z are independent: each
    # program owns BQ of them and walks the BS-row blocks in dependency order. A block's right-hand side is
    # updated with the already solved blocks (read back from Z) through tl.dot, then the diagonal block is
    # solved by substitution in registers.
    cq = (tl.program_id(0) * BQ + tl.arange(0, BQ)).to(tl.int64)
    qm = cq < Q
    ii = tl.arange(0, BS)[:, None]
    jj = tl.arange(0, BS)[None, :]
    nb = tl.cdiv(R, BS)
    for step in range(0, nb):
        if LOWER:
            blk = step
        else:
            blk = nb - 1 - step
        r = (blk * BS + tl.arange(0, BS)).to(tl.int64)
        rm = r < R
        zo = r[:, None] * s_zr + cq[None, :] * s_zc
        zm = rm[:, None] & qm[None, :]
        if HAS_ALPHA:
            rhs = alpha * tl.load(Z + zo, mask=zm, other=0.0)
            if LOWER:
                lo = 0
                hi = blk
            else:
                lo = blk + 1
                hi = nb
            for jb in range(lo, hi):             # blocks solved earlier by this program
                c = (jb * BS + tl.arange(0, BS)).to(tl.int64)
                cm = c < R
                t = tl.load(A + r[:, None] * s_tr + c[None, :] * s_tc, mask=rm[:, None] & cm[None, :], other=0.0)
                x = tl.load(Z + c[:, None] * s_zr + cq[None, :] * s_zc, mask=cm[:, None] & qm[None, :], other=0.0)
                rhs -= tl.dot(t, x, input_precision="ieee")
            # diagonal block: only its referenced strict triangle (and the diagonal unless UNIT) is read
            if LOWER:
                strict = jj < ii
            else:
                strict = jj > ii
            d = tl.load(A + r[:, None] * s_tr + r[None, :] * s_tc, mask=strict & rm[:, None] & rm[None, :],
                        other=0.0)
            if UNIT:
                dg = tl.full([BS], 1.0, tl.float32)
            else:
                dg = tl.load(A + r * (s_tr + s_tc), mask=rm, other=1.0)
            y = tl.zeros([BS, BQ], dtype=tl.float32)
            for t_ in range(0, BS):
                if LOWER:
                    p = t_
                else:
                    p = BS - 1 - t_
                drow = tl.sum(tl.where(ii == p, d, 0.0), axis=0)            # T(p, :) strict part
                rp = tl.sum(tl.where(ii == p, rhs, 0.0), axis=0)            # rhs row p
                dp = tl.sum(tl.where(tl.arange(0, BS) == p, dg, 0.0), axis=0)
                yp = (rp - tl.sum(drow[:, None] * y, axis=0)) / dp
                y = tl.where(ii == p, yp[None, :], y)
            tl.store(Z + zo, y, mask=zm)
            tl.debug_barrier()                   # the block is read back by this program's later steps
        else:                                    # alpha == 0: B = 0 without reading B
            tl.store(Z + zo, tl.zeros([BS, BQ], dtype=tl.float32), mask=zm)


def cublasStrsm_v2(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    for flag, table in ((side, _SIDE), (uplo, _UPLO), (trans, _TRANS), (diag, _DIAG)):
        if flag not in table:
            raise ValueError("invalid flag %r" % (flag,))
    if m <= 0 or n <= 0:
        return B
    lower, tr = _UPLO[uplo] == 0, _TRANS[trans] == 1
    if _SIDE[side] == 0:                         # op(A) X = alpha B: T = op(A), Z = B
        R, Q = m, n
        s_zr, s_zc = 1, ldb
        s_tr, s_tc = (lda, 1) if tr else (1, lda)
        lower_eff = lower != tr
    else:                                        # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
        R, Q = n, m
        s_zr, s_zc = ldb, 1
        s_tr, s_tc = (1, lda) if tr else (lda, 1)
        lower_eff = lower == tr
    BS = 32 if R >= 32 else 16
    BQ = 32 if Q >= 32 else 16
    alpha = float(alpha)
    _trsm_kernel[(triton.cdiv(Q, BQ),)](A, B, R, Q, s_tr, s_tc, s_zr, s_zc, alpha, LOWER=lower_eff,
                                        UNIT=_DIAG[diag] == 1, HAS_ALPHA=abs(alpha) > 2.0 ** -150,
                                        BS=BS, BQ=BQ, num_warps=4)
    return B
