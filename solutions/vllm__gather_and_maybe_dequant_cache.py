import torch
import triton
import triton.language as tl

_FP8 = {"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 2}


@triton.jit
def _rne_bf16(v):
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _gd_kernel(src_ptr, dst_ptr, table_ptr, cu_ptr, t2s_ptr, starts_ptr, scale_ptr, s_s0, s_s1, d_s0, t_s0, BS, ES,
               HAS_STARTS: tl.constexpr, MODE: tl.constexpr, SOFT_BF16: tl.constexpr, BLOCK_E: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    b = tl.load(t2s_ptr + t).to(tl.int64)
    lo = tl.load(cu_ptr + b)
    hi = tl.load(cu_ptr + b + 1)
    if t < hi:
        p = t - lo
        if HAS_STARTS:
            p += tl.load(starts_ptr + b)
        blk = tl.load(table_ptr + b * t_s0 + p // BS).to(tl.int64)
        src = src_ptr + blk * s_s0 + (p % BS) * s_s1
        sc = tl.load(scale_ptr).to(tl.float32)
        for e0 in range(0, ES, BLOCK_E):
            e = e0 + tl.arange(0, BLOCK_E)
            m = e < ES
            raw = tl.load(src + e, mask=m)
            if MODE == 0:
                v = raw
            else:
                if MODE == 1:
                    f = raw.to(tl.float8e4nv, bitcast=True).to(tl.float32) * sc
                else:
                    f = raw.to(tl.float8e5, bitcast=True).to(tl.float32) * sc
                if SOFT_BF16:
                    v = _rne_bf16(f)
                else:
                    v = f.to(dst_ptr.dtype.element_ty)
            tl.store(dst_ptr + t * d_s0 + e, v, mask=m)


def gather_and_maybe_dequant_cache(src_cache, dst, block_table, cu_seq_lens, token_to_seq, num_tokens, kv_cache_dtype,
                                   scale, seq_starts=None):
    n = int(num_tokens)
    if n == 0:
        return None
    if kv_cache_dtype == "auto":
        mode = 0
    elif kv_cache_dtype in _FP8:
        mode = _FP8[kv_cache_dtype]
    else:
        raise ValueError(f"gather_and_maybe_dequant_cache: unsupported kv_cache_dtype {kv_cache_dtype!r}")
    has = seq_starts is not None
    soft = dst.dtype == torch.bfloat16 and dst.device.type == "cpu"
    _gd_kernel[(n,)](src_cache, dst, block_table, cu_seq_lens, token_to_seq, seq_starts if has else cu_seq_lens,
                     scale, src_cache.stride(0), src_cache.stride(1), dst.stride(0), block_table.stride(0),
                     src_cache.shape[1], dst.shape[-1], HAS_STARTS=has, MODE=mode, SOFT_BF16=soft, BLOCK_E=1024,
                     num_warps=4)
    return None
