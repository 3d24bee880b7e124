"""vLLM quantisation helpers and quantised-GEMM support ops (vllm.md §3: permute_cols). References are pure
PyTorch written from the spec."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, numel, product
from .common import baseline, baseline_label, esize


# -------------------------------------------------------------------------------------- permute_cols
def _perm_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    shape = p["shape"]
    k = shape[-1]
    a = make_tensor(shape, p["dtype"], device, gen)
    kind = p["perm"]
    if kind == "identity":
        perm = torch.arange(k, device=device)
    elif kind == "reverse":
        perm = torch.arange(k - 1, -1, -1, device=device)
    elif kind == "random":
        perm = torch.randperm(k, generator=gen, device=device)
    elif kind == "repeats":  # indices in [0, K), not a permutation
        perm = torch.randint(0, k, (k,), generator=gen, device=device)
    else:
        raise ValueError(f"vllm::permute_cols: unknown perm kind {kind!r}")
    return Call([a, perm.to(torch.int32)])


def _perm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, perm = call.args
    return [Expected("return", a[..., perm.long()], EXACT)]


PERMUTE_COLS = FunctionOperator(
    "permute_cols", source="vllm", category="gather", section="vllm.md § vllm::permute_cols",
    semantics="returns a new tensor of a's shape and dtype: out[..., j] = a[..., perm[j]] (a gather of columns; "
              "perm need not be a permutation).",
    interface=Interface(
        function="permute_cols", params=("a", "perm"), returns="Tensor (a's shape and dtype)",
        args_doc={"a": "fp16/bf16 [..., K] contiguous, K % 8 == 0 (leading dims flattened)",
                  "perm": "int32 [K], values in [0, K)"}),
    grids={
        "smoke": [
            dict(shape=[3, 16], dtype="fp16", perm="reverse"),
            dict(shape=[2, 8, 24], dtype="bf16", perm="random"),
            dict(shape=[1, 8], dtype="fp16", perm="repeats"),
            dict(shape=[5, 40], dtype="fp16", perm="random"),
        ],
        "full": product(shape=[[1, 32], [71, 504], [128, 512], [1024, 4096], [5333, 8192]],
                        perm=["identity", "reverse", "random"], dtype=["fp16", "bf16"]),
        "heldout": [
            dict(shape=[4096, 14336], dtype="bf16", perm="random"),
            dict(shape=[17, 4104], dtype="fp16", perm="random"),
        ],
    },
    build=_perm_build, reference=_perm_ref,
    cost=lambda p: Cost(0.0, 2 * numel(p["shape"]) * esize(p["dtype"]) + 4 * p["shape"][-1]),
    timed=lambda p: p["shape"][-1] >= 2048 and numel(p["shape"][:-1]) >= 512,
    baseline=baseline("permute_cols", lambda c: c.args[0][..., c.args[1].long()]), label=baseline_label,
    data_movement=True,
    notes="The upstream random permutation comes from its own generator seeded 42; ours is drawn from the case's "
          "seed (the values, not the axis, differ).",
)

OPERATORS = [PERMUTE_COLS]
