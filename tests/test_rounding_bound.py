"""The rounding bound of small fp32 vLLM outputs (README "Tolerance and precision policy"; suite/tolerance.py
``rounding_rule``; red team 32 R2): honest fp32 computations in other orders (sequential and blocked sums, exp2,
online softmax, exact arithmetic) stay well inside it, and the red team's fp16/bf16 roundings (tests/bad/bf16_scale,
fp16_weights, fp16_out) fail it. ``_ratio`` is the comparison's worst element error / its bound (> 1 fails).

Headroom: honest orders must stay below :data:`HONEST_MAX` of the bound on the interpreter's CPU arithmetic, so that
a GPU's rounding (fast exp2, approximate division and rsqrt, FMA contraction: a few units more per operation) has
a factor of 4 left."""
from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.compare import compare_slot, compare_values
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Tolerance, rounding_rule
from kernelgenbench.suite.vllm.attention import ATTENTION_TEXT, attention_terms, merge_native, merge_terms
from kernelgenbench.suite.vllm.moe import _topk_native, topk_weights_rule
from kernelgenbench.suite.vllm.norms import _rms_native, dpt_native, rms_rule, scale_rule

CPU = torch.device("cpu")
#: the largest share of the bound an honest order may use on the CPU (a factor of 4 left for GPU arithmetic)
HONEST_MAX = 0.25
#: measured margins, printed with -s (the report's table)
MARGINS: dict[str, float] = {}


def _ratio(got: torch.Tensor, ref: torch.Tensor, tol: Tolerance, extra: torch.Tensor | None) -> float:
    r = compare_values(got.to(ref.dtype), ref, tol, atol_extra=extra)
    if not r.ok and r.ratio is None:
        raise AssertionError(r.message)
    return float(r.ratio or 0.0) if r.ok else max(1.0 + 1e-9, float(r.ratio or math.inf))


def _gpu_exp(x: torch.Tensor) -> torch.Tensor:
    """An emulated GPU fast exp: exp2 of the argument scaled by log2(e) (rounded in fp32), with a relative error of
    up to 2^-21 (ex2.approx's is about 2^-22) drawn per element."""
    g = torch.Generator().manual_seed(x.numel())
    noise = (torch.rand(x.shape, generator=g) * 2 - 1) * 2.0 ** -21
    return (torch.exp2(x * 1.4426950408889634) * (1 + noise)).to(x.dtype)


def _fp16_small(v: torch.Tensor, below: float) -> torch.Tensor:
    return torch.where(v.abs() < below, v.half().float(), v)


def _record(name: str, ratio: float) -> float:
    MARGINS[name] = max(MARGINS.get(name, 0.0), ratio)
    return ratio


# ------------------------------------------------------------------------------------------- RMS norm, scales
def _rms_variants(x: torch.Tensor, w: torch.Tensor, eps: float) -> dict[str, torch.Tensor]:
    """y = x * inv * w in fp32 with the sum of squares in three orders."""
    h = x.shape[-1]
    sq = x * x
    sums = {
        "torch": sq.sum(-1, keepdim=True),
        "sequential": torch.cumsum(sq, -1)[:, -1:],                               # a running fp32 sum
        "reversed_blocked": torch.stack([b.sum(-1) for b in reversed(sq.split(128, -1))], -1).flip(-1)
        .cumsum(-1)[:, -1:],
    }
    out = {}
    for name, s in sums.items():
        inv = 1.0 / torch.sqrt(s / h + eps)
        out[name] = (x * inv) * w
    return out


@pytest.mark.parametrize("t, h", [(64, 32), (16, 4096), (8, 8192), (17, 5137)])
def test_rms_and_scales_honest_orders_pass_and_half_roundings_fail(t: int, h: int) -> None:
    g = torch.Generator().manual_seed(h)
    x = torch.randn(t, h, generator=g)
    w = torch.randn(h, generator=g)
    eps = 1e-6
    ref_y = _rms_native(x, w, eps)
    ytol, yextra = rms_rule(ref_y, h)
    _, ref_s, _, _ = dpt_native(x, w, eps, torch.int8, None, None)
    stol, sextra = scale_rule(ref_s, h, None)
    for name, y in _rms_variants(x, w, eps).items():
        assert _record(f"rms_norm y ({name})", _ratio(y, ref_y, ytol, yextra)) < HONEST_MAX, name
        s = torch.clamp(y.abs().amax(-1, keepdim=True) / 127.0, min=2.0 ** -23)
        assert _record(f"per-token scale ({name})", _ratio(s, ref_s, stol, sextra)) < HONEST_MAX, name
    assert _ratio(ref_s.bfloat16().float(), ref_s, stol, sextra) > 1.0         # tests/bad/bf16_scale
    assert _ratio(ref_s.half().float(), ref_s, stol, sextra) > 1.0
    assert _ratio(_fp16_small(ref_y, 0.2), ref_y, ytol, yextra) > 1.0


