"""vLLM rotations (vllm.md §3: hadacore_transform). The reference is an fp64 Walsh-Hadamard transform scaled by
n^-1/2, cast once to the dtype; the tolerance is the spec's override (vLLM's own kernel rounds after each stage)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..compare import SlotResult, compare_values, outside_untouched
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, numel
from .common import baseline, baseline_label, esize

#: the spec's tolerance override (outputs are O(1)): fp16 1e-2 / 1e-2, bf16 3e-2 / 3e-2
HADA_TOL = {torch.float16: Tolerance(rtol=1e-2, atol=1e-2), torch.bfloat16: Tolerance(rtol=3e-2, atol=3e-2)}


def hadamard_native(x: torch.Tensor) -> torch.Tensor:
    """``x @ H_n / sqrt(n)`` along the last dim in fp64 (Sylvester ``H[i][j] = (-1)^popcount(i & j)``), cast to
    x's dtype. n must be a power of two."""
    n = x.shape[-1]
    if n & (n - 1):
        raise ValueError(f"vllm::hadacore_transform: the last dim {n} is not a power of two")
    y = x.double().reshape(-1, n)
    h = 1
    while h < n:
        y = y.reshape(-1, n // (2 * h), 2, h)
        a, b = y[:, :, 0, :], y[:, :, 1, :]
        y = torch.stack([a + b, a - b], 2).reshape(-1, n)
        h *= 2
    return (y / n ** 0.5).reshape(x.shape).to(x.dtype)


def _hada_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    shape = p["shape"]
    if p.get("row_pad"):  # a row-strided view: rows of n inside rows of n + pad
        x = make_tensor(shape[:-1] + [shape[-1] + p["row_pad"]], p["dtype"], device, gen)[..., : shape[-1]]
    else:
        x = make_tensor(shape, p["dtype"], device, gen)
    return Call([x, True], written=(0,))


def _x_check(before: torch.Tensor, result: torch.Tensor, tol: Tolerance) -> Any:
    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, torch.Tensor) or actual.shape != before.shape:
            return SlotResult(False, "arg.0: x must keep its shape")
        a = actual.to(before.device)
        if torch.equal(a, before):
            return SlotResult(True, rule="x unchanged (a returned copy)")
        res = compare_values(a, result, tol)
        if res.ok:
            return res
        return SlotResult(False, "arg.0: with inplace=True, x must hold the transform (or stay unchanged where a copy "
                                 f"is returned); {res.message}")
    return check


def _hada_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x = call.args[0]
    y = hadamard_native(x)
    tol = HADA_TOL[x.dtype]
    return [Expected("return", y, tol),
            Expected("arg.0", y, tol, check=outside_untouched("arg.0", x, _x_check(x.clone(), y, tol)))]


HADACORE_TRANSFORM = FunctionOperator(
    "hadacore_transform", source="vllm", category="rotation", section="vllm.md § vllm::hadacore_transform",
    semantics="for every row r: y[r, :] = x[r, :] @ H_n / sqrt(n) with the Sylvester matrix H[i][j] = "
              "(-1)^popcount(i AND j) (n = x.size(-1), a power of two <= 32768). inplace=True: the result is written "
              "into x and x is returned (vLLM returns a new tensor and leaves x unchanged when x.numel() % 256 != 0; "
              "either is accepted; the returned value is graded).",
    interface=Interface(
        function="hadacore_transform", params=("x", "inplace"), defaults={"inplace": True}, written=("x",),
        returns="Tensor (x's shape and dtype)",
        args_doc={"x": "fp16/bf16 [..., n], n a power of two <= 32768; rows may be strided (last-dim stride 1)",
                  "inplace": "True (the graded mode)"}),
    grids={
        "smoke": [
            dict(shape=[1, 32], dtype="fp16"),
            dict(shape=[3, 256], dtype="bf16"),
            dict(shape=[2, 2], dtype="fp16"),
            dict(shape=[5, 128], dtype="fp16", row_pad=64),
        ],
        "full": [dict(shape=s, dtype=dt) for s in ([1, 32], [16, 128], [128, 512], [1024, 4096], [4096, 1024],
                                                   [5333, 8192], [2, 8192], [777, 32]) for dt in ("fp16", "bf16")],
        "heldout": [
            dict(shape=[64, 16384], dtype="bf16"),
            dict(shape=[4096, 128], dtype="fp16", row_pad=128),
            dict(shape=[8, 32768], dtype="fp16"),
        ],
    },
    build=_hada_build, reference=_hada_ref,
    cost=lambda p: Cost(numel(p["shape"]) * max(1, p["shape"][-1].bit_length() - 1),
                        2 * numel(p["shape"]) * esize(p["dtype"])),
    timed=lambda p: numel(p["shape"]) >= 2 ** 18,
    baseline=baseline("hadacore_transform", lambda c: hadamard_native(c.args[0])), label=baseline_label,
    atol_text="1e-2 for fp16 and 3e-2 for bf16 results (the spec's override, with rtol 1e-2 for fp16 and 3e-2 for "
              "bf16 in place of the dtype's rtol)",
    notes="Tolerance (the spec's override): fp16 rtol 1e-2 / atol 1e-2, bf16 3e-2 / 3e-2 against the exact transform "
          "(vLLM itself rounds after every 16-point stage). Only inplace=True is graded (vLLM 0.13's inplace=False "
          "path is broken).",
)

OPERATORS = [HADACORE_TRANSFORM]
