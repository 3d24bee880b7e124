import torch
import triton
import triton.language as tl

_CHUNK = 32  # AWQ's split-K unit: 32 rows of K


@triton.jit
def _awq_kernel(a_ptr, qw_ptr, s_ptr, qz_ptr, out_ptr, M, N, K, GS, SPLIT,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # one [BM, BN] tile of split z's partial over the 32-row chunks c = z, z + SPLIT, ...
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mm = rm < M
    nm = rn < N
    c8 = rn % 8
    shift = ((c8 // 2) + 4 * (c8 % 2)) * 4  # column 8w + c sits at nibble (0, 4, 1, 5, 2, 6, 3, 7)[c]
    wcol = rn // 8
    nw = N // 8
    rk0 = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for c in range(z, K // BK, SPLIT):
        rk = c * BK + rk0
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :], mask=mm[:, None], other=0.0)
        words = tl.load(qw_ptr + rk.to(tl.int64)[:, None] * nw + wcol[None, :], mask=nm[None, :], other=0)
        g = (c * BK) // GS  # a 32-row chunk lies in one group (GS % 32 == 0)
        zw = tl.load(qz_ptr + g.to(tl.int64) * nw + wcol, mask=nm, other=0)
        s = tl.load(s_ptr + g.to(tl.int64) * N + rn, mask=nm, other=0.0).to(tl.float32)
        q = (words >> shift[None, :]) & 15
        zz = (zw >> shift) & 15
        w = ((q - zz[None, :]).to(tl.float32) * s[None, :]).to(tl.float16)  # rd16((q - z) * s)
        acc = tl.dot(a, w, acc)
    off = z.to(tl.int64) * M * N + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(out_ptr + off, acc.to(tl.float16), mask=mm[:, None] & nm[None, :])


@triton.jit
def _sum_partials_kernel(p_ptr, out_ptr, MN, SPLIT, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for z in range(0, SPLIT):
        acc += tl.load(p_ptr + z * MN + off, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + off, acc.to(tl.float16), mask=m)


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
    bm = 16 if m <= 16 else (32 if m <= 32 else 64)
    bn = 64 if n <= 1024 or m <= 16 else 128
    dst = out if split == 1 else torch.empty((split, m, n), dtype=torch.float16, device=input.device)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), split)
    _awq_kernel[grid](a, qweight.contiguous(), scales.contiguous(), qzeros.contiguous(), dst, m, n, k, gs, split,
                      BM=bm, BN=bn, BK=_CHUNK, num_warps=4)
    if split > 1:
        mn = m * n
        _sum_partials_kernel[(triton.cdiv(mn, 1024),)](dst, out, mn, split, BLOCK=1024, num_warps=4)
    return out
