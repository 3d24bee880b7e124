import triton
import triton.language as tl

_TARGET_ELEMS = 2048   # gating elements handled per program (upper bound)
_MIN_PROGRAMS = 264    # keep about two programs per SM on an H200 when T allows


@triton.jit
def _topk_softmax_kernel(
    w_ptr, id_ptr, tei_ptr, g_ptr,
    T, E, stride_g,
    K: tl.constexpr,
    BLOCK_T: tl.constexpr,
    BLOCK_E: tl.constexpr,
    BLOCK_K: tl.constexpr,
    RENORM: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    rmask = rows < T
    rows64 = rows.to(tl.int64)
    e_idx = tl.arange(0, BLOCK_E)
    emask = e_idx < E
    mask2 = rmask[:, None] & emask[None, :]
    x = tl.load(g_ptr + rows64[:, None] * stride_g + e_idx[None, :],
                mask=mask2, other=float("-inf")).to(tl.float32)
    # keep padded rows finite so no NaN is produced there (they are never stored)
    x = tl.where(rmask[:, None], x, tl.where(emask[None, :], 0.0, float("-inf")))
    m = tl.max(x, axis=1)
    ex = tl.exp(x - m[:, None])
    ex = tl.where(emask[None, :], ex, 0.0)
    s = tl.sum(ex, axis=1)
    rinv = tl.math.div_rn(tl.full([BLOCK_T], 1.0, tl.float32), s)
    p = ex * rinv[:, None]
    # padded experts can never be chosen
    p = tl.where(emask[None, :], p, float("-inf"))

    k_idx = tl.arange(0, BLOCK_K)
    sel_w = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    sel_i = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.int32)
    for j in tl.static_range(K):
        mx = tl.max(p, axis=1)
        cand = tl.where(p == mx[:, None], e_idx[None, :], BLOCK_E)
        best = tl.min(cand, axis=1)
        sel_w = tl.where(k_idx[None, :] == j, mx[:, None], sel_w)
        sel_i = tl.where(k_idx[None, :] == j, best[:, None], sel_i)
        p = tl.where(e_idx[None, :] == best[:, None], float("-inf"), p)

    kmask = k_idx < K
    if RENORM:
        tot = tl.sum(tl.where(kmask[None, :], sel_w, 0.0), axis=1)
        denom = tl.where(tot > 0.0, tot, 1.0)
        sel_w = tl.math.div_rn(sel_w, denom[:, None])

    out_off = rows64[:, None] * K + k_idx[None, :]
    omask = rmask[:, None] & kmask[None, :]
    tl.store(w_ptr + out_off, sel_w, mask=omask)
    tl.store(id_ptr + out_off, sel_i, mask=omask)
    tei = k_idx[None, :] * T + rows[:, None]
    tl.store(tei_ptr + out_off, tei, mask=omask)


def topk_softmax(topk_weights, topk_ids, token_expert_indices, gating_output, renormalize=False):
    E = gating_output.shape[-1]
    g = gating_output
    if g.dim() != 2:
        g = g.reshape(-1, E)
    T = g.shape[0]
    K = topk_weights.shape[-1]
    if T == 0 or K == 0:
        return None
    if g.stride(-1) != 1:
        g = g.contiguous()
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK_K = triton.next_power_of_2(K)
    BLOCK_T = max(1, _TARGET_ELEMS // BLOCK_E)
    while BLOCK_T > 1 and triton.cdiv(T, BLOCK_T) < _MIN_PROGRAMS:
        BLOCK_T //= 2
    BLOCK_T = min(BLOCK_T, triton.next_power_of_2(T))
    num_warps = 4 if BLOCK_T * BLOCK_E >= 1024 else (2 if BLOCK_T * BLOCK_E >= 256 else 1)
    grid = (triton.cdiv(T, BLOCK_T),)
    _topk_softmax_kernel[grid](
        topk_weights, topk_ids, token_expert_indices, g,
        T, E, g.stride(0),
        K=K, BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E, BLOCK_K=BLOCK_K,
        RENORM=bool(renormalize),
        num_warps=num_warps,
    )
    return None
