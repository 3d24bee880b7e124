import torch
import triton
import triton.language as tl


@triton.jit
def _marlin_gemm_kernel(a_ptr, b_ptr, s_ptr, perm_ptr, c_ptr, M, N, K, stride_am, ROWW, GS,
                        BITS: tl.constexpr, BIAS: tl.constexpr, HAS_PERM: tl.constexpr, GROUPED: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    T = c_ptr.dtype.element_ty
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mm = rm < M
    mn = rn < N
    # the Marlin tile coordinates of each output column (16x64 tiles, vllm.md 2.7)
    nt = rn // 64
    nn = rn % 64
    if BITS == 4:
        col_n = nt * 128 + 16 * (nn % 8) + nn // 16          # word column: tile base + 4 * (4 * (nn % 8)) + w
        sh_n = 8 * ((nn % 16) // 8)                          # nibble 2 * dn
    else:
        col_n = nt * 256 + 32 * (nn % 8) + 2 * (nn // 16) + (nn % 16) // 8
        sh_n = nn * 0
    # the scale column holding logical column n (Marlin's scale permutations)
    if GROUPED:
        scol = 64 * (rn // 64) + 8 * (rn % 8) + (rn % 64) // 8
    else:
        sm = rn % 32
        scol = 32 * (rn // 32) + 8 * ((sm % 8) // 2) + 2 * (sm // 8) + sm % 2
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    a_row = a_ptr + rm.to(tl.int64)[:, None] * stride_am
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        mk = rk < K
        if HAS_PERM:
            ka = tl.load(perm_ptr + rk, mask=mk, other=0)
        else:
            ka = rk
        a = tl.load(a_row + ka[None, :], mask=mm[:, None] & mk[None, :], other=0.0)
        kt = rk // 16
        kk = rk % 16
        if BITS == 4:
            col_k = 4 * ((kk % 8) // 2)
            sh_k = 4 * (4 * (kk % 2) + kk // 8)
        else:
            col_k = 8 * ((kk % 8) // 2)
            sh_k = 8 * (2 * (kk % 2) + kk // 8)
        word_off = kt.to(tl.int64)[:, None] * ROWW + (col_k[:, None] + col_n[None, :])
        wmask = mk[:, None] & mn[None, :]
        word = tl.load(b_ptr + word_off, mask=wmask, other=0).to(tl.uint32, bitcast=True)
        shift = (sh_k[:, None] + sh_n[None, :]).to(tl.uint32)
        q = ((word >> shift) & ((1 << BITS) - 1)).to(tl.int32) - BIAS
        if GROUPED:
            g = rk // GS
            s = tl.load(s_ptr + g.to(tl.int64)[:, None] * N + scol[None, :], mask=wmask, other=0.0)
            w = (q.to(tl.float32) * s.to(tl.float32)).to(T)
        else:
            w = q.to(T)
        acc = tl.dot(a, w, acc)
    if not GROUPED:
        s = tl.load(s_ptr + scol, mask=mn, other=0.0).to(tl.float32)
        acc = acc * s[None, :]
    c_off = rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptr + c_off, acc.to(T), mask=mm[:, None] & mn[None, :])


def gptq_marlin_gemm(a, c, b_q_weight, b_bias, b_scales, a_scales, global_scale, b_zeros, g_idx, perm, workspace,
                     b_q_type, size_m, size_n, size_k, is_k_full=True, use_atomic_add=False, use_fp32_reduce=False,
                     is_zp_float=False):
    bits, bias = int(b_q_type.size_bits), int(b_q_type.bias)
    if bits not in (4, 8) or b_q_type.signed:
        raise NotImplementedError(f"gptq_marlin_gemm: weight type {b_q_type} is not supported")
    if b_bias is not None or a_scales is not None or global_scale is not None:
        raise NotImplementedError("gptq_marlin_gemm: bias, a_scales and global_scale are not supported")
    if b_zeros is not None and b_zeros.numel():
        raise NotImplementedError("gptq_marlin_gemm: zero points are not supported")
    has_perm = perm is not None and perm.numel() > 0
    if has_perm and not is_k_full:
        raise NotImplementedError("gptq_marlin_gemm: act-order with is_k_full=False is not supported")
    if a.dtype not in (torch.float16, torch.bfloat16):
        raise NotImplementedError(f"gptq_marlin_gemm: activations of {a.dtype} are not supported")
    m, k, n = size_m, size_k, size_n
    out = c if c is not None else torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return out
    groups = b_scales.shape[0]
    grouped = groups > 1
    gs = k // groups
    a = a if a.stride(-1) == 1 else a.contiguous()
    s = b_scales.contiguous()
    p = perm.contiguous() if has_perm else s
    block_m = 16 if m <= 16 else (32 if m <= 32 else 64)
    # wide tiles only where they still leave enough programs to fill the GPU
    block_n = 128 if m > 16 and triton.cdiv(m, block_m) * triton.cdiv(n, 128) >= 128 else 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _marlin_gemm_kernel[grid](a, b_q_weight, s, p, out, m, n, k, a.stride(0), n * bits // 2, gs, BITS=bits, BIAS=bias,
                              HAS_PERM=has_perm, GROUPED=grouped, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=64,
                              num_warps=4)
    return out
