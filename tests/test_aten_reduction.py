"""The reduction family (suite/aten/reduction.py: amin, argmax, mean, softmax, pairwise_distance, renorm,
polygamma): grids against the counts of aten.md §1/§8 with the corrections the rows note, wrappers against the
installed PyTorch, smoke/held-out coverage, references checked against hand-computed values and PyTorch's own
kernels, the tolerance rules, the oracles' L1 scan, and one wrong kernel per op caught by the real pipeline."""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest
import torch

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.aten.family import DIRECT
from kernelgenbench.suite.aten.reduction import OPERATORS, ReductionOperator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call
from kernelgenbench.verify.scan import scan_file

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]
CPU = torch.device("cpu")

EXERCISED = {"amin": {"amin", "amin.out"}, "argmax": {"argmax"}, "mean": {"mean", "mean.dim"},
             "softmax": {"softmax.int"}, "pairwise_distance": {"pairwise_distance"},
             "renorm": {"renorm", "renorm.out"}, "polygamma": {"polygamma", "polygamma.out"}}
# The family's own rows; the module also holds first-slice rows (plain AtenOperator: add, mm, _softmax, sum,
# cumsum, index_select), tested by tests/test_spec.py and tests/test_rows.py.
ROWS: dict[str, ReductionOperator] = {op.name: op for op in OPERATORS if isinstance(op, ReductionOperator)}


def _build(op: ReductionOperator, params: dict, seed: int = 0) -> Call:
    return op.build(params, CPU, torch.Generator().manual_seed(seed))


def _ref(op: ReductionOperator, params: dict, call: Call):
    return op.reference(params, call.clone())


# -- rows, grids, wrappers, tiers ----------------------------------------------------------------------
def test_every_row_is_registered() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name in ROWS:
        assert get_operator(f"aten::{name}") is ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_cases_are_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert len({c.seed for c in cases}) == len(cases), "two full-tier cases draw the same inputs"


def test_grid_axes_are_upstreams() -> None:
    amin = ROWS["amin"].grid("full")
    assert sum(p.get("overload") == "out" for p in amin) == 234
    assert {len(p["shape"]) for p in amin} == {2, 3}
    assert {str(p["dim"]) for p in amin if len(p["shape"]) == 3} == {"None", "0", "1", "2", "-1", "[0, 2]", "[1, 2]",
                                                                      "[0, 1, 2]"}
    # argmax keeps exactly the calls upstream makes: no out-of-range dim, no size-0 reduced dim
    for p in ROWS["argmax"].grid("full"):
        shape, dim = p["shape"], p["dim"]
        assert (dim is None and math.prod(shape) > 0) or (-len(shape) <= dim < len(shape) and shape[dim] > 0)
    empties = [p for p in ROWS["argmax"].grid("full") if 0 in p["shape"]]
    assert len(empties) == 24 and not any(c.timed for c in ROWS["argmax"].cases("full") if 0 in c.params["shape"])
    mean = ROWS["mean"].grid("full")
    assert sum("dim" not in p for p in mean) == 9 and [200, 40999, 3] in [p["shape"] for p in mean]
    pd = ROWS["pairwise_distance"].grid("full")
    assert sum("p" not in p for p in pd) == 9 and {p.get("p") for p in pd} == {None, 1.0, 2.0, 3.0}
    assert {tuple(p["shape"]) for p in pd} == {(2, 3), (128, 256), (512, 256)}
    pg = ROWS["polygamma"].cases("full")
    assert {c.params["n"] for c in pg} == {0, 1, 2}
    assert all(c.timed == (c.params.get("overload") != "out") for c in pg)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    packet = getattr(torch.ops.aten, name)
    want = {name if o == "default" else f"{name}.{o}" for o in packet.overloads()}
    assert {w.overload for w in op.interface.wrappers} == want
    assert {w.overload for w in op.interface.wrappers if w.exercised} == EXERCISED[name]
    for w in op.interface.wrappers:
        assert w.kind == "dispatcher" and w.required and w.schema.startswith(f"aten::{name}")


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_drives_exactly_the_exercised_overloads(name: str) -> None:
    op = ROWS[name]
    assert {op.reached(p) for p in op.grid("full")} == EXERCISED[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 3 <= len(smoke) <= 6 and len(held) >= 3
    assert not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"
    # every exercised wrapper runs on the interpreter (bf16 is unsupported there); every dispatcher overload is
    # reached by a smoke or held-out case (aten.md §5c)
    runnable = {op.reached(c.params) for c in smoke if c.params["dtype"] != "bf16"}
    assert EXERCISED[name] <= runnable
    dispatcher = {w.overload for w in op.interface.wrappers}
    assert dispatcher <= {op.reached(c.params) for c in smoke + held}
    # dtype classes (aten.md §5b): the three floating ones, and int/bool where PyTorch accepts them
    classes = {c.params["dtype"] for c in smoke}
    assert {"fp32", "fp16", "bf16"} <= classes
    if name in ("amin", "argmax", "polygamma"):
        assert classes & {"int16", "int32", "int64"}
    if name == "amin":
        assert "bool" in classes
    for case in smoke + held:
        call = _build(op, case.params, case.seed)
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in [*call.args, *call.kwargs.values()] if isinstance(t, torch.Tensor))
        expected = _ref(op, case.params, call)
        if "out" in call.kwargs:
            assert call.written == ("out",) and expected[-1].alias == "arg.out" and expected[0].slot == "arg.out"
        else:
            assert [e.slot for e in expected] == ["return"]


