import triton
import triton.language as tl

# |v| at or below this rounds to 0.0 in float32 (round-to-nearest-even).
_F32_ZERO_LIMIT = 2.0 ** -150
_NUM_SMS = 132


def _trans_flag(t):
    if isinstance(t, str):
        c = t.strip().upper()[:1]
        if c == "N":
            return False
        if c in ("T", "C"):
            return True
    elif not isinstance(t, bool):
        v = int(t)
        if v == 0:
            return False
        if v in (1, 2):
            return True
    raise ValueError("invalid transpose flag: %r" % (t,))


@triton.jit
def _sgemm_kernel(
    A, B, C, M, N, K,
    alpha, beta,
    s_am, s_ak, s_bk, s_bn, ldc,
    HAS_AB: tl.constexpr, READ_C: tl.constexpr,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mmask = rm < M
    nmask = rn < N
    rm64 = rm.to(tl.int64)
    rn64 = rn.to(tl.int64)

    acc = tl.zeros([BM, BN], dtype=tl.float32)
    if HAS_AB:
        rk = tl.arange(0, BK)
        a_ptrs = A + rm64[:, None] * s_am + rk[None, :].to(tl.int64) * s_ak
        b_ptrs = B + rk[:, None].to(tl.int64) * s_bk + rn64[None, :] * s_bn
        for k0 in range(0, K, BK):
            kmask = (k0 + rk) < K
            a = tl.load(a_ptrs, mask=mmask[:, None] & kmask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=kmask[:, None] & nmask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BK * s_ak
            b_ptrs += BK * s_bk
        acc = acc * alpha
    c_ptrs = C + rm64[:, None] + rn64[None, :] * ldc
    cmask = mmask[:, None] & nmask[None, :]
    if READ_C:
        c = tl.load(c_ptrs, mask=cmask, other=0.0)
        acc = acc + beta * c
    tl.store(c_ptrs, acc, mask=cmask)


def _pick_tiles(m, n, k):
    # 64x64 tiles, shrunk to 32x32 while the grid would not fill the GPU (the small
    # timed shapes are latency-bound: more programs win). Measured on an H200
    # (fp32 FMA path): 32x32x32 / 4 warps / 3 stages and 64x64x32 / 4 warps / 3 stages
    # were the best of the configurations tried for every transpose combination.
    bm, bn = 64, 64
    while triton.cdiv(m, bm) * triton.cdiv(n, bn) < _NUM_SMS and (bm > 32 or bn > 32):
        if bm >= bn:
            bm //= 2
        else:
            bn //= 2
    # skinny operands: don't waste a tile dimension
    bm = max(16, min(bm, triton.next_power_of_2(m)))
    bn = max(16, min(bn, triton.next_power_of_2(n)))
    bk = 32
    if bm * bn <= 256:
        nw = 1
    elif bm * bn <= 512:
        nw = 2
    else:
        nw = 4
    return bm, bn, bk, nw


def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    ta = _trans_flag(transa)
    tb = _trans_flag(transb)
    m, n, k = int(m), int(n), int(k)
    lda, ldb, ldc = int(lda), int(ldb), int(ldc)
    if m <= 0 or n <= 0:
        return C
    alpha = float(alpha)
    beta = float(beta)
    has_ab = k > 0 and abs(alpha) > _F32_ZERO_LIMIT
    read_c = abs(beta) > _F32_ZERO_LIMIT
    # op(A)(i, p) at i*s_am + p*s_ak ; op(B)(p, j) at p*s_bk + j*s_bn (column-major storage)
    s_am, s_ak = (lda, 1) if ta else (1, lda)
    s_bk, s_bn = (ldb, 1) if tb else (1, ldb)
    BM, BN, BK, nw = _pick_tiles(m, n, k)
    grid = (triton.cdiv(m, BM) * triton.cdiv(n, BN),)
    _sgemm_kernel[grid](
        A, B, C, m, n, k, alpha, beta,
        s_am, s_ak, s_bk, s_bn, ldc,
        HAS_AB=has_ab, READ_C=read_c,
        BM=BM, BN=BN, BK=BK, GROUP_M=8,
        num_warps=nw, num_stages=3,
    )
    return C
