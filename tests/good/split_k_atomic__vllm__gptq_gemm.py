"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm as a split-K GEMM: each program computes the fp32
partial of one K-slice (whole quantisation groups) of a C tile and ``tl.atomic_add``s it into an fp32 workspace
(``torch.zeros``, allocated in the call); a second kernel rounds the workspace to the fp16 output. The K-slices'
fp32 sums arrive in any order (atomics): fp32 accumulation in some order, as the policy allows."""
import torch
import triton
import triton.language as tl


@triton.jit
def _split_kernel(a_ptr, qw_ptr, qz_ptr, s_ptr, gidx_ptr, ws_ptr, M, N, K, GS, ZOFF, KSLICE,
                  BIT: tl.constexpr, HAS_GIDX: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    PF: tl.constexpr = 32 // BIT
    MASK: tl.constexpr = (1 << BIT) - 1
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    k_lo = tl.program_id(2) * KSLICE
    mm = rm < M
    nm = rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(k_lo, k_lo + KSLICE, BK):
        rk = k0 + tl.arange(0, BK)
        if HAS_GIDX:
            col = tl.load(gidx_ptr + rk).to(tl.int64)
        else:
            col = rk.to(tl.int64)
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + col[None, :], mask=mm[:, None], other=0.0)
        j = rk % PF
        if BIT == 4:
            shift = ((j // 2) + 4 * (j % 2)) * 4
        else:
            shift = j * BIT
        words = tl.load(qw_ptr + (rk // PF).to(tl.int64)[:, None] * N + rn[None, :], mask=nm[None, :], other=0)
        q = (words >> shift[:, None]) & MASK
        g = (k0 // GS).to(tl.int64)
        zw = tl.load(qz_ptr + g * (N // PF) + rn // PF, mask=nm, other=0)
        z = ((zw >> ((rn % PF) * BIT)) & MASK) + ZOFF
        s = tl.load(s_ptr + g * N + rn, mask=nm, other=0.0).to(tl.float32)
        acc += tl.dot(a, (q - z[None, :]).to(tl.float16)) * s[None, :]
    tl.atomic_add(ws_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc, mask=mm[:, None] & nm[None, :])


@triton.jit
def _round_kernel(ws_ptr, out_ptr, MN, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < MN
    tl.store(out_ptr + off, tl.load(ws_ptr + off, mask=m, other=0.0).to(tl.float16), mask=m)


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format, bit):
    if not use_exllama or bit not in (4, 8):
        raise NotImplementedError("gptq_gemm: exllama path, 4 or 8 bits only")
    m = a.shape[0]
    k = b_q_weight.shape[0] * 32 // bit
    n = b_q_weight.shape[1]
    gs = k // b_gptq_qzeros.shape[0]
    if gs % 16:
        raise NotImplementedError("gptq_gemm: group size must be a multiple of 16")
    bk = 32 if gs % 32 == 0 else 16
    has_gidx = b_g_idx is not None and not b_g_idx.is_meta and b_g_idx.numel() > 0
    out = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return out
    splits = 2 if (k // gs) % 2 == 0 else 1
    ws = torch.zeros((m, n), dtype=torch.float32, device=a.device)
    gidx = b_g_idx.contiguous() if has_gidx else ws
    _split_kernel[(triton.cdiv(m, 16), triton.cdiv(n, 64), splits)](
        a.contiguous(), b_q_weight.contiguous(), b_gptq_qzeros.contiguous(), b_gptq_scales.contiguous(), gidx, ws,
        m, n, k, gs, 0 if use_v2_format else 1, k // splits, BIT=bit, HAS_GIDX=has_gidx, BM=16, BN=64, BK=bk)
    _round_kernel[(triton.cdiv(m * n, 1024),)](ws, out, m * n, BLOCK=1024)
    return out
