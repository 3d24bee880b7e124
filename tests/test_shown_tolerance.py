"""What `kgb show` and the prompts say about the tolerance matches how the smoke cases are judged:
an operator whose floating results are compared bit for bit must say so (a user trusting the default
"rtol by dtype" text would be failed by a 3e-7 relative error)."""
from __future__ import annotations

import math
import re

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import all_operators

ATEN = [o for o in all_operators() if o.source == "aten"]


@pytest.mark.parametrize("op", ATEN, ids=lambda o: o.id)
def test_exact_floating_comparison_is_stated(op) -> None:
    exact_float = False
    for case in op.cases("smoke"):
        if any(d in (torch.bfloat16,) for d in op.tensor_dtypes(case.params)):
            continue
        try:
            call = op.build(case.params, torch.device("cpu"), generator(torch.device("cpu"), case.seed))
            expected = op.reference(case.params, call.clone())
        except Exception:  # noqa: BLE001 - error cases and CPU-less overloads say nothing about tolerance
            continue
        for e in expected:
            if e.value is None or e.check is not None or e.rule is not None or not e.value.is_floating_point():
                continue
            if e.tol.exact:
                exact_float = True
    if exact_float and not op.nothing_to_compute:
        assert op.tolerance_text and "exact" in op.tolerance_text.lower(), (
            f"{op.id} compares floating results exactly but kgb show states the default tolerance")


def _judged_tolerances(op) -> tuple[list, bool]:
    """The tolerances of the smoke cases' floating value comparisons (custom judges and exact ones left out),
    and whether any floating value is compared exactly."""
    out, exact = [], False
    for case in op.cases("smoke"):
        try:
            call = op.build(case.params, torch.device("cpu"), generator(torch.device("cpu"), case.seed))
            expected = op.reference(case.params, call.clone())
        except Exception:  # noqa: BLE001 - error cases and CPU-less overloads say nothing about tolerance
            continue
        for e in expected:
            if e.value is None or e.rule is not None:
                continue
            if e.value.is_floating_point() or e.value.is_complex():
                if e.tol.exact:
                    exact = exact or e.check is None  # a custom judge says its own rule
                else:
                    out.append(e.tol)
    return out, exact


@pytest.mark.parametrize("op", all_operators(), ids=lambda o: o.id)
def test_shown_atol_is_the_applied_one(op) -> None:
    """kgb show and the prompts state the atol the verdict applies: an operator whose cases judge with a
    reduce_dim above 1, or an atol override, states it in atol_text; the others are shown "reduce_dim is 1",
    never the general "1e-4 x reduce_dim" (vllm::rms_norm judged with 1e-4 x 1 was shown the formula)."""
    from kernelgenbench.suite.spec import ATOL_REDUCE_DIM_1

    tols, exact = _judged_tolerances(op)
    shown = op.shown_atol
    if exact and not tols:  # every floating result compared bit for bit: no atol to assume
        assert "exact" in shown or "exact" in (op.tolerance_text or "").lower(), (
            f"{op.id} compares its floating results exactly but shows atol {shown!r}")
    assert "where reduce_dim is the reduction length" not in shown
    if any(t.reduce_dim > 1 for t in tols):
        assert op.atol_text and "1e-4 x" in op.atol_text, (
            f"{op.id} judges with reduce_dim {sorted({t.reduce_dim for t in tols})} but shows {shown!r}")
    for t in tols:
        if t.atol:
            numbers = {float(x) for x in re.findall(r"\d+(?:\.\d+)?(?:e-?\d+)?", op.atol_text or "")}
            per_case = round(t.atol / 1e-4) > 1 and "1e-4 x" in (op.atol_text or "")  # a formula (1e-4 x L)
            assert per_case or any(math.isclose(t.atol, x) for x in numbers), (
                f"{op.id}: atol override {t.atol:g} not shown")
    if op.atol_text is None:
        assert shown == ATOL_REDUCE_DIM_1 and all(t.reduce_dim == 1 and not t.atol for t in tols)


#: The shown atol of an operator whose cases all judge with reduce_dim 1 (suite/tolerance.py ATOL_REDUCE_DIM_1).
_ONE = "1e-4 on every case (the spec's atol is 1e-4 x the accumulation length reduce_dim, which it sets to 1"


