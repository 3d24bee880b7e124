"""Units of the verifier's case bookkeeping (run/job.py): when a no-op would pass a case."""
from __future__ import annotations

import torch

from kernelgenbench.run.job import _all_outputs_empty, _trivial
from kernelgenbench.suite.spec import Call, Expected, Tolerance


def _axpy_like(y: torch.Tensor, delta: torch.Tensor) -> tuple[list[Expected], Call]:
    exp = Expected("arg.1", (y + delta).clone(), Tolerance(), region=torch.ones(y.numel(), dtype=torch.bool))
    return [exp], Call([torch.zeros_like(y), y.clone()], written=(1,))


def test_a_change_below_the_tolerance_makes_the_case_trivial() -> None:
    y = torch.tensor([2.0, -3.0, 5.0])
    # fp32 rtol is 1.3e-6, atol 1e-4: a 1e-6 change is invisible, a 1e-2 change is not
    assert _trivial(*_axpy_like(y, torch.full_like(y, 1e-6)))
    assert not _trivial(*_axpy_like(y, torch.full_like(y, 1e-2)))


def test_exact_equality_is_trivial_and_a_custom_judge_never_is() -> None:
    y = torch.tensor([1.0, 2.0])
    exps, before = _axpy_like(y, torch.zeros_like(y))
    assert _trivial(exps, before)
    exps[0].check = lambda actual, out: None
    assert not _trivial(exps, before)


def test_platform_scale_widens_the_no_op_test() -> None:
    y = torch.tensor([1.0])
    exps, before = _axpy_like(y, torch.tensor([3e-4]))  # beyond atol 1e-4 (+ rtol), within 10x of it
    assert not _trivial(exps, before, 1.0)
    assert _trivial(exps, before, 10.0)


def test_empty_outputs() -> None:
    assert _all_outputs_empty([Expected("return", torch.empty(0, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", torch.empty(1, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", None, Tolerance(), alias="arg.0")])
