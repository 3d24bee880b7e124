"""The pointwise binary family (suite/aten/binary.py): grids against the counts of aten.md §1/§8 with the §6b
corrections, the wrappers against the installed PyTorch, smoke coverage of every exercised wrapper and dtype
class, references and the semantics the rows pin, and the oracles' L1 scan."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernelgenbench.suite.aten.binary import OPERATORS, BinaryOperator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Case, dtype_of, numel
from kernelgenbench.verify.scan import scan_file

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"

# the overloads each section lists as exercised by the tests
EXERCISED = {
    "add_": {"add_.Tensor"}, "sub": {"sub.Tensor"}, "mul": {"mul.Tensor"}, "div": {"div.Tensor", "div.Tensor_mode"},
    "div_": {"div_.Tensor", "div_.Tensor_mode"},
    "rsub": {"rsub.Tensor", "rsub.Scalar", "rsub.Tensor_out", "rsub.Scalar_out"},
    "eq": {"eq.Tensor", "eq.Scalar"}, "gt": {"gt.Tensor", "gt.Scalar"}, "le": {"le.Tensor", "le.Scalar"},
    "fmax": {"fmax", "fmax.out"}, "floor_divide": {"floor_divide"}, "heaviside": {"heaviside", "heaviside.out"},
    "logaddexp2": {"logaddexp2", "logaddexp2.out"}, "pow": {"pow.Tensor_Tensor", "pow.Scalar", "pow.Tensor_Scalar"},
    "prelu": {"prelu"},
}
# The family's own rows; the module also holds first-slice rows (plain AtenOperator: add, mm, _softmax, sum,
# cumsum, index_select), tested by tests/test_spec.py and tests/test_rows.py.
ROWS: dict[str, BinaryOperator] = {op.name: op for op in OPERATORS if isinstance(op, BinaryOperator)}
CPU = torch.device("cpu")


def _build(op: BinaryOperator, case: Case):
    return op.build(case.params, CPU, torch.Generator().manual_seed(case.seed))


def _accepts(op: BinaryOperator, dt: torch.dtype) -> bool:
    """Whether PyTorch runs the op on two tensors of ``dt`` (its functional form)."""
    x = torch.ones(2, 3, dtype=dt)
    y = torch.ones(3 if op.name == "prelu" else (2, 3), dtype=dt)
    try:
        r = op.fn(x, y, {})
    except RuntimeError:
        return False
    return not op.inplace or torch.can_cast(r.dtype, dt)  # an in-place self keeps its dtype


def test_every_row_is_registered() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name in ROWS:
        assert get_operator(f"aten::{name}") is ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_cases_are_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert len({c.seed for c in cases}) == len(cases), "two full-tier cases draw the same inputs"


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    packet = getattr(torch.ops.aten, name)
    want = {name if o == "default" else f"{name}.{o}" for o in packet.overloads()}
    assert {w.overload for w in op.interface.wrappers} == want
    assert {w.overload for w in op.interface.wrappers if w.exercised} == EXERCISED[name]
    for w in op.interface.wrappers:
        assert w.schema.startswith(f"aten::{name}")
        assert w.kind in ("dispatcher", "jit")
        if w.exercised:
            assert w.kind == "dispatcher" and w.required
    # JIT-only overloads have no dispatcher entry (add_.t, sub.int, eq.str, pow.int_to_int, ...)
    jit = {w.overload for w in op.interface.wrappers if w.kind == "jit"}
    for key in jit:
        with pytest.raises(RuntimeError):
            torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{key}", "CPU")


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_drives_exactly_the_exercised_overloads(name: str) -> None:
    op = ROWS[name]
    assert {op.reached(c.params) for c in op.cases("full")} == EXERCISED[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_covers_every_exercised_wrapper_and_dtype_class(name: str) -> None:
    op = ROWS[name]
    smoke = op.cases("smoke")
    reached = {op.reached(c.params) for c in smoke}
    assert EXERCISED[name] <= reached, f"exercised overloads without a smoke case: {EXERCISED[name] - reached}"
    dispatcher = {w.overload for w in op.interface.wrappers if w.kind == "dispatcher"}
    assert dispatcher <= reached, f"dispatcher overloads without a smoke case: {dispatcher - reached}"
    # every exercised wrapper also runs on the interpreter (bf16 is unsupported there)
    runnable = {op.reached(c.params) for c in smoke if torch.bfloat16 not in op.tensor_dtypes(c.params)}
    assert EXERCISED[name] <= runnable
    # dtype classes (aten.md §5b): fp32, fp16, bf16 always; int and bool where PyTorch accepts them
    classes = set()
    for c in smoke:
        for dt in op.tensor_dtypes(c.params):
            classes.add("int" if not (dt.is_floating_point or dt == torch.bool) else str(dt).replace("torch.", ""))
    assert {"float32", "float16", "bfloat16"} <= classes
    for cls, dt in (("int", torch.int32), ("bool", torch.bool)):
        if _accepts(op, dt):
            assert cls in classes, f"{name}: no {cls} smoke case"


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 3 <= len(held) and not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"
    for case in smoke + held:
        call = _build(op, case)
        tensors = [t for t in [*call.args, *call.kwargs.values()] if isinstance(t, torch.Tensor)]
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in tensors), case.params
            if op.divisor and isinstance(call.args[1], torch.Tensor) and not call.args[1].is_floating_point():
                assert bool((call.args[1] != 0).all()), "an integer divisor on the CPU holds a zero (aten.md §5b)"
        expected = op.reference(case.params, call.clone())
        assert expected and expected[0].slot in ("return", "arg.0", "arg.out")
        if op.inplace:
            assert call.written == (0,) and [e.slot for e in expected] == ["arg.0", "return"]
            assert expected[1].alias == "arg.0"
        elif "out" in call.kwargs:
            assert call.written == ("out",) and expected[-1].alias == "arg.out"
    # held-out tiers reach the dispatcher overloads the full tier leaves untested (aten.md §5c)
    untested = {w.overload for w in op.interface.wrappers if w.kind == "dispatcher" and not w.exercised}
    covered = {op.reached(c.params) for c in smoke + held}
    assert untested <= covered, f"dispatcher overloads no smoke or held-out case reaches: {untested - covered}"


def test_costs_are_memory_bound_bytes_of_the_operands() -> None:
    sub = ROWS["sub"]
    cost = sub.cost(dict(form="tt", dtype="fp16", alpha=1.0, shape=[1024, 1024]))
    assert cost.bytes == 3 * 1024 * 1024 * 2 and cost.flops == 2 * 1024 * 1024
    assert sub.cost(dict(form="ts", dtype="fp32", alpha=1.0, scalar=2.0, shape=[8])).bytes == 2 * 8 * 4
    eq = ROWS["eq"].cost(dict(form="tt", dtype="fp32", shape=[10]))
    assert eq.bytes == 10 * 4 * 2 + 10  # bool result: one byte per element
    add_ = ROWS["add_"].cost(dict(form="tt", dtype="fp32", alpha=1.0, shape=[4, 4], shape2=[4]))
    assert add_.bytes == (16 + 4 + 16) * 4


def test_public_calls_and_forms() -> None:
    fd = ROWS["floor_divide"]
    full = fd.grid("full")
    assert sum(p["dtype"] == "fp32" for p in full) == 6
    assert {p["form"] for p in full if p["dtype"] != "fp32"} == {"tt", "td", "dt"}
    call = fd.build(dict(form="dt", dtype="int16", shape=[5, 3]), CPU, torch.Generator().manual_seed(1))
    assert call.api == "torch.floor_divide" and call.args[0].dim() == 0 and call.args[1].shape == (5, 3)
    # the float test calls torch.floor_divide, not div(rounding_mode='floor') (§6b.5)
    assert all(fd.api_of(p) == "torch.floor_divide" for p in full)
    # rsub drives the packet, which resolves to each of its four overloads
    rsub = ROWS["rsub"]
    assert {rsub.api_of(p) for p in rsub.grid("full")} == {"torch.ops.aten.rsub"}
    # in-place rows drive the tensor methods
    assert ROWS["add_"].api == "torch.Tensor.add_" and ROWS["div_"].api == "torch.Tensor.div_"
    # div's trunc test is the pre-damage one: randn fp32 tensors with rounding_mode='trunc' (§6b.2)
    trunc = [p for p in ROWS["div"].grid("full") if p.get("mode")]
    assert len(trunc) == 6 and {p["dtype"] for p in trunc} == {"fp32"} and {p["form"] for p in trunc} == {"tt"}
    # pow's pre-damage tensor-scalar grid reaches pow.Tensor_Scalar
    pow_ts = [p for p in ROWS["pow"].grid("full") if p["form"] == "ts"]
    assert len(pow_ts) == 72 and {ROWS["pow"].reached(p) for p in pow_ts} == {"pow.Tensor_Scalar"}


def test_pow_reference_converts_the_scalar_to_the_dtype() -> None:
    pow_ = ROWS["pow"]
    # bf16: -0.999 becomes -1.0, so a negative base to the -1 is finite, not NaN
    p = dict(form="ts", dtype="bf16", scalar=-0.999, shape=[4])
    call = pow_.build(p, CPU, torch.Generator())
    call.args[0].copy_(torch.tensor([-2.0, -0.5, 4.0, 1.0]))
    (exp,) = pow_.reference(p, call.clone())
    assert exp.value.tolist() == [-0.5, -2.0, 0.25, 1.0]
    # fp16: -111.999 becomes -112 (an even integer): (-0.5)^-112 overflows to +inf instead of NaN
    p = dict(form="ts", dtype="fp16", scalar=-111.999, shape=[2])
    call = pow_.build(p, CPU, torch.Generator())
    call.args[0].copy_(torch.tensor([-0.5, 2.0]))
    (exp,) = pow_.reference(p, call.clone())
    assert exp.value[0] == float("inf") and exp.value[1] == 0
    # pow.Scalar: the base converts the same way
    p = dict(form="st", dtype="bf16", scalar=-0.999, shape=[2])
    call = pow_.build(p, CPU, torch.Generator())
    call.args[1].copy_(torch.tensor([2.0, 3.0]))
    (exp,) = pow_.reference(p, call.clone())
    assert exp.value.tolist() == [1.0, -1.0]


def test_in_place_reference_is_the_whole_storage_of_self() -> None:
    op = ROWS["div_"]
    p = dict(form="tt", dtype="fp32", shape=[3, 4], layout="step2")
    call = op.build(p, CPU, torch.Generator().manual_seed(3))
    x, y = call.args
    exp, ret = op.reference(p, call.clone())
    assert exp.slot == "arg.0" and int(exp.region.sum()) == 12 and exp.value.numel() == 24
    assert torch.equal(exp.value[exp.region].view(3, 4), (x.double() / y.double()).float())
    assert torch.equal(exp.value[~exp.region], x.as_strided((12,), (2,), 1))  # the gaps keep their bits
    assert ret.alias == "arg.0"


def test_rounding_mode_references_compute_in_the_compute_type() -> None:
    op = ROWS["div"]
    p = dict(form="tt", dtype="fp16", mode="trunc", shape=[3])
    call = op.build(p, CPU, torch.Generator())
    call.args[0].copy_(torch.tensor([7.0, -7.0, 1.0]))
    call.args[1].copy_(torch.tensor([2.0, 2.0, 0.0]))
    (exp,) = op.reference(p, call.clone())
    assert exp.value.dtype == torch.float16 and exp.value.tolist() == [3.0, -3.0, float("inf")]
    assert exp.tol.exact is False
    fd = ROWS["floor_divide"]
    p = dict(form="tt", dtype="fp32", shape=[4])
    call = fd.build(p, CPU, torch.Generator())
    call.args[0].copy_(torch.tensor([7.0, -7.0, -0.0, 5.0]))
    call.args[1].copy_(torch.tensor([-2.0, 2.0, 3.0, 0.0]))
    (exp,) = fd.reference(p, call.clone())
    assert exp.tol.exact and exp.value.tolist() == [-4.0, -4.0, 0.0, float("inf")]
    assert torch.signbit(exp.value[2])  # -0.0 // 3 keeps the sign of a/b


def test_integer_divisors_on_the_cpu_hold_no_zero() -> None:
    fd = ROWS["floor_divide"]
    p = dict(form="tt", dtype="int16", shape=[64, 64], values2=[0, 0, 0])
    call = fd.build(p, CPU, torch.Generator().manual_seed(0))
    assert bool((call.args[1] != 0).all())  # (on GPUs the drawn zeros stay: CUDA's x // 0 is the contract)
    p = dict(form="tt", dtype="fp32", shape=[4], values2=[0.0])
    assert float(fd.build(p, CPU, torch.Generator()).args[1][0]) == 0.0  # float divisors keep theirs


def test_comparisons_pin_a_true_first_result() -> None:
    for name in ("eq", "gt", "le"):
        op = ROWS[name]
        for p in [dict(form="tt", dtype="fp16", shape=[]), dict(form="ts", dtype="bf16", scalar=0, shape=[1])]:
            call = op.build(p, CPU, torch.Generator().manual_seed(5))
            (exp,) = op.reference(p, call.clone())
            assert exp.value.dtype == torch.bool and bool(exp.value.flatten()[0]), (name, p)


def test_fmax_nan_injection_and_prelu_weights() -> None:
    fmax = ROWS["fmax"]
    p = dict(form="tt", dtype="fp32", shape=[2, 3])
    x, y = fmax.build(p, CPU, torch.Generator()).args
    assert bool(x.flatten()[0].isnan()) and bool(y.flatten()[1].isnan()) and not bool(y.flatten()[0].isnan())
    prelu = ROWS["prelu"]
    assert prelu.shapes(dict(shape=[2, 32, 16, 16], dtype="fp16", weight="per_channel")) == ([2, 32, 16, 16], [32])
    assert prelu.shapes(dict(shape=[2, 3], dtype="fp16", weight="scalar")) == ([2, 3], [])
    assert prelu.shapes(dict(shape=[17], dtype="fp16", weight="per_channel")) == ([17], [1])
    assert prelu.composite and prelu.reached(dict(shape=[2, 3], dtype="fp32", weight="scalar")) == "prelu"


def test_heaviside_zeros_and_logaddexp2_timing() -> None:
    hv = ROWS["heaviside"]
    x, _ = hv.build(dict(form="tt", dtype="fp32", shape=[512, 512]), CPU, torch.Generator().manual_seed(0)).args
    assert 0.08 < float((x == 0).float().mean()) < 0.12
    lae = ROWS["logaddexp2"]
    assert [c.timed for c in lae.cases("full")].count(False) == 9
    assert all(c.params.get("overload") == "out" for c in lae.cases("full") if not c.timed)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert path.is_file()
    assert scan_file(path, **op.scan_policy()) == []


def test_tensor_shapes_of_forms() -> None:
    op = ROWS["sub"]
    assert op.shapes(dict(form="st", shape=[3, 4], scalar=1.0)) == (None, [3, 4])
    assert op.shapes(dict(form="td", shape=[3, 4])) == ([3, 4], [])
    assert numel(op.shapes(dict(form="tt", shape=[3, 4], shape2=[4]))[1]) == 4
    assert op.tensor_dtypes(dict(form="tt", dtype="fp32", dtype2="bf16", shape=[2])) == {torch.float32,
                                                                                       dtype_of("bf16")}
