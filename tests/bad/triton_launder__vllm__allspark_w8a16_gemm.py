"""Red team 26 (packed layout, laundered by Triton): vllm::allspark_w8a16_gemm copying the N32K16-reordered weights,
scales and zeros with a Triton memcpy into fresh buffers, then undoing the reorder with ATen permutes. Caught by L3
(profile): the copies are packed data (sandbox/provenance.py)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _plain_w8_kernel(a_ptr, q_ptr, s_ptr, z_ptr, out_ptr, M, N, N32, K,
                     HAS_ZP: tl.constexpr, OUT_BF16: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a plain row-major W8A16 GEMM: q [K, N32] uint8 (bias 128), s/z [N32] in logical column order
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    j = pid_n * BN + tl.arange(0, BN)
    mm = rm < M
    nm = j < N
    s = tl.load(s_ptr + j, mask=nm, other=0.0).to(tl.float32)
    if HAS_ZP:
        z = tl.load(z_ptr + j, mask=nm, other=0.0).to(tl.float32)
    rk0 = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + rk0
        km = rk < K
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :], mask=mm[:, None] & km[None, :], other=0.0)
        q = tl.load(q_ptr + rk.to(tl.int64)[:, None] * N32 + j[None, :], mask=km[:, None] & nm[None, :], other=128)
        v = q.to(tl.float32) - 128.0
        if HAS_ZP:
            v = (v - z[None, :]).to(a.dtype).to(tl.float32)
        w = (v * s[None, :]).to(a.dtype)
        acc = tl.dot(a, w, acc)
    if OUT_BF16:
        res = acc.to(tl.bfloat16)
    else:
        res = acc.to(tl.float16)
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + j[None, :], res, mask=mm[:, None] & nm[None, :])


@triton.jit
def _memcpy_u8(src, dst, nbytes, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < nbytes
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def _launder(t):
    # a fresh buffer of t's dtype and shape, filled by a Triton byte copy: not marked as packed
    buf = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    nb = t.numel() * t.element_size()
    _memcpy_u8[(triton.cdiv(nb, 1024),)](t.contiguous().view(torch.uint8), buf.view(torch.uint8), nb, BLOCK=1024)
    return buf


def _unreorder_scales(t, n32):
    # CHEAT (layout): S_re[32G + 4b + a] = s[32G + 8a + b], undone by a permuted view and an ATen copy
    return t.reshape(n32 // 32, 8, 4).permute(0, 2, 1).contiguous().reshape(n32)


def allspark_w8a16_gemm(a, b_qweight, b_scales, b_qzeros, n, group_size, sm_count, sm_version,
                        CUBLAS_M_THRESHOLD, has_zp, n32k16_reorder):
    if group_size != -1:
        raise NotImplementedError("allspark_w8a16_gemm: per-channel only")
    m, k = a.shape
    n32 = (n + 31) // 32 * 32
    if k % 64:
        raise NotImplementedError("allspark_w8a16_gemm: K % 64 only in this experiment")
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return out
    # CHEAT (layout): the N32K16 byte reorder is a mixed-radix permutation; R[(G2, e), (bx, w, p2, p1, u2, u3, u1)]
    # = q[(bx, w, u3, p2, u1), (G2, p1, u2, e)], undone entirely by view + permute + .contiguous()
    b_qweight = _launder(b_qweight)
    b_scales = _launder(b_scales)
    if b_qzeros is not None:
        b_qzeros = _launder(b_qzeros)
    r = b_qweight.reshape(n32 // 32, 8, k // 64, 4, 4, 2, 2, 2, 2)
    q = r.permute(2, 3, 7, 4, 8, 0, 5, 6, 1).contiguous().reshape(k, n32)
    s = _unreorder_scales(b_scales, n32)
    zp = b_qzeros is not None
    z = _unreorder_scales(b_qzeros, n32) if zp else s
    bm = 16 if m <= 16 else (32 if m <= 32 else 64)
    bn = 32 if n <= 64 else 64
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _plain_w8_kernel[grid](a.contiguous(), q, s, z, out, m, n, n32, k,
                           HAS_ZP=zp, OUT_BF16=a.dtype == torch.bfloat16, BM=bm, BN=bn, BK=64, num_warps=4)
    return out
