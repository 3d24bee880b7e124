import torch
import triton
import triton.language as tl

# Marlin layout (vllm.md 2.7), 16x64 tiles. Inside a tile write t = 4 * t1 + t0 (t1 < 8, t0 < 4) and, for a 4-bit
# word, nibble i = 4 * i2 + 2 * e + i0: word 16 * t1 + 4 * t0 + w holds at nibble i the element
#     k = 2 * t0 + 8 * i0 + i2,   n = 16 * w + t1 + 8 * e.
# For an 8-bit word (byte i = 2 * i1 + i0) word 32 * t1 + 8 * t0 + 2 * w + h holds at byte i
#     k = 2 * t0 + 8 * i0 + i1,   n = 16 * w + t1 + 8 * h.
# So one word holds 4 k values (d = 2 * i0 + the low k bit: k = 2 * t0 + 8 * (d // 2) + d % 2) of 2 (4-bit) or 1
# (8-bit) n values. The kernel loads each word once as a [BLOCK_K / 4, BLOCK_N / PN] tile (rows (kt, t0)), expands
# its fields with one broadcast shift to [BLOCK_K / 4, 4, BLOCK_N / PN, PN] and reshapes that to a [BLOCK_K, BLOCK_N]
# tile whose rows and columns are in the Marlin order. The dot does not care about the order of k inside a block as
# long as the columns of a' are gathered in the same order, and the output columns and scales follow the same
# column order, so no shuffle of the weights is needed.


