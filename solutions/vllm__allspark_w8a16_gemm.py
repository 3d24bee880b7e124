import torch
import triton
import triton.language as tl


@triton.jit
def _allspark_kernel(a_ptr, qw_ptr, s_ptr, z_ptr, out_ptr, M, N, K,
                     HAS_ZP: tl.constexpr, OUT_BF16: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C tile [BM, BN] of logical columns j; weights decoded from the N32K16 byte reorder, dequantised in T
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    j = pid_n * BN + tl.arange(0, BN)
    mm = rm < M
    nm = j < N
    # column part of the byte offset: j = 128by + 32g + 16(p mod 2) + 8(u // 4) + e -> row 32by + 8g + e of R
    rj = j % 32
    row = 32 * (j // 128) + 8 * ((j % 128) // 32) + rj % 8
    off_j = row.to(tl.int64) * (4 * K) + 8 * (rj // 16) + 4 * ((rj % 16) // 8)
    # scales/zeros: s[32G + i] at 32G + 4(i mod 8) + i // 8 of the reordered row
    sidx = (j // 32) * 32 + 4 * (j % 8) + rj // 8
    s = tl.load(s_ptr + sidx, mask=nm, other=0.0).to(tl.float32)
    if HAS_ZP:
        z = tl.load(z_ptr + sidx, mask=nm, other=0.0).to(tl.float32)
    rk0 = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + rk0
        km = rk < K
        # row part: k = 64bx + 16w + 2(p // 2) + 8((u mod 4) // 2) + (u mod 2) -> column 256bx + 64w + 8p + u
        r16 = rk % 16
        off_k = 256 * (rk // 64) + 64 * ((rk % 64) // 16) + 16 * ((r16 % 8) // 2) + 2 * (r16 // 8) + r16 % 2
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :], mask=mm[:, None] & km[None, :], other=0.0)
        q = tl.load(qw_ptr + off_k.to(tl.int64)[:, None] + off_j[None, :], mask=km[:, None] & nm[None, :], other=128)
        v = q.to(tl.float32) - 128.0
        if HAS_ZP:
            v = (v - z[None, :]).to(a.dtype).to(tl.float32)  # rd_T(v - z)
        w = (v * s[None, :]).to(a.dtype)  # rd_T(v * s)
        acc = tl.dot(a, w, acc)
    if OUT_BF16:
        res = acc.to(tl.bfloat16)
    else:
        res = acc.to(tl.float16)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + j[None, :], res, mask=mm[:, None] & nm[None, :])


def allspark_w8a16_gemm(a, b_qweight, b_scales, b_qzeros, n, group_size, sm_count, sm_version,
                        CUBLAS_M_THRESHOLD, has_zp, n32k16_reorder):
    if group_size != -1:
        raise NotImplementedError(f"allspark_w8a16_gemm: only per-channel weights (group_size -1), got {group_size}")
    if a.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError(f"allspark_w8a16_gemm: a must be fp16 or bf16, got {a.dtype}")
    m, k = a.shape
    n32 = (n + 31) // 32 * 32
    if tuple(b_qweight.shape) != (n32, k) or k % 16:
        raise ValueError(f"allspark_w8a16_gemm: b_qweight must be [{n32}, {k}] with K % 16 == 0")
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return out
    bm = 16 if m <= 16 else (32 if m <= 32 else 64)
    bn = 32 if n <= 64 else (64 if n <= 1024 or m <= 16 else 128)
    bk = 64 if k % 64 == 0 else (32 if k % 32 == 0 else 16)
    zp = b_qzeros is not None
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _allspark_kernel[grid](a.contiguous(), b_qweight.contiguous(), b_scales.contiguous(),
                           b_qzeros.contiguous() if zp else b_scales, out, m, n, k,
                           HAS_ZP=zp, OUT_BF16=a.dtype == torch.bfloat16, BM=bm, BN=bn, BK=bk, num_warps=4)
    return out
