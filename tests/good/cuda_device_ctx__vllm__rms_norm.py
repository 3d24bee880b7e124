import torch
import triton
import triton.language as tl

# Largest hidden size kept entirely in registers (one load of the row); larger
# rows use a looped two-pass kernel with chunks of _CHUNK elements.
_MAX_SINGLE = 8192
_CHUNK = 4096


@triton.jit
def _rne_bf16(v):
    # fp32 -> bf16 with round-to-nearest-even done on the bits, so the result is
    # exact on every backend (the CPU interpreter's own cast truncates).
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _inv_rms(var, H, eps):
    # var: sum of squares accumulated in fp64 (the squares of the fp32 values
    # are exact there), so inv is the correctly rounded fp32 value of
    # 1/sqrt(sum/H + eps): the closest any fp32 implementation can get.
    v = var / H + eps
    return (1.0 / tl.sqrt(v)).to(tl.float32)


@triton.jit
def _cast(v, DT: tl.constexpr, IS_BF16: tl.constexpr):
    if IS_BF16:
        return _rne_bf16(v)
    else:
        return v.to(DT)


@triton.jit
def _rms_norm_kernel(
    out_ptr, in_ptr, w_ptr,
    H, D1, D2,
    s0, s1, s2,
    eps,
    BLOCK: tl.constexpr,
    SINGLE: tl.constexpr,
    IS_BF16: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    # decompose the flat row index into (i0, i1, i2) of the outer dims
    i2 = row % D2
    t = row // D2
    i1 = t % D1
    i0 = t // D1
    in_row = in_ptr + i0 * s0 + i1 * s1 + i2 * s2
    out_row = out_ptr + row * H
    cols = tl.arange(0, BLOCK)
    DT: tl.constexpr = out_ptr.dtype.element_ty
    if SINGLE:
        mask = cols < H
        x = tl.load(in_row + cols, mask=mask, other=0.0).to(tl.float32)
        x64 = x.to(tl.float64)
        var = tl.sum(x64 * x64, axis=0)
        inv = _inv_rms(var, H, eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = _cast(x * inv, DT, IS_BF16).to(tl.float32) * w
        tl.store(out_row + cols, _cast(y, DT, IS_BF16), mask=mask)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float64)
        for start in range(0, H, BLOCK):
            c = start + cols
            m = c < H
            x = tl.load(in_row + c, mask=m, other=0.0).to(tl.float32)
            x64 = x.to(tl.float64)
            acc += x64 * x64
        var = tl.sum(acc, axis=0)
        inv = _inv_rms(var, H, eps)
        for start in range(0, H, BLOCK):
            c = start + cols
            m = c < H
            x = tl.load(in_row + c, mask=m, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
            y = _cast(x * inv, DT, IS_BF16).to(tl.float32) * w
            tl.store(out_row + c, _cast(y, DT, IS_BF16), mask=m)


def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
    nd = input.dim()
    if nd < 2 or nd > 4:
        raise ValueError("rms_norm: input must be 2-, 3- or 4-D")
    if input.stride(-1) != 1:
        raise ValueError("rms_norm: last dim of input must be contiguous")
    # pad the outer dims to exactly three: (D0, D1, D2) with strides (s0, s1, s2)
    sizes = [1] * (4 - nd) + [input.shape[d] for d in range(nd - 1)]
    strides = [0] * (4 - nd) + [input.stride(d) for d in range(nd - 1)]
    n_rows = sizes[0] * sizes[1] * sizes[2]
    if n_rows == 0 or H == 0:
        return None
    if H <= _MAX_SINGLE:
        BLOCK = triton.next_power_of_2(H)
        single = True
    else:
        BLOCK = _CHUNK
        single = False
    num_warps = max(1, min(8, BLOCK // 512))
    # The CPU interpreter's fp32->bf16 cast truncates; there the rounding is done on
    # the bits instead (on GPUs the native cast already rounds to nearest even).
    soft_bf16 = input.dtype == torch.bfloat16 and input.device.type == "cpu"
    with torch.cuda.device(input.device):
      _rms_norm_kernel[(n_rows,)](
        out, input, weight,
        H, sizes[1], sizes[2],
        strides[0], strides[1], strides[2],
        float(epsilon),
        BLOCK=BLOCK, SINGLE=single, IS_BF16=soft_bf16,
        num_warps=num_warps,
    )
    return None
