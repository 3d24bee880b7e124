"""The nothing-to-compute family (suite/aten/views.py) and its one rule (suite/spec.py NothingToCompute):
grid counts against aten.md §1, wrappers and tiers, the rule's checks on their own (verify/compare.py),
and the rule applied end to end to good and bad submissions through the real pipeline on the interpreter."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
import torch

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.aten.views import OPERATORS, ViewOperator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import ALLOCATION, SCALAR_READ, VIEW, dtype_of
from kernelgenbench.verify.compare import compare_nothing_to_compute
from kernelgenbench.verify.scan import scan_file, scan_source

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]

KIND = {"item": SCALAR_READ, "_local_scalar_dense": SCALAR_READ, "empty_strided": ALLOCATION,
        "new_empty_strided": ALLOCATION}
ROWS = {op.name: op for op in OPERATORS}
CPU = torch.device("cpu")


def _tensors(call) -> list[torch.Tensor]:
    return [t for t in [*call.args, *call.kwargs.values()] if isinstance(t, torch.Tensor)]


# -- rows ------------------------------------------------------------------------------------------
def test_every_row_is_registered_with_its_rule() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name, op in ROWS.items():
        assert get_operator(f"aten::{name}") is op
        assert op.nothing_to_compute is KIND.get(name, VIEW)
        assert op.describe()["nothing_to_compute"] == op.nothing_to_compute.kind
        assert op.tensor_dtypes({"dtype": "bf16"}) == set()  # nothing computed: judged in bf16 on the interpreter


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_is_timed_and_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert all(c.timed for c in cases)
    assert len({repr(sorted(c.params.items())) for c in cases}) == len(cases), "duplicate full-tier cases"


def _schema_of(key: str) -> object:
    op, _, ov = key.partition(".")
    return getattr(getattr(torch.ops.aten, op), ov or "default")._schema


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    want = {name if o == "default" else f"{name}.{o}" for o in getattr(torch.ops.aten, name).overloads()}
    # named-tensor (Dimname) overloads are listed whether or not this PyTorch has them (2.11 does, 2.13 not)
    got = {w.overload for w in op.interface.wrappers if w.kind != "named"}
    assert got == {o for o in want if "Dimname" not in str(_schema_of(o))}
    kinds = {w.overload: w.kind for w in op.interface.wrappers}
    if name == "select":
        assert kinds == {"select.int": "dispatcher", "select.t": "jit", "select.Dimname": "named"}
        assert not any(w.required for w in op.interface.wrappers if w.kind == "named")
    assert {w.name for w in op.interface.wrappers if w.exercised} <= set(op.interface.required_names())


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op: ViewOperator = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert len(smoke) >= 3 and len(held) >= 3 and not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"
    driven, classes = set(), set()
    for case in smoke + held:
        call = op.build(case.params, CPU, torch.Generator().manual_seed(case.seed))
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in _tensors(call))
            driven.add(str(call.api).rsplit(".", 1)[-1])
            dt = dtype_of(case.params["dtype"])
            classes.add("int" if not (dt.is_floating_point or dt == torch.bool) else case.params["dtype"])
        expected = op.reference(case.params, call.clone())
        assert expected and all(e.rule for e in expected if e.value is not None)
    # every dispatcher wrapper is driven in smoke; every dtype class (aten.md §5b)
    overloads = {"default" if w.overload == name else w.overload.split(".", 1)[1]
                 for w in op.interface.wrappers if w.kind == "dispatcher"}
    assert overloads <= driven
    assert {"fp32", "fp16", "bf16", "int", "bool"} <= classes


def test_needs_launch_only_on_reshapes_copy_path() -> None:
    copies = []
    for name, op in ROWS.items():
        for case in op.cases("full"):
            call = op.build(case.params, CPU, torch.Generator().manual_seed(0))
            (exp,) = [e for e in op.reference(case.params, call.clone()) if e.value is not None]
            copy = exp.rule == "view (copy path)"
            assert call.needs_launch is copy, (name, case.params)
            if copy:
                copies.append((name, case.params["transform"]))
            if op.nothing_to_compute is VIEW and not copy:
                assert exp.alias_of == "arg.0" and exp.layout and exp.check_values
            if copy:
                assert exp.fresh and exp.alias_of is None
            if op.nothing_to_compute is ALLOCATION:
                assert exp.layout and not exp.check_values and exp.fresh == (exp.slot == "return")
            if op.nothing_to_compute is SCALAR_READ:
                assert exp.py_scalar and exp.value.dim() == 0
    # reshape's noncontiguous test: (64, 128)^T -> (128, 64) keeps the shape and (64, 64, 64).permute(1, 2, 0) ->
    # (4096, 64) merges two dims that are contiguous with each other, so PyTorch returns views for those
    assert sorted(copies) == sorted([("reshape", t) for t in ("transpose01", "permute201")] * 3)


def test_seeded_draws_are_fixed() -> None:
    assert ROWS["select"].grid("full") == ROWS["select"].grid("full")
    for p in ROWS["narrow"].grid("full"):
        n = p["shape"][p["dim"]]
        assert 0 <= p["start"] < n and 0 <= p["length"] <= n - p["start"]
    for p in ROWS["select"].grid("full"):
        assert -p["shape"][p["dim"]] <= p["index"] < p["shape"][p["dim"]]


def test_as_strided_geometries_are_in_bounds_and_as_specified() -> None:
    grid = ROWS["as_strided"].grid("full")
    by = {(p["case"], tuple(p["shape"])): p for p in grid}
    assert (by[("transpose", (2, 3))]["size"], by[("transpose", (2, 3))]["stride"]) == ([3, 2], [1, 3])
    assert by[("offset_cropped", (128, 256))]["offset"] == 257
    assert (by[("swap_last_two", (2, 3, 4))]["size"], by[("swap_last_two", (2, 3, 4))]["stride"]) == ([2, 4, 3],
                                                                                                      [12, 1, 4])
    for p in grid:
        last = (p["offset"] or 0) + sum((s - 1) * st for s, st in zip(p["size"], p["stride"]))
        assert last < torch.Size(p["shape"]).numel()


# -- the rule's checks on their own ------------------------------------------------------------------
def test_view_check_needs_aliasing_exact_layout_and_device() -> None:
    x = torch.arange(6.0).reshape(2, 3)
    exp = VIEW.expected("return", torch.ops.aten.t(x), alias_of="arg.0")
    good = x.as_strided((3, 2), (1, 3))
    assert compare_nothing_to_compute(exp, good, alias_target=x, device_type="cpu").ok
    copy = x.clone().as_strided((3, 2), (1, 3))
    res = compare_nothing_to_compute(exp, copy, alias_target=x)
    assert not res.ok and "not a view" in res.message and "storage" in res.message
    res = compare_nothing_to_compute(exp, x.as_strided((3, 2), (2, 1)), alias_target=x)
    assert not res.ok and "strides (2, 1) != expected (1, 3)" in res.message
    res = compare_nothing_to_compute(exp, x.as_strided((3, 2), (1, 3), 0).view(torch.int32), alias_target=x)
    assert not res.ok and "dtype" in res.message
    res = compare_nothing_to_compute(exp, good, alias_target=x, device_type="cuda")
    assert not res.ok and "device" in res.message
    # storage offset is part of the layout
    y = torch.arange(10.0)[2:8].view(2, 3)
    exp = VIEW.expected("return", torch.ops.aten.t(y), alias_of="arg.0")
    res = compare_nothing_to_compute(exp, y.as_strided((3, 2), (1, 3), 0), alias_target=y)
    assert not res.ok and "storage_offset 0 != expected 2" in res.message


def test_view_of_an_empty_storage_needs_no_aliasing() -> None:
    x = torch.empty(0, 5)
    exp = VIEW.expected("return", torch.ops.aten.reshape(x, [5, 0]), alias_of="arg.0")
    assert compare_nothing_to_compute(exp, torch.empty(5, 0), alias_target=x).ok


def test_reshape_copy_path_must_not_share_the_input() -> None:
    x = torch.arange(6.0).reshape(2, 3).t()
    exp = VIEW.expected("return", torch.ops.aten.reshape(x, [-1]), copy=True)
    assert exp.alias_of is None and exp.fresh
    assert compare_nothing_to_compute(exp, torch.tensor([0.0, 3, 1, 4, 2, 5]), inputs=(x,)).ok
    res = compare_nothing_to_compute(exp, torch.tensor([0.0, 3, 1, 4, 2, 6]), inputs=(x,))
    assert not res.ok and "differ" in res.message


def test_allocation_check_is_metadata_only() -> None:
    exp = ALLOCATION.expected("return", torch.empty_strided((2, 3), (1, 2)))
    a = torch.empty(6).as_strided((2, 3), (1, 2))
    a.fill_(float("nan"))  # contents are never compared
    assert compare_nothing_to_compute(exp, a, inputs=()).ok
    res = compare_nothing_to_compute(exp, torch.empty(2, 3), inputs=())
    assert not res.ok and "strides (3, 1) != expected (1, 2)" in res.message
    res = compare_nothing_to_compute(exp, a, inputs=(a,))
    assert not res.ok and "new tensor" in res.message
    res = compare_nothing_to_compute(exp, torch.empty(6, dtype=torch.float16).as_strided((2, 3), (1, 2)), inputs=())
    assert not res.ok and "dtype" in res.message


def test_scalar_read_check_is_exact_value_and_python_type() -> None:
    exp = SCALAR_READ.expected("return", torch.tensor([0.1], dtype=torch.float16).item())
    assert compare_nothing_to_compute(exp, 0.0999755859375).ok
    for bad, why in ((0.1, "expected"), (torch.tensor(0.0999755859375), "got a tensor"), (1, "got int")):
        res = compare_nothing_to_compute(exp, bad)
        assert not res.ok and why in res.message, (bad, res.message)
    exp = SCALAR_READ.expected("return", 7)
    assert compare_nothing_to_compute(exp, 7).ok
    assert not compare_nothing_to_compute(exp, 7.0).ok and not compare_nothing_to_compute(exp, True).ok
    exp = SCALAR_READ.expected("return", -0.0)
    assert not compare_nothing_to_compute(exp, 0.0).ok  # sign of zero included
    exp = SCALAR_READ.expected("return", True)
    assert compare_nothing_to_compute(exp, True).ok and not compare_nothing_to_compute(exp, 1).ok


def test_rule_text_names_every_check() -> None:
    for rule in (VIEW, SCALAR_READ, ALLOCATION):
        text = rule.text()
        for part in (rule.aliasing, rule.layout, rule.values, rule.launch):
            assert part in text
    assert "tolist" in SCALAR_READ.text() and "set_" in VIEW.text()


# -- oracles and L1 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert path.is_file()
    assert scan_file(path, **op.scan_policy()) == []


def test_kind_allowances_are_per_operator() -> None:
    src = "def f(x):\n    return x.tolist()\n"
    assert scan_source(src)  # .tolist() is no general-purpose method
    assert scan_source(src, own_ops=ROWS["item"].own_ops, allow_methods=ROWS["item"].allow_methods) == []
    src = "import torch\n\ndef f(x):\n    return torch.empty(0).set_(x)\n"
    assert [f.rule for f in scan_source(src)] == ["raw-storage"]
    assert scan_source(src, allow_methods=ROWS["as_strided"].allow_methods) == []
    # the op itself stays recursion whatever the kind allows
    src = "def item(x):\n    return x.item()\n"
    assert [f.rule for f in scan_source(src, own_ops=ROWS["item"].own_ops,
                                        allow_methods=ROWS["item"].allow_methods)] == ["dispatch-recursion"]


def test_kgb_show_states_the_rule() -> None:
    from typer.testing import CliRunner

    from kernelgenbench.cli import app

    def show(op: str) -> str:  # the text with its line wrapping undone (off a terminal it wraps at 140)
        return " ".join(CliRunner().invoke(app, ["show", op], env={"COLUMNS": "400"}).output.split())

    def flat(text: str) -> str:
        return " ".join(text.split())

    out = show("aten::t")
    assert "Nothing to compute (view)" in out and flat(VIEW.aliasing) in out and flat(VIEW.layout) in out
    out = show("aten::empty_strided")
    assert "Nothing to compute (allocation)" in out and flat(ALLOCATION.values) in out
    out = show("aten::neg")
    assert "Nothing to compute" not in out and "Every case must launch a Triton kernel" in out


# -- end to end: the rule applied by the verifier ------------------------------------------------------
_COPY_KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)
'''

SUBMISSIONS = {
    # a view op that copies (right values, right layout) instead of aliasing
    "unsqueeze_copies": ("aten::unsqueeze", _COPY_KERNEL + '''

def unsqueeze(self, dim):
    nd = self.dim()
    dim = dim + nd + 1 if dim < 0 else dim
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = self.numel()
    if n:
        x, y = (self.view(torch.uint8), out.view(torch.uint8)) if self.dtype == torch.bool else (self, out)
        _copy[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    sizes, strides = list(out.size()), list(out.stride())
    new_stride = 1 if dim >= nd else sizes[dim] * strides[dim]
    return out.as_strided(sizes[:dim] + [1] + sizes[dim:], strides[:dim] + [new_stride] + strides[dim:])
'''),
    # a view with strides other than PyTorch's
    "t_wrong_strides": ("aten::t", '''
def t(self):
    if self.dim() < 2:
        return self.as_strided(self.size(), self.stride(), self.storage_offset())
    return self.as_strided((self.size(1), self.size(0)), (self.size(0), 1), self.storage_offset())
'''),
    # the same values and aliasing, but stride 1 for every inserted size-1 dim (PyTorch: size * stride of the
    # dim it is inserted before): strides are compared exactly, size-1 dims included
    "unsqueeze_size1_stride": ("aten::unsqueeze", '''
def unsqueeze(self, dim):
    nd = self.dim()
    dim = dim + nd + 1 if dim < 0 else dim
    sizes, strides = list(self.size()), list(self.stride())
    return self.as_strided(sizes[:dim] + [1] + sizes[dim:], strides[:dim] + [1] + strides[dim:],
                           self.storage_offset())
'''),
    # a correct view that also launches a Triton kernel: allowed, and no ghost replay
    "t_with_launch": ("aten::t", _COPY_KERNEL + '''

def t(self):
    scratch = torch.empty(4, device=self.device)
    _copy[(1,)](scratch, scratch, 4, BLOCK=4)
    if self.dim() < 2:
        return self.as_strided(self.size(), self.stride(), self.storage_offset())
    return self.as_strided((self.size(1), self.size(0)), (self.stride(1), self.stride(0)), self.storage_offset())
'''),
    # an allocation that ignores the requested strides
    "empty_strided_contiguous": ("aten::empty_strided", '''
import torch


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    return torch.empty(list(size), dtype=dtype, device=device)


def empty_strided_out(size, stride, *, out):
    out.resize_(list(size))
    return out
'''),
    # an allocation that ignores the dtype override (self's dtype instead)
    "new_empty_strided_wrong_dtype": ("aten::new_empty_strided", '''
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    return self.new_empty((n,), dtype=self.dtype).as_strided(list(size), list(stride))


def new_empty_strided_out(self, size, stride, *, out):
    out.resize_(list(size))
    return out
'''),
}

_ITEM = _COPY_KERNEL + '''

def item(self):
    buf = torch.empty((1,), dtype=self.dtype, device=self.device)
    _copy[(1,)](self, buf, 1, BLOCK=1)
    {body}
'''
ITEM_BODIES = {
    "item_returns_tensor": "return buf",
    "item_float_for_int": "return float(buf.tolist()[0])",
    "item_wrong_value": "v = buf.tolist()[0]\n    return v + 1 if not isinstance(v, bool) else (not v)",
    "item_calls_float": "return float(self)",  # reaches _local_scalar_dense: recursion on every platform
}


def _run(tmp_path: Path, op_id: str, source: str, tier: str = "smoke") -> dict:
    op = get_operator(op_id)
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir(parents=True, exist_ok=True)
    sub.write_text(textwrap.dedent(source))
    return Verifier(JobSpec(op, sub, tier), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                    Settings(import_timeout_s=120.0, case_timeout_s=120.0)).run()


@pytest.mark.slow
def test_correct_views_pass_without_any_launch(tmp_path: Path) -> None:
    rec = _run(tmp_path, "aten::t", (SOLUTIONS / "aten__t.py").read_text())
    assert rec["status"] == "passed", rec["first_failure"]
    assert rec["anti_hack"]["L3"]["launches"] == 0
    assert rec["anti_hack"]["L2"]["checked"] == 0 and "nothing to compute (view)" in rec["anti_hack"]["L2"]["note"]
    assert all(c["status"] == "passed" for c in rec["cases"])  # bf16 included: nothing is computed


@pytest.mark.slow
def test_a_view_that_also_launches_passes(tmp_path: Path) -> None:
    op_id, src = SUBMISSIONS["t_with_launch"]
    rec = _run(tmp_path, op_id, src)
    assert rec["status"] == "passed", rec["first_failure"]
    assert rec["anti_hack"]["L3"]["launches"] >= 5 and rec["anti_hack"]["L2"]["checked"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("what,needle", [
    ("unsqueeze_copies", "not a view: the result must share the storage of arg.0"),
    ("t_wrong_strides", "strides (2, 1) != expected (1, 3)"),
    ("unsqueeze_size1_stride", "strides (512, 16, 1, 1) != expected (512, 16, 16, 1)"),
    ("empty_strided_contiguous", "strides (3, 1) != expected (1, 2)"),
])
def test_bad_views_and_allocations_fail_as_wrong_result(tmp_path: Path, what: str, needle: str) -> None:
    op_id, src = SUBMISSIONS[what]
    rec = _run(tmp_path, op_id, src)
    assert (rec["status"], rec["failure_class"]) == ("failed", "wrong_result"), rec["first_failure"]
    assert needle in rec["first_failure"]["message"], rec["first_failure"]["message"]
    assert rec["first_failure"]["case_id"] is not None


@pytest.mark.slow
def test_allocation_with_the_wrong_dtype_fails(tmp_path: Path) -> None:
    op_id, src = SUBMISSIONS["new_empty_strided_wrong_dtype"]
    rec = _run(tmp_path, op_id, src, tier="heldout")  # held-out: a fp32 override of a bf16 self
    assert rec["failure_class"] == "wrong_result" and "dtype torch.bfloat16 != expected torch.float32" in \
        rec["first_failure"]["message"], rec["first_failure"]


@pytest.mark.slow
@pytest.mark.parametrize("what,cls,needle", [
    ("item_returns_tensor", "wrong_result", "must be a Python float"),
    ("item_float_for_int", "wrong_result", "must be a Python int (as PyTorch returns for this dtype), got float"),
    ("item_wrong_value", "wrong_result", "(exact)"),
    # the interpreter's trace sees _local_scalar_dense; on GPUs the registered item wrapper is re-entered
    ("item_calls_float", "dispatch_recursion", "_local_scalar_dense|re-entered"),
])
def test_bad_scalar_reads_fail(tmp_path: Path, what: str, cls: str, needle: str) -> None:
    rec = _run(tmp_path, "aten::item", _ITEM.format(body=ITEM_BODIES[what]))
    assert (rec["status"], rec["failure_class"]) == ("failed", cls), rec["first_failure"]
    assert any(n in rec["first_failure"]["message"] for n in needle.split("|")), rec["first_failure"]["message"]


@pytest.mark.slow
def test_reshape_copy_path_gets_ghost_replay(tmp_path: Path) -> None:
    rec = _run(tmp_path, "aten::reshape", (SOLUTIONS / "aten__reshape.py").read_text())
    assert rec["status"] == "passed", rec["first_failure"]
    copies = [c for c in rec["cases"] if "transform" in c["params"]]
    assert copies and all(c["launches"] >= 1 for c in copies)
    assert rec["anti_hack"]["L2"]["checked"] == len(copies) and rec["anti_hack"]["L2"]["ok"]
