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
def _flash_kernel(k_ptr, v_ptr, kc_ptr, vc_ptr, slot_ptr, ks_ptr, vs_ptr,
                  k_s0, k_s1, v_s0, v_s1, c_s0, c_s1, c_s2,
                  H, D, BS, BLOCK: tl.constexpr, MODE: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + t)
    if slot >= 0:
        b = slot // BS
        o = slot % BS
        idx = tl.arange(0, BLOCK)
        m = idx < H * D
        h = (idx // D).to(tl.int64)
        d = (idx % D).to(tl.int64)
        ks = tl.load(ks_ptr).to(tl.float32)
        vs = tl.load(vs_ptr).to(tl.float32)
        kv = tl.load(k_ptr + t * k_s0 + h * k_s1 + d, mask=m)
        vv = tl.load(v_ptr + t * v_s0 + h * v_s1 + d, mask=m)
        dst = b * c_s0 + o * c_s1 + h * c_s2 + d
        tl.store(kc_ptr + dst, _to_cache(kv, ks, MODE), mask=m)
        tl.store(vc_ptr + dst, _to_cache(vv, vs, MODE), mask=m)


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    T = slot_mapping.shape[0]
    H, D = key.shape[1], key.shape[2]
    if T == 0:
        return None
    if kv_cache_dtype == "auto":
        mode = 0
    elif kv_cache_dtype in _FP8:
        mode = 1 + _FP8[kv_cache_dtype]
    else:
        raise ValueError(f"reshape_and_cache_flash: unsupported kv_cache_dtype {kv_cache_dtype!r}")
    BS = key_cache.shape[1]
    _flash_kernel[(T,)](key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale,
                        key.stride(0), key.stride(1), value.stride(0), value.stride(1),
                        key_cache.stride(0), key_cache.stride(1), key_cache.stride(2),
                        H, D, BS, BLOCK=triton.next_power_of_2(H * D), MODE=mode, num_warps=4)
    return None
