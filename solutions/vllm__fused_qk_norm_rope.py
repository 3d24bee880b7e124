import triton
import triton.language as tl


@triton.jit
def _qk_norm_rope_kernel(qkv_ptr, qw_ptr, kw_ptr, cache_ptr, pos_ptr, row_stride, HQ, NH, eps,
                         D: tl.constexpr, E: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr,
                         NEOX: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    hh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    j = tl.arange(0, BLOCK_E)
    jm = j < E
    hm = hh < NH
    if NEOX:
        o1 = j
        o2 = j + E
    else:
        o1 = 2 * j
        o2 = 2 * j + 1
    m = hm[:, None] & jm[None, :]
    base = qkv_ptr + tok * row_stride + hh[:, None].to(tl.int64) * D
    x1 = tl.load(base + o1[None, :], mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(base + o2[None, :], mask=m, other=0.0).to(tl.float32)
    ss = tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)
    rr = 1.0 / tl.sqrt_rn(ss / D + eps)
    is_q = (hh < HQ)[:, None]
    w1 = tl.where(is_q, tl.load(qw_ptr + o1, mask=jm, other=0.0).to(tl.float32)[None, :],
                  tl.load(kw_ptr + o1, mask=jm, other=0.0).to(tl.float32)[None, :])
    w2 = tl.where(is_q, tl.load(qw_ptr + o2, mask=jm, other=0.0).to(tl.float32)[None, :],
                  tl.load(kw_ptr + o2, mask=jm, other=0.0).to(tl.float32)[None, :])
    y1 = x1 * (rr[:, None] * w1)
    y2 = x2 * (rr[:, None] * w2)
    p = tl.load(pos_ptr + tok).to(tl.int64)
    c = tl.load(cache_ptr + p * D + j, mask=jm, other=0.0).to(tl.float32)[None, :]
    s = tl.load(cache_ptr + p * D + E + j, mask=jm, other=0.0).to(tl.float32)[None, :]
    r1 = y1 * c - y2 * s
    r2 = y2 * c + y1 * s
    DT: tl.constexpr = qkv_ptr.dtype.element_ty
    tl.store(base + o1[None, :], r1.to(DT), mask=m)
    tl.store(base + o2[None, :], r2.to(DT), mask=m)


def fused_qk_norm_rope(qkv, num_heads_q, num_heads_k, num_heads_v, head_dim, eps, q_weight, k_weight,
                       cos_sin_cache, is_neox, position_ids):
    t = qkv.shape[0]
    nh = int(num_heads_q) + int(num_heads_k)
    d = int(head_dim)
    if t == 0 or nh == 0:
        return None
    e = d // 2
    block_e = triton.next_power_of_2(e)
    block_h = max(1, min(triton.next_power_of_2(nh), 2048 // block_e))
    grid = (t, triton.cdiv(nh, block_h))
    _qk_norm_rope_kernel[grid](qkv, q_weight, k_weight, cos_sin_cache, position_ids, qkv.stride(0),
                               int(num_heads_q), nh, float(eps), D=d, E=e, BLOCK_E=block_e, BLOCK_H=block_h,
                               NEOX=bool(is_neox), num_warps=4)
    return None
