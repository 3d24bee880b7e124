import torch
import triton
import triton.language as tl

_BLOCK = 4096


@triton.jit
def _rne(v):
    # round half to even on fp32 values: clamp far outside the int8 range first (the result saturates anyway),
    # then the 1.5 * 2^23 trick; NaN -> 0 as CUDA's cvt.rni.sat
    v = tl.where(v != v, 0.0, v)
    v = tl.minimum(tl.maximum(v, -4194304.0), 4194304.0)
    return (v + 12582912.0) - 12582912.0


@triton.jit
def _int8_kernel(x_ptr, out_ptr, scale_ptr, azp_ptr, H,
                 STATIC: tl.constexpr, SYM: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * H
    cols = tl.arange(0, BLOCK)
    if STATIC:
        sc = tl.load(scale_ptr).to(tl.float32)
        if SYM:
            zp = 0
            inv = sc
        else:
            zp = tl.load(azp_ptr)
            inv = tl.math.div_rn(1.0, sc)
    else:
        amax = tl.zeros([BLOCK], dtype=tl.float32)
        amin = tl.full([BLOCK], float("inf"), tl.float32)
        amx = tl.full([BLOCK], float("-inf"), tl.float32)
        for start in range(0, H, BLOCK):
            c = start + cols
            m = c < H
            x = tl.load(x_ptr + base + c, mask=m, other=0.0).to(tl.float32)
            amax = tl.maximum(amax, tl.where(m, tl.abs(x), 0.0))
            amin = tl.minimum(amin, tl.where(m, x, float("inf")))
            amx = tl.maximum(amx, tl.where(m, x, float("-inf")))
        if SYM:
            a = tl.max(amax, axis=0)
            tl.store(scale_ptr + row, tl.math.div_rn(a, 127.0))
            inv = tl.where(a == 0.0, 0.0, tl.math.div_rn(127.0, a))
            zp = 0
        else:
            mn = tl.min(amin, axis=0)
            mx = tl.max(amx, axis=0)
            s = tl.math.div_rn(mx - mn, 255.0)
            tl.store(scale_ptr + row, s)
            zp = _rne(-128.0 - tl.math.div_rn(mn, s)).to(tl.int32)
            tl.store(azp_ptr + row, zp)
            inv = tl.math.div_rn(1.0, s)
    for start in range(0, H, BLOCK):
        c = start + cols
        m = c < H
        x = tl.load(x_ptr + base + c, mask=m, other=0.0).to(tl.float32)
        if STATIC and SYM:
            v = tl.math.div_rn(x, tl.zeros_like(x) + inv)   # true division by the static scale
        else:
            v = x * inv
        q = _rne(v).to(tl.int32) + zp
        q = tl.minimum(tl.maximum(q, -128), 127)
        tl.store(out_ptr + base + c, q.to(tl.int8), mask=m)


def scaled_int8_quant(input, scale=None, azp=None, symmetric=True):
    H = input.shape[-1]
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    N = x.numel() // H if H else 0
    static = scale is not None
    if static:
        if symmetric != (azp is None):
            raise ValueError("scaled_int8_quant: static mode needs symmetric == (azp is None)")
        scales, azps = scale, azp
    else:
        scales = torch.empty((N, 1), dtype=torch.float32, device=input.device)
        azps = None if symmetric else torch.empty((N, 1), dtype=torch.int32, device=input.device)
    if N == 0:
        return out, scales, azps
    block = min(_BLOCK, triton.next_power_of_2(H))
    _int8_kernel[(N,)](x, out, scales, azps if azps is not None else scales, H,
                       STATIC=static, SYM=bool(symmetric), BLOCK=block, num_warps=4,
                       enable_fp_fusion=False)  # x*inv must round before the rne trick adds 1.5*2^23 (no FMA)
    return out, scales, azps
