"""vLLM MoE routing and reduction (vllm.md §3: topk_softmax). References are pure PyTorch written from the
spec."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, Tolerance, dtype_of, product, written_expected
from ..tensors import poison_
from .common import baseline_label
from .common import baseline as _baseline


# -------------------------------------------------------------------------------------- topk_softmax
def _topk_build(p: dict[str, Any], device, gen) -> Call:
    t, e, k = p["t"], p["e"], p["k"]
    g = make_tensor([t, e], p["dtype"], device, gen)
    if p.get("tie"):  # plant an exact tie between the two largest logits of token 0
        row = g[0]
        top = int(torch.argmax(row.float()))
        other = (top + 3) % e
        g[0, other] = g[0, top]
    w = poison_(torch.empty(t, k, dtype=torch.float32, device=device))
    ids = poison_(torch.empty(t, k, dtype=torch.int32, device=device))
    tei = poison_(torch.empty(t, k, dtype=torch.int32, device=device))
    return Call([w, ids, tei, g, p["renormalize"]], written=(0, 1, 2))


def _topk_native(g: torch.Tensor, k: int, renorm: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = g.to(torch.float64)
    p = torch.softmax(x, dim=-1)
    # Ties to the lower expert index: a stable descending sort keeps index order among equals.
    order = torch.sort(p, dim=-1, descending=True, stable=True).indices[:, :k]
    w = torch.gather(p, 1, order)
    if renorm:
        s = w.sum(-1, keepdim=True)
        w = torch.where(s > 0, w / s, w)
    t = g.shape[0]
    tei = (torch.arange(k, device=g.device)[None, :] * t + torch.arange(t, device=g.device)[:, None])
    return w.to(torch.float32), order.to(torch.int32), tei.to(torch.int32)


def _topk_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    w, ids, tei, g, renorm = call.args
    rw, rids, rtei = _topk_native(g, w.shape[-1], renorm)
    return [written_expected("arg.0", w, rw, Tolerance()), written_expected("arg.1", ids, rids, EXACT),
            written_expected("arg.2", tei, rtei, EXACT)]


def _topk_base_native(c: Call) -> None:
    w, ids, tei, g, renorm = c.args
    rw, rids, rtei = _topk_native(g, w.shape[-1], renorm)
    w.copy_(rw)
    ids.copy_(rids)
    tei.copy_(rtei)


TOPK_SOFTMAX = FunctionOperator(
    "topk_softmax", source="vllm", category="moe routing", section="vllm.md § vllm::topk_softmax",
    semantics="per token: x_e = float(gating_e); p = softmax(x) in fp32; choose k experts by p descending, ties to "
              "the lower index; topk_weights[t,j] = p, topk_ids[t,j] = expert, token_expert_indices[t,j] = j*T + t; "
              "renormalize: w_j <- w_j / sum_j w_j (divisor 1 if the sum is not > 0).",
    interface=Interface(
        function="topk_softmax",
        params=("topk_weights", "topk_ids", "token_expert_indices", "gating_output", "renormalize"),
        defaults={"renormalize": False}, written=("topk_weights", "topk_ids", "token_expert_indices"),
        returns="None",
        args_doc={"topk_weights": "written; fp32 [T, k]", "topk_ids": "written; int32 [T, k]",
                  "token_expert_indices": "written; int32 [T, k]",
                  "gating_output": "[T, E] fp32/fp16/bf16", "renormalize": "bool"}),
    grids={
        "smoke": [
            dict(t=3, e=8, k=2, dtype="fp32", renormalize=False, tie=True),
            dict(t=2, e=6, k=3, dtype="bf16", renormalize=True),
            dict(t=1, e=16, k=1, dtype="fp16", renormalize=False),
            dict(t=9, e=12, k=4, dtype="fp32", renormalize=True),
        ],
        "full": [dict(d, dtype="fp32") for d in product(t=[1, 7, 32, 128, 1024, 4096], e=[8, 16, 64], k=[1, 2, 4],
                                                        renormalize=[False, True])],
        "heldout": [
            dict(t=4096, e=256, k=8, dtype="bf16", renormalize=True),
            dict(t=33, e=160, k=6, dtype="fp16", renormalize=False),
            dict(t=7, e=512, k=16, dtype="fp32", renormalize=False),
        ],
    },
    build=_topk_build, reference=_topk_ref,
    cost=lambda p: Cost(5.0 * p["t"] * p["e"], p["t"] * p["e"] * torch.empty(0, dtype=dtype_of(p["dtype"])).element_size()
                        + 12 * p["t"] * p["k"]),
    timed=lambda p: p["t"] >= 1024,
    baseline=_baseline("topk_softmax", _topk_base_native), label=baseline_label, own_ops=frozenset({"topk_softmax"}),
)

OPERATORS = [TOPK_SOFTMAX]
