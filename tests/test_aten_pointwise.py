"""The pointwise unary family (suite/aten/pointwise.py): grids against the counts of aten.md §1/§8,
smoke coverage of every exercised wrapper and dtype class, the JIT scalar cases, and the oracles' L1."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernelgenbench.suite.aten.family import DIRECT
from kernelgenbench.suite.aten.pointwise import OPERATORS, UnaryOperator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import dtype_of
from kernelgenbench.verify.scan import scan_file

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"

ROWS = {op.name: op for op in OPERATORS}


def test_every_row_is_registered() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name in ROWS:
        assert get_operator(f"aten::{name}") is ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_dispatcher_and_jit_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    packet = getattr(torch.ops.aten, name)
    want = {name if o == "default" else f"{name}.{o}" for o in packet.overloads()}
    assert {w.overload for w in op.interface.wrappers} == want
    for w in op.interface.wrappers:
        jit_only = w.overload.split(".")[-1] in ("int", "float", "complex", "Scalar")
        assert w.kind == ("jit" if jit_only else "dispatcher"), w
        assert w.schema.startswith(f"aten::{name}")


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_covers_every_exercised_wrapper_and_dtype_class(name: str) -> None:
    op = ROWS[name]
    smoke = op.grid("smoke")
    driven = {op.wrapper_of(p) for p in smoke}
    exercised = {w.name for w in op.interface.wrappers if w.exercised}
    assert exercised <= driven, f"exercised wrappers without a smoke case: {sorted(exercised - driven)}"
    # every wrapper the full tier drives is exercised, and so required
    assert {op.wrapper_of(p) for p in op.grid("full")} <= exercised
    # dtype classes (aten.md §5b): the floating ones always, int and bool where PyTorch accepts them
    classes = {p["dtype"] for p in smoke if not op.is_jit(p)}
    classes = {"int" if not (dtype_of(d).is_floating_point or dtype_of(d).is_complex or d == "bool") else d
               for d in classes}
    extra = [None] * len(op.extra)
    for cls, dt in (("int", torch.int32), ("bool", torch.bool)):
        try:
            op.fn(torch.empty(0, dtype=dt), *extra)
        except RuntimeError:
            continue
        assert cls in classes, f"{name}: no {cls} smoke case"
    if name != "bitwise_not":
        assert {"fp32", "fp16", "bf16"} <= classes
    # every wrapper also runs on the interpreter: a non-bf16 case per tensor wrapper
    assert {op.wrapper_of(p) for p in smoke if p.get("dtype") != "bf16"} >= exercised


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 3 <= len(held) and not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"
    gen = torch.Generator().manual_seed(0)
    for case in smoke + held:
        call = op.build(case.params, torch.device("cpu"), gen)
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in [*call.args, *call.kwargs.values()] if isinstance(t, torch.Tensor))
        expected = op.reference(case.params, call.clone())
        assert expected and expected[0].slot in ("return", "arg.out")


@pytest.mark.parametrize("name", sorted(n for n in ROWS if ROWS[n].jit))
def test_jit_cases_call_the_python_wrapper_and_compare_with_torchscript(name: str) -> None:
    op: UnaryOperator = ROWS[name]
    jit = [p for tier in ("smoke", "full") for p in op.grid(tier) if op.is_jit(p)]
    for p in jit:
        call = op.build(p, torch.device("cpu"), torch.Generator())
        assert call.api == DIRECT + op.wrapper_of(p) and call.needs_launch is False
        (exp,) = op.reference(p, call.clone())
        assert exp.slot == "return" and exp.value.dim() == 0 and exp.check_dtype is False
        r = getattr(getattr(torch.ops.aten, name), p["overload"])(call.args[0])
        assert torch.equal(exp.value, torch.tensor(r, dtype=exp.value.dtype)) or bool(exp.value.isnan().all())


def test_out_layouts_and_the_resize_case() -> None:
    op = ROWS["square"]
    gen = torch.Generator().manual_seed(0)
    p = dict(overload="out", out_layout="noncontiguous", dtype="fp32", shape=[4, 6])
    call = op.build(p, torch.device("cpu"), gen)
    out = call.kwargs["out"]
    assert out.shape == (4, 6) and out.stride() == (12, 2) and call.written == ("out",)
    exp = op.reference(p, call.clone())
    assert exp[0].region is not None and int(exp[0].region.sum()) == 24 and exp[1].alias == "arg.out"
    p = dict(overload="out", out_layout="resize", dtype="fp32", shape=[5, 3])
    call = op.build(p, torch.device("cpu"), gen)
    assert call.kwargs["out"].numel() == 0
    exp = op.reference(p, call.clone())
    assert exp[0].region is None and exp[0].value.shape == (5, 3)


def test_logit_reference_pins_the_cuda_clamp() -> None:
    op = ROWS["logit"]
    p = dict(shape=[3], dtype="bf16", eps=1e-6)
    call = op.build(p, torch.device("cpu"), torch.Generator())
    assert call.args[0][:2].tolist() == [0.0, 1.0]  # upstream's flat[0] = 0, flat[1] = 1 when eps is given
    (exp,) = op.reference(p, call.clone())
    assert torch.isfinite(exp.value).all()  # the CPU kernel's bf16 clamp would give +inf at x = 1
    assert abs(float(exp.value[1]) - 13.8) < 0.1 and abs(float(exp.value[0]) + 13.8) < 0.1


@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert path.is_file()
    assert scan_file(path, **op.scan_policy()) == []
