"""What `kgb show` and the prompts say about the tolerance matches how the smoke cases are judged:
an operator whose floating results are compared bit for bit must say so (a user trusting the default
"rtol by dtype" text would be failed by a 3e-7 relative error)."""
from __future__ import annotations

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
