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
def _rd(v, DT: tl.constexpr, SOFT_BF16: tl.constexpr):
    if SOFT_BF16:
        return _rne_bf16(v).to(tl.float32)
    else:
        return v.to(DT).to(tl.float32)


@triton.jit
def _load_kv(ptr, off, m, sc, DT: tl.constexpr, MODE: tl.constexpr, SOFT_BF16: tl.constexpr):
    raw = tl.load(ptr + off, mask=m, other=0)
    if MODE == 0:
        return raw.to(tl.float32)
    elif MODE == 1:
        return _rd(raw.to(tl.float8e4nv, bitcast=True).to(tl.float32) * sc, DT, SOFT_BF16)
    else:
        return _rd(raw.to(tl.float8e5, bitcast=True).to(tl.float32) * sc, DT, SOFT_BF16)


@triton.jit
def _logits(q_ptr, kc_ptr, qv, blk, kvh, tok, tm, dm, koff_d, t, bstr, hstr, X, ks, scale, slope, L,
            DT: tl.constexpr, MODE: tl.constexpr, SOFT_BF16: tl.constexpr, HAS_ALIBI: tl.constexpr):
    base = blk * bstr + kvh * hstr
    k = _load_kv(kc_ptr, base + koff_d[None, :] + (t * X)[:, None], tm[:, None] & dm[None, :], ks, DT, MODE, SOFT_BF16)
    lg = tl.sum(qv[None, :] * k, axis=1) * scale
    if HAS_ALIBI:
        lg += slope * (tok - L + 1).to(tl.float32)
    return tl.where(tm, lg, float("-inf"))


