"""vLLM per-head RMSNorm of Q and K fused with rotary embedding (vllm.md §3: fused_qk_norm_rope).

The reference is pure PyTorch written from the spec: fp32 math from the loaded values to the one final rounding
to the tensor dtype (no rounding of the normalised value before RoPE, unlike vLLM's own test helper). The real
cos/sin cache of the held-out tier is :func:`rotary.rope_cache`; the fused op's pairs are those of
``rotary_embedding`` with rot_dim = D, but in fp32 throughout, so the half-type helpers of ``rotary`` do not apply."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, product, written_expected
from .common import baseline, baseline_label, esize
from .rotary import rope_cache


def qk_norm_rope_native(qkv: torch.Tensor, hq: int, hk: int, d: int, eps: float, q_weight: torch.Tensor,
                        k_weight: torch.Tensor, cache: torch.Tensor, neox: bool, positions: torch.Tensor
                        ) -> torch.Tensor:
    """The new Q and K heads of ``qkv`` after ``fused_qk_norm_rope`` (vllm.md § vllm::fused_qk_norm_rope).

    Args:
        qkv: ``[T, (Hq+Hk+Hv)·D]`` fp16/bf16 (only the first ``(Hq+Hk)·D`` columns are read).
        hq, hk: query and key heads; d: head_dim D (even).
        eps: the norm's epsilon.
        q_weight, k_weight: ``[D]`` per-dim weights (applied in fp32).
        cache: ``[max_pos, D]``: cos in columns ``0..D/2-1``, sin in the rest (any float dtype).
        neox: pairs (j, j+D/2) when true, (2j, 2j+1) (GPT-J) when false; both use cos/sin index j.
        positions: int64 ``[T]``.

    Returns:
        ``[T, Hq+Hk, D]`` in qkv's dtype: per head ``y = x·(rsqrt(Σx²/D + eps)·w)`` then the rotation
        ``(y1·c − y2·s, y2·c + y1·s)``, all in fp32, one rounding at the end.

    Raises:
        ValueError: D is odd or qkv has fewer than ``(Hq+Hk)·D`` columns.
    """
    t = qkv.shape[0]
    if d % 2 or qkv.shape[1] < (hq + hk) * d:
        raise ValueError(f"vllm::fused_qk_norm_rope: qkv {tuple(qkv.shape)} does not hold {hq}+{hk} heads of an "
                         f"even head_dim {d}")
    x = qkv[:, : (hq + hk) * d].float().reshape(t, hq + hk, d)
    w = torch.cat([q_weight.float().expand(hq, d), k_weight.float().expand(hk, d)])[None]
    rr = torch.rsqrt((x * x).sum(-1, keepdim=True) / d + eps)
    y = x * (rr * w)
    e = d // 2
    pos = positions.long()
    c = cache[pos, :e].float()[:, None, :]
    s = cache[pos, e:d].float()[:, None, :]
    dev = qkv.device  # the indices on the device (host-made indices were a host-to-device copy per call)
    idx1, idx2 = ((torch.arange(e, device=dev), torch.arange(e, device=dev) + e) if neox
                  else (torch.arange(0, d, 2, device=dev), torch.arange(1, d, 2, device=dev)))
    y1, y2 = y[..., idx1], y[..., idx2]
    out = torch.empty_like(y)
    out[..., idx1] = y1 * c - y2 * s
    out[..., idx2] = y2 * c + y1 * s
    return out.to(qkv.dtype)


def _qk_view(qkv: torch.Tensor, hq: int, hk: int, d: int) -> torch.Tensor:
    """The Q and K columns of ``qkv`` as ``[T, Hq+Hk, D]`` (a view)."""
    return qkv[:, : (hq + hk) * d].unflatten(1, (hq + hk, d))


def _build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, (hq, hk, hv), d = p["t"], p["heads"], p["d"]
    dt = dtype_of(p["dtype"])
    cdt = dtype_of(p.get("cache_dtype", p["dtype"]))
    qkv = make_tensor([t, (hq + hk + hv) * d], dt, device, gen)
    qw = make_tensor([d], dt, device, gen)
    kw = make_tensor([d], dt, device, gen)
    cache_len = p.get("cache_len", max(t, 4096))
    if p.get("cache") == "real":
        cache = rope_cache(cache_len, d, cdt, device)
    else:  # upstream: randn values in the cache (not trig values)
        cache = make_tensor([cache_len, d], cdt, device, gen)
    if p.get("positions") == "random":
        pos = torch.randint(0, cache_len, (t,), generator=gen, device=device)
    else:
        pos = torch.arange(t, device=device)
    return Call([qkv, hq, hk, hv, d, p.get("eps", 1e-5), qw, kw, cache, p["neox"], pos], written=(0,))


def _ref(p: dict[str, Any], call: Call) -> list[Expected]:
    qkv, hq, hk, hv, d, eps, qw, kw, cache, neox, pos = call.args
    new = qk_norm_rope_native(qkv, hq, hk, d, eps, qw, kw, cache, neox, pos)
    return [written_expected("arg.0", qkv, new, Tolerance(), region_view=_qk_view(qkv, hq, hk, d))]


def _base(c: Call) -> None:
    qkv, hq, hk, hv, d, eps, qw, kw, cache, neox, pos = c.args
    _qk_view(qkv, hq, hk, d).copy_(qk_norm_rope_native(qkv, hq, hk, d, eps, qw, kw, cache, neox, pos))


def _cost(p: dict[str, Any]) -> Cost:
    t, (hq, hk, _), d = p["t"], p["heads"], p["d"]
    n = t * (hq + hk) * d
    es = esize(p["dtype"])
    cs = esize(p.get("cache_dtype", p["dtype"]))
    # per element: square and add, normalise (2), the rotation (3)
    return Cost(7.0 * n, 2 * n * es + t * d * cs + 2 * d * es + 8 * t)


def _dtypes(p: dict[str, Any]) -> set[torch.dtype]:
    return {dtype_of(p["dtype"]), dtype_of(p.get("cache_dtype", p["dtype"]))}


def _full() -> list[dict[str, Any]]:
    return product(t=[1, 71, 128, 1024, 5333], heads=[(4, 4, 4), (16, 16, 16), (32, 16, 8)], d=[64, 128],
                   dtype=["fp16", "bf16"], neox=[False, True])


FUSED_QK_NORM_ROPE = FunctionOperator(
    "fused_qk_norm_rope", source="vllm", category="norm + rope", section="vllm.md § vllm::fused_qk_norm_rope",
    semantics="for token t and each of the Hq query heads (columns [h*D, (h+1)*D)) and Hk key heads (columns "
              "[Hq*D + h*D, ...)): x_i = float(qkv); rr = 1/sqrt(sum x_i^2 / D + eps) (fp32); y_i = x_i * (rr * "
              "float(w_i)) with w = q_weight or k_weight (fp32, no rounding to T before RoPE); p = position_ids[t], "
              "c_j = float(cache[p, j]), s_j = float(cache[p, D/2 + j]), j < D/2; neox: o_j = y_j c_j - y_{j+D/2} s_j, "
              "o_{j+D/2} = y_{j+D/2} c_j + y_j s_j; GPT-J: o_{2j} = y_{2j} c_j - y_{2j+1} s_j, o_{2j+1} = y_{2j} s_j + "
              "y_{2j+1} c_j; store rd_T(o). The V heads stay untouched.",
    interface=Interface(
        function="fused_qk_norm_rope",
        params=("qkv", "num_heads_q", "num_heads_k", "num_heads_v", "head_dim", "eps", "q_weight", "k_weight",
                "cos_sin_cache", "is_neox", "position_ids"),
        written=("qkv",), returns="None",
        args_doc={"qkv": "written; fp16/bf16 [T, (Hq+Hk+Hv)*D] contiguous: Q heads, then K heads, then V heads "
                         "(V untouched)",
                  "num_heads_q": "int Hq", "num_heads_k": "int Hk", "num_heads_v": "int Hv",
                  "head_dim": "int D in {64, 128, 256}", "eps": "float",
                  "q_weight": "[D], dtype of qkv", "k_weight": "[D], dtype of qkv",
                  "cos_sin_cache": "[max_pos, D] fp32/fp16/bf16 contiguous: cos in columns 0..D/2-1, sin in "
                                   "D/2..D-1",
                  "is_neox": "bool: NeoX pairs (j, j+D/2) or GPT-J pairs (2j, 2j+1)",
                  "position_ids": "int64 [T]"}),
    grids={
        "smoke": [
            dict(t=3, heads=(2, 1, 1), d=64, dtype="fp16", neox=True, cache_len=16),
            dict(t=2, heads=(1, 1, 2), d=64, dtype="bf16", neox=False, cache_dtype="fp32", cache_len=8),
            dict(t=5, heads=(2, 3, 1), d=128, dtype="fp16", neox=False, cache_dtype="fp32", cache_len=40,
                 cache="real", positions="random", eps=1e-6),
        ],
        "full": _full(),
        "heldout": [
            dict(t=2048, heads=(64, 8, 8), d=128, dtype="bf16", neox=True, cache_len=8192, cache="real",
                 positions="random"),
            dict(t=5, heads=(8, 8, 8), d=256, dtype="fp16", neox=False, cache_len=4096),
        ],
    },
    build=_build, reference=_ref, cost=_cost, dtypes=_dtypes,
    timed=lambda p: p["t"] >= 1024 and sum(p["heads"]) * p["d"] >= 4096,
    baseline=baseline("fused_qk_norm_rope", _base), label=baseline_label,
    notes="Full tier as upstream: cos_sin_cache = randn(max(T, 4096), D) in qkv's dtype (not trig values), "
          "position_ids = arange(T), eps 1e-5. The reference keeps the normalised value in fp32 (the spec), unlike "
          "vLLM's test helper, which rounds it to T before RoPE. reduce_dim = 1.",
)

OPERATORS = [FUSED_QK_NORM_ROPE]
