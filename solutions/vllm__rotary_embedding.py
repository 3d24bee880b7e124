import torch
import triton
import triton.language as tl


@triton.jit
def _rne_bf16(v):
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _rd(v, DT: tl.constexpr, HALF: tl.constexpr, SOFT_BF16: tl.constexpr):
    # one operation of half-type arithmetic: the fp32 result rounded to the tensor dtype
    if HALF:
        if SOFT_BF16:
            return _rne_bf16(v).to(tl.float32)
        else:
            return v.to(DT).to(tl.float32)
    else:
        return v


@triton.jit
def _rotate(x_ptr, tok, ts, hs, H, c, s, hh, jj, hm, xo, yo,
            DT: tl.constexpr, HALF: tl.constexpr, SOFT_BF16: tl.constexpr):
    base = x_ptr + tok * ts + hh[:, None] * hs
    m = hm[:, None] & (jj[None, :] >= 0)
    x = tl.load(base + xo[None, :], mask=m, other=0.0).to(tl.float32)
    y = tl.load(base + yo[None, :], mask=m, other=0.0).to(tl.float32)
    nx = _rd(_rd(x * c, DT, HALF, SOFT_BF16) - _rd(y * s, DT, HALF, SOFT_BF16), DT, HALF, SOFT_BF16)
    ny = _rd(_rd(y * c, DT, HALF, SOFT_BF16) + _rd(x * s, DT, HALF, SOFT_BF16), DT, HALF, SOFT_BF16)
    if SOFT_BF16:
        tl.store(base + xo[None, :], _rne_bf16(nx), mask=m)
        tl.store(base + yo[None, :], _rne_bf16(ny), mask=m)
    else:
        tl.store(base + xo[None, :], nx.to(DT), mask=m)
        tl.store(base + yo[None, :], ny.to(DT), mask=m)


@triton.jit
def _rope_kernel(pos_ptr, q_ptr, k_ptr, cache_ptr, q_ts, q_hs, k_ts, k_hs, HQ, HK, ROT,
                 E: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr, NEOX: tl.constexpr,
                 HAS_K: tl.constexpr, HALF: tl.constexpr, SOFT_BF16: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    p = tl.load(pos_ptr + tok).to(tl.int64)
    j = tl.arange(0, BLOCK_E)
    jm = j < E
    jj = tl.where(jm, j, -1)
    c = tl.load(cache_ptr + p * ROT + j, mask=jm, other=0.0).to(tl.float32)[None, :]
    s = tl.load(cache_ptr + p * ROT + E + j, mask=jm, other=0.0).to(tl.float32)[None, :]
    if NEOX:
        xo = j
        yo = j + E
    else:
        xo = 2 * j
        yo = 2 * j + 1
    DT: tl.constexpr = q_ptr.dtype.element_ty
    for h0 in range(0, HQ, BLOCK_H):
        hh = h0 + tl.arange(0, BLOCK_H)
        _rotate(q_ptr, tok, q_ts, q_hs, HQ, c, s, hh, jj, hh < HQ, xo, yo, DT, HALF, SOFT_BF16)
    if HAS_K:
        for h0 in range(0, HK, BLOCK_H):
            hh = h0 + tl.arange(0, BLOCK_H)
            _rotate(k_ptr, tok, k_ts, k_hs, HK, c, s, hh, jj, hh < HK, xo, yo, DT, HALF, SOFT_BF16)


def _layout(x, npos, d):
    ts = x.stride(npos - 1)
    if x.dim() == npos + 2:
        return ts, x.stride(-2), x.shape[-2]
    return ts, d, x.shape[-1] // d


def rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox):
    npos = positions.dim()
    ntok = positions.numel()
    if ntok == 0:
        return None
    pos = positions.reshape(-1)
    d = int(head_size)
    q_ts, q_hs, hq = _layout(query, npos, d)
    has_k = key is not None
    k_ts, k_hs, hk = _layout(key, npos, d) if has_k else (0, 0, 0)
    rot = cos_sin_cache.shape[1]
    e = rot // 2
    half = query.dtype in (torch.float16, torch.bfloat16)
    soft = query.dtype == torch.bfloat16 and query.device.type == "cpu"
    block_h = min(16, triton.next_power_of_2(max(hq, hk, 1)))
    _rope_kernel[(ntok,)](pos, query, key if has_k else query, cos_sin_cache, q_ts, q_hs, k_ts, k_hs, hq, hk, rot,
                          E=e, BLOCK_E=triton.next_power_of_2(e), BLOCK_H=block_h, NEOX=bool(is_neox),
                          HAS_K=has_k, HALF=half, SOFT_BF16=soft, num_warps=4)
    return None
