"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm in two Triton launches, as vLLM's own M > 50 path
does: a first kernel dequantises the packed weights into a temporary fp16 ``W [K, N] = rd16((q - z) * s)``
(allocated with ``torch.empty`` in the call), a second kernel is a plain fp16 GEMM of the gathered activations
``a[:, b_g_idx]`` with that temporary (``tl.dot``, fp32 accumulator). The fp16 rounding of W is what the row's
tolerance allows (8 standard deviations of fp16 term rounding). Every value is computed in Triton."""
import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_kernel(qw_ptr, qz_ptr, s_ptr, w_ptr, N, K, GS, ZOFF, BIT: tl.constexpr,
                    BK: tl.constexpr, BN: tl.constexpr):
    PF: tl.constexpr = 32 // BIT
    MASK: tl.constexpr = (1 << BIT) - 1
    rk = tl.program_id(0) * BK + tl.arange(0, BK)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    km = rk < K
    nm = rn < N
    m = km[:, None] & nm[None, :]
    j = rk % PF
    if BIT == 4:
        shift = ((j // 2) + 4 * (j % 2)) * 4  # exllama nibble order (0, 4, 1, 5, 2, 6, 3, 7)
    else:
        shift = j * BIT
    words = tl.load(qw_ptr + (rk // PF).to(tl.int64)[:, None] * N + rn[None, :], mask=m, other=0)
    q = (words >> shift[:, None]) & MASK
    g = (rk // GS).to(tl.int64)
    zw = tl.load(qz_ptr + g[:, None] * (N // PF) + (rn // PF)[None, :], mask=m, other=0)
    z = ((zw >> ((rn % PF) * BIT)[None, :]) & MASK) + ZOFF
    s = tl.load(s_ptr + g[:, None] * N + rn[None, :], mask=m, other=0.0).to(tl.float32)
    w = ((q - z).to(tl.float32) * s).to(tl.float16)
    tl.store(w_ptr + rk.to(tl.int64)[:, None] * N + rn[None, :], w, mask=m)


@triton.jit
def _gemm_kernel(a_ptr, w_ptr, gidx_ptr, out_ptr, M, N, K, HAS_GIDX: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mm = rm < M
    nm = rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        km = rk < K
        if HAS_GIDX:
            col = tl.load(gidx_ptr + rk, mask=km, other=0).to(tl.int64)
        else:
            col = rk.to(tl.int64)
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + col[None, :], mask=mm[:, None] & km[None, :], other=0.0)
        w = tl.load(w_ptr + rk.to(tl.int64)[:, None] * N + rn[None, :], mask=km[:, None] & nm[None, :], other=0.0)
        acc = tl.dot(a, w, acc)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(tl.float16), mask=mm[:, None] & nm[None, :])


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format, bit):
    if not use_exllama or bit not in (4, 8):
        raise NotImplementedError("gptq_gemm: exllama path, 4 or 8 bits only")
    m = a.shape[0]
    k = b_q_weight.shape[0] * 32 // bit
    n = b_q_weight.shape[1]
    gs = k // b_gptq_qzeros.shape[0]
    has_gidx = b_g_idx is not None and not b_g_idx.is_meta and b_g_idx.numel() > 0
    out = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return out
    w = torch.empty((k, n), dtype=torch.float16, device=a.device)
    _dequant_kernel[(triton.cdiv(k, 32), triton.cdiv(n, 64))](
        b_q_weight.contiguous(), b_gptq_qzeros.contiguous(), b_gptq_scales.contiguous(), w, n, k, gs,
        0 if use_v2_format else 1, BIT=bit, BK=32, BN=64)
    gidx = b_g_idx.contiguous() if has_gidx else w
    _gemm_kernel[(triton.cdiv(m, 16), triton.cdiv(n, 64))](a.contiguous(), w, gidx, out, m, n, k,
                                                           HAS_GIDX=has_gidx, BM=16, BN=64, BK=32)
    return out
