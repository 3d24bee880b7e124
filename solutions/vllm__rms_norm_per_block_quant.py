import torch
import triton
import triton.language as tl

_SUM_BLOCK = 1024
_TILE = 2048  # elements of a [groups, group size] tile


@triton.jit
def _rne_bf16(v):
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _rd(v, DT: tl.constexpr, SOFT_BF16: tl.constexpr):
    # fp32 -> the input dtype (round to nearest even), back to fp32
    if SOFT_BF16:
        return _rne_bf16(v).to(tl.float32)
    else:
        return v.to(DT).to(tl.float32)


@triton.jit
def _rne(v):
    v = tl.where(v != v, 0.0, v)
    v = tl.minimum(tl.maximum(v, -4194304.0), 4194304.0)
    return (v + 12582912.0) - 12582912.0


@triton.jit
def _load_x(x_ptr, r_ptr, off, m, HAS_RES: tl.constexpr):
    x = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
    if HAS_RES:
        x += tl.load(r_ptr + off, mask=m, other=0.0).to(tl.float32)
    return x


@triton.jit
def _pbq_kernel(x_ptr, w_ptr, r_ptr, out_ptr, scale_ptr, ub_ptr, H, eps, sc_s0, sc_s1,
                QMAX: tl.constexpr, MINSF: tl.constexpr, INT8: tl.constexpr, HAS_RES: tl.constexpr,
                HAS_UB: tl.constexpr, SOFT_BF16: tl.constexpr, GS: tl.constexpr, GB: tl.constexpr,
                SUM_BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * H
    DT: tl.constexpr = x_ptr.dtype.element_ty
    # sum of squares of the unrounded fp32 sums, accumulated in fp64 (exact squares)
    cols = tl.arange(0, SUM_BLOCK)
    acc = tl.zeros([SUM_BLOCK], dtype=tl.float64)
    for start in range(0, H, SUM_BLOCK):
        c = start + cols
        m = c < H
        x = _load_x(x_ptr, r_ptr, base + c, m, HAS_RES).to(tl.float64)
        acc += x * x
    inv = (1.0 / tl.sqrt(tl.sum(acc, axis=0) / H + eps)).to(tl.float32)
    # the row's quantisation groups GB at a time, as a [GB, GS] tile: one max per group along axis 1
    NG = H // GS
    gb = tl.arange(0, GB)
    g = tl.arange(0, GS)
    for g0 in range(0, NG, GB):
        gi = g0 + gb
        gm = gi < NG
        c = gi[:, None] * GS + g[None, :]
        m = gm[:, None] & (c < H)
        x = _load_x(x_ptr, r_ptr, base + c, m, HAS_RES)
        w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
        y = _rd(_rd(x * inv, DT, SOFT_BF16) * w, DT, SOFT_BF16)
        a = tl.max(tl.abs(y), axis=1)
        if HAS_UB:
            a = tl.minimum(a, tl.load(ub_ptr).to(tl.float32))
        scale = tl.maximum(tl.math.div_rn(a, tl.zeros_like(a) + QMAX), MINSF)
        tl.store(scale_ptr + row * sc_s0 + gi * sc_s1, scale, mask=gm)
        if INT8:
            q = _rne(y * tl.math.div_rn(tl.zeros_like(scale) + 1.0, scale)[:, None]).to(tl.int32)
            q = tl.minimum(tl.maximum(q, -128), 127)
            tl.store(out_ptr + base + c, q.to(tl.int8), mask=m)
        else:
            t = tl.math.div_rn(y, tl.zeros_like(y) + scale[:, None])
            t = tl.where(t != t, 448.0, t)
            t = tl.minimum(tl.maximum(t, -448.0), 448.0)
            tl.store(out_ptr + base + c, t.to(tl.float8e4nv), mask=m)
        if HAS_RES:
            if SOFT_BF16:
                tl.store(r_ptr + base + c, _rne_bf16(x), mask=m)
            else:
                tl.store(r_ptr + base + c, x.to(DT), mask=m)


def rms_norm_per_block_quant(input, weight, epsilon, quant_dtype, group_size, scale_ub=None, residual=None,
                             is_scale_transposed=False):
    H = input.shape[-1]
    gs = int(group_size[1])
    if H % gs:
        raise ValueError("rms_norm_per_block_quant: H must be a multiple of the group size")
    N = input.numel() // H if H else 0
    G = H // gs
    out = torch.empty(input.shape, dtype=quant_dtype, device=input.device)
    if is_scale_transposed:
        scales = torch.empty((G, N), dtype=torch.float32, device=input.device).t()
    else:
        scales = torch.empty((N, G), dtype=torch.float32, device=input.device)
    if N == 0:
        return out, scales
    if quant_dtype == torch.int8:
        qmax, minsf, is_int8 = 127.0, 2.0 ** -23, True
    elif quant_dtype == torch.float8_e4m3fn:
        qmax, minsf, is_int8 = 448.0, 1.0 / (448.0 * 512.0), False
    else:
        raise ValueError(f"rms_norm_per_block_quant: unsupported quant_dtype {quant_dtype}")
    soft = input.dtype == torch.bfloat16 and input.device.type == "cpu"
    has_res = residual is not None
    has_ub = scale_ub is not None
    _pbq_kernel[(N,)](input, weight, residual if has_res else input, out, scales, scale_ub if has_ub else scales, H,
                      float(epsilon), scales.stride(0), scales.stride(1), QMAX=qmax, MINSF=minsf, INT8=is_int8,
                      HAS_RES=has_res, HAS_UB=has_ub, SOFT_BF16=soft, GS=gs,
                      GB=max(1, min(triton.next_power_of_2(G), _TILE // gs)),
                      SUM_BLOCK=min(_SUM_BLOCK, triton.next_power_of_2(H)), num_warps=4)
    return out, scales