@triton.jit
def _marlin_gemm_kernel(a_ptr, b_ptr, s_ptr, perm_ptr, c_ptr, ws_ptr, M, N, K, stride_am, ROWW, GS, KB_PER,
                        BITS: tl.constexpr, BIAS: tl.constexpr, HAS_PERM: tl.constexpr, GROUPED: tl.constexpr,
                        G16: tl.constexpr, SPLIT: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    T = c_ptr.dtype.element_ty
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    PN: tl.constexpr = 2 if BITS == 4 else 1      # n values per word
    WC: tl.constexpr = BLOCK_N // PN              # word columns of a tile
    R: tl.constexpr = BLOCK_K // 4                # word rows of a tile: (kt, t0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    mm = rm < M
    # word columns: the word offset inside the 16-row strip (t0 added per row) and whether the tile exists
    cw = tl.arange(0, WC)
    if BITS == 4:
        ntw = pid_n * (BLOCK_N // 64) + cw // 32
        wcol = ntw * 128 + 16 * (cw % 8) + (cw % 32) // 8            # t1 = cw % 8, w = (cw % 32) // 8
        # tile column j = 2 * cw + e holds n = 64 nt + 16 w + t1 + 8 e
        jn = tl.arange(0, BLOCK_N)
        cwn = jn // 2
        rn = 64 * (pid_n * (BLOCK_N // 64) + cwn // 32) + 16 * ((cwn % 32) // 8) + cwn % 8 + 8 * (jn % 2)
    else:
        ntw = pid_n * (BLOCK_N // 64) + cw // 64
        cr = cw % 64
        wcol = ntw * 256 + 32 * (cr % 8) + 2 * (cr // 16) + (cr // 8) % 2   # t1 = cr % 8, w = cr // 16, h
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)                      # n = 64 nt + 16 w + 8 h + t1 = cw
    mnw = ntw * 64 < N
    mn = rn < N
    # the scale column holding logical column n (Marlin's scale permutations)
    if GROUPED:
        scol = 64 * (rn // 64) + 8 * (rn % 8) + (rn % 64) // 8
    else:
        sm = rn % 32
        scol = 32 * (rn // 32) + 8 * ((sm % 8) // 2) + 2 * (sm // 8) + sm % 2
    # word rows (kt, t0) and the field shifts of (d, e)
    rr = tl.arange(0, R)
    KT = K // 16
    dd = tl.arange(0, 4)
    if BITS == 4:
        ee = tl.arange(0, 2)
        shift = (4 * (4 * (dd % 2)[:, None] + 2 * ee[None, :] + (dd // 2)[:, None])).to(tl.uint32)   # [4, 2]
        roff = 4 * (rr % 4)
    else:
        shift = (8 * (2 * (dd % 2) + dd // 2)).to(tl.uint32)                                         # [4]
        roff = 8 * (rr % 4)
    # tile row j = 4 * (4 * ktl + t0) + d holds k = 16 ktl + 2 t0 + 8 (d // 2) + d % 2
    jk = tl.arange(0, BLOCK_K)
    kl = 16 * (jk // 16) + 2 * ((jk // 4) % 4) + 8 * ((jk % 4) // 2) + jk % 2
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    a_row = a_ptr + rm.to(tl.int64)[:, None] * stride_am
    k_lo = pid_k * KB_PER * BLOCK_K
    k_hi = tl.minimum(K, k_lo + KB_PER * BLOCK_K)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        # a' columns in the tile's k order
        rk = k0 + kl
        mk = rk < K
        if HAS_PERM:
            ka = tl.load(perm_ptr + rk, mask=mk, other=0)
        else:
            ka = rk
        a = tl.load(a_row + ka[None, :], mask=mm[:, None] & mk[None, :], other=0.0)
        # each word of the block once
        kt = k0 // 16 + rr // 4
        word_off = kt.to(tl.int64)[:, None] * ROWW + (roff[:, None] + wcol[None, :])
        word = tl.load(b_ptr + word_off, mask=(kt < KT)[:, None] & mnw[None, :], other=0).to(tl.uint32, bitcast=True)
        if BITS == 4:
            fields = (word[:, None, :, None] >> shift[None, :, None, :]) & 15
        else:
            fields = (word[:, None, :] >> shift[None, :, None]) & 255
        q = tl.reshape(fields, [BLOCK_K, BLOCK_N]).to(tl.int32) - BIAS
        if GROUPED:
            if G16:
                # a 16-row strip lies in one group: one scale per (strip, column)
                ks = k0 + 16 * tl.arange(0, BLOCK_K // 16)
                g = ks // GS
                s = tl.load(s_ptr + g.to(tl.int64)[:, None] * N + scol[None, :],
                            mask=(ks < K)[:, None] & mn[None, :], other=0.0).to(tl.float32)
                w3 = tl.reshape(q.to(tl.float32), [BLOCK_K // 16, 16, BLOCK_N]) * s[:, None, :]
                w = tl.reshape(w3.to(T), [BLOCK_K, BLOCK_N])
            else:
                g = rk // GS
                s = tl.load(s_ptr + g.to(tl.int64)[:, None] * N + scol[None, :],
                            mask=mk[:, None] & mn[None, :], other=0.0)
                w = (q.to(tl.float32) * s.to(tl.float32)).to(T)
        else:
            w = q.to(T)
        acc = tl.dot(a, w, acc)
    c_off = rm.to(tl.int64)[:, None] * N + rn[None, :]
    cmask = mm[:, None] & mn[None, :]
    if SPLIT:
        # this split's fp32 partial to its own slab; _marlin_reduce_kernel sums the slabs in order
        tl.store(ws_ptr + pid_k.to(tl.int64) * M * N + c_off, acc, mask=cmask)
    else:
        if not GROUPED:
            sc = tl.load(s_ptr + scol, mask=mn, other=0.0).to(tl.float32)
            acc = acc * sc[None, :]
        tl.store(c_ptr + c_off, acc.to(T), mask=cmask)


@triton.jit
def _marlin_reduce_kernel(ws_ptr, s_ptr, c_ptr, MN, N, SPLITS, GROUPED: tl.constexpr, BLOCK: tl.constexpr):
    T = c_ptr.dtype.element_ty
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    msk = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for sp in range(0, SPLITS):                 # a fixed order: deterministic
        acc += tl.load(ws_ptr + sp * MN + offs, mask=msk, other=0.0)
    if not GROUPED:
        rn = (offs % N).to(tl.int32)
        sm = rn % 32
        scol = 32 * (rn // 32) + 8 * ((sm % 8) // 2) + 2 * (sm // 8) + sm % 2
        acc = acc * tl.load(s_ptr + scol, mask=msk, other=0.0).to(tl.float32)
    tl.store(c_ptr + offs, acc.to(T), mask=msk)


_SMS = 132        # the H100's SM count: the split-K heuristic aims at about two programs per SM
_BLOCK_K = 64


def _plan(m, n, k):
    """(BLOCK_M, BLOCK_N, K blocks per split, splits)."""
    block_m = 16 if m <= 16 else (32 if m <= 128 else 64)
    # wide tiles (half the gathers of a' per weight) where they still give about a wave of programs
    block_n = 128 if triton.cdiv(m, block_m) * triton.cdiv(n, 128) >= 96 else 64
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    kb = triton.cdiv(k, _BLOCK_K)
    # split K only where the tiles alone fill less than half a wave; then aim at ~2 programs per SM, keeping >= 2 K
    # blocks per split (every split adds an fp32 M x N slab written once and read once by the reduction)
    splits = 1 if 2 * tiles >= _SMS else max(1, min(kb // 2, triton.cdiv(2 * _SMS, tiles)))
    per = triton.cdiv(kb, splits)
    return block_m, block_n, per, triton.cdiv(kb, per)


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
    block_m, block_n, per, splits = _plan(m, n, k)
    ws = torch.empty((splits, m, n), dtype=torch.float32, device=a.device) if splits > 1 else out
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n), splits)
    _marlin_gemm_kernel[grid](a, b_q_weight, s, p, out, ws, m, n, k, a.stride(0), n * bits // 2, gs, per,
                              BITS=bits, BIAS=bias, HAS_PERM=has_perm, GROUPED=grouped, G16=gs % 16 == 0,
                              SPLIT=splits > 1, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=_BLOCK_K, num_warps=4)
    if splits > 1:
        block = 1024
        _marlin_reduce_kernel[(triton.cdiv(m * n, block),)](ws, s, out, m * n, n, splits, GROUPED=grouped,
                                                            BLOCK=block, num_warps=4)
    return out
