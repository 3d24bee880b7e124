import torch
import triton
import triton.language as tl

_BLOCK = 4096
_MIN_SCALE = 1.0 / (448.0 * 512.0)


@triton.jit
def _e4m3_code(v):
    # fp32 -> E4M3 byte: NaN -> +448 and clamp to [-448, 448] (CUDA's fmaxf/fminf), then round to nearest even by
    # integer arithmetic on the fp32 pattern (the sign of zero kept)
    v = tl.where(v != v, 448.0, v)
    v = tl.minimum(tl.maximum(v, -448.0), 448.0)
    bits = v.to(tl.int32, bitcast=True)
    sign = ((bits >> 31) & 1) << 7
    ab = bits & 0x7FFFFFFF
    normal = ((ab + 0x7FFFF + ((ab >> 20) & 1)) >> 20) - ((127 - 7) << 3)
    t = ab.to(tl.float32, bitcast=True) * 512.0  # below 2^-6: multiples of 2^-9, rounded half to even
    sub = ((t + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(ab >= 0x3C800000, normal, sub)  # 0x3C800000 = 2^-6, the smallest normal
    return (code | sign).to(tl.uint8)


@triton.jit
def _row_absmax(x_ptr, row, N, stride_xm, stride_xn, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    base = row * stride_xm
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        c = start + cols
        m = c < N
        x = tl.load(x_ptr + base + c.to(tl.int64) * stride_xn, mask=m, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    return tl.max(amax, axis=0)


@triton.jit
def _rowmax_kernel(x_ptr, amax_ptr, N, stride_xm, stride_xn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    tl.store(amax_ptr + row, _row_absmax(x_ptr, row, N, stride_xm, stride_xn, BLOCK))


@triton.jit
def _tensor_scale_kernel(amax_ptr, scale_ptr, M, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, M, BLOCK):
        r = start + rows
        acc = tl.maximum(acc, tl.load(amax_ptr + r, mask=r < M, other=0.0))
    a = tl.max(acc, axis=0)
    tl.store(scale_ptr, tl.math.div_rn(a, 448.0))  # IEEE division, no lower bound


@triton.jit
def _quant_kernel(x_ptr, out_ptr, scale_ptr, ub_ptr, N, stride_xm, stride_xn, stride_om,
                  PER_TOKEN: tl.constexpr, HAS_UB: tl.constexpr, MIN_SCALE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    base = row * stride_xm
    if PER_TOKEN:
        a = _row_absmax(x_ptr, row, N, stride_xm, stride_xn, BLOCK)
        if HAS_UB:
            a = tl.minimum(a, tl.load(ub_ptr))
        s = tl.maximum(tl.math.div_rn(a, 448.0), MIN_SCALE)
        tl.store(scale_ptr + row, s)
        sv = tl.zeros([BLOCK], dtype=tl.float32) + s
    else:
        inv = tl.math.div_rn(1.0, tl.load(scale_ptr))  # rd32(1/scale), then multiply
    for start in range(0, N, BLOCK):
        c = start + cols
        m = c < N
        x = tl.load(x_ptr + base + c.to(tl.int64) * stride_xn, mask=m, other=0.0).to(tl.float32)
        if PER_TOKEN:
            v = tl.math.div_rn(x, sv)  # true division by the row's scale
        else:
            v = x * inv
        tl.store(out_ptr + row * stride_om + c, _e4m3_code(v), mask=m)


def scaled_fp8_quant(input, scale=None, num_token_padding=None, scale_ub=None, use_per_token_if_dynamic=False,
                     output=None):
    if input.dim() != 2:
        raise ValueError(f"scaled_fp8_quant: input must be 2-D, got {list(input.shape)}")
    M, N = input.shape
    rows = max(int(num_token_padding), M) if num_token_padding else M
    if output is None:
        output = torch.empty((rows, N), dtype=torch.float8_e4m3fn, device=input.device)
    elif num_token_padding is not None:
        raise ValueError("scaled_fp8_quant: output and num_token_padding cannot both be given")
    out8 = output.view(torch.uint8)
    block = min(_BLOCK, triton.next_power_of_2(max(N, 1)))
    sxm, sxn = input.stride(0), input.stride(1)
    if scale is not None:
        if scale.numel() != 1:
            raise ValueError(f"scaled_fp8_quant: a static scale has one element, got {list(scale.shape)}")
        ret_scale = scale
        sc = scale.reshape(-1)
    elif use_per_token_if_dynamic:
        ret_scale = torch.empty((rows, 1), dtype=torch.float32, device=input.device)
        sc = ret_scale
    else:
        ret_scale = torch.empty(1, dtype=torch.float32, device=input.device)
        sc = ret_scale
    if M == 0:
        return output, ret_scale
    if scale is None and not use_per_token_if_dynamic:
        amax = torch.empty(M, dtype=torch.float32, device=input.device)
        _rowmax_kernel[(M,)](input, amax, N, sxm, sxn, BLOCK=block, num_warps=4)
        _tensor_scale_kernel[(1,)](amax, sc, M, BLOCK=1024, num_warps=4)
    per_token = scale is None and bool(use_per_token_if_dynamic)
    ub = scale_ub.reshape(-1) if (per_token and scale_ub is not None) else sc
    _quant_kernel[(M,)](input, out8, sc, ub, N, sxm, sxn, out8.stride(0),
                        PER_TOKEN=per_token, HAS_UB=per_token and scale_ub is not None, MIN_SCALE=_MIN_SCALE,
                        BLOCK=block, num_warps=4, enable_fp_fusion=False)
    return output, ret_scale