def test_composite_entries_call_their_wrapper_directly_on_the_interpreter() -> None:
    sm = ROWS["softmax"]
    call = _build(sm, dict(shape=[4, 6], dtype="fp16", dim=1, out_dtype="fp32"))
    assert call.api == "torch.nn.functional.softmax" and call.kwargs == {"dim": 1, "dtype": torch.float32}
    name, args, kwargs = sm.direct(call)
    assert name == "softmax_int" and args[1:] == [1, torch.float32] and args[0] is call.args[0] and kwargs == {}
    out_call = _build(sm, dict(shape=[4, 6], dtype="fp32", dim=0, overload="int_out"))
    assert sm.direct(out_call) is None  # softmax.int_out is CompositeExplicit: a dispatch mode sees it
    pd = ROWS["pairwise_distance"]
    call = _build(pd, dict(shape=[3, 5], dtype="fp32", p=3.0, eps=1e-4, keepdim=True))
    assert pd.direct(call)[0] == "pairwise_distance" and call.args[2:] == [3.0, 1e-4, True]
    assert not str(call.api).startswith(DIRECT)  # on GPUs the case goes through the dispatcher


# -- references ------------------------------------------------------------------------------------------
def _with_input(op: ReductionOperator, params: dict, values: torch.Tensor) -> tuple[Call, list]:
    call = _build(op, params)
    call.args[0].copy_(values)
    return call, _ref(op, params, call)


def test_amin_reference_propagates_nan_and_keeps_the_dtype() -> None:
    op = ROWS["amin"]
    x = torch.tensor([[3.0, 1.0, float("nan")], [2.0, 5.0, -1.0]])
    _, (exp,) = _with_input(op, dict(shape=[2, 3], dtype="fp32", dim=1, keepdim=False), x)
    assert exp.value[0].isnan() and exp.value[1] == -1.0
    _, (exp,) = _with_input(op, dict(shape=[2, 3], dtype="fp16", dim=None, keepdim=True), x.nan_to_num(7.0))
    assert exp.value.shape == (1, 1) and exp.value.dtype == torch.float16 and float(exp.value) == -1.0
    _, (exp,) = _with_input(op, dict(shape=[2, 3], dtype="int32", dim=0, keepdim=False),
                            torch.tensor([[4, -9, 2], [3, 8, 2]], dtype=torch.int32))
    assert exp.value.tolist() == [3, -9, 2] and exp.tol.resolve(torch.int32)[2] == "exact"
    assert exp.tol.resolve(torch.float16)[:2] == (1e-3, 1e-4)  # the spec's assert_close rule