@triton.jit
def _part_kernel(es_ptr, ml_ptr, tmp_ptr, q_ptr, kc_ptr, vc_ptr, table_ptr, lens_ptr, alibi_ptr, ks_ptr, vs_ptr,
                 scale, HQ, D, GROUP, NP, q_s0, t_s0, bstr, hstr, X,
                 BS: tl.constexpr, PART: tl.constexpr, BLOCK_D: tl.constexpr, HAS_ALIBI: tl.constexpr,
                 MODE: tl.constexpr, SOFT_BF16: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    qh = tl.program_id(1).to(tl.int64)
    j = tl.program_id(2).to(tl.int64)
    L = tl.load(lens_ptr + s)
    lo = j * PART
    if lo < L:
        hi = tl.minimum(lo + PART, L)
        kvh = qh // GROUP
        DT: tl.constexpr = tmp_ptr.dtype.element_ty
        d = tl.arange(0, BLOCK_D)
        dm = d < D
        qv = tl.load(q_ptr + s * q_s0 + qh * D + d, mask=dm, other=0.0).to(tl.float32)
        ks = tl.load(ks_ptr).to(tl.float32)
        vs = tl.load(vs_ptr).to(tl.float32)
        if HAS_ALIBI:
            slope = tl.load(alibi_ptr + qh).to(tl.float32)
        else:
            slope = 0.0
        t = tl.arange(0, BS)
        koff_d = (d // X) * BS * X + d % X
        m = float("-inf")
        z = 0.0
        for start in range(lo, hi, BS):
            blk = tl.load(table_ptr + s * t_s0 + start // BS).to(tl.int64)
            tok = start + t
            tm = tok < hi
            lg = _logits(q_ptr, kc_ptr, qv, blk, kvh, tok, tm, dm, koff_d, t, bstr, hstr, X, ks, scale, slope, L,
                         DT, MODE, SOFT_BF16, HAS_ALIBI)
            m_new = tl.maximum(m, tl.max(lg, axis=0))
            z = z * tl.exp(m - m_new) + tl.sum(tl.where(tm, tl.exp(lg - m_new), 0.0), axis=0)
            m = m_new
        denom = z + 1e-6
        acc = tl.zeros([BLOCK_D], dtype=tl.float32)
        for start in range(lo, hi, BS):
            blk = tl.load(table_ptr + s * t_s0 + start // BS).to(tl.int64)
            tok = start + t
            tm = tok < hi
            lg = _logits(q_ptr, kc_ptr, qv, blk, kvh, tok, tm, dm, koff_d, t, bstr, hstr, X, ks, scale, slope, L,
                         DT, MODE, SOFT_BF16, HAS_ALIBI)
            e = tl.where(tm, tl.exp(lg - m), 0.0)
            pr = _rd(tl.math.div_rn(e, tl.zeros_like(e) + denom), DT, SOFT_BF16)
            base = blk * bstr + kvh * hstr
            v = _load_kv(vc_ptr, base + (d * BS)[None, :] + t[:, None], tm[:, None] & dm[None, :], vs, DT, MODE,
                         SOFT_BF16)
            acc += tl.sum(pr[:, None] * v, axis=0)
        row = (s * HQ + qh) * NP + j
        tl.store(es_ptr + row, z)
        tl.store(ml_ptr + row, m)
        if SOFT_BF16:
            tl.store(tmp_ptr + row * D + d, _rne_bf16(acc), mask=dm)
        else:
            tl.store(tmp_ptr + row * D + d, acc.to(DT), mask=dm)


@triton.jit
def _reduce_kernel(out_ptr, es_ptr, ml_ptr, tmp_ptr, lens_ptr, HQ, D, NP,
                   PART: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_D: tl.constexpr, SOFT_BF16: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    qh = tl.program_id(1).to(tl.int64)
    L = tl.load(lens_ptr + s)
    n = (L + PART - 1) // PART
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    row0 = (s * HQ + qh) * NP
    DT: tl.constexpr = out_ptr.dtype.element_ty
    if n == 1:
        v = tl.load(tmp_ptr + row0 * D + d, mask=dm)
        tl.store(out_ptr + (s * HQ + qh) * D + d, v, mask=dm)
    else:
        jj = tl.arange(0, BLOCK_P)
        jm = jj < n
        mj = tl.load(ml_ptr + row0 + jj, mask=jm, other=float("-inf"))
        sj = tl.load(es_ptr + row0 + jj, mask=jm, other=0.0)
        big = tl.max(mj, axis=0)
        sp = tl.where(jm, sj * tl.exp(mj - big), 0.0)
        inv = tl.math.div_rn(1.0, tl.sum(sp, axis=0) + 1e-6)
        tv = tl.load(tmp_ptr + (row0 + jj)[:, None] * D + d[None, :], mask=jm[:, None] & dm[None, :],
                     other=0.0).to(tl.float32)
        acc = tl.sum(tv * (sp * inv)[:, None], axis=0)
        if SOFT_BF16:
            tl.store(out_ptr + (s * HQ + qh) * D + d, _rne_bf16(acc), mask=dm)
        else:
            tl.store(out_ptr + (s * HQ + qh) * D + d, acc.to(DT), mask=dm)


def paged_attention_v2(out, exp_sum, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
                       block_tables, seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale,
                       v_scale, tp_rank=0, blocksparse_local_blocks=0, blocksparse_vert_stride=0,
                       blocksparse_block_size=64, blocksparse_head_sliding_step=0):
    if blocksparse_vert_stride > 1:
        raise NotImplementedError("paged_attention_v2: block-sparse mode is not supported")
    S, HQ, D = query.shape
    if S == 0:
        return None
    if kv_cache_dtype == "auto":
        mode = 0
    elif kv_cache_dtype in _FP8:
        mode = _FP8[kv_cache_dtype]
    else:
        raise ValueError(f"paged_attention_v2: unsupported kv_cache_dtype {kv_cache_dtype!r}")
    NP = exp_sum.shape[-1]
    has_alibi = alibi_slopes is not None
    soft = out.dtype == torch.bfloat16 and out.device.type == "cpu"
    _part_kernel[(S, HQ, NP)](exp_sum, max_logits, tmp_out, query, key_cache, value_cache, block_tables, seq_lens,
                              alibi_slopes if has_alibi else k_scale, k_scale, v_scale, float(scale), HQ, D,
                              HQ // int(num_kv_heads), NP, query.stride(0), block_tables.stride(0),
                              key_cache.stride(0), key_cache.stride(1), key_cache.shape[-1],
                              BS=int(block_size), PART=512, BLOCK_D=triton.next_power_of_2(D), HAS_ALIBI=has_alibi,
                              MODE=mode, SOFT_BF16=soft, num_warps=4)
    _reduce_kernel[(S, HQ)](out, exp_sum, max_logits, tmp_out, seq_lens, HQ, D, NP, PART=512,
                            BLOCK_P=triton.next_power_of_2(NP), BLOCK_D=triton.next_power_of_2(D), SOFT_BF16=soft,
                            num_warps=4)
    return None