@pytest.mark.parametrize("name, says", [
    ("vllm::rms_norm", "min(1e-4, max(0, 4*2^-24*T - rtol*|ref|)) per element for fp32 results, T = (sqrt(H) + 16)"),
    ("vllm::fused_add_rms_norm", "T = (sqrt(H) + 16)*|ref| for input"),
    ("vllm::topk_softmax", "(the softmax bound)"),
    ("vllm::paged_attention_v1", "(the rounding bound of an honest fp32 computation"),
    ("aten::add", _ONE),
    ("aten::amin", _ONE),
    ("vllm::allspark_w8a16_gemm", "1e-4 x K"),
    ("vllm::moe_sum", "1e-4 x k"),
    ("aten::mm", "min(1e-4 x n, "),
    ("cublas::cublasSgemmBatched_64", "1e-4 x k"),
    ("cublas::cublasSaxpy_v2", "T = 2(|alpha x| + |y| + |ref|)"),
    ("cublas::cublasDaxpy_v2", "1e-4 (reduce_dim 1"),
])
def test_prompt_and_show_state_the_atol(name, says) -> None:
    from kernelgenbench.llm.prompt import build_prompt
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.show import _tolerance_text
    from kernelgenbench.suite.registry import get_operator

    op = get_operator(name)
    assert says in _tolerance_text(op)
    text = build_prompt(op, PROFILES["cuda"]).text()
    assert f"atol = {op.shown_atol}." in text and says in text
    assert "where reduce_dim is the reduction length" not in text


def test_an_axis_without_a_glossary_entry_points_at_the_file_that_defines_the_operator() -> None:
    """``kgb show --cases`` sends a reader to the operator's own module (fresh user 26: it named
    suite/cublas/ops.py, which does not exist), for every operator and axis."""
    from pathlib import Path

    from kernelgenbench.report.author import axis_meaning
    from kernelgenbench.suite.registry import get_operator

    root = Path(__file__).resolve().parents[1]
    seen = 0
    for op in all_operators():
        for axis in sorted({k for p in op.grid("smoke") + op.grid("full") for k in p}):
            text = axis_meaning(op, axis)
            if "see its grid and build in " in text:
                path = text.rsplit(" ", 1)[1]
                assert (root / path).is_file(), (op.id, axis, path)
                seen += 1
    assert seen > 100
    assert axis_meaning(get_operator("cublas::cublasSdgmm"), "mode").endswith("suite/cublas/extensions.py")


def test_attention_axes_say_heads_and_head_size_not_hidden_size() -> None:
    """fresh28: `kgb show vllm::merge_attn_states --cases` called h "the hidden size (row length)" (it counts
    heads) and sent d, special and out_lse to the source file; moe_sum's h is a hidden size and stays one."""
    from kernelgenbench.report.author import axis_meaning
    from kernelgenbench.suite.registry import get_operator

    mas = get_operator("vllm::merge_attn_states")
    assert axis_meaning(mas, "h") == "the number of attention heads (H)"
    assert axis_meaning(mas, "d").startswith("the head size D")
    assert "both -inf" in axis_meaning(mas, "special") and "+inf" in axis_meaning(mas, "special")
    assert axis_meaning(mas, "out_lse").startswith("True: output_lse is passed")
    for op_id in ("vllm::reshape_and_cache", "vllm::cp_gather_cache", "vllm::convert_vertical_slash_indexes"):
        assert axis_meaning(get_operator(op_id), "h") == "the number of attention heads (H)", op_id
    assert axis_meaning(get_operator("vllm::moe_sum"), "h") == "the hidden size (row length)"
    assert axis_meaning(get_operator("vllm::rms_norm_per_block_quant"), "h") == "the hidden size (row length)"


def test_softmax_neg_inf_axis_is_explained() -> None:
    """``neg_inf=rows`` / ``True`` said only "a parameter of this operator's cases" (fresh user 35)."""
    from kernelgenbench.report.author import axis_meaning
    from kernelgenbench.suite.registry import get_operator

    for op_id in ("aten::_softmax", "aten::softmax"):
        text = axis_meaning(get_operator(op_id), "neg_inf")
        assert "rows:" in text and "True" in text and not text.startswith("a parameter of")