def test_argmax_reference_takes_the_first_max_and_the_first_nan() -> None:
    op = ROWS["argmax"]
    x = torch.tensor([[1.0, 7.0, 3.0, 7.0], [float("nan"), 2.0, float("nan"), 9.0]])
    _, (exp,) = _with_input(op, dict(shape=[2, 4], dtype="fp32", dim=1, keepdim=False), x)
    assert exp.value.tolist() == [1, 0] and exp.value.dtype == torch.int64 and exp.tol.exact
    _, (exp,) = _with_input(op, dict(shape=[2, 4], dtype="fp16", dim=None, keepdim=True), x.nan_to_num(0.0))
    assert exp.value.shape == (1, 1) and int(exp.value) == 7  # the flat index of 9.0
    _, (exp,) = _with_input(op, dict(shape=[2, 4], dtype="bf16", dim=0, keepdim=False),
                            torch.tensor([[5.0, 1.0, 2.0, 2.0], [5.0, 3.0, 2.0, 1.0]]))
    assert exp.value.tolist() == [0, 1, 0, 0]
    # the smoke tie is pinned where a "first index" bug and a "last index" bug disagree
    smoke = op.grid("smoke")[0]
    call = _build(op, smoke)
    assert int(_ref(op, smoke, call)[0].value[0]) == 1


def test_mean_reference_values_and_dtypes() -> None:
    op = ROWS["mean"]
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    _, (exp,) = _with_input(op, dict(shape=[2, 2], dtype="fp32"), x)
    assert exp.value.dim() == 0 and float(exp.value) == 2.5
    _, (exp,) = _with_input(op, dict(shape=[2, 2], dtype="fp16", dim=[1, 0], keepdim=True), x)
    assert exp.value.shape == (1, 1) and exp.value.dtype == torch.float16 and float(exp.value) == 2.5
    _, (exp,) = _with_input(op, dict(shape=[2, 2], dtype="fp16", dim=0, keepdim=False, out_dtype="fp32"), x / 3)
    assert exp.value.dtype == torch.float32 and exp.value.tolist() == pytest.approx([4 / 6, 1.0], abs=1e-3)
    assert exp.tol.reduce_dim == 1  # the spec keeps upstream's reduce_dim of 1
    call, (exp,) = _with_input(op, dict(shape=[0, 4], dtype="fp32", dim=0, keepdim=False), torch.empty(0, 4))
    assert exp.value.shape == (4,) and bool(exp.value.isnan().all())  # the mean of nothing is NaN
    # the reference accumulates in fp64: 2**24 + 1 + 1 is not 2**24 (fp32 accumulation would lose both ones)
    call, (exp,) = _with_input(op, dict(shape=[3], dtype="fp32"), torch.tensor([2.0 ** 24, 1.0, 1.0]))
    assert float(exp.value) == float(torch.tensor((2.0 ** 24 + 2) / 3, dtype=torch.float32))


def test_softmax_reference_and_dtype_argument() -> None:
    op = ROWS["softmax"]
    x = torch.tensor([[0.0, math.log(3.0)], [float("-inf"), float("-inf")]])
    p = dict(shape=[2, 2], dtype="fp32", dim=1)
    _, (exp,) = _with_input(op, p, x)
    assert exp.value[0].tolist() == pytest.approx([0.25, 0.75]) and bool(exp.value[1].isnan().all())
    p = dict(shape=[2, 2], dtype="fp16", dim=1, out_dtype="fp32")
    _, (exp,) = _with_input(op, p, x[:1].expand(2, 2))
    assert exp.value.dtype == torch.float32 and exp.value[1].tolist() == pytest.approx([0.25, 0.75], rel=1e-3)
    # the shared _softmax builder: neg_inf=True replaces negatives by -inf
    x = _build(op, dict(shape=[4, 8], dtype="fp32", dim=0, neg_inf=True)).args[0]
    assert bool(((x >= 0) | torch.isneginf(x)).all()) and bool(torch.isneginf(x).any())