# ------------------------------------------------------------------------------------------------ topk_softmax
def _softmax_variants(x: torch.Tensor) -> dict[str, torch.Tensor]:
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    e2 = torch.exp2((x - m) * 1.4426950408889634)
    out = {"torch": torch.softmax(x, -1), "exp2": e2 / e2.sum(-1, keepdim=True),
           "sequential": e * (1.0 / torch.cumsum(e, -1)[:, -1:])}
    # online (flash-style) over blocks of 16
    mm = torch.full(x.shape[:-1], -math.inf)
    s = torch.zeros(x.shape[:-1])
    for i in range(0, x.shape[-1], 16):
        b = x[:, i:i + 16]
        mn = torch.maximum(mm, b.amax(-1))
        s = s * torch.exp(mm - mn) + torch.exp(b - mn[:, None]).sum(-1)
        mm = mn
    out["online16"] = torch.exp(x - mm[:, None]) / s[:, None]
    eg = _gpu_exp(x - m)
    out["gpu_exp"] = eg * (1.0 / eg.sum(-1, keepdim=True))                      # fast exp, reciprocal then product
    return out


@pytest.mark.parametrize("t, e, k", [(64, 8, 2), (32, 64, 4), (16, 256, 8), (7, 512, 16)])
@pytest.mark.parametrize("renorm", [False, True])
def test_topk_weights_honest_orders_pass_and_fp16_weights_fail(t: int, e: int, k: int, renorm: bool) -> None:
    g = torch.Generator().manual_seed(e + k)
    x = torch.randn(t, e, generator=g) * 2
    rw, ids, _ = _topk_native(x, k, renorm)
    tol, extra = topk_weights_rule(x, ids, rw, renorm)
    for name, p in _softmax_variants(x).items():
        w = torch.gather(p, 1, ids.long())
        if renorm:
            w = w / torch.cumsum(w.flip(-1), -1)[:, -1:]                          # the chosen summed in reverse
        assert _record(f"topk_softmax weights ({name}{', renorm' if renorm else ''})",
                       _ratio(w, rw, tol, extra)) < HONEST_MAX, name
    assert _ratio(_fp16_small(rw, 0.125), rw, tol, extra) > 1.0                 # tests/bad/fp16_weights


def test_grouped_topk_weights_honest_orders_pass() -> None:
    op = get_operator("vllm::grouped_topk")
    p = dict(t=64, e=64, n_group=8, topk_group=4, topk=8, renormalize=True, scoring=1, dtype="fp32", rsf=2.5)
    call = op.build(p, CPU, generator(CPU, 7))
    exp = op.reference(p, call)[0]
    scores, _, _, topk, _, rsf, bias, _ = call.args
    from kernelgenbench.suite.vllm.moe import grouped_topk_native
    _, ids = grouped_topk_native(*call.args)
    sig = {"tanh": 0.5 * torch.tanh(0.5 * scores) + 0.5, "exp": 1.0 / (1.0 + torch.exp(-scores))}
    for name, sc in sig.items():
        s = torch.gather(sc, 1, ids.long())
        w = s / (1e-20 + torch.cumsum(s.flip(-1), -1)[:, -1:]) * rsf
        assert _record(f"grouped_topk weights (sigmoid by {name}, reversed sum)",
                       _ratio(w, exp.value, exp.tol, exp.atol_extra)) < HONEST_MAX, name
    assert _ratio(_fp16_small(exp.value, 0.5), exp.value, exp.tol, exp.atol_extra) > 1.0


