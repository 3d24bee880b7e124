import torch
import triton
import triton.language as tl


@triton.jit
def _marlin24_kernel(a_ptr, b_ptr, meta_ptr, s_ptr, c_ptr, M, N, K, stride_am, ROWW,
                     BITS: tl.constexpr, BIAS: tl.constexpr, GROUPED: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C[m, n] = sum_k a[m, k] W[k, n] over the dense 2:4 weights W decoded tile by tile from the Marlin-24 layout
    PF: tl.constexpr = 32 // BITS
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mm = rm < M
    mn = rn < N
    # metadata row r = n: reordered row r' (vllm.md step 4)
    r2 = 64 * (rn // 64) + 2 * (rn % 2) + (rn % 8) // 4 + 32 * (((rn % 32) % 4) // 2) + 4 * ((rn % 64) // 8)
    # the logical scale column of each n (grouped: 8-column blocks permuted by (0, 4, 1, 5, 2, 6, 3, 7))
    if GROUPED:
        jj = rn % 8
        scol = 8 * (rn // 8) + 2 * (jj % 4) + jj // 4
    else:
        scol = rn
    tn = rn // 16
    bn = rn % 16
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    a_row = a_ptr + rm.to(tl.int64)[:, None] * stride_am
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        mk = rk < K
        a = tl.load(a_row + rk[None, :], mask=mm[:, None] & mk[None, :], other=0.0)
        wmask = mk[:, None] & mn[None, :]
        # metadata element (n, c = k // 16), nibble (k // 4) % 4 holds the quad's code i0 | i1 << 2
        c = rk // 16
        up = ((r2[None, :] % 2) == 0) & ((c[:, None] % 2) == 1)
        down = ((r2[None, :] % 2) == 1) & ((c[:, None] % 2) == 0)
        rr = r2[None, :] + up.to(tl.int32) - down.to(tl.int32)
        cc = c[:, None] - up.to(tl.int32) + down.to(tl.int32)
        moff = (cc // 2).to(tl.int64) * 2 * N + 2 * rr + cc % 2
        meta = tl.load(meta_ptr + moff, mask=wmask, other=0).to(tl.int32) & 0xFFFF
        code = (meta >> (4 * ((rk[:, None] // 4) % 4))) & 15
        pos = rk[:, None] % 4
        i0 = code & 3
        i1 = code >> 2
        keep = (pos == i0) | (pos == i1)
        kc = 2 * (rk[:, None] // 4) + (pos == i1).to(tl.int32)       # compressed row of this value
        # compressed value qc[kc, n]: tiled position 256 tn + 16 a + b of row rho, then perm24 inverted
        rho = kc // 16
        xt = 256 * tn[None, :] + 16 * (kc % 16) + bn[None, :]
        h = xt // 1024
        v = xt % 1024
        co = v // 256
        row = (v // 16) % 16
        b16 = v % 16
        j = b16 % 4
        blk = (b16 // 4) % 2
        col = 2 * co + b16 // 8
        i = 4 * col + (row % 8) // 2
        pe = 4 * blk + 2 * (row // 8) + row % 2
        g = pe % PF
        x = 32 * i + 8 * j + (pe - g) + (g % 2) * (PF // 2) + g // 2
        flat = 1024 * h + x
        word = tl.load(b_ptr + rho.to(tl.int64) * ROWW + flat // PF, mask=wmask & keep, other=0)
        val = (word.to(tl.uint32, bitcast=True) >> ((flat % PF) * BITS).to(tl.uint32)) & ((1 << BITS) - 1)
        q = tl.where(keep, val.to(tl.int32) - BIAS, 0)
        if GROUPED:
            s = tl.load(s_ptr + (rk[:, None] // 128).to(tl.int64) * N + scol[None, :], mask=wmask, other=0.0)
            w = (q.to(tl.float32) * s.to(tl.float32)).to(tl.float16)
        else:
            w = q.to(tl.float16)
        acc = tl.dot(a, w, acc)
    if not GROUPED:
        s = tl.load(s_ptr + scol, mask=mn, other=0.0).to(tl.float32)
        acc = acc * s[None, :]
    c_off = rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptr + c_off, acc.to(tl.float16), mask=mm[:, None] & mn[None, :])


def gptq_marlin_24_gemm(a, b_q_weight, b_meta, b_scales, workspace, b_q_type, size_m, size_n, size_k):
    bits, bias = int(b_q_type.size_bits), int(b_q_type.bias)
    if bits not in (4, 8) or b_q_type.signed:
        raise NotImplementedError(f"gptq_marlin_24_gemm: weight type {b_q_type} is not supported")
    if a.dtype != torch.float16:
        raise NotImplementedError(f"gptq_marlin_24_gemm: activations of {a.dtype} are not supported (fp16)")
    m, k, n = size_m, size_k, size_n
    groups = b_scales.shape[0]
    if groups > 1 and groups * 128 != k:
        raise NotImplementedError(f"gptq_marlin_24_gemm: {groups} scale groups for K = {k} (group 128 only)")
    out = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return out
    a = a if a.stride(-1) == 1 else a.contiguous()
    block_m = 16 if m <= 16 else (32 if m <= 32 else 64)
    block_n = 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _marlin24_kernel[grid](a, b_q_weight, b_meta, b_scales.contiguous(), out, m, n, k, a.stride(0), n * bits // 2,
                           BITS=bits, BIAS=bias, GROUPED=groups > 1, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=32,
                           num_warps=4)
    return out
