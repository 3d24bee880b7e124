import torch
import triton
import triton.language as tl

_DT = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}


@triton.jit
def _grouped_topk_kernel(scores_ptr, bias_ptr, w_ptr, ids_ptr, E, GS, NG, TOPK_GROUP, TOPK, rsf,
                         S: tl.constexpr, SIGMOID: tl.constexpr, RENORM: tl.constexpr,
                         NG_P: tl.constexpr, GS_P: tl.constexpr, K_P: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    g = tl.arange(0, NG_P)
    j = tl.arange(0, GS_P)
    valid = (g < NG)[:, None] & (j < GS)[None, :]
    e_idx = g[:, None] * GS + j[None, :]                      # expert index of each tile slot
    x = tl.load(scores_ptr + t * E + e_idx, mask=valid, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + e_idx, mask=valid, other=0.0).to(tl.float32)
    ninf = float("-inf")
    # 1. scores or rd_S(0.5 * tanh(0.5 * x) + 0.5), tanh from exp(-2|y|) with IEEE divisions
    if SIGMOID:
        y = 0.5 * x
        q = tl.exp(-2.0 * tl.abs(y))
        th = tl.math.div_rn(1.0 - q, 1.0 + q)
        th = tl.where(y < 0, -th, th)
        sc = (0.5 * th + 0.5).to(S).to(tl.float32)
    else:
        sc = x
    # 2. candidates rd_S(sc + bias)
    cand = (sc + b).to(S).to(tl.float32)
    cand = tl.where(valid, cand, ninf)
    # 3. group score rd_S(a + b) of the two largest candidates (a multiset); non-finite -> -inf
    a1 = tl.max(cand, axis=1)
    is_a = cand == a1[:, None]
    n_a = tl.sum(is_a.to(tl.int32), axis=1)
    a2 = tl.max(tl.where(is_a, ninf, cand), axis=1)
    a2 = tl.where(n_a >= 2, a1, a2)
    gsc = (a1 + a2).to(S).to(tl.float32)
    finite = (gsc == gsc) & (tl.abs(gsc) < float("inf"))
    gsc = tl.where(finite & (g < NG), gsc, ninf)
    # 4. the TOPK_GROUP best groups by (score descending, index ascending): rank by pairwise comparison
    h = tl.arange(0, NG_P)
    gsc_h = tl.where(h < NG, gsc, ninf)
    better = (gsc_h[None, :] > gsc[:, None]) | ((gsc_h[None, :] == gsc[:, None]) & (h[None, :] < g[:, None]))
    better = better & (h < NG)[None, :]
    rank = tl.sum(better.to(tl.int32), axis=1)
    chosen = (rank < TOPK_GROUP) & (g < NG)
    fallback = tl.max((chosen & (gsc == ninf)).to(tl.int32), axis=0) > 0   # the threshold is -inf
    # 5. the TOPK experts of the chosen groups by (cand descending, index ascending); -inf for non-finite scores
    val = tl.where((x == x) & (tl.abs(x) < float("inf")), cand, ninf)
    alive = chosen[:, None] & valid
    k = tl.arange(0, K_P)
    ids = tl.zeros([K_P], dtype=tl.int32)
    w = tl.zeros([K_P], dtype=tl.float32)
    big = E + 1
    for i in range(TOPK):
        m = tl.max(tl.where(alive, val, ninf), axis=None)
        pick = tl.min(tl.where(alive & (val == m), e_idx, big), axis=None)
        hit = (e_idx == pick) & valid  # padded slots repeat the next group's indices
        wi = tl.sum(tl.where(hit, sc, 0.0), axis=None)
        ids = tl.where(k == i, pick, ids)
        w = tl.where(k == i, wi, w)
        alive = alive & (e_idx != pick)
    # 7. weights: renormalise in fp32, then the scaling factor
    if RENORM:
        total = tl.sum(tl.where(k < TOPK, w, 0.0), axis=0)
        w = tl.math.div_rn(w, tl.zeros_like(w) + (1e-20 + total))
    w = w * rsf
    # 6. fallback: experts 0..TOPK-1 with weight 1/TOPK
    ones = tl.zeros_like(w) + 1.0
    w = tl.where(fallback, tl.math.div_rn(ones, ones * TOPK), w)
    ids = tl.where(fallback, k, ids)
    km = k < TOPK
    tl.store(w_ptr + t * TOPK + k, w, mask=km)
    tl.store(ids_ptr + t * TOPK + k, ids, mask=km)


def grouped_topk(scores, num_expert_group, topk_group, topk, renormalize, routed_scaling_factor, bias,
                 scoring_func=0):
    T, E = scores.shape
    NG = int(num_expert_group)
    GS = E // NG
    w = torch.empty((T, topk), dtype=torch.float32, device=scores.device)
    ids = torch.empty((T, topk), dtype=torch.int32, device=scores.device)
    if T == 0:
        return w, ids
    if scoring_func not in (0, 1):
        raise ValueError(f"grouped_topk: unsupported scoring_func {scoring_func}")
    scores = scores.contiguous()
    bias = bias.contiguous()  # [E] in the dtype of scores
    _grouped_topk_kernel[(T,)](scores, bias, w, ids, E, GS, NG, int(topk_group), int(topk),
                               float(routed_scaling_factor), S=_DT[scores.dtype], SIGMOID=scoring_func == 1,
                               RENORM=bool(renormalize), NG_P=triton.next_power_of_2(NG),
                               GS_P=triton.next_power_of_2(GS), K_P=triton.next_power_of_2(max(int(topk), 2)),
                               num_warps=4)
    return w, ids
