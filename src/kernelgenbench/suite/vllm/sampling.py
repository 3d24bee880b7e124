"""vLLM sampling / logits processing (vllm.md §3: apply_repetition_penalties_cuda). References are pure
PyTorch written from the spec."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, dtype_of, rounding_rule, rounding_text, written_expected
from .common import baseline, baseline_label, esize


# ----------------------------------------------------------------------- apply_repetition_penalties_cuda
def _rep_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    s, v = p["s"], p["v"]
    dt = dtype_of(p["dtype"])
    logits = make_tensor([s, v], dt, device, gen)
    prompt = torch.randint(0, 2, (s, v), generator=gen, device=device).bool()
    output = torch.randint(0, 2, (s, v), generator=gen, device=device).bool()
    if p.get("rows") == "all_none" and s >= 2:  # row 0 penalised everywhere, row 1 nowhere
        prompt[0], output[0] = True, True
        prompt[1], output[1] = False, False
    pen = (torch.full((s,), p.get("penalty", 1.1), dtype=torch.float32, device=device) if p.get("penalty")
           else 1.0 + torch.rand(s, generator=gen, device=device) * 1.5).to(dt)
    return Call([logits, prompt, output, pen], written=(0,), needs_launch=s * v > 0)


def rep_native(logits: torch.Tensor, prompt: torch.Tensor, output: torch.Tensor, pen: torch.Tensor) -> torch.Tensor:
    """The penalised logits (vllm.md § apply_repetition_penalties_cuda): where ``prompt | output``,
    ``x / p`` for ``x > 0`` else ``x * p``, one fp32 operation rounded to the logits' dtype; elsewhere ``x``
    unchanged (its bits included). Shapes: logits/masks ``[S, V]``, pen ``[S]``."""
    x = logits.float()
    pf = pen.float()[:, None]
    new = torch.where(x > 0, x / pf, x * pf).to(logits.dtype)
    return torch.where(prompt | output, new, logits)


def _rep_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    logits, prompt, output, pen = call.args
    ref = rep_native(logits, prompt, output, pen)
    # fp32: one division or product (approximate division on GPUs: 2 units): the rounding bound (red team 32 R2) is
    # 4|ref| units, within rtol; other dtypes: the spec's rule
    tol, extra = rounding_rule(ref, 4.0 * ref.double().abs(), "4|ref|: one division or product")
    return [written_expected("arg.0", logits, ref, tol, atol_extra=extra)]


def _rep_base(c: Call) -> None:
    c.args[0].copy_(rep_native(*c.args))


APPLY_REPETITION_PENALTIES = FunctionOperator(
    "apply_repetition_penalties_cuda", source="vllm", category="sampling",
    section="vllm.md § vllm::apply_repetition_penalties_cuda",
    semantics="for every (s, v) with prompt_mask[s,v] or output_mask[s,v]: x = logits[s,v], p = "
              "repetition_penalties[s]; logits[s,v] <- x / p if x > 0 else x * p (one fp32 operation, IEEE "
              "division, not a multiply by 1/p; rounded to T). Unmasked positions stay untouched bit for bit; "
              "S = 0 is a no-op.",
    interface=Interface(
        function="apply_repetition_penalties_cuda",
        params=("logits", "prompt_mask", "output_mask", "repetition_penalties"), written=("logits",),
        returns="None",
        args_doc={"logits": "written; [S, V] fp32/fp16/bf16 contiguous",
                  "prompt_mask": "bool [S, V] contiguous", "output_mask": "bool [S, V] contiguous",
                  "repetition_penalties": "[S], dtype of logits"}),
    grids={
        "smoke": [
            dict(s=1, v=32, dtype="fp32", penalty=1.1),
            dict(s=3, v=1000, dtype="fp16"),
            dict(s=7, v=4099, dtype="bf16", rows="all_none"),
            dict(s=4, v=777, dtype="fp32", rows="all_none"),
        ],
        "full": [dict(s=s, v=v, dtype="fp32", penalty=1.1) for s, v in
                 [(1, 32), (4, 100), (128, 512), (256, 1024), (512, 4096), (1024, 32000), (2048, 16000),
                  (4096, 8000), (2048, 32000), (4096, 16000)]],
        "heldout": [
            dict(s=1023, v=151936, dtype="fp32"),
            dict(s=33, v=202048, dtype="fp16"),
            dict(s=0, v=4096, dtype="fp32"),
        ],
    },
    build=_rep_build, reference=_rep_ref,
    cost=lambda p: Cost(p["s"] * p["v"], p["s"] * p["v"] * (2 * esize(p["dtype"]) + 2)),
    timed=lambda p: p["s"] * p["v"] >= 32_768_000,
    baseline=baseline("apply_repetition_penalties_cuda", _rep_base), label=baseline_label,
    notes="Penalties are 1.1 on the full tier (upstream); smoke and held-out cases draw them per row from "
          "[1, 2.5). The smoke tier has a row penalised everywhere and a row penalised nowhere.",
)

OPERATORS = [APPLY_REPETITION_PENALTIES]


# the rounding bound's atol in words (kgb show; red team 32 R2)
APPLY_REPETITION_PENALTIES.atol_text = rounding_text("4|ref| (one division or product: rtol alone)")