def test_pairwise_distance_reference_rounds_like_the_composite() -> None:
    op = ROWS["pairwise_distance"]
    p = dict(shape=[1, 2], dtype="fp32", p=2.0, eps=0.0, keepdim=False)
    call = _build(op, p)
    call.args[0].copy_(torch.tensor([[3.0, 4.0]]))
    call.args[1].zero_()
    assert float(_ref(op, p, call)[0].value) == 5.0
    p = dict(p, p=1.0, keepdim=True)
    call.args[2:] = [1.0, 0.0, True]
    (exp,) = _ref(op, p, call)
    assert exp.value.shape == (1, 1) and float(exp.value) == 7.0
    # fp16: 2048 - (-1) = 2049 rounds to 2048 before the norm, as PyTorch's sub does
    p = dict(shape=[1, 1], dtype="fp16", p=1.0, eps=0.0, keepdim=False)
    call = _build(op, p)
    call.args[0].fill_(2048.0)
    call.args[1].fill_(-1.0)
    assert float(_ref(op, p, call)[0].value) == 2048.0
    # against PyTorch's own composite on random data (each within the fp16 tolerance)
    p = dict(shape=[64, 256], dtype="fp16", p=3.0, eps=1e-4, keepdim=False)
    call = _build(op, p, seed=3)
    (exp,) = _ref(op, p, call)
    native = torch.nn.functional.pairwise_distance(call.args[0], call.args[1], 3.0, 1e-4)
    assert torch.allclose(exp.value.float(), native.float(), rtol=1e-3, atol=1e-4)
    # broadcasting: the output rank is the larger one
    call = _build(op, dict(shape=[3, 1, 20], shape2=[4, 20], dtype="fp32", p=1.0, eps=1e-6, keepdim=True))
    assert _ref(op, dict(keepdim=True), call)[0].value.shape == (3, 4, 1)


def test_renorm_reference_is_pytorchs_kernel_bit_for_bit() -> None:
    op = ROWS["renorm"]
    x = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    _, (exp,) = _with_input(op, dict(shape=[2, 2], dtype="fp32", p=2.0, dim=0, maxnorm=1.0), x)
    assert exp.value[0].tolist() == pytest.approx([0.6, 0.8], rel=1e-6)
    assert exp.value[1].tolist() == pytest.approx([0.3, 0.4], rel=1e-7)  # norm 0.5 <= 1: unchanged
    # fp16/bf16: the factor is stored in the input dtype before the multiply (PyTorch's renorm_out)
    for dt in ("fp16", "bf16"):
        for dim in (0, 1):
            p = dict(shape=[128, 256], dtype=dt, p=1.0 + dim, dim=dim, maxnorm=0.5)
            call = _build(op, p, seed=dim)
            (exp,) = _ref(op, p, call)
            assert torch.equal(exp.value, torch.renorm(call.args[0], p["p"], dim, 0.5)), (dt, dim)
    # the exact slice: four equal values whose p-norm is exactly maxnorm stay unchanged (strict >)
    for pp in (1.0, 2.0):
        p = dict(shape=[6, 8], dtype="fp32", p=pp, dim=0, maxnorm=1.0, exact_slice=True)
        call = _build(op, p)
        (exp,) = _ref(op, p, call)
        assert torch.equal(exp.value[0], call.args[0][0]) and float(
            torch.linalg.vector_norm(call.args[0][0], pp)) == 1.0


def test_polygamma_reference_values() -> None:
    op = ROWS["polygamma"]
    x = torch.tensor([1.0, 0.5])
    want = {0: [-0.5772156649015329, -1.9635100260214235], 1: [math.pi ** 2 / 6, math.pi ** 2 / 2],
            2: [-2.4041138063191885, -16.828796644234320]}
    for n, vals in want.items():
        call = _build(op, dict(shape=[2], dtype="fp32", n=n))
        call.args[1].copy_(x)
        (exp,) = _ref(op, dict(shape=[2], dtype="fp32", n=n), call)
        assert exp.value.tolist() == pytest.approx(vals, rel=1e-6)
    call = _build(op, dict(shape=[3], dtype="int32", n=1))
    assert call.args[0] == 1 and call.args[1].dtype == torch.int32 and bool((call.args[1] >= 1).all())
    assert _ref(op, dict(shape=[3], dtype="int32", n=1), call)[0].value.dtype == torch.float32
    # upstream's distribution: rand * 4 + 0.5
    x = _build(op, dict(shape=[512, 512], dtype="fp32", n=0)).args[1]
    assert 0.5 <= float(x.min()) and float(x.max()) < 4.5


