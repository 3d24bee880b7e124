"""vLLM attention kernels (vllm.md §3: merge_attn_states, paged_attention_v1, paged_attention_v2). \
References are pure PyTorch written
from the spec (fp32 math with the spec's rounding points)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import (
    UNIT_ROUNDOFF,
    Call,
    Cost,
    Expected,
    Interface,
    dtype_of,
    product,
    rounding_rule,
    rounding_text,
    written_expected,
)
from ..tensors import poison_
from .common import baseline, baseline_label, esize


# --------------------------------------------------------------------------------- merge_attn_states
def _merge_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, h, d = p["t"], p["h"], p["d"]
    if p.get("strided"):  # [..., :D] slices of [T, H, 2D] buffers: head stride 2D, token stride 2HD
        po = make_tensor([t, h, 2 * d], p["dtype"], device, gen)[..., :d]
        so = make_tensor([t, h, 2 * d], p["dtype"], device, gen)[..., :d]
    else:
        po = make_tensor([t, h, d], p["dtype"], device, gen)
        so = make_tensor([t, h, d], p["dtype"], device, gen)
    # LSEs: fp32 [H, T] (the layout the op reads), values (rand - 0.5) * 4 as upstream
    pl = (torch.rand(h, t, generator=gen, device=device) - 0.5) * 4
    sl = (torch.rand(h, t, generator=gen, device=device) - 0.5) * 4
    special = p.get("special")
    if special == "inf" and t >= 2 and h >= 2:
        pl[0, 0], sl[0, 0] = -float("inf"), -float("inf")      # both -inf: output copies prefix
        pl[1, 1], sl[1, 1] = float("inf"), 1.0                 # +inf is read as -inf
    elif special == "nan":
        pl[0, 0] = float("nan")
    out = poison_(torch.empty(t, h, d, dtype=dtype_of(p["dtype"]), device=device))
    if p.get("out_lse"):
        lse = poison_(torch.empty(h, t, dtype=torch.float32, device=device))
        return Call([out, po, pl, so, sl, lse], written=(0, 5))
    return Call([out, po, pl, so, sl, None], written=(0,))


def merge_native(po: torch.Tensor, pl: torch.Tensor, so: torch.Tensor, sl: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """``merge_attn_states``' output ``[T, H, D]`` (dtype of ``po``) and output LSE ``[H, T]`` (fp32):
    ±inf LSEs read as -inf, M the NaN-ignoring max; both -inf copies the prefix (LSE M); else
    ``rd_T(po*(pe/S) + so*(se/S))`` with ``pe = exp(p - M)``, ``se = exp(s - M)``, ``S = pe + se``, and
    LSE ``log(S) + M``, all in fp32."""
    T = po.shape[0]
    p = pl.reshape(-1, T).float()   # [H, T]
    s = sl.reshape(-1, T).float()
    ninf = torch.tensor(-float("inf"), device=p.device)
    p = torch.where(torch.isinf(p), ninf, p)
    s = torch.where(torch.isinf(s), ninf, s)
    m = torch.fmax(p, s)
    both = torch.isinf(m)
    mm = torch.where(both, torch.zeros_like(m), m)
    pe, se = torch.exp(p - mm), torch.exp(s - mm)
    tot = pe + se
    ps, ss = (pe / tot).t()[:, :, None], (se / tot).t()[:, :, None]   # [T, H, 1]
    merged = po.float() * ps + so.float() * ss
    out = torch.where(both.t()[:, :, None], po.float(), merged).to(po.dtype)
    lse = torch.where(both, m, torch.log(tot) + mm)
    return out, lse


#: The rounding bound's constant for merge_attn_states (:func:`merge_terms`): exp, the sum, the divisions, the two
#: products and their sum (or an FMA), the final rounding; a few units each, with room for a fast exp.
MERGE_BOUND_CONST = 16.0


def merge_terms(po: torch.Tensor, pl: torch.Tensor, so: torch.Tensor, sl: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """The rounding bound's terms (:func:`rounding_rule`; red team 32 R2) of ``merge_attn_states``' fp32 output
    ``[T, H, D]`` and output LSE ``[H, T]``: with a = |p - M|, b = |s - M| (the subtractions' errors, which exp
    turns into relative errors of pe and se) and the weights ps = pe/S, ss = se/S,
    ``(|po|·ps + |so|·ss)·(a + b + 16)`` per output element (``|po|`` where both LSEs are -inf: a copy) and
    ``|M| + |log S| + ps·a + ss·b + 16`` per LSE (the sum, log and the addition of M)."""
    T = po.shape[0]
    p = pl.reshape(-1, T).double()
    s = sl.reshape(-1, T).double()
    ninf = torch.tensor(-float("inf"), dtype=torch.float64, device=p.device)
    p = torch.where(torch.isinf(p), ninf, p)
    s = torch.where(torch.isinf(s), ninf, s)
    m = torch.fmax(p, s)
    both = torch.isinf(m)
    mm = torch.where(both, torch.zeros_like(m), m)
    pe, se = torch.exp(p - mm), torch.exp(s - mm)
    tot = pe + se
    a = torch.nan_to_num((p - mm).abs(), posinf=0.0)
    b = torch.nan_to_num((s - mm).abs(), posinf=0.0)
    ps, ss = pe / tot, se / tot
    c = (a + b + MERGE_BOUND_CONST).t()[:, :, None]
    out = (po.double().abs() * ps.t()[:, :, None] + so.double().abs() * ss.t()[:, :, None]) * c
    out = torch.where(both.t()[:, :, None], po.double().abs(), out)
    lse = mm.abs() + torch.log(tot).abs() + ps * a + ss * b + MERGE_BOUND_CONST
    return out, lse


def _merge_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    out, po, pl, so, sl, lse = call.args
    ro, rl = merge_native(po, pl, so, sl)
    ot, lt = merge_terms(po, pl, so, sl)
    otol, oextra = rounding_rule(ro, ot, "(|po|*pe/S + |so|*se/S)*(|p - M| + |s - M| + 16)")
    exp = [written_expected("arg.0", out, ro, otol, atol_extra=oextra)]
    if lse is not None:
        rl = rl.reshape(lse.shape)
        ltol, lextra = rounding_rule(rl, lt.reshape(lse.shape),
                                     "|M| + |log S| + (pe|p - M| + se|s - M|)/S + 16")
        exp.append(written_expected("arg.5", lse, rl, ltol, atol_extra=lextra))
    return exp


def _merge_base(c: Call) -> None:
    out, po, pl, so, sl, lse = c.args
    ro, rl = merge_native(po, pl, so, sl)
    out.copy_(ro)
    if lse is not None:
        lse.copy_(rl.reshape(lse.shape))


MERGE_ATTN_STATES = FunctionOperator(
    "merge_attn_states", source="vllm", category="attention merge", section="vllm.md § vllm::merge_attn_states",
    semantics="token t, head h: p = prefix_lse[h*T + t], s = suffix_lse[h*T + t] (LSEs read as flat [H, T]); +-inf "
              "is replaced by -inf; M = max(p, s) ignoring NaN; if M is infinite (both -inf): output[t,h,:] = "
              "prefix_output[t,h,:] and output_lse = M; else pe = exp(p - M), se = exp(s - M), S = pe + se, "
              "output[t,h,d] = rd_T(po*(pe/S) + so*(se/S)) (fp32), output_lse[h*T + t] = log(S) + M (written only "
              "when given).",
    interface=Interface(
        function="merge_attn_states",
        params=("output", "prefix_output", "prefix_lse", "suffix_output", "suffix_lse", "output_lse"),
        defaults={"output_lse": None}, written=("output", "output_lse"), returns="None",
        args_doc={"output": "written; [T, H, D] fp16/bf16/fp32, head stride output.stride(1), token stride "
                            "H*stride(1)",
                  "prefix_output": "[T, H, D] dtype of output; head stride prefix_output.stride(1), token stride "
                                   "H*head stride (also for suffix_output)",
                  "prefix_lse": "fp32, read as flat [H, T]", "suffix_output": "[T, H, D] like prefix_output",
                  "suffix_lse": "fp32, read as flat [H, T]",
                  "output_lse": "None, or written: fp32 flat [H, T]"}),
    grids={
        "smoke": [
            dict(t=2, h=3, d=8, dtype="fp32", special="inf"),
            dict(t=5, h=2, d=16, dtype="bf16", out_lse=True),
            dict(t=4, h=2, d=16, dtype="fp16", out_lse=True, special="inf"),
        ],
        "full": product(**{"t,h,d": [(1, 8, 64), (4, 8, 64), (4, 32, 128), (16, 8, 128), (16, 32, 64),
                                     (64, 32, 128)]}, dtype=["fp16", "bf16", "fp32"]),
        "heldout": [
            dict(t=4096, h=16, d=128, dtype="bf16", out_lse=True),
            dict(t=33, h=8, d=128, dtype="fp16", strided=True),
            dict(t=7, h=4, d=64, dtype="fp32", special="nan", out_lse=True),
        ],
    },
    build=_merge_build, reference=_merge_ref,
    cost=lambda p: Cost(4.0 * p["t"] * p["h"] * p["d"], 3 * p["t"] * p["h"] * p["d"] * esize(p["dtype"])
                        + 12 * p["t"] * p["h"]),
    timed=lambda p: p["t"] >= 16,
    baseline=baseline("merge_attn_states", _merge_base), label=baseline_label,
    notes="LSEs are built in the [H, T] layout the op reads (upstream builds [T, H] tensors and the op reads them "
          "transposed, vllm.md §2.10: well defined, only the pairing differs); output_lse is None on the full tier "
          "as upstream.",
)

# ------------------------------------------------------------------------------------ paged_attention_v1
_FP8_KV = {"fp8": torch.float8_e4m3fn, "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


def _pa_lens(p: dict[str, Any], gen: torch.Generator, device: torch.device) -> list[int]:
    if isinstance(p.get("lens"), list):
        return list(p["lens"])
    if p.get("lens") == "random":
        hi = p.get("max_len", p.get("max_seq_len"))
        return torch.randint(1, hi + 1, (p["s"],), generator=gen, device=device).tolist()
    return [max(1, p["context"] - (i % 3)) for i in range(p["s"])]


def _pa_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    s_, hq, hkv, d, bs = p["s"], p["hq"], p["hkv"], p["d"], p["bs"]
    dt = dtype_of(p["dtype"])
    mode = p.get("kv", "auto")
    lens = _pa_lens(p, gen, device)
    nblk = [-(-n // bs) for n in lens]
    maxb = max(nblk)
    total = sum(nblk)
    if p.get("tables") == "randint":  # upstream v2: any block of a pool of nb, repeats allowed
        nb = p["nb"]
        maxb = max(maxb, -(-p.get("max_seq_len", 0) // bs))
        pool = torch.randint(0, nb, (s_ * maxb,), generator=gen, device=device)
        nblk = [maxb] * s_
    elif p.get("tables") == "random":  # non-consecutive blocks drawn from a larger pool
        nb = 2 * total + 3
        pool = torch.randperm(nb, generator=gen, device=device)
    else:
        nb = total
        pool = torch.arange(nb, device=device)
    tables = torch.zeros(s_, maxb, dtype=torch.int32, device=device)
    k = 0
    for i, n in enumerate(nblk):
        tables[i, :n] = pool[k: k + n].to(torch.int32)
        k += n
    cdt = dt if mode == "auto" else torch.uint8
    x = 16 // torch.empty(0, dtype=cdt).element_size()

    def cache(shape: list[int]) -> torch.Tensor:
        if mode == "auto":
            return make_tensor(shape, dt, device, gen)
        return make_tensor(shape, "fp32", device, gen).to(_FP8_KV[mode]).view(torch.uint8)

    kc = cache([nb, hkv, d // x, bs, x])
    vc = cache([nb, hkv, d, bs])
    q = make_tensor([s_, hq, d], dt, device, gen)
    out = poison_(torch.empty(s_, hq, d, dtype=dt, device=device))
    alibi = (torch.pow(2.0, -8.0 * (torch.arange(hq, device=device) + 1) / hq).float() if p.get("alibi") else None)
    ks = torch.tensor([p.get("k_scale", 1.0)], dtype=torch.float32, device=device)
    vs = torch.tensor([p.get("v_scale", 1.0)], dtype=torch.float32, device=device)
    seq_lens = torch.tensor(lens, dtype=torch.int32, device=device)
    return Call([out, q, kc, vc, hkv, 1.0 / d ** 0.5, tables, seq_lens, bs, p.get("max_seq_len", max(lens)), alibi,
                 mode, ks, vs], written=(0,))


def p_rounding_allowance(pr: torch.Tensor, vals: torch.Tensor, dt: torch.dtype) -> torch.Tensor:
    """The elementwise allowance (fp64, ``[Hq, D]``) for the reference's rounding of the probabilities to the query
    dtype before the PV product (``p_i = rd_T(...)``, vllm.md § paged_attention_v1): ``2·u·sum_i p_i·|V_i|``, twice
    the most that rounding moves ``sum_i p_i V_i``. A kernel that keeps p in fp32 (flash-decoding style) is exact
    where the reference is not, and the difference is large beside an output that cancels (false-rejection hunt
    29: a bf16 element 2.2e-4 against the reference's 7.6e-6). ``pr`` [n, Hq] (fp32), ``vals`` [n, Hq, D]."""
    u = UNIT_ROUNDOFF[dt]
    return 2 * u * (pr.double().abs()[:, :, None] * vals.double().abs()).sum(0)


#: The rounding bound's constant for attention (:func:`attention_terms`): exp, the subtraction of the maximum, the
#: division by the sum, the rounding of p and of the result, a few units each, with room for GPU arithmetic (fast
#: exp2 with its scaling by log2(e), approximate division, FMA contraction).
ATTENTION_BOUND_CONST = 16.0


def attention_terms(qs: torch.Tensor, keys: torch.Tensor, vals: torch.Tensor, logit: torch.Tensor, scale: float,
                    bias: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The rounding bound's terms (:func:`rounding_rule`: the allowance is 4·2^-24 times them) of one sequence's
    attention over n positions, as an honest fp32 kernel computes it in any order (red team 32 R2:
    tests/bad/fp16_out). Per position i and query head, the logit's error in units of 2^-24 is at most about
    ``c_i = sqrt(D)·scale·Σ_d|q_d k_id| + |l_i| + |bias_i| + |l_i - m|`` (the D-term dot product by the accumulation
    bound, the scaling, ALiBi, the subtraction of the maximum), which exp turns into a relative error of e_i; with
    ``c̄ = Σ p_j c_j`` (the normalisation) and the sums over n positions:

    - output element d: ``Σ_i p_i |V_id| (c_i + c̄ + 2·sqrt(n) + 16)``;
    - the exp sum Z = Σ e_i (fp32 always, paged_attention_v2's exp_sums): ``Σ_i e_i (c_i + c_max) + (2·sqrt(n) +
      16)·Z``, c_max the logit maximum's c;
    - the maximum logit (max_logits): ``c_max + 4·|m|``.

    ``qs`` [Hq, D], ``keys``/``vals`` [n, Hq, D], ``logit`` [n, Hq] (with the bias), ``bias`` [n, Hq] or None.
    Returns ``(out_terms [Hq, D], z_terms [Hq], m_terms [Hq])`` in fp64."""
    n, d = keys.shape[0], keys.shape[-1]
    lg = logit.double()
    a = scale * (qs.double().abs()[None] * keys.double().abs()).sum(-1)                # [n, Hq]
    m = lg.amax(0, keepdim=True)
    c = d ** 0.5 * a + lg.abs() + (lg - m).abs()
    if bias is not None:
        c = c + bias.double().abs()
    e = torch.exp(lg - m)
    z = e.sum(0)
    p = e / z
    cbar = (p * c).sum(0)                                                             # [Hq]
    out = (p[:, :, None] * vals.double().abs() * (c[:, :, None] + cbar[None, :, None] + 2.0 * n ** 0.5
                                                  + ATTENTION_BOUND_CONST)).sum(0)
    cmax = torch.gather(c, 0, lg.argmax(0, keepdim=True)).squeeze(0)
    zt = (e * (c + cmax[None])).sum(0) + (2.0 * n ** 0.5 + ATTENTION_BOUND_CONST) * z
    return out, zt, cmax + 4.0 * m.squeeze(0).abs()


ATTENTION_TEXT = ("sum_i p_i|V_i|*(c_i + sum_j p_j c_j + 2*sqrt(n) + 16), c_i = sqrt(D)*scale*sum|q k_i| + |l_i| + "
                  "|alibi_i| + |l_i - max l| (the logits' error through exp, the sums over n positions)")


def paged_native(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs, allowance: bool = False,
                 bound: bool = False):
    """``paged_attention_v1``'s ``out [S, Hq, D]`` (vllm.md § paged_attention_v1): logits ``scale * Q.K`` (fp32)
    plus ALiBi ``slope_q * (i - L + 1)``, ``p_i = rd_T(e_i / (Z + 1e-6))`` with ``e_i = exp(l_i - max l)``,
    ``out = rd_T(sum_i p_i V_i)`` in fp32; fp8 caches dequantised as ``rd_T(float(fp8) * scale)``. With
    ``allowance``: ``(out, allow)``, ``allow`` the :func:`p_rounding_allowance` of each output element; with
    ``bound`` too: ``(out, allow, terms)``, ``terms`` the rounding bound's (:func:`attention_terms`)."""
    s_, hq, d = q.shape
    dt = q.dtype
    x = kc.shape[-1]
    group = hq // hkv

    def deq(c: torch.Tensor, sc: torch.Tensor) -> torch.Tensor:
        if mode == "auto":
            return c.float()
        return (c.view(_FP8_KV[mode]).float() * sc.reshape(-1)[0].float()).to(dt).float()

    kf, vf = deq(kc, ks), deq(vc, vs)
    out = torch.empty(s_, hq, d, dtype=dt, device=q.device)
    allow = torch.zeros(s_, hq, d, dtype=torch.float64, device=q.device)
    terms = torch.zeros(s_, hq, d, dtype=torch.float64, device=q.device)
    for si in range(s_):
        n = int(seq_lens[si])
        i = torch.arange(n, device=q.device)
        blk = tables[si].long()[i // bs]
        t = i % bs
        keys = kf[blk, :, :, t, :].reshape(n, hkv, d)          # [n, Hkv, D/x, x] -> [n, Hkv, D]
        vals = vf[blk, :, :, t]                                # [n, Hkv, D]
        keys = keys.repeat_interleave(group, 1)                # [n, Hq, D]
        vals = vals.repeat_interleave(group, 1)
        logit = (q[si].float()[None] * keys).sum(-1) * scale   # [n, Hq]
        bias = None
        if alibi is not None:
            bias = alibi.float()[None, :] * (i - n + 1).float()[:, None]
            logit = logit + bias
        e = torch.exp(logit - logit.max(0, keepdim=True).values)
        pr = (e / (e.sum(0, keepdim=True) + 1e-6)).to(dt).float()
        out[si] = (pr[:, :, None] * vals).sum(0).to(dt)
        allow[si] = p_rounding_allowance(pr, vals, dt)
        if bound:
            terms[si] = attention_terms(q[si], keys, vals, logit, scale, bias)[0]
    assert x * kc.shape[2] == d
    if bound:
        return out, allow, terms
    return (out, allow) if allowance else out


def paged_partitions(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs, part: int, parts: int
                     ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The timed baselines' core (:func:`paged_native` and :func:`paged2_native` without their loops over sequences
    and partitions): every sequence padded to ``parts`` partitions of ``part`` positions, positions at or past its
    length masked (logit -inf, weight 0). The same rounding points as the references (fp32 logits ``scale * Q.K``,
    ALiBi, ``e = exp(l - m)``, ``p = rd_T(e / (S + 1e-6))``, ``rd_T(sum p V)`` in fp32; fp8 dequantised as
    ``rd_T(float(fp8) * scale)``, gathered first), the sums as fp32 matmuls and masked reductions (their order may
    differ from the references'). Returns ``(tmp [S, Hq, P, D] in q's dtype, m [S, Hq, P], z [S, Hq, P] fp32,
    written [S, P] bool)``: partition j of sequence s is written when ``j*part < len(s)``."""
    s_, hq, d = q.shape
    dt = q.dtype
    g = hq // hkv
    n_pos = parts * part
    dev = q.device
    i = torch.arange(n_pos, device=dev)
    lens = seq_lens.long()
    valid = i[None, :] < lens[:, None]                                          # [S, L]
    blk = tables.long()[:, (i // bs).clamp(max=tables.shape[1] - 1)]             # [S, L]
    t = (i % bs)[None, :].expand(s_, n_pos)

    def deq(c: torch.Tensor, sc: torch.Tensor) -> torch.Tensor:
        if mode == "auto":
            return c.float()
        return (c.view(_FP8_KV[mode]).float() * sc.reshape(-1)[0].float()).to(dt).float()

    keys = deq(kc[blk, :, :, t, :], ks).reshape(s_, n_pos, hkv, d)              # [S, L, Hkv, D]
    vals = deq(vc[blk, :, :, t], vs)                                            # [S, L, Hkv, D]
    logit = torch.matmul(q.float().view(s_, hkv, g, d), keys.permute(0, 2, 3, 1)) * scale   # [S, Hkv, G, L]
    if alibi is not None:
        logit = logit + alibi.float().view(1, hkv, g, 1) * (i[None, :] - lens[:, None] + 1).float()[:, None, None, :]
    vmask = valid.view(s_, 1, 1, parts, part)
    lg = torch.where(vmask, logit.view(s_, hkv, g, parts, part), float("-inf"))
    m = lg.amax(-1)                                                             # [S, Hkv, G, P]
    written = valid.view(s_, parts, part)[:, :, 0]                              # [S, P]
    e = torch.exp(lg - torch.where(written.view(s_, 1, 1, parts), m, 0.0)[..., None])
    z = e.sum(-1)
    pr = (e / (z + 1e-6)[..., None]).to(dt).float()                             # [S, Hkv, G, P, part]
    v = vals.view(s_, parts, part, hkv, d).permute(0, 3, 1, 2, 4)               # [S, Hkv, P, part, D]
    tmp = torch.matmul(pr.permute(0, 1, 3, 2, 4), v).to(dt)                     # [S, Hkv, P, G, D]
    tmp = tmp.permute(0, 1, 3, 2, 4).reshape(s_, hq, parts, d)
    return tmp, m.reshape(s_, hq, parts), z.reshape(s_, hq, parts), written


def paged_baseline(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs) -> torch.Tensor:
    """The timed baseline of ``paged_attention_v1``: :func:`paged_partitions` with one partition of the block
    table's width (``tables.shape[1] * bs`` positions, at least every sequence's length)."""
    tmp, _, _, _ = paged_partitions(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs,
                                    tables.shape[1] * bs, 1)
    return tmp[:, :, 0]


def _pa_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    out, q, kc, vc, hkv, scale, tables, seq_lens, bs, _, alibi, mode, ks, vs = call.args
    ref, allow, terms = paged_native(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs,
                                     allowance=True, bound=True)
    tol, extra = rounding_rule(ref, terms, ATTENTION_TEXT, points=allow)
    return [written_expected("arg.0", out, ref, tol, atol_extra=extra)]


def _pa_base(c: Call) -> None:
    out, q, kc, vc, hkv, scale, tables, seq_lens, bs, _, alibi, mode, ks, vs = c.args
    out.copy_(paged_baseline(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs))


def _pa_dtypes(p: dict[str, Any]) -> set[torch.dtype]:
    return {dtype_of(p["dtype"])} | ({_FP8_KV[p["kv"]]} if p.get("kv", "auto") != "auto" else set())


PAGED_ATTENTION_V1 = FunctionOperator(
    "paged_attention_v1", source="vllm", category="decode attention", section="vllm.md § vllm::paged_attention_v1",
    semantics="sequence s, query head q, L = seq_lens[s], kv head q // (Hq/Hkv); logical token i < L is at block "
              "b = block_tables[s, i // BS], t = i mod BS; key element d = key_flat[b*bstr + h*hstr + (d // x)*BS*x + "
              "t*x + d mod x], value element = value_flat[b*bstr + h*hstr + d*BS + t] with bstr, hstr = "
              "key_cache.stride(0), key_cache.stride(1) for both caches. l_i = scale * sum_d float(Q_d) float(K_id) "
              "(fp32) + slope_q*(i - L + 1) with ALiBi; m = max l; e_i = exp(l_i - m); Z = sum e_i; p_i = rd_T(e_i / "
              "(Z + 1e-6)); out[s,q,:] = rd_T(sum_i p_i float(V_i)) (fp32 accumulation). fp8 caches: K = "
              "rd_T(float(E4M3) * k_scale), V likewise. Nothing outside out is written.",
    interface=Interface(
        function="paged_attention_v1",
        params=("out", "query", "key_cache", "value_cache", "num_kv_heads", "scale", "block_tables", "seq_lens",
                "block_size", "max_seq_len", "alibi_slopes", "kv_cache_dtype", "k_scale", "v_scale", "tp_rank",
                "blocksparse_local_blocks", "blocksparse_vert_stride", "blocksparse_block_size",
                "blocksparse_head_sliding_step"),
        defaults={"tp_rank": 0, "blocksparse_local_blocks": 0, "blocksparse_vert_stride": 0,
                  "blocksparse_block_size": 64, "blocksparse_head_sliding_step": 0},
        written=("out",), returns="None",
        args_doc={"out": "written; [S, Hq, D] contiguous, dtype of query",
                  "query": "[S, Hq, D] fp16/bf16/fp32, token stride query.stride(0), heads contiguous",
                  "key_cache": "[NB, Hkv, D/x, BS, x] (x = 16 / cache element size); dtype of query ('auto') or "
                               "uint8 fp8 bytes", "value_cache": "[NB, Hkv, D, BS], dtype as key_cache",
                  "num_kv_heads": "int Hkv (Hq % Hkv == 0)", "scale": "float",
                  "block_tables": "int32 [S, maxb]", "seq_lens": "int32 [S]", "block_size": "int BS",
                  "max_seq_len": "int >= max(seq_lens)", "alibi_slopes": "None or fp32 [Hq]",
                  "kv_cache_dtype": "'auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2'", "k_scale": "fp32 tensor, element 0",
                  "v_scale": "fp32 tensor, element 0",
                  "tp_rank": "0", "blocksparse_local_blocks": "0 (block-sparse mode is not graded)",
                  "blocksparse_vert_stride": "0", "blocksparse_block_size": "64",
                  "blocksparse_head_sliding_step": "0"}),
    grids={
        "smoke": [
            dict(s=2, hq=4, hkv=2, d=64, bs=16, dtype="fp16", lens=[17, 1]),
            dict(s=1, hq=2, hkv=2, d=32, bs=8, dtype="fp32", lens=[9], alibi=True),
            dict(s=2, hq=4, hkv=2, d=64, bs=16, dtype="bf16", lens=[20, 5], kv="fp8_e4m3", k_scale=0.5, v_scale=2.0),
            dict(s=3, hq=4, hkv=1, d=80, bs=8, dtype="fp32", lens=[30, 8, 1], tables="random"),
        ],
        "full": [dict(s=s_, hq=hq, hkv=max(1, hq // div), d=d, bs=bs, dtype=dt, context=c)
                 for s_ in (1, 4, 16, 71) for c in (1, 33, 128, 512, 2048) for hq in (8, 16) for d in (64, 80, 128)
                 for div in (1, 4) for bs in (16, 32) for dt in ("fp16", "bf16")],
        "heldout": [
            dict(s=32, hq=32, hkv=8, d=128, bs=16, dtype="bf16", lens="random", max_len=8192, tables="random"),
            dict(s=3, hq=8, hkv=2, d=256, bs=32, dtype="fp16", lens=[70, 33, 1], kv="fp8_e4m3", k_scale=0.25,
                 v_scale=0.5),
            dict(s=4, hq=6, hkv=3, d=120, bs=16, dtype="fp16", lens=[100, 37, 16, 3], alibi=True, tables="random"),
        ],
    },
    build=_pa_build, reference=_pa_ref, dtypes=_pa_dtypes,
    cost=lambda p: Cost(4.0 * p["s"] * p["hq"] * p["d"] * p.get("context", p.get("max_len", 64)),
                        2 * p["s"] * p["hkv"] * p["d"] * p.get("context", p.get("max_len", 64)) * esize(p["dtype"])),
    timed=lambda p: p["s"] * p.get("context", 0) >= 4096,
    baseline=baseline("paged_attention_v1", _pa_base), label=baseline_label,
    notes="Full tier: proper 5-D key / 4-D value caches on the upstream axes, not the upstream test's 4-D flash-layout "
          "caches read through the paged map (vllm.md §2.10); blocks allocated consecutively per sequence "
          "(held-out: random block tables from a larger pool). The timed native baseline is a vectorized PyTorch "
          "statement of the reference (paged_partitions: sequences padded and masked, fp32 matmuls; the same "
          "rounding points, the sums' order may differ).",
)

# ------------------------------------------------------------------------------------ paged_attention_v2
PARTITION = 512


def _pa2_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    c = _pa_build(p, device, gen)
    out, q = c.args[0], c.args[1]
    s_, hq, d = q.shape
    parts = -(-int(c.args[9]) // PARTITION)
    exp_sum = poison_(torch.empty(s_, hq, parts, dtype=torch.float32, device=device))
    max_logits = poison_(torch.empty(s_, hq, parts, dtype=torch.float32, device=device))
    tmp_out = poison_(torch.empty(s_, hq, parts, d, dtype=q.dtype, device=device))
    return Call([out, exp_sum, max_logits, tmp_out] + c.args[1:], written=(0, 1, 2, 3))


def paged2_native(q, kc, vc, hkv, scale, tables, seq_lens, bs, parts, alibi, mode, ks, vs, allowance: bool = False,
                  bound: bool = False) -> tuple[torch.Tensor, ...]:
    """``paged_attention_v2``'s ``(out, exp_sum, max_logits, tmp_out, written)``: per 512-token partition j,
    m_j = max l, S_j = sum exp(l - m_j), tmp_j = rd_T(sum rd_T(e_i/(S_j + 1e-6)) V_i); one partition: out = tmp_0;
    else M = max m_j, S'_j = S_j exp(m_j - M), G = sum S'_j, out = rd_T(sum_j tmp_j S'_j (1/(G + 1e-6))).
    ``written`` ([S, Hq, P] bool) marks the partitions below ceil(L/512). With ``allowance`` also ``tmp_allow``
    ([S, Hq, P, D] fp64): each partition result's :func:`p_rounding_allowance`; with ``bound`` too, after it, the
    rounding bound's terms (:func:`attention_terms`) of out, exp_sums, max_logits and tmp_out."""
    s_, hq, d = q.shape
    dt = q.dtype
    group = hq // hkv

    def deq(c: torch.Tensor, sc: torch.Tensor) -> torch.Tensor:
        if mode == "auto":
            return c.float()
        return (c.view(_FP8_KV[mode]).float() * sc.reshape(-1)[0].float()).to(dt).float()

    kf, vf = deq(kc, ks), deq(vc, vs)
    out = torch.empty(s_, hq, d, dtype=dt, device=q.device)
    es = torch.zeros(s_, hq, parts, dtype=torch.float32, device=q.device)
    ml = torch.zeros(s_, hq, parts, dtype=torch.float32, device=q.device)
    tmp = torch.zeros(s_, hq, parts, d, dtype=dt, device=q.device)
    written = torch.zeros(s_, hq, parts, dtype=torch.bool, device=q.device)
    tmp_allow = torch.zeros(s_, hq, parts, d, dtype=torch.float64, device=q.device)
    tt = torch.zeros(s_, hq, parts, d, dtype=torch.float64, device=q.device)
    zt = torch.zeros(s_, hq, parts, dtype=torch.float64, device=q.device)
    mt = torch.zeros(s_, hq, parts, dtype=torch.float64, device=q.device)
    ot = torch.zeros(s_, hq, d, dtype=torch.float64, device=q.device)
    for si in range(s_):
        n = int(seq_lens[si])
        i = torch.arange(n, device=q.device)
        blk = tables[si].long()[i // bs]
        t = i % bs
        keys = kf[blk, :, :, t, :].reshape(n, hkv, d).repeat_interleave(group, 1)
        vals = vf[blk, :, :, t].repeat_interleave(group, 1)
        logit = (q[si].float()[None] * keys).sum(-1) * scale                    # [n, Hq]
        bias = None
        if alibi is not None:
            bias = alibi.float()[None, :] * (i - n + 1).float()[:, None]
            logit = logit + bias
        np_ = -(-n // PARTITION)
        for j in range(np_):
            sl = slice(j * PARTITION, min(n, (j + 1) * PARTITION))
            lg = logit[sl]
            m = lg.max(0).values
            e = torch.exp(lg - m)
            z = e.sum(0)
            pr = (e / (z + 1e-6)).to(dt).float()
            tmp[si, :, j] = (pr[:, :, None] * vals[sl]).sum(0).to(dt)
            tmp_allow[si, :, j] = p_rounding_allowance(pr, vals[sl], dt)
            es[si, :, j], ml[si, :, j] = z, m
            if bound:
                tt[si, :, j], zt[si, :, j], mt[si, :, j] = attention_terms(
                    q[si], keys[sl], vals[sl], lg, scale, None if bias is None else bias[sl])
        written[si, :, :np_] = True
        if np_ == 1:
            out[si] = tmp[si, :, 0]
        else:
            mj, sj = ml[si, :, :np_], es[si, :, :np_]
            big = mj.max(-1, keepdim=True).values
            sp = sj * torch.exp(mj - big)
            inv = 1.0 / (sp.sum(-1, keepdim=True) + 1e-6)
            out[si] = (tmp[si, :, :np_].float() * sp[:, :, None] * inv[:, :, None]).sum(1).to(dt)
        if bound:
            # the combine: each partition's terms, weighted, and its result's share through S_j exp(m_j - M)
            # (the subtraction, exp) and the sum over P partitions
            wgt = _combine_weights(es[si:si + 1], ml[si:si + 1], written[si:si + 1])[0, :, :np_]   # [Hq, P']
            dm = (ml[si, :, :np_].double() - ml[si, :, :np_].double().amax(-1, keepdim=True)).abs()
            own = tmp[si, :, :np_].double().abs() * (dm + 2.0 * np_ ** 0.5 + ATTENTION_BOUND_CONST)[..., None]
            ot[si] = (wgt[..., None] * (tt[si, :, :np_] + (own if np_ > 1 else 0.0))).sum(1)
    if bound:
        return out, es, ml, tmp, written, tmp_allow, (ot, zt, mt, tt)
    if allowance:
        return out, es, ml, tmp, written, tmp_allow
    return out, es, ml, tmp, written


def _pa2_args(call: Call) -> tuple[Any, ...]:
    out, es, ml, tmp, q, kc, vc, hkv, scale, tables, seq_lens, bs, _, alibi, mode, ks, vs = call.args
    return q, kc, vc, hkv, scale, tables, seq_lens, bs, es.shape[-1], alibi, mode, ks, vs




def _combine_weights(es: torch.Tensor, ml: torch.Tensor, written: torch.Tensor) -> torch.Tensor:
    """The partitions' combine weights ``S'_j / G`` (fp64, ``[S, Hq, P]``; 0 for unwritten partitions; 1 for a
    single partition, whose result is ``out``)."""
    mj = torch.where(written, ml.double(), torch.tensor(float("-inf"), dtype=torch.float64, device=ml.device))
    big = mj.max(-1, keepdim=True).values
    sp = torch.where(written, es.double() * torch.exp(mj - big), torch.zeros((), dtype=torch.float64,
                                                                              device=es.device))
    wgt = sp / (sp.sum(-1, keepdim=True) + 1e-6)
    single = written.sum(-1, keepdim=True) == 1
    return torch.where(single, written.double(), wgt)


def combine_allowance(es: torch.Tensor, ml: torch.Tensor, tmp: torch.Tensor, written: torch.Tensor) -> torch.Tensor:
    """Elementwise absolute allowance (fp64, ``[S, Hq, D]``) on ``paged_attention_v2``'s ``out`` for the rounding
    of each partition result to the query dtype: ``2·u·sum_j |tmp_j|·S'_j/G`` over a sequence's partitions (0 for
    one partition, where ``out`` is a copy). Partition results are rounded once each (vllm.md
    § paged_attention_v2); an fp32 accumulation order or exp other than the reference's may round a partition
    value one step the other way, and the combine carries that step, weighted, into an ``out`` that is often
    far smaller than its partitions (they cancel): ``rtol·|out|`` alone failed honest kernels on a bf16 held-out
    case on the H200."""
    u = UNIT_ROUNDOFF[tmp.dtype]
    mj = torch.where(written, ml.double(), torch.tensor(float("-inf"), dtype=torch.float64, device=ml.device))
    big = mj.max(-1, keepdim=True).values
    sp = torch.where(written, es.double() * torch.exp(mj - big), torch.zeros((), dtype=torch.float64,
                                                                              device=es.device))
    wgt = sp / (sp.sum(-1, keepdim=True) + 1e-6)                                       # [S, Hq, P]
    multi = written.sum(-1, keepdim=True) > 1                                          # [S, Hq, 1]
    allow = 2 * u * (tmp.double().abs() * wgt[..., None]).sum(2)                       # [S, Hq, D]
    return torch.where(multi, allow, torch.zeros((), dtype=torch.float64, device=allow.device))


def _pa2_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    from .kv_cache import storage_expected

    out, es, ml, tmp = call.args[:4]
    ro, res, rml, rtmp, w, tallow, (ot, zt, mt, tt) = paged2_native(*_pa2_args(call), allowance=True, bound=True)
    # the probabilities' rounding (p_rounding_allowance) in each partition result, and carried into out with the
    # partitions' combine weights, beside the combine's own rounding (combine_allowance)
    oallow = combine_allowance(res, rml, rtmp, w) + (tallow * _combine_weights(res, rml, w)[..., None]).sum(2)
    # the rounding bound (red team 32 R2) of every fp32 output: out and tmp_out in fp32 cases, exp_sums and
    # max_logits (always fp32); the spec's rule with its rounding points for fp16/bf16 out and tmp_out
    otol, oextra = rounding_rule(ro, ot, ATTENTION_TEXT + "; several partitions: their terms weighted by S'_j/G, "
                                 "plus |tmp_j|*(|m_j - M| + 2*sqrt(P) + 16)", points=oallow)
    ttol, textra = rounding_rule(rtmp, tt, ATTENTION_TEXT + " over the partition", points=tallow)
    ztol, zextra = rounding_rule(res, zt, "sum_i e_i*(c_i + c_max) + (2*sqrt(n) + 16)*Z, c_i as for out (the "
                                 "logits' error through exp)")
    mtol, mextra = rounding_rule(rml, mt, "c_max + 4|max l| (the maximum logit's dot product, scaling, ALiBi)")
    wm = w[..., None].expand_as(rtmp)
    return [written_expected("arg.0", out, ro, otol, atol_extra=oextra),
            storage_expected("arg.1", es, res, w, ztol, atol_extra=zextra),
            storage_expected("arg.2", ml, rml, w, mtol, atol_extra=mextra),
            storage_expected("arg.3", tmp, rtmp, wm, ttol, atol_extra=textra)]


def paged2_baseline(out, es, ml, tmp_out, q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs
                    ) -> None:
    """The timed baseline of ``paged_attention_v2``: :func:`paged_partitions` over 512-token partitions, the
    unwritten partitions of the scratch tensors rewritten with their own bits, and :func:`paged2_native`'s combine
    over each sequence's written partitions (a copy of partition 0 where it has one)."""
    s_, hq, parts = es.shape
    tmp, m, z, written = paged_partitions(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs,
                                          PARTITION, parts)
    w = written[:, None, :]                                                     # [S, 1, P]
    es.copy_(torch.where(w, z, es))
    ml.copy_(torch.where(w, m, ml))
    tmp_out.copy_(torch.where(w[..., None], tmp, tmp_out))
    big = torch.where(w, m, float("-inf")).amax(-1, keepdim=True)
    sp = torch.where(w, z * torch.exp(m - big), 0.0)
    inv = 1.0 / (sp.sum(-1, keepdim=True) + 1e-6)
    comb = (tmp.float() * sp[..., None] * inv[..., None]).sum(2).to(q.dtype)
    single = (written.sum(-1) == 1)[:, None, None]
    out.copy_(torch.where(single, tmp[:, :, 0], comb))


def _pa2_base(c: Call) -> None:
    out, es, ml, tmp, q, kc, vc, hkv, scale, tables, seq_lens, bs, _, alibi, mode, ks, vs = c.args
    paged2_baseline(out, es, ml, tmp, q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs)


PAGED_ATTENTION_V2 = FunctionOperator(
    "paged_attention_v2", source="vllm", category="decode attention", section="vllm.md § vllm::paged_attention_v2",
    semantics="as paged_attention_v1, split into partitions of 512 tokens: partition j of sequence s, head q: "
              "m_j = max l, S_j = sum exp(l - m_j), tmp_out[s,q,j,:] = rd_T(sum_i rd_T(e_i/(S_j + 1e-6)) V_i), "
              "max_logits[s,q,j] = m_j, exp_sum[s,q,j] = S_j. One partition: out = tmp_out[...,0,:]; "
              "else M = max_j m_j, "
              "S'_j = S_j exp(m_j - M), G = sum S'_j, out[d] = rd_T(sum_j float(tmp_out_j[d]) S'_j (1/(G + 1e-6))). "
              "Partitions j >= ceil(L/512) of the scratch tensors stay untouched.",
    interface=Interface(
        function="paged_attention_v2",
        params=("out", "exp_sum", "max_logits", "tmp_out") + PAGED_ATTENTION_V1.interface.params[1:],
        defaults=dict(PAGED_ATTENTION_V1.interface.defaults),
        written=("out", "exp_sum", "max_logits", "tmp_out"), returns="None",
        args_doc=dict(PAGED_ATTENTION_V1.interface.args_doc,
                      exp_sum="written; fp32 [S, Hq, P], P = ceil(max_seq_len/512)",
                      max_logits="written; fp32 [S, Hq, P]", tmp_out="written; [S, Hq, P, D], dtype of query")),
    grids={
        "smoke": [
            dict(s=2, hq=2, hkv=1, d=64, bs=16, dtype="fp16", lens=[600, 33]),
            dict(s=1, hq=2, hkv=2, d=32, bs=16, dtype="fp32", lens=[512]),
            dict(s=2, hq=4, hkv=1, d=32, bs=16, dtype="fp32", lens=[1030, 2], alibi=True, max_seq_len=1600),
        ],
        "full": [dict(s=s_, hq=hq, hkv=hkv, d=d, bs=bs, nb=nb, max_seq_len=ms, dtype=dt, lens="random",
                      tables="randint")
                 for s_, hq, hkv, d, bs, nb, ms in [(2, 8, 8, 64, 16, 32, 128), (4, 8, 8, 64, 16, 64, 256),
                                                    (4, 32, 8, 128, 16, 128, 512), (8, 16, 8, 128, 16, 256, 1024)]
                 for dt in ("fp16", "bf16")],
        "heldout": [
            dict(s=8, hq=64, hkv=8, d=128, bs=16, dtype="bf16", lens="random", max_len=16384, tables="random"),
            dict(s=2, hq=4, hkv=2, d=64, bs=16, dtype="fp16", lens=[1500, 1499], kv="fp8_e4m3", k_scale=0.5,
                 v_scale=0.25, alibi=True),
            dict(s=3, hq=4, hkv=2, d=96, bs=32, dtype="fp32", lens=[1100, 512, 7], tables="random"),
        ],
    },
    build=_pa2_build, reference=_pa2_ref, dtypes=_pa_dtypes,
    cost=lambda p: Cost(4.0 * p["s"] * p["hq"] * p["d"] * p.get("max_seq_len", p.get("max_len", 1024)),
                        2 * p["s"] * p["hkv"] * p["d"] * p.get("max_seq_len", p.get("max_len", 1024))
                        * esize(p["dtype"])),
    timed=lambda p: p.get("max_seq_len", 0) >= 256,
    baseline=baseline("paged_attention_v2", _pa2_base), label=baseline_label,
    notes="Besides out, exp_sum, max_logits and tmp_out are checked on the written partitions (upstream compares out "
          "only); the scratch tensors arrive poisoned and the unwritten partitions must stay so. The timed native "
          "baseline is a vectorized PyTorch statement of the reference (paged_partitions: sequences padded and "
          "masked, fp32 matmuls; the same rounding points, the sums' order may differ).",
)

OPERATORS = [MERGE_ATTN_STATES, PAGED_ATTENTION_V1, PAGED_ATTENTION_V2]


# the rounding bound's atol in words (kgb show; red team 32 R2)
MERGE_ATTN_STATES.atol_text = rounding_text(
    "(|po|*ps + |so|*ss)*(|p - M| + |s - M| + 16) for output, |M| + |log S| + ps|p - M| + ss|s - M| + 16 for "
    "output_lse")
PAGED_ATTENTION_V1.atol_text = rounding_text(ATTENTION_TEXT)
PAGED_ATTENTION_V2.atol_text = rounding_text(
    ATTENTION_TEXT + " for out (several partitions: weighted by their combine weights, plus |tmp_j|*(|m_j - M| + "
    "2*sqrt(P) + 16)) and tmp_out; exp_sums sum_i e_i*(c_i + c_max) + (2*sqrt(n) + 16)*Z; max_logits c_max + "
    "4|max l|")
