"""vLLM rotary position embedding (vllm.md §3: rotary_embedding). The reference is pure PyTorch written from the
spec: half-type arithmetic (every product and sum rounded to the tensor dtype) for fp16/bf16, fp32 for fp32."""
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
from .common import baseline, baseline_label, esize


def rope_cache(cache_len: int, rot: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A ``[cache_len, rot]`` cos/sin cache as models build it (base 10000): cos in columns ``0..rot/2-1``,
    sin in the rest."""
    inv = 1.0 / (10000.0 ** (torch.arange(0, rot, 2, dtype=torch.float64, device=device) / rot))
    f = torch.outer(torch.arange(cache_len, dtype=torch.float64, device=device), inv)
    return torch.cat([f.cos(), f.sin()], -1).to(dtype)


def _heads_view(x: torch.Tensor, ntok: int, heads: int, d: int, npos_dims: int) -> torch.Tensor:
    """``x`` seen as ``[tokens, heads, D]`` with vLLM's strides: token stride ``x.stride(npos_dims - 1)``,
    head stride ``x.stride(-2)`` when x has ``npos_dims + 2`` dims, else D.

    Made by view ops where they give exactly that view (every graded layout), else by ``as_strided``: under
    torch.compile an ``as_strided`` of a non-contiguous input (a padded head dim) failed to compile (AOTAutograd took
    the view for its own storage), and an explicit ``x.storage_offset()`` argument split the graph."""
    ts = x.stride(npos_dims - 1)
    hs = x.stride(-2) if x.dim() == npos_dims + 2 else d
    want = ((ntok, heads, d), (ts, hs, 1))
    if x.dim() == npos_dims + 2 and x.shape[-2] == heads and x.shape[-1] >= d:
        v = x[..., :d]
    elif x.dim() == npos_dims + 1 and x.shape[-1] >= heads * d:
        v = x[..., : heads * d].unflatten(-1, (heads, d))
    else:
        v = None
    # the token dims merge into one without a copy where each stride is the next one's span
    if v is not None and all(v.stride(i) == v.stride(i + 1) * v.shape[i + 1] for i in range(npos_dims - 1)):
        v = v.flatten(0, npos_dims - 1)
        if (tuple(v.shape), v.stride()) == want:
            return v
    return x.as_strided(*want)  # at x's storage offset (as_strided's default)


def _rope_operands(positions: torch.Tensor, x: torch.Tensor, heads: int, d: int, cache: torch.Tensor, neox: bool
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(v, c, s, xi, yi)``: x's ``[tokens, heads, D]`` view, each token's cos and sin rows (``[tokens, 1, E]`` in
    x's dtype, E = rot_dim/2) and the pair indices: (j, E+j) for NeoX, (2j, 2j+1) for GPT-J."""
    pos = positions.reshape(-1).long()
    v = _heads_view(x, pos.numel(), heads, d, positions.dim())
    rot = cache.shape[1]
    e = rot // 2
    c = cache[pos, :e][:, None, :].to(x.dtype)
    s = cache[pos, e:rot][:, None, :].to(x.dtype)
    dev = x.device  # the indices on x's device (host-made indices were a host-to-device copy per call)
    if neox:
        xi, yi = torch.arange(e, device=dev), torch.arange(e, device=dev) + e
    else:
        xi, yi = torch.arange(0, rot, 2, device=dev), torch.arange(1, rot, 2, device=dev)
    return v, c, s, xi, yi


def rope_native(positions: torch.Tensor, x: torch.Tensor, heads: int, d: int, cache: torch.Tensor,
                neox: bool) -> torch.Tensor:
    """The rotated ``[tokens, heads, D]`` values of ``x`` (query or key; vllm.md § rotary_embedding): for
    E = rot_dim/2, c = cache[p, j], s = cache[p, E + j], pairs (j, E+j) (NeoX) or (2j, 2j+1) (GPT-J):
    ``x' = x*c - y*s``, ``y' = y*c + x*s`` with every operation rounded to x's dtype; dims >= rot_dim kept."""
    v, c, s, xi, yi = _rope_operands(positions, x, heads, d, cache, neox)
    v = v.clone()
    a, b = v[..., xi], v[..., yi]
    v[..., xi] = a * c - b * s     # each product and the difference in x's dtype (CPU/GPU torch round per op)
    v[..., yi] = b * c + a * s
    return v


def rope_allowance(positions: torch.Tensor, x: torch.Tensor, heads: int, d: int, cache: torch.Tensor,
                   neox: bool) -> torch.Tensor:
    """Elementwise absolute allowance (fp64, shaped like :func:`rope_native`'s result) for the rounding of
    the two products: ``2·u·(|x·c| + |y·s|)`` on rotated dims, 0 elsewhere, with ``u`` the unit roundoff of
    x's dtype. vLLM rounds each product to the half type; a kernel that keeps the products in fp32 and
    rounds once, or that fuses one product into an FMA (Triton contracts ``a*c - b*s`` on GPUs), differs from
    that by up to one rounding of each product -- far more than ``rtol·|x'|`` where the difference cancels
    (found on the H200: 1.4% of a bf16 held-out case). Honest orders of the same arithmetic are not failed."""
    v, c, s, xi, yi = _rope_operands(positions, x, heads, d, cache, neox)
    v, c, s = v.double(), c.double().abs(), s.double().abs()
    extra = torch.zeros_like(v)
    a, b = v[..., xi].abs(), v[..., yi].abs()
    u = UNIT_ROUNDOFF[x.dtype]
    extra[..., xi] = 2 * u * (a * c + b * s)
    extra[..., yi] = 2 * u * (b * c + a * s)
    return extra


def _rope_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, hq, hk, d, rot = p["t"], p["hq"], p.get("hk"), p["d"], p.get("rot", p["d"])
    pshape = p.get("pos_shape", [t])
    pos = torch.randint(0, p["cache_len"], pshape, generator=gen, device=device)
    hpad = p.get("head_pad", 0)

    def qk(h: int) -> torch.Tensor:
        if p.get("layout") == "flat":
            return make_tensor(pshape + [h * d], p["dtype"], device, gen)
        if hpad:
            return make_tensor(pshape + [h, d + hpad], p["dtype"], device, gen)[..., :d]
        return make_tensor(pshape + [h, d], p["dtype"], device, gen)

    q = qk(hq)
    k = qk(hk) if hk else None
    cache = rope_cache(p["cache_len"], rot, dtype_of(p["dtype"]), device)
    return Call([pos, q, k, d, cache, p["neox"]], written=(1, 2) if k is not None else (1,))


def _rope_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    pos, q, k, d, cache, neox = call.args
    npos = pos.dim()
    out = []
    for slot, x in ((1, q), (2, k)):
        if x is None:
            continue
        heads = (x.shape[-1] // d) if x.dim() == npos + 1 else x.shape[-2]
        view = _heads_view(x, pos.numel(), heads, d, npos)
        ref = rope_native(pos, x, heads, d, cache, neox)
        allow = rope_allowance(pos, x, heads, d, cache, neox)
        # fp32: the rounding bound (red team 32 R2): two products and their difference (or an FMA), in any
        # order: 2(|x c| + |y s|) + |ref| units (allow is 2u(|x c| + |y s|)); other dtypes: the spec's rule
        terms = allow / UNIT_ROUNDOFF[torch.float32] + ref.double().abs() if x.dtype == torch.float32 else None
        tol, extra = rounding_rule(ref, terms, "2(|x c| + |y s|) + |ref| on rotated dims, |ref| elsewhere",
                                   points=allow)
        out.append(written_expected(f"arg.{slot}", x, ref, tol, region_view=view, atol_extra=extra))
    return out


def _rope_base(c: Call) -> None:
    pos, q, k, d, cache, neox = c.args
    npos = pos.dim()
    for x in (q, k):
        if x is None:
            continue
        heads = (x.shape[-1] // d) if x.dim() == npos + 1 else x.shape[-2]
        _heads_view(x, pos.numel(), heads, d, npos).copy_(rope_native(pos, x, heads, d, cache, neox))


def _rope_full() -> list[dict[str, Any]]:
    out = []
    for d in product(**{"t,cache_len": [(1, 32), (71, 497), (128, 512), (1024, 4096), (5333, 8192)]},
                     heads=[1, 4, 16], d=[32, 64], dtype=["fp16", "bf16", "fp32"], key_none=[True, False],
                     neox=[True, False]):
        out.append(dict(t=d["t"], cache_len=d["cache_len"], hq=d["heads"], hk=None if d["key_none"] else d["heads"],
                        d=d["d"], dtype=d["dtype"], neox=d["neox"]))
    return out


ROTARY_EMBEDDING = FunctionOperator(
    "rotary_embedding", source="vllm", category="rope", section="vllm.md § vllm::rotary_embedding",
    semantics="rot_dim = cos_sin_cache.size(1), E = rot_dim/2; token t, p = positions[t], each head of query (and "
              "key when given), j < E: c = cache[p, j], s = cache[p, E + j]; NeoX: (x, y) = (h[j], h[E+j]), GPT-J: "
              "(x, y) = (h[2j], h[2j+1]); x <- x*c - y*s, y <- y*c + x*s (old x), each product and the sum/difference "
              "rounded to T for fp16/bf16 (half-type arithmetic), fp32 for fp32. Dims >= rot_dim untouched.",
    interface=Interface(
        function="rotary_embedding", params=("positions", "query", "key", "head_size", "cos_sin_cache", "is_neox"),
        written=("query", "key"), returns="None",
        args_doc={"positions": "int64 [T] or [Bt, Sq]",
                  "query": "written; [T, Hq*D] or [T, Hq, D] (or with leading [Bt, Sq]); token stride = stride of "
                           "the last positions dim, head stride = query.stride(-2) when query has positions.dim()+2 "
                           "dims, else D; last dim contiguous",
                  "key": "None, or written: like query with Hk heads (Hq % Hk == 0, same layout)",
                  "head_size": "int D", "cos_sin_cache": "[max_pos, rot_dim] contiguous, dtype of query; rot_dim <= "
                                                         "D even: cos columns then sin columns",
                  "is_neox": "bool"}),
    grids={
        "smoke": [
            dict(t=3, hq=2, hk=1, d=64, rot=64, dtype="fp16", neox=True, cache_len=16, layout="flat"),
            dict(t=2, hq=1, hk=None, d=32, rot=16, dtype="bf16", neox=False, cache_len=8),
            dict(t=2, hq=2, hk=2, d=32, rot=32, dtype="fp32", neox=False, cache_len=8, pos_shape=[1, 2]),
            dict(t=5, hq=3, hk=None, d=48, rot=16, dtype="fp32", neox=True, cache_len=40),
        ],
        "full": _rope_full(),
        "heldout": [
            dict(t=4096, hq=32, hk=8, d=128, rot=128, dtype="bf16", neox=True, cache_len=8192),
            dict(t=100, hq=4, hk=2, d=80, rot=80, dtype="fp16", neox=False, cache_len=4096),
            dict(t=37, hq=4, hk=4, d=128, rot=32, dtype="fp32", neox=True, cache_len=512, head_pad=64),
        ],
    },
    build=_rope_build, reference=_rope_ref,
    cost=lambda p: Cost(6.0 * p["t"] * (p["hq"] + (p.get("hk") or 0)) * p.get("rot", p["d"]) / 2,
                        2 * p["t"] * (p["hq"] + (p.get("hk") or 0)) * p["d"] * esize(p["dtype"])
                        + 8 * p["t"] + p["t"] * p.get("rot", p["d"]) * esize(p["dtype"])),
    timed=lambda p: p["t"] >= 1024,
    baseline=baseline("rotary_embedding", _rope_base), label=baseline_label,
    notes="Full tier: a proper [cache_len, D] cos/sin cache (rot_dim = D) on the upstream axes, not the upstream "
          "test's 3-D [cache_len, 2, D] cache, which makes vLLM rotate only dims 0-1 (vllm.md §2.10); Hk = Hq there. "
          "Cache values are real cos/sin (base 10000) of the position.",
)

OPERATORS = [ROTARY_EMBEDDING]


# the rounding bound's atol in words (kgb show; red team 32 R2)
ROTARY_EMBEDDING.atol_text = rounding_text("2(|x c| + |y s|) + |ref| on rotated dims")
