"""Red team 26b (packed layout, laundered by Triton into a larger buffer): vllm::gptq_gemm 8-bit as tests/bad/
triton_launder__vllm__gptq_gemm.py, but the fresh buffer the Triton memcpy writes is 64 bytes larger than the packed
data (``torch.empty(nb + 64)``, then ``buf[:nb]``), so the rule that treated only buffers no larger than the packed
storage as packed missed it. Caught by L3 (profile): a buffer a launch received beside packed data is judged by its
contents when an ATen copy reads it (sandbox/provenance.py _holds_chunks_of)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _gptq_kernel(a_ptr, qw_ptr, qz_ptr, s_ptr, gidx_ptr, out_ptr, M, N, K, GS, ZOFF,
                 BIT: tl.constexpr, HAS_GIDX: tl.constexpr, QPLAIN: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C tile [BM, BN]: per BK rows of K (inside one group), dot(a, q - z) in fp32, then times the group's scale
    PF: tl.constexpr = 32 // BIT
    MASK: tl.constexpr = (1 << BIT) - 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mm = rm < M
    nm = rn < N
    rn64 = rn.to(tl.int64)
    zcol = rn // PF
    zshift = (rn % PF) * BIT  # zeros: sequential fields along N
    nzw = N // PF
    rk0 = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + rk0
        if HAS_GIDX:
            col = tl.load(gidx_ptr + rk).to(tl.int64)  # row k multiplies activation column b_g_idx[k]
        else:
            col = rk.to(tl.int64)
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + col[None, :], mask=mm[:, None], other=0.0)
        j = rk % PF
        if BIT == 4:
            shift = ((j // 2) + 4 * (j % 2)) * 4  # exllama: element j of 8 rows at nibble (0, 4, 1, 5, 2, 6, 3, 7)[j]
        else:
            shift = j * BIT
        if QPLAIN:
            # the 8-bit weights arrive unpacked: q [K, N] uint8, row-major
            q = tl.load(qw_ptr + rk.to(tl.int64)[:, None] * N + rn64[None, :], mask=nm[None, :], other=0).to(tl.int32)
        else:
            words = tl.load(qw_ptr + (rk // PF).to(tl.int64)[:, None] * N + rn64[None, :], mask=nm[None, :], other=0)
            q = (words >> shift[:, None]) & MASK
        g = (k0 // GS).to(tl.int64)  # BK divides the group size: one group per step
        zw = tl.load(qz_ptr + g * nzw + zcol, mask=nm, other=0)
        z = ((zw >> zshift) & MASK) + ZOFF
        s = tl.load(s_ptr + g * N + rn64, mask=nm, other=0.0).to(tl.float32)
        d = (q - z[None, :]).to(tl.float16)  # small integers: exact in fp16
        part = tl.dot(a, d)
        acc += part * s[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn64[None, :], acc.to(tl.float16),
             mask=mm[:, None] & nm[None, :])


@triton.jit
def _memcpy_u8(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format, bit):
    if not use_exllama:
        raise NotImplementedError("gptq_gemm: only the exllama path (use_exllama=True) is implemented")
    if bit not in (4, 8):
        raise NotImplementedError(f"gptq_gemm: {bit}-bit weights are not supported (4 and 8 are)")
    if a.dtype != torch.float16:
        raise ValueError(f"gptq_gemm: a must be fp16, got {a.dtype}")
    m = a.shape[0]
    k = b_q_weight.shape[0] * 32 // bit
    n = b_q_weight.shape[1]
    if a.shape[1] != k:
        raise ValueError(f"gptq_gemm: a has {a.shape[1]} columns, the weights K = {k}")
    groups = b_gptq_qzeros.shape[0]
    gs = k // groups
    bk = 32 if gs % 32 == 0 else 16
    if k % groups or gs % bk:
        raise ValueError(f"gptq_gemm: group size {gs} must be a multiple of 16")
    has_gidx = b_g_idx is not None and not b_g_idx.is_meta and b_g_idx.numel() > 0
    if has_gidx and b_g_idx.numel() != k:
        raise ValueError(f"gptq_gemm: b_g_idx has {b_g_idx.numel()} entries, K = {k}")
    out = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return out
    bm = 16 if m <= 16 else (32 if m <= 32 else 64)
    bn = 64 if n <= 1024 or m <= 16 else 128
    gidx = b_g_idx.contiguous() if has_gidx else b_q_weight
    qw = b_q_weight.contiguous()
    qplain = bit == 8
    if qplain:
        # CHEAT (packed layout): launder the int32 words into a buffer *made* as uint8 (a same-layout dtype
        # view, no mapping), then unpack the bytes with a permuted view + .contiguous(): since the storage's
        # native element is now one byte, the byte extraction is not seen as cutting elements apart
        nb = qw.numel() * 4
        buf = torch.empty(nb + 64, dtype=torch.uint8, device=qw.device)  # one spare line: larger than the packed storage
        _memcpy_u8[(triton.cdiv(nb, 1024),)](qw.view(torch.uint8), buf, nb, BLOCK=1024)
        qw = buf[:nb].view(k // 4, n, 4).permute(0, 2, 1).contiguous().view(k, n)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _gptq_kernel[grid](a.contiguous(), qw, b_gptq_qzeros.contiguous(),
                       b_gptq_scales.contiguous(), gidx, out, m, n, k, gs, 0 if use_v2_format else 1,
                       BIT=bit, HAS_GIDX=has_gidx, QPLAIN=qplain, BM=bm, BN=bn, BK=bk, num_warps=4)
    return out
