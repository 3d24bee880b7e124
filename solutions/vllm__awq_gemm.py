import torch
import triton
import triton.language as tl

# AWQ W4A16 GEMM (vllm.md § awq_gemm). Column 8w + c of a packed row is nibble (0, 4, 1, 5, 2, 6, 3, 7)[c] of word
# w, so a [BK, BN / 8] tile of words, shifted by the 8 nibble offsets along a new last axis and reshaped, is the
# [BK, BN] tile of q in column order: every word is loaded once. W = rd16((q - z) * s) (the difference is exact, the
# fp32 product of an integer below 16 and an fp16 scale is exact, so one rounding to fp16).
#
# K is walked in steps of BK rows that each lie in one group (one row of zeros and scales per step):
# - split_k_iters == 1: BK is the largest of 128 / 64 / 32 dividing G. Where the output tiles alone fill under half
#   the SMs, the steps are cut into P contiguous ranges (an internal split-K): each writes its fp32 partial to its
#   own slab and _sum_partials_kernel adds the slabs in a fixed order and rounds once, so the result is rd16 of an
#   fp32 sum, as the spec's split 1 (only the fp32 summation order differs, inside the tolerance).
# - split_k_iters = S > 1: 32-row chunk c belongs to split c mod S, so a step is one chunk (BK = 32) and split z
#   walks the chunks z, z + S, ...; its partial is rounded to fp16 in its slab and the slabs are summed in fp32.


