"""vLLM norms (vllm.md §3: rms_norm, fused_add_rms_norm). References are pure PyTorch written from the
spec, with the rounding points the spec states."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, numel, product, ulp, written_expected
from ..tensors import poison_
from .common import FLOAT3, baseline_label, rows_view
from .common import baseline as _baseline

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
    x = rows_view(p["shape"], p["dtype"], device, gen, pad=p.get("pad", 0), heads_pad=p.get("heads_pad", 0))
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
    x = rows_view([t, h], p["dtype"], device, gen, pad=p.get("pad", 0))
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


OPERATORS = [FUSED_ADD_RMS_NORM, RMS_NORM]