# --------------------------------------------------------------------------------------------------- attention
def _attention(q: torch.Tensor, keys: torch.Tensor, vals: torch.Tensor, scale: float, bias: torch.Tensor | None,
               how: str) -> torch.Tensor:
    """One sequence's attention ``[Hq, D]`` from q ``[Hq, D]``, keys/vals ``[n, Hq, D]`` in fp32 (or fp64 for
    ``exact``), the reference's formula in another order."""
    if how == "exact":
        q, keys, vals = q.double(), keys.double(), vals.double()
        bias = None if bias is None else bias.double()
    if how == "sequential":
        logit = torch.cumsum(q[None] * keys, -1)[..., -1] * scale
    else:
        logit = (q[None] * keys).sum(-1) * scale
    if bias is not None:
        logit = logit + bias
    if how == "gpu_exp":   # the reference's order with an emulated fast exp and a reciprocal
        e = _gpu_exp(logit - logit.amax(0, keepdim=True))
        p = e * (1.0 / (e.sum(0, keepdim=True) + 1e-6))
        return (p[:, :, None] * vals).sum(0)
    if how == "online64":  # flash-decoding: blocks of 64 positions, running max and rescaled sums, exp2
        n = logit.shape[0]
        m = torch.full(logit.shape[1:], -math.inf)
        z = torch.zeros(logit.shape[1:])
        acc = torch.zeros(vals.shape[1:])
        for i in range(0, n, 64):
            lb = logit[i:i + 64]
            mn = torch.maximum(m, lb.amax(0))
            c = torch.exp2((m - mn) * 1.4426950408889634)
            e = torch.exp2((lb - mn) * 1.4426950408889634)
            z = z * c + e.sum(0)
            acc = acc * c[:, None] + (e[:, :, None] * vals[i:i + 64]).sum(0)
            m = mn
        return acc / (z + 1e-6)[:, None]
    e = torch.exp(logit - logit.amax(0, keepdim=True))
    p = e / (e.sum(0, keepdim=True) + 1e-6)
    if how == "sequential":
        return torch.cumsum((p[:, :, None] * vals).flip(0), 0)[-1]
    return (p[:, :, None] * vals).sum(0)


@pytest.mark.parametrize("n, d, alibi", [(9, 32, True), (30, 80, False), (512, 64, False), (2048, 128, True)])
def test_attention_honest_orders_pass_and_fp16_outputs_fail(n: int, d: int, alibi: bool) -> None:
    g = torch.Generator().manual_seed(n + d)
    hq = 4
    q, keys, vals = torch.randn(hq, d, generator=g), torch.randn(n, hq, d, generator=g), torch.randn(n, hq, d,
                                                                                                    generator=g)
    scale = d ** -0.5
    bias = (torch.rand(hq, generator=g)[None, :] * (torch.arange(n) - n + 1).float()[:, None]) if alibi else None
    ref = _attention(q, keys, vals, scale, bias, "torch")                      # the reference's formula (fp32)
    logit = (q[None] * keys).sum(-1) * scale + (0 if bias is None else bias)
    terms = attention_terms(q, keys, vals, logit, scale, bias)[0]
    tol, extra = rounding_rule(ref, terms, ATTENTION_TEXT)
    for how in ("exact", "sequential", "online64", "gpu_exp"):
        got = _attention(q, keys, vals, scale, bias, how).float()
        assert _record(f"attention out ({how})", _ratio(got, ref, tol, extra)) < HONEST_MAX, how
    assert _ratio(_fp16_small(ref, 0.2), ref, tol, extra) > 1.0                # tests/bad/fp16_out