@triton.jit
def _awq_kernel(a_ptr, qw_ptr, s_ptr, qz_ptr, out_ptr, M, N, NW, K, GS, FIRST, STRIDE, PER,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # program z of the K axis adds the steps FIRST * z + STRIDE * i (i < PER) of BK rows into a [BM, BN] tile and
    # stores it in out's dtype: fp16 (the result, or an AWQ split's rounded partial) or fp32 (an internal partial)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    WN: tl.constexpr = BN // 8                    # word columns of a tile
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    wc = pid_n * WN + tl.arange(0, WN)
    mm = rm < M
    nm = rn < N
    wm = wc < NW                                  # NW = N / 8 words a row
    c8 = tl.arange(0, 8)
    shift = 4 * (c8 // 2 + 4 * (c8 % 2))        # nibble offset of column 8w + c: 4 * (0, 4, 1, 5, 2, 6, 3, 7)[c]
    rk0 = tl.arange(0, BK)
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * K
    first = z * FIRST
    count = tl.minimum(PER, (K // BK - first + STRIDE - 1) // STRIDE)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    # a step's scales are loaded one step ahead by hand: at 2 bytes a thread the load is too narrow for Triton's
    # asynchronous copies, so the pipeliner leaves it in the loop, where its latency would stall every step
    s_next = tl.load(s_ptr + ((first * BK) // GS).to(tl.int64) * N + rn, mask=nm & (count > 0), other=0.0)
    for i in range(0, count):
        k0 = (first + i * STRIDE) * BK
        rk = k0 + rk0
        s = s_next.to(tl.float32)
        g_next = (k0 + STRIDE * BK) // GS
        s_next = tl.load(s_ptr + g_next.to(tl.int64) * N + rn, mask=nm & (i + 1 < count), other=0.0)
        a = tl.load(a_rows + rk[None, :], mask=mm[:, None], other=0.0)
        words = tl.load(qw_ptr + rk.to(tl.int64)[:, None] * NW + wc[None, :], mask=wm[None, :], other=0)
        # & 15 after the (arithmetic) shift: the sign bits of a word never reach a field
        q = tl.reshape((words[:, :, None] >> shift[None, None, :]) & 15, [BK, BN])
        g = k0 // GS                             # the step's group
        zw = tl.load(qz_ptr + g.to(tl.int64) * NW + wc, mask=wm, other=0)
        zz = tl.reshape((zw[:, None] >> shift[None, :]) & 15, [BN])
        w = ((q - zz[None, :]).to(tl.float32) * s[None, :]).to(tl.float16)  # rd16((q - z) * s)
        acc = tl.dot(a, w, acc)
    off = z.to(tl.int64) * M * N + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(out_ptr + off, acc.to(out_ptr.dtype.element_ty), mask=mm[:, None] & nm[None, :])


@triton.jit
def _sum_partials_kernel(p_ptr, out_ptr, MN, SPLIT, BLOCK: tl.constexpr):
    # out = rd16(fp32 sum of the SPLIT slabs [SPLIT, M, N], in slab order: deterministic)
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for z in range(0, SPLIT):
        acc += tl.load(p_ptr + z * MN + off, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + off, acc.to(tl.float16), mask=m)


_CHUNK = 32       # AWQ's split-K unit: 32 rows of K
_SMS = 132        # the H100's SM count (the H200 has as many)


def _plan(m, n, k, gs, split):
    """(BM, BN, BK, num_warps, num_stages, K programs, steps per K program); the K programs are the AWQ splits when
    split > 1."""
    bm = 16 if m <= 16 else (32 if m <= 32 else (64 if m <= 64 else 128))
    # wide tiles where they still give half a wave of programs
    bn = 128 if triton.cdiv(m, bm) * triton.cdiv(n, 128) >= _SMS // 2 else 64
    warps = 8 if bm == 128 else 4               # two warpgroups share the dequantisation of a 128-row tile
    stages = 4 if bm <= 32 else 3               # small M streams the weights: more loads in flight
    if split > 1:
        return bm, bn, _CHUNK, warps, stages, split, triton.cdiv(k // _CHUNK, split)
    # the largest step in one group that keeps the dequantised [BK, BN] tile at <= 64 values a thread
    bk = next(b for b in (128, 64, 32) if gs % b == 0 and b * bn <= 64 * 32 * warps)
    steps = k // bk
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    # split K only where the tiles fill under half the SMs; then about one program per SM
    parts = 1 if 2 * tiles >= _SMS else max(1, min(steps, _SMS // tiles))
    per = triton.cdiv(steps, parts)
    return bm, bn, bk, warps, stages, triton.cdiv(steps, per), per


def awq_gemm(input, qweight, scales, qzeros, split_k_iters):
    if input.dtype != torch.float16:
        raise ValueError(f"awq_gemm: input must be fp16, got {input.dtype}")
    m, k = input.shape
    n = qweight.shape[1] * 8
    groups = scales.shape[0]
    gs = k // groups
    if k % _CHUNK or gs % _CHUNK or k % groups:
        raise ValueError(f"awq_gemm: K = {k} and the group size {gs} must be multiples of {_CHUNK}")
    split = int(split_k_iters)
    if split < 1:
        raise ValueError(f"awq_gemm: split_k_iters must be >= 1, got {split}")
    a = input.contiguous()
    out = torch.empty((m, n), dtype=torch.float16, device=input.device)
    if m == 0 or n == 0:
        return out
    bm, bn, bk, warps, stages, parts, per = _plan(m, n, k, gs, split)
    if split > 1:      # AWQ split z: chunks z, z + split, ...; fp16 partials
        first, stride = 1, split
        dst = torch.empty((split, m, n), dtype=torch.float16, device=input.device)
    else:              # internal part z: steps z * per ... z * per + per - 1; fp32 partials
        first, stride = per, 1
        dst = out if parts == 1 else torch.empty((parts, m, n), dtype=torch.float32, device=input.device)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), parts)
    _awq_kernel[grid](a, qweight.contiguous(), scales.contiguous(), qzeros.contiguous(), dst, m, n, n // 8, k, gs,
                      first, stride, per, BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)
    if parts > 1:
        mn = m * n
        _sum_partials_kernel[(triton.cdiv(mn, 1024),)](dst, out, mn, parts, BLOCK=1024, num_warps=4)
    return out
