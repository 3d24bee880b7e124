import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _e4m3_code(y):
    # fp32 -> E4M3 byte (round to nearest even) by integer arithmetic on the fp32 pattern; y is already clamped
    # to [-448, 448] (NaN passes the clamp and stays NaN)
    bits = y.to(tl.int32, bitcast=True)
    sign = ((bits >> 31) & 1) << 7
    ab = bits & 0x7FFFFFFF
    # normal range (|y| >= 2^-6): round the pattern to 3 mantissa bits, half to even, then rebias 127 -> 7
    an = tl.minimum(ab, 0x43E00000)  # 448: NaN patterns would overflow the add (they are replaced below)
    normal = ((an + 0x7FFFF + ((an >> 20) & 1)) >> 20) - ((127 - 7) << 3)
    # subnormal range: multiples of 2^-9 (a*512 is exact; 8 rounds up into the smallest normal, code 8)
    t = an.to(tl.float32, bitcast=True) * 512.0
    sub = ((t + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(ab >= 0x3C800000, normal, sub)  # 0x3C800000 = 2^-6
    code = tl.where(ab > 0x7F800000, 0x7F, code)
    return (code | sign).to(tl.uint8)


@triton.jit
def _quant_kernel(x_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < N
    x = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
    # IEEE division by the scale (not a multiply by its reciprocal), then saturate (NaN stays NaN) and round
    y = tl.math.div_rn(x, tl.zeros_like(x) + scale)
    y = tl.where(y > 448.0, 448.0, tl.where(y < -448.0, -448.0, y))
    tl.store(out_ptr + off, _e4m3_code(y), mask=m)


@triton.jit
def _dequant_kernel(b_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < N
    b = tl.load(b_ptr + off, mask=m, other=0).to(tl.int32)
    sign = (b >> 7) & 1
    e = (b >> 3) & 15
    mant = b & 7
    # E4M3 -> fp32 exactly: normals by their fp32 pattern, subnormals as mant * 2^-9, 0x7F/0xFF NaN
    v = ((sign << 31) | ((e + 120) << 23) | (mant << 20)).to(tl.float32, bitcast=True)
    sub = mant.to(tl.float32) * 0.001953125
    # the sign by its bit (Triton's unary minus is 0 - x, which loses the sign of zero)
    sub = (sub.to(tl.int32, bitcast=True) | (sign << 31)).to(tl.float32, bitcast=True)
    v = tl.where(e == 0, sub, v)
    nan = tl.full(v.shape, 0x7FC00000, tl.int32).to(tl.float32, bitcast=True)
    v = tl.where((b & 0x7F) == 0x7F, nan, v)
    tl.store(out_ptr + off, (v * scale).to(out_ptr.dtype.element_ty), mask=m)


def convert_fp8(output, input, scale=1.0, kv_dtype="fp8"):
    if kv_dtype not in ("fp8", "fp8_e4m3"):
        raise ValueError(f"convert_fp8: unsupported kv_dtype {kv_dtype!r}")
    n = input.numel()
    if n == 0:
        return None
    grid = (triton.cdiv(n, _BLOCK),)
    if input.dtype == torch.uint8:
        _dequant_kernel[grid](input, output, n, float(scale), BLOCK=_BLOCK, num_warps=4)
    elif output.dtype == torch.uint8:
        _quant_kernel[grid](input, output, n, float(scale), BLOCK=_BLOCK, num_warps=4)
    else:
        raise ValueError(f"convert_fp8: no direction from {input.dtype} to {output.dtype}")
    return None