def test_clone_tree_keeps_distinct_empty_tensors_apart() -> None:
    # mean's held-out case reduces an empty dim into an empty out= to resize: the two empty storages (both at data
    # pointer 0) must not come back as one, or resizing the out would resize the input (suite/spec.py clone_tree)
    from kernelgenbench.suite.spec import clone_tree

    call = _build(ROWS["mean"], dict(shape=[6, 0, 5], dtype="fp32", dim=[1], keepdim=False, out_layout="resize",
                                     overload="out"))
    x, out = clone_tree([call.args[0], call.kwargs["out"]])
    out.resize_(6, 5)
    assert x.untyped_storage().nbytes() == 0 and x.shape == (6, 0, 5)
    base = torch.arange(4.0)
    a, b = clone_tree([base[1:3], base.view(2, 2)])  # non-empty views still share one cloned storage
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def test_costs() -> None:
    assert ROWS["mean"].cost(dict(shape=[200, 40999, 3], dtype="fp16", dim=1, keepdim=False)).bytes == \
        200 * 40999 * 3 * 2 + 600 * 2
    assert ROWS["argmax"].cost(dict(shape=[4096, 256], dtype="fp32", dim=0, keepdim=True)).bytes == \
        4096 * 256 * 4 + 256 * 8
    assert ROWS["amin"].cost(dict(shape=[32, 64, 128], dtype="bf16", dim=[0, 2], keepdim=True)).bytes == \
        (32 * 64 * 128 + 64) * 2
    assert ROWS["renorm"].cost(dict(shape=[512, 512], dtype="fp32", p=2.0, dim=0, maxnorm=1.0)).bytes == \
        2 * 512 * 512 * 4
    assert ROWS["pairwise_distance"].cost(dict(shape=[512, 256], dtype="fp16")).bytes == (2 * 512 * 256 + 512) * 2
    assert ROWS["polygamma"].cost(dict(shape=[4, 4], dtype="int32", n=1)).bytes == 16 * 8


@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert path.is_file()
    assert scan_file(path, **op.scan_policy()) == []


# -- end to end: a wrong kernel per op, derived from the oracle, fails through the real pipeline -------------
#: op -> (the oracle's line to change, its wrong replacement, the smoke case that must catch it)
WRONG = {
    # the last index among ties instead of the first
    "argmax": [(r"eq & (i1 < i2)", "eq & (i1 > i2)"),
               (r"ti = tl.min(tl.where(hit, ridx, BIG), axis=0)", "ti = tl.max(tl.where(hit, ridx, -1), axis=0)")],
    # tl.min skips NaN: without the NaN flag a slice holding NaN gives a number
    "amin": [("m = tl.where(has_nan > 0, float(\"nan\"), m)", "m = m")],
    # divides by every element instead of the reduced ones
    "mean": [("count *= self.shape[d]", "count = self.numel()")],
    # "safe" softmax: an all -inf slice gives 0 instead of NaN
    "softmax": [("    m = tl.max(x, axis=0)\n",
                 "    m = tl.max(x, axis=0)\n    m = tl.where(m == float(\"-inf\"), 0.0, m)\n"),
                ("    s = tl.sum(e, axis=0)\n", "    s = tl.sum(e, axis=0)\n    s = tl.where(s == 0, 1.0, s)\n")],
    # the 2-norm whatever p is
    "pairwise_distance": [("mode = _mode(float(p))", "mode = 2")],
    # normalises the slices of the wrong dim
    "renorm": [("    dim = dim % nd\n", "    dim = (dim + 1) % nd\n")],
    # trigamma's reflection loses its sign
    "polygamma": [("return tl.where(refl, -res, res)", "return res")],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_kernel_fails_as_wrong_result(tmp_path: Path, name: str) -> None:
    op = ROWS[name]
    src = (SOLUTIONS / op.filename).read_text()
    for old, new in WRONG[name]:
        assert src.count(old) >= 1, (name, old)
        src = src.replace(old, new)
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text(src)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   Settings(import_timeout_s=120.0, case_timeout_s=120.0)).run()
    assert (rec["status"], rec["failure_class"]) == ("failed", "wrong_result"), rec["first_failure"]
    assert rec["first_failure"]["case_id"] is not None
    assert re.search(r"differ|outside tolerance|NaN positions|infinities|shape", rec["first_failure"]["message"])