def _paged2_exact(q, kc, vc, hkv, scale, tables, seq_lens, bs, parts, alibi, mode, ks, vs):
    """``paged_attention_v2``'s results in fp64 (an exact kernel; "auto" caches only): out, exp_sums, max_logits,
    tmp_out, as vllm.md § paged_attention_v2 defines them, with 512-position partitions."""
    assert mode == "auto"
    s_, hq, d = q.shape
    group = hq // hkv
    out = torch.zeros(s_, hq, d, dtype=torch.float64)
    es = torch.zeros(s_, hq, parts, dtype=torch.float64)
    ml = torch.zeros(s_, hq, parts, dtype=torch.float64)
    tmp = torch.zeros(s_, hq, parts, d, dtype=torch.float64)
    for si in range(s_):
        n = int(seq_lens[si])
        i = torch.arange(n)
        blk, t = tables[si].long()[i // bs], i % bs
        keys = kc.double()[blk, :, :, t, :].reshape(n, hkv, d).repeat_interleave(group, 1)
        vals = vc.double()[blk, :, :, t].repeat_interleave(group, 1)
        logit = (q[si].double()[None] * keys).sum(-1) * scale
        if alibi is not None:
            logit = logit + alibi.double()[None, :] * (i - n + 1).double()[:, None]
        p = torch.softmax(logit, 0)
        out[si] = (p[:, :, None] * vals).sum(0)
        for j in range(-(-n // 512)):
            lg, v = logit[j * 512:(j + 1) * 512], vals[j * 512:(j + 1) * 512]
            m = lg.amax(0)
            e = torch.exp(lg - m)
            es[si, :, j], ml[si, :, j] = e.sum(0), m
            tmp[si, :, j] = (e[:, :, None] * v).sum(0) / e.sum(0)[:, None]
    return out, es, ml, tmp


@pytest.mark.parametrize("tier, i", [("smoke", 1), ("smoke", 2), ("heldout", 2)])
def test_paged_attention_v2_exact_result_passes(tier: str, i: int) -> None:
    """The exact (fp64) v2 results, rounded once to fp32, against the fp32 reference's bounds: out, exp_sums,
    max_logits and tmp_out of the op's own fp32 cases (several partitions included), and the fp16 rounding of
    small outputs fails."""
    from kernelgenbench.suite.vllm.attention import _pa2_args, paged2_native
    op = get_operator("vllm::paged_attention_v2")
    p = op.grid(tier)[i]
    call = op.build(p, CPU, generator(CPU, 11))
    exps = op.reference(p, call)
    w = paged2_native(*_pa2_args(call))[-1]
    before = [t.clone() for t in call.args[:4]]
    out, es, ml, tmp = _paged2_exact(*_pa2_args(call))
    call.args[0].copy_(out.to(call.args[0].dtype))
    for t, v, m in zip(call.args[1:4], (es, ml, tmp), (w, w, w[..., None])):
        t.copy_(torch.where(m, v.to(t.dtype), t))
    for e, t in zip(exps, call.args[:4]):
        r = compare_slot(e, t)
        assert r.ok, r.message
        assert _record(f"paged_attention_v2 {e.slot} (exact, {tier} {i})", float(r.ratio or 0.0)) < HONEST_MAX
    cheat = before[0]
    cheat.copy_(_fp16_small(out.float(), 0.2))
    assert not compare_slot(exps[0], cheat).ok


def test_merge_attn_states_honest_orders_pass_and_fp16_outputs_fail() -> None:
    g = torch.Generator().manual_seed(3)
    t, h, d = 64, 8, 64
    po, so = torch.randn(t, h, d, generator=g), torch.randn(t, h, d, generator=g)
    pl, sl = (torch.rand(h, t, generator=g) - 0.5) * 4, (torch.rand(h, t, generator=g) - 0.5) * 4
    ro, rl = merge_native(po, pl, so, sl)
    ot, lt = merge_terms(po, pl, so, sl)
    otol, oextra = rounding_rule(ro, ot, "merge")
    ltol, lextra = rounding_rule(rl, lt, "merge lse")
    m = torch.maximum(pl, sl)
    pe, se = torch.exp2((pl - m) * 1.4426950408889634), torch.exp2((sl - m) * 1.4426950408889634)
    s = pe + se
    alt = ((po * pe.t()[:, :, None] + so * se.t()[:, :, None]) / s.t()[:, :, None])   # one division at the end
    alt_lse = torch.log2(s) * 0.6931471805599453 + m
    gpe, gse = _gpu_exp(pl - m), _gpu_exp(sl - m)
    gs = gpe + gse
    gpu = po * (gpe / gs).t()[:, :, None] + so * (gse / gs).t()[:, :, None]
    gpu_lse = torch.log(gs) + m
    exact_o, exact_l = merge_native(po.double(), pl.double(), so.double(), sl.double())
    for name, (o, lse) in {"exp2, one division": (alt, alt_lse), "exact": (exact_o, exact_l),
                           "gpu_exp": (gpu, gpu_lse)}.items():
        assert _record(f"merge_attn_states out ({name})", _ratio(o.float(), ro, otol, oextra)) < HONEST_MAX
        assert _record(f"merge_attn_states lse ({name})", _ratio(lse.float(), rl, ltol, lextra)) < HONEST_MAX
    assert _ratio(_fp16_small(ro, 0.2), ro, otol, oextra) > 1.0


def test_print_margins() -> None:
    """The measured margins (worst error / bound) of the honest orders above, for the report (run with -s)."""
    for name, r in sorted(MARGINS.items()):
        print(f"{r:9.4f}  {name}")
