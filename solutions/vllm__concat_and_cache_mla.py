import triton
import triton.language as tl

_FP8 = {"fp8": 0, "fp8_e4m3": 0, "fp8_e5m2": 1}


@triton.jit
def _to_cache(v, scale, MODE: tl.constexpr):
    # MODE 0: copy; 1: E4M3 bytes of v / scale; 2: E5M2 bytes (saturating, NaN kept)
    if MODE == 0:
        return v
    else:
        y = tl.math.div_rn(v.to(tl.float32), tl.zeros_like(v.to(tl.float32)) + scale)
        if MODE == 1:
            y = tl.where(y > 448.0, 448.0, tl.where(y < -448.0, -448.0, y))
            return y.to(tl.float8e4nv).to(tl.uint8, bitcast=True)
        else:
            y = tl.where(y > 57344.0, 57344.0, tl.where(y < -57344.0, -57344.0, y))
            return y.to(tl.float8e5).to(tl.uint8, bitcast=True)


@triton.jit
def _mla_kernel(kv_ptr, pe_ptr, cache_ptr, slot_ptr, scale_ptr, kv_s0, pe_s0, c_s0, c_s1, R, P, BS,
                BLOCK_R: tl.constexpr, BLOCK_P: tl.constexpr, MODE: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + t)
    if slot >= 0:
        b = slot // BS
        o = slot % BS
        sc = tl.load(scale_ptr).to(tl.float32)
        dst = cache_ptr + b * c_s0 + o * c_s1
        r = tl.arange(0, BLOCK_R)
        mr = r < R
        v = tl.load(kv_ptr + t * kv_s0 + r, mask=mr)
        tl.store(dst + r, _to_cache(v, sc, MODE), mask=mr)
        q = tl.arange(0, BLOCK_P)
        mp = q < P
        w = tl.load(pe_ptr + t * pe_s0 + q, mask=mp)
        tl.store(dst + R + q, _to_cache(w, sc, MODE), mask=mp)


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale):
    T = slot_mapping.shape[0]
    if T == 0:
        return None
    if kv_cache_dtype == "auto":
        mode = 0
    elif kv_cache_dtype in _FP8:
        mode = 1 + _FP8[kv_cache_dtype]
    else:
        raise ValueError(f"concat_and_cache_mla: unsupported kv_cache_dtype {kv_cache_dtype!r}")
    R, P = kv_c.shape[-1], k_pe.shape[-1]
    _mla_kernel[(T,)](kv_c, k_pe, kv_cache, slot_mapping, scale, kv_c.stride(0), k_pe.stride(0),
                      kv_cache.stride(0), kv_cache.stride(1), R, P, kv_cache.shape[1],
                      BLOCK_R=triton.next_power_of_2(R), BLOCK_P=triton.next_power_of_2(P), MODE=mode, num_warps=4)
    return None
