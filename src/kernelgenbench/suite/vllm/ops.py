"""vLLM operator rows (vllm.md §3). References are pure PyTorch written from the spec, with the
rounding points the spec states; the baseline is ``vllm._custom_ops`` when importable, else the
native reference (the record says which)."""
from __future__ import annotations

import importlib
from typing import Any, Callable

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, Tolerance, dtype_of, numel, product, ulp, written_expected
from ..tensors import poison_

FLOAT3 = ["fp16", "bf16", "fp32"]


def _vllm_ops() -> Any | None:
    try:
        return importlib.import_module("vllm._custom_ops")
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None


def baseline_label() -> str:
    """``vllm._custom_ops`` when importable here, else the native reference (vllm.md §2.4)."""
    return "vllm._custom_ops" if _vllm_ops() is not None else "native PyTorch reference (vLLM not importable)"


def _baseline(name: str, native: Callable[[Call], Any]) -> Callable[[Call, Any], tuple[Callable[[Call], Any], str]]:
    def pick(call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        ops = _vllm_ops()
        if ops is not None and hasattr(ops, name):
            fn = getattr(ops, name)
            return (lambda c: fn(*c.args, **c.kwargs)), f"vllm._custom_ops.{name}"
        return native, "native PyTorch reference (vLLM not importable)"
    return pick


def _rows_view(shape: list[int], dtype: str, device, gen, pad: int = 0, heads_pad: int = 0) -> torch.Tensor:
    """An input of ``shape`` whose last dim is contiguous; rows padded by ``pad`` elements, or (3-D)
    the middle dim sliced out of a larger buffer (``heads_pad`` extra heads)."""
    if heads_pad and len(shape) == 3:
        buf = make_tensor([shape[0], shape[1] + heads_pad, shape[2]], dtype, device, gen)
        return buf[:, : shape[1], :]
    if pad:
        buf = make_tensor(list(shape[:-1]) + [shape[-1] + pad], dtype, device, gen)
        return buf[..., : shape[-1]]
    return make_tensor(shape, dtype, device, gen)


def _rms_native(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    xf = x.float()
    inv = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return ((xf * inv).to(x.dtype).float() * w.float()).to(x.dtype)


def _rms_allowance(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor | None:
    """One ulp of the intermediate rd_T(x*inv), carried through the weight multiply.

    The spec's rounding points (out = rd_T(rd_T(x*inv)*w)) and vLLM's approximate rsqrtf (<= 2 ulp)
    mean a correct kernel's intermediate can round to the neighbouring T value; the output then
    moves by |w| * ulp_T(x*inv), which can exceed rtol[T] for |w| > 1. fp32 needs no allowance.
    """
    if x.dtype == torch.float32:
        return None
    xf = x.double()
    inv = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return ulp(xf * inv, x.dtype) * w.double().abs()


# ------------------------------------------------------------------------------------------ rms_norm
def _rms_build(p: dict[str, Any], device, gen) -> Call:
    x = _rows_view(p["shape"], p["dtype"], device, gen, pad=p.get("pad", 0), heads_pad=p.get("heads_pad", 0))
    h = p["shape"][-1]
    w = (torch.ones(h, dtype=dtype_of(p["dtype"]), device=device) if p.get("weight") == "ones"
         else make_tensor([h], p["dtype"], device, gen))
    out = poison_(torch.empty(p["shape"], dtype=dtype_of(p["dtype"]), device=device))
    return Call([out, x, w, p["eps"]], written=(0,))


def _rms_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    out, x, w, eps = call.args
    return [written_expected("arg.0", out, _rms_native(x, w, eps), Tolerance(),
                             atol_extra=_rms_allowance(x, w, eps))]


def _rms_base_native(c: Call) -> None:
    c.args[0].copy_(_rms_native(c.args[1], c.args[2], c.args[3]))


def _rms_cost(p: dict[str, Any]) -> Cost:
    n = numel(p["shape"])
    es = torch.empty(0, dtype=dtype_of(p["dtype"])).element_size()
    return Cost(4.0 * n, (2 * n + p["shape"][-1]) * es)


RMS_NORM = FunctionOperator(
    "rms_norm", source="vllm", category="normalization", section="vllm.md § vllm::rms_norm",
    semantics="per row: var = sum(float(x_i)^2) (fp32); inv = 1/sqrt(var/H + eps) (fp32); "
              "out_i = rd_T(rd_T(x_i*inv) * w_i) (the weight is applied after casting the normalised value to T).",
    interface=Interface(
        function="rms_norm", params=("out", "input", "weight", "epsilon"), written=("out",), returns="None",
        args_doc={"out": "written; [..., H] contiguous, dtype T", "input": "[..., H] (2-4-D) with stride(-1) == 1, "
                  "rows addressed through the outer strides; dtype T in {fp16, bf16, fp32}",
                  "weight": "[H] contiguous, dtype T", "epsilon": "float"}),
    grids={
        "smoke": [
            dict(shape=[1, 32], dtype="fp32", eps=1e-6, weight="randn"),
            dict(shape=[3, 40], dtype="bf16", eps=1e-5, weight="randn", pad=24),
            dict(shape=[2, 2, 48], dtype="fp16", eps=1e-6, weight="randn", heads_pad=1),
            dict(shape=[5, 100], dtype="fp16", eps=1e-5, weight="ones"),
        ],
        "full": product(shape=[[1, 32], [71, 497], [128, 512], [1024, 4096], [5333, 8192]], dtype=FLOAT3,
                        eps=[1e-6, 1e-5], weight=["ones", "randn"]),
        "heldout": [
            dict(shape=[4096, 5120], dtype="bf16", eps=1e-6, weight="randn"),
            dict(shape=[16, 32, 128], dtype="fp16", eps=1e-5, weight="randn", heads_pad=16),
            dict(shape=[7, 8193], dtype="fp32", eps=1e-6, weight="randn"),
        ],
    },
    build=_rms_build, reference=_rms_ref, cost=_rms_cost,
    timed=lambda p: numel(p["shape"][:-1]) >= 1024 and p["shape"][-1] >= 4096 and p["dtype"] != "fp32",
    baseline=_baseline("rms_norm", _rms_base_native), label=baseline_label, own_ops=frozenset({"rms_norm"}),
)


# -------------------------------------------------------------------------------- fused_add_rms_norm
def _far_build(p: dict[str, Any], device, gen) -> Call:
    t, h = p["t"], p["h"]
    x = _rows_view([t, h], p["dtype"], device, gen, pad=p.get("pad", 0))
    r = make_tensor([t, h], p["dtype"], device, gen)
    w = make_tensor([h], p["dtype"], device, gen)
    return Call([x, r, w, p["eps"]], written=(0, 1))


def _far_native(x: torch.Tensor, r: torch.Tensor, w: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    z = (x.float() + r.float()).to(x.dtype)
    return _rms_native(z, w, eps), z


def _far_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, r, w, eps = call.args
    out, z = _far_native(x, r, w, eps)
    return [written_expected("arg.0", x, out, Tolerance(), atol_extra=_rms_allowance(z, w, eps)),
            written_expected("arg.1", r, z, Tolerance())]


def _far_base_native(c: Call) -> None:
    out, z = _far_native(*c.args)
    c.args[1].copy_(z)
    c.args[0].copy_(out)


FUSED_ADD_RMS_NORM = FunctionOperator(
    "fused_add_rms_norm", source="vllm", category="normalization", section="vllm.md § vllm::fused_add_rms_norm",
    semantics="per row: z_i = rd_T(x_i + r_i); residual_i <- z_i; var = sum(float(z_i)^2) (fp32); "
              "inv = 1/sqrt(var/H + eps); input_i <- rd_T(rd_T(z_i*inv) * w_i). Padding between rows of input "
              "stays untouched.",
    interface=Interface(
        function="fused_add_rms_norm", params=("input", "residual", "weight", "epsilon"),
        written=("input", "residual"), returns="None",
        args_doc={"input": "written; [..., H], last dim contiguous, row stride input.stride(-2) may exceed H",
                  "residual": "written; [..., H] contiguous", "weight": "[H] contiguous",
                  "epsilon": "float; all tensors share dtype T in {fp16, bf16, fp32}"}),
    grids={
        "smoke": [
            dict(t=1, h=32, dtype="fp32", eps=1e-6),
            dict(t=3, h=497, dtype="fp16", eps=1e-5, pad=15),
            dict(t=2, h=40, dtype="bf16", eps=1e-4),
        ],
        "full": product(t=[1, 71, 128, 1024, 5333], h=[32, 497, 512, 4096, 8192], dtype=FLOAT3,
                        eps=[1e-6, 1e-5, 1e-4]),
        "heldout": [
            dict(t=4096, h=5120, dtype="bf16", eps=1e-6),
            dict(t=7, h=8192, dtype="fp16", eps=1e-5, pad=64),
            dict(t=33, h=769, dtype="fp32", eps=1e-6),
        ],
    },
    build=_far_build, reference=_far_ref,
    cost=lambda p: Cost(6.0 * p["t"] * p["h"], (4 * p["t"] * p["h"] + p["h"]) *
                        torch.empty(0, dtype=dtype_of(p["dtype"])).element_size()),
    timed=lambda p: p["t"] * p["h"] >= 2 ** 20,
    baseline=_baseline("fused_add_rms_norm", _far_base_native), label=baseline_label,
    own_ops=frozenset({"fused_add_rms_norm"}),
)


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

OPERATORS = [FUSED_ADD_RMS_NORM, RMS_NORM, TOPK_SOFTMAX]
