"""vLLM attention kernels (vllm.md §3: merge_attn_states). References are pure PyTorch written from the spec
(fp32 math, one rounding to the output dtype)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, product, written_expected
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


def _merge_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    out, po, pl, so, sl, lse = call.args
    ro, rl = merge_native(po, pl, so, sl)
    exp = [written_expected("arg.0", out, ro, Tolerance())]
    if lse is not None:
        exp.append(written_expected("arg.5", lse, rl.reshape(lse.shape), Tolerance()))
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

OPERATORS = [MERGE_ATTN_STATES]
