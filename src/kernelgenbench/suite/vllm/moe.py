"""vLLM MoE routing, permutation and reduction (vllm.md §3: topk_softmax, moe_sum, shuffle_rows). References are
pure PyTorch written from the spec."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, Tolerance, dtype_of, product, written_expected
from ..tensors import poison_
from .common import baseline_label, esize
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



# ------------------------------------------------------------------------------------------- moe_sum
def _moe_sum_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, k, h = p["t"], p["k"], p["h"]
    if p.get("upstream_2d"):  # the upstream test's 2-D input (vllm.md §2.10): k := H, output resized to [T*k]
        x = make_tensor([t * k, h], p["dtype"], device, gen)
    else:
        x = make_tensor([t, k, h], p["dtype"], device, gen)
    out = poison_(torch.empty(t, h, dtype=dtype_of(p["dtype"]), device=device))
    return Call([x, out], written=(1,))


def moe_sum_native(x: torch.Tensor) -> torch.Tensor:
    """``moe_sum``'s result for a 3-D input ``[T, k, H]`` (vllm.md § moe_sum): for k in {2, 3, 4} the
    sequential sum in T arithmetic (each addition rounded to T), else the fp32 sum rounded once; for a 2-D
    input ``[R, H]`` (vLLM's k := H fallback) the ``[R]`` row sums in fp32 rounded once."""
    if x.dim() == 2:
        return x.float().sum(-1).to(x.dtype)
    k = x.shape[1]
    if k in (2, 3, 4):
        acc = x[:, 0]
        for j in range(1, k):
            acc = (acc.float() + x[:, j].float()).to(x.dtype)
        return acc
    return x.float().sum(1).to(x.dtype)


def _moe_sum_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, out = call.args
    ref = moe_sum_native(x)
    region = out.view(-1)[: ref.numel()] if x.dim() == 2 else None
    return [written_expected("arg.1", out, ref, Tolerance(reduce_dim=x.shape[-1] if x.dim() == 2 else x.shape[1]),
                             region_view=region)]


def _moe_sum_base(c: Call) -> None:
    x, out = c.args
    ref = moe_sum_native(x)
    out.view(-1)[: ref.numel()].copy_(ref.reshape(-1))


MOE_SUM = FunctionOperator(
    "moe_sum", source="vllm", category="moe reduce", section="vllm.md § vllm::moe_sum",
    semantics="output[t,h] = sum over j < k of input[t,j,h]: for k in {2,3,4} sequentially in T arithmetic from "
              "0 (rd_T(rd_T(x0 + x1) + x2) ...); other k: fp32 accumulation rounded once to T. vLLM takes "
              "H = input.size(-1), k = input.size(1), T = output.numel()/H; a 2-D input [R, H] means k := H "
              "(not in {2,3,4}): the R row sums (fp32, rounded once) go to the first R elements of output "
              "(vLLM resizes output to [R]).",
    interface=Interface(
        function="moe_sum", params=("input", "output"), written=("output",), returns="None",
        args_doc={"input": "[T, k, H] fp16/bf16/fp32 contiguous (held-out: also the upstream 2-D [T*k, H])",
                  "output": "written; [T, H] contiguous, dtype of input"}),
    grids={
        "smoke": [
            dict(t=3, k=2, h=32, dtype="fp16"),
            dict(t=2, k=4, h=40, dtype="bf16"),
            dict(t=2, k=5, h=16, dtype="fp32"),
            dict(t=5, k=3, h=100, dtype="fp32"),
        ],
        "full": product(t=[1, 128, 1024, 5333], h=[32, 512, 4096], k=[2, 4], dtype=["fp16", "bf16"]),
        "heldout": [
            dict(t=4096, k=8, h=7168, dtype="bf16"),
            dict(t=33, k=3, h=2880, dtype="fp16"),
            dict(t=4, k=2, h=64, dtype="fp16", upstream_2d=True),
        ],
    },
    build=_moe_sum_build, reference=_moe_sum_ref,
    cost=lambda p: Cost(p["t"] * p["k"] * p["h"], (p["t"] * p["k"] * p["h"] + p["t"] * p["h"]) * esize(p["dtype"])),
    timed=lambda p: p["t"] * p["h"] >= 2 ** 20,
    baseline=_baseline("moe_sum", _moe_sum_base), label=baseline_label,
    notes="Full tier: 3-D [T, k, H] inputs on the upstream axes, not the upstream test's 2-D [T*k, H] input "
          "(vllm.md §2.10, which makes vLLM fall back to row sums into a resized output); that case is held out.",
)


# -------------------------------------------------------------------------------------- shuffle_rows
def _shuffle_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    r, c = p["rows"], p["cols"]
    x = make_tensor([r, c], p["dtype"], device, gen)
    n = p.get("out_rows", r * p.get("factor", 1))
    if p.get("factor", 1) == 1 and "out_rows" not in p:
        m = torch.randperm(r, generator=gen, device=device)
    else:
        m = torch.randint(0, r, (n,), generator=gen, device=device)
    return Call([x, m.to(torch.int32)])


def _shuffle_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, m = call.args
    return [Expected("return", x[m.long()], EXACT)]


SHUFFLE_ROWS = FunctionOperator(
    "shuffle_rows", source="vllm", category="moe permute", section="vllm.md § vllm::shuffle_rows",
    semantics="returns a new [R', Cc] tensor: out[i, :] = input_tensor[dst2src_map[i], :] (a gather of rows; "
              "sources may repeat; R' = dst2src_map.numel()).",
    interface=Interface(
        function="shuffle_rows", params=("input_tensor", "dst2src_map"), returns="Tensor [R', Cc]",
        args_doc={"input_tensor": "[R, Cc] (Cc % 16 == 0) fp16/bf16/fp32 contiguous",
                  "dst2src_map": "int32 [R'] with values in [0, R)"}),
    grids={
        "smoke": [
            dict(rows=3, cols=16, dtype="fp16", out_rows=5),
            dict(rows=1, cols=32, dtype="bf16"),
            dict(rows=4, cols=48, dtype="fp32", factor=2),
        ],
        "full": product(rows=[1, 128, 1024, 5333], cols=[32, 512, 4096], factor=[1, 2], dtype=["fp16", "bf16"]),
        "heldout": [
            dict(rows=4096, cols=7168, dtype="bf16", factor=8),
            dict(rows=33, cols=2880, dtype="fp16"),
        ],
    },
    build=_shuffle_build, reference=_shuffle_ref,
    cost=lambda p: Cost(0.0, 2 * p.get("out_rows", p["rows"] * p.get("factor", 1)) * p["cols"] * esize(p["dtype"])),
    timed=lambda p: p["rows"] * p.get("factor", 1) >= 1024 and p["cols"] >= 512,
    baseline=_baseline("shuffle_rows", lambda c: c.args[0][c.args[1].long()]), label=baseline_label,
    data_movement=True,
)

OPERATORS = [TOPK_SOFTMAX, MOE_SUM, SHUFFLE_ROWS]
