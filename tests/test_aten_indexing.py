"""The indexing family (suite/aten/indexing.py, gather_scatter.py): grids against aten.md §1/§8 with the §6b
corrections, wrappers against the installed PyTorch, smoke/held-out coverage, hand-computed reference values, the
tolerance rules (exact moves, reduce-aware accumulation, "one of the written values" at duplicate targets, error
cases), and wrong kernels caught through the real pipeline on the interpreter."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.aten import gather_scatter, indexing
from kernelgenbench.suite.aten.family import resolve_api
from kernelgenbench.suite.aten.indexing import RAISES, IndexOperator, _encode, raises_judge, winner_judge
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import EXACT, Expected, Tolerance, numel, storage_view
from kernelgenbench.verify.scan import scan_file

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]
CPU = torch.device("cpu")
# The family's rows live in two modules; gather_scatter.py also holds a first-slice row (a plain AtenOperator:
# index_select), tested by tests/test_spec.py and tests/test_rows.py.
OPERATORS = indexing.OPERATORS + gather_scatter.OPERATORS
ROWS: dict[str, IndexOperator] = {op.name: op for op in OPERATORS if isinstance(op, IndexOperator)}

EXERCISED = {
    "_index_put_impl_": {"_index_put_impl_"}, "index": {"index.Tensor"}, "index_put_": {"index_put_"},
    "gather": {"gather"}, "scatter": {"scatter.src", "scatter.reduce"},
    "masked_fill_": {"masked_fill_.Scalar", "masked_fill_.Tensor"}, "embedding": {"embedding"},
    "im2col": {"im2col", "im2col.out"},
}
ABSENT = {"gather": {"gather.dimname", "gather.dimname_out"},
          "scatter": {"scatter.dimname_src", "scatter.dimname_value"}}


def _build(op: IndexOperator, params: dict, seed: int = 0):
    return op.build(params, CPU, torch.Generator().manual_seed(seed))


class _Reached(TorchDispatchMode):
    def __init__(self, op: str) -> None:
        super().__init__()
        self.op, self.seen = op, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._schema.name == f"aten::{self.op}":
            self.seen.append(func._overloadname)
        return func(*args, **(kwargs or {}))


def _reached(op: IndexOperator, call) -> str:
    c = call.clone()
    mode = _Reached(op.name)
    with mode:
        resolve_api(str(c.api))(*c.args, **c.kwargs)
    ov = mode.seen[0]
    return op.name if ov == "default" else f"{op.name}.{ov}"


# -- rows, grids, wrappers -------------------------------------------------------------------------
def test_every_row_is_registered() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name in ROWS:
        assert get_operator(f"aten::{name}") is ROWS[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_cases_are_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert len({c.seed for c in cases}) == len(cases), "two full-tier cases draw the same inputs"
    assert all("error" in c.params for c in cases if not c.timed)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    packet = getattr(torch.ops.aten, name)
    have = {name if o == "default" else f"{name}.{o}" for o in packet.overloads()}
    got = {w.overload for w in op.interface.wrappers}
    assert got == have | ABSENT.get(name, set())
    assert {w.overload for w in op.interface.wrappers if w.exercised} == EXERCISED[name]
    for w in op.interface.wrappers:
        if w.overload in ABSENT.get(name, set()):
            assert w.kind == "named" and not w.required
        elif w.exercised:
            assert w.kind == "dispatcher" and w.required
    jit = {w.overload for w in op.interface.wrappers if w.kind == "jit"}
    assert jit == {o for o in have if "hacked_twin" in o or (name == "index" and o.split(".")[1] in
                                                                     ("str", "list_int", "list_float", "list_bool",
                                                                      "list_Tensor", "list_str"))}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_drives_exactly_the_exercised_overloads(name: str) -> None:
    op = ROWS[name]
    assert {op.overload_of(c.params) for c in op.cases("full")} == EXERCISED[name]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 4 <= len(smoke) <= 7 and 4 <= len(held) and not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"
    reached = set()
    for case in smoke + held:
        p = case.params
        if numel(p.get("shape", [])) > 4_000_000 or p.get("V", 0) * p.get("N", 0) > 4_000_000:
            reached.add(op.overload_of(p))  # too big to build here in a test; the CPU eval runs it
            continue
        call = _build(op, case.params, case.seed)
        tensors = [t for t in [*call.args, *call.kwargs.values()] if isinstance(t, torch.Tensor)]
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in tensors), case.params
        expected = op.reference(case.params, call.clone())
        if str(call.api).startswith(RAISES):
            assert not call.needs_launch and expected[0].check is not None
            continue
        ov = _reached(op, call)
        assert ov == op.overload_of(case.params), case.params
        reached.add(ov)
        if call.written == (0,):
            assert [e.slot for e in expected] == ["arg.0", "return"] and expected[1].alias == "arg.0"
        elif call.written == ("out",):
            assert [e.slot for e in expected] == ["arg.out", "return"] and expected[1].alias == "arg.out"
        else:
            assert [e.slot for e in expected] == ["return"]
    smoke_reached = {op.overload_of(c.params) for c in smoke}
    assert EXERCISED[name] <= smoke_reached
    dispatcher = {w.overload for w in op.interface.wrappers if w.kind == "dispatcher"}
    assert dispatcher <= reached, f"dispatcher overloads no smoke or held-out case reaches: {dispatcher - reached}"
    dtypes = {c.params.get("dtype") for c in smoke}
    assert {"fp32", "fp16", "bf16"} <= dtypes
    assert dtypes & {"int32", "int64", "bool"} or name in ("embedding", "im2col")


def test_error_cases_raise_and_are_not_timed() -> None:
    idx = [c for c in ROWS["index"].cases("full") if "error" in c.params]
    assert [c.params["error"] for c in idx] == ["empty", "too_many"] and not any(c.timed for c in idx)
    call = _build(ROWS["index"], idx[0].params)
    assert call.api == RAISES + "torch.ops.aten.index.Tensor" and call.args[1] == []
    call = _build(ROWS["index"], idx[1].params)
    assert len(call.args[1]) == 3 and call.args[0].dim() == 2
    put = [c for c in ROWS["index_put_"].cases("full") if "error" in c.params]
    assert len(put) == 1 and not put[0].timed
    call = _build(ROWS["index_put_"], put[0].params)
    assert call.args[1] == [None, None] and not call.needs_launch
    # PyTorch itself raises what the cases ask for
    with pytest.raises(IndexError):
        torch.ops.aten.index.Tensor(torch.zeros(2, 2), [])
    with pytest.raises(RuntimeError):
        torch.ops.aten.index_put_(torch.zeros(2, 2), [None, None], torch.tensor(1.0))


def test_raises_judge_reads_the_harness_record() -> None:
    want_index = raises_judge(("IndexError",))
    assert want_index.check(_encode("raised IndexError: at least one index"), {}).ok
    res = want_index.check(_encode("raised RuntimeError: boom"), {})
    assert not res.ok and "must raise IndexError" in res.message
    res = want_index.check(_encode("returned Tensor without raising"), {})
    assert not res.ok and "returned Tensor without raising" in res.message
    assert not want_index.check(torch.zeros(3), {}).ok  # a candidate's own tensor is no record
    any_error = raises_judge(None)
    assert any_error.check(_encode("raised ValueError: x"), {}).ok


def test_invoke_records_the_error_and_keeps_harness_findings() -> None:
    from kernelgenbench.sandbox.dispatch import DispatchRecursion
    from kernelgenbench.sandbox.drive import invoke

    op = ROWS["index"]
    call = _build(op, dict(dtype="fp32", shape=[4, 4], error="empty"))

    class Impl:
        def __init__(self, fn):
            self.fns, self.by_name = {"index.Tensor": fn}, {}

    class Interp:
        dispatch_key = None

    def raises(self, indices):
        raise IndexError("at least one index must be provided")

    def returns(self, indices):
        return self

    def recursion(self, indices):
        raise DispatchRecursion("re-entered")

    rec = invoke(op, Impl(raises), call.clone(), Interp())
    assert bytes(rec.tolist()).decode().startswith("raised IndexError: at least one index")
    rec = invoke(op, Impl(returns), call.clone(), Interp())
    assert bytes(rec.tolist()).decode() == "returned Tensor without raising"
    with pytest.raises(DispatchRecursion):
        invoke(op, Impl(recursion), call.clone(), Interp())
    with pytest.raises(ValueError):
        op.baseline(call, Interp())


# -- seeded draws ------------------------------------------------------------------------------------
def test_python_random_draws_are_seeded_and_in_bounds() -> None:
    gather, scatter = ROWS["gather"], ROWS["scatter"]
    assert [c.params["index_shape"] for c in gather.cases("full")[:3]] == [[115, 7, 18], [502, 29, 5], [27, 6, 217]]
    assert [c.params["index_shape"] for c in scatter.cases("full")[:3]] == [[29, 1, 3], [126, 15, 3], [27, 3, 4]]
    for c in gather.cases("full"):
        assert all(1 <= i <= s for i, s in zip(c.params["index_shape"], c.params["shape"]))
    for c in scatter.cases("full"):
        assert all(1 <= i <= min(a, b) for i, a, b in zip(c.params["index_shape"], c.params["shape"],
                                                          c.params["src_shape"]))


def test_gather_and_scatter_index_lines_are_permutation_prefixes() -> None:
    p = dict(dtype="fp32", shape=[8, 6, 4], src_shape=[5, 6, 4], dim=0, index_shape=[5, 6, 4])
    idx = _build(ROWS["scatter"], p).args[2]
    assert int(idx.max()) < 5 and all(len(set(idx[:, j, k].tolist())) == 5 for j in range(6) for k in range(4))
    p = dict(dtype="fp32", shape=[4, 9, 3], dim=1, index_shape=[4, 6, 3])
    idx = _build(ROWS["gather"], p).args[2]
    assert all(len(set(idx[i, :, k].tolist())) == 6 for i in range(4) for k in range(3))


def test_index_put_draws_follow_upstream() -> None:
    impl = ROWS["_index_put_impl_"]
    for c in impl.cases("full")[:6]:  # basic: distinct index tuples (aten.md §6b.9), length min(8, shape[0])
        call = _build(impl, c.params, c.seed)
        tuples = list(zip(*[t.tolist() for t in call.args[1]]))
        assert len(tuples) == 8 and len(set(tuples)) == 8
        assert call.kwargs == {"accumulate": False, "unsafe": False}
    put = ROWS["index_put_"]
    c = next(c for c in put.cases("full") if c.params["shape"] == [32, 32] and c.params["index"] == [[8], [2, 8]])
    call = _build(put, c.params, c.seed)
    assert [tuple(t.shape) for t in call.args[1]] == [(8,), (2, 8)]
    assert all(len(set(t.flatten().tolist())) == t.numel() for t in call.args[1])  # replace=False per tensor
    c = next(c for c in put.cases("full") if c.params["shape"] == [16, 16, 4])
    call = _build(put, c.params, c.seed)
    mask = call.args[1][0]
    assert mask.dtype == torch.bool and call.args[2].shape == (int(mask.sum()),)
    call = _build(ROWS["index"], dict(dtype="fp32", shape=[10, 7], index=[[50]], negative=True))
    i = call.args[1][0]
    assert int(i.min()) >= -10 and int(i.max()) < 10 and bool((i < 0).any()) and bool((i >= 0).any())


def test_index_grid_uses_upstreams_index_vectors() -> None:
    full = ROWS["index"].cases("full")
    shapes = {(tuple(c.params["shape"]), tuple(map(tuple, c.params["index"]))) for c in full[:8]}
    assert ((32, 32), ((2,), (2,))) in shapes  # ((8,), (2,8)) -> two length-2 vectors
    assert ((512, 512, 512), ((2,), (2,), (2,))) in shapes and ((2 ** 28,), ((65536,),)) in shapes


# -- references, by hand ------------------------------------------------------------------------------
def test_index_reference_values_and_layout() -> None:
    op = ROWS["index"]
    call = _build(op, dict(dtype="fp32", shape=[3, 4], index=[[2], None]))
    call.args[0] = torch.arange(12.0).view(3, 4)
    call.args[1] = [torch.tensor([2, 0]), None]
    (exp,) = op.reference({}, call)
    assert exp.value.tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]] and exp.tol.exact
    # indexed dims separated by a slice: the broadcast dims move to the front
    call.args[0] = torch.arange(24.0).view(2, 3, 4)
    call.args[1] = [torch.tensor([1, 0]), None, torch.tensor([3, -2])]
    (exp,) = op.reference({}, call)
    assert exp.value.tolist() == [[15, 19, 23], [2, 6, 10]]


def test_index_put_accumulate_reference_and_reduce_aware_tolerance() -> None:
    op = ROWS["_index_put_impl_"]
    case = op.cases("full")[6]
    assert case.params["accumulate"]
    call = _build(op, case.params, case.seed)
    exp, ret = op.reference(case.params, call.clone())
    assert ret.alias == "arg.0"
    assert exp.slot == "arg.0" and exp.value[0] == 8 and int((exp.value != 0).sum()) == 1
    assert exp.tol == Tolerance(reduce_dim=8) and int(exp.region.sum()) == 1  # only (0,0) is addressed
    assert exp.atol_extra.tolist() == [8 * 2.0 ** (3 - 23)]  # 8 contributions x one fp32 ulp at |8|
    # a position with one contribution gets no allowance; the rest of self must stay bit-identical
    call = _build(ROWS["index_put_"], dict(dtype="fp16", shape=[6], index=[[3]], values=[3], accumulate=True))
    call.args[0] = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float16)
    call.args[1] = [torch.tensor([1, 1, 4])]
    call.args[2] = torch.tensor([0.5, 0.25, -1.0], dtype=torch.float16)
    exp, _ = ROWS["index_put_"].reference({}, call)
    assert exp.value.tolist() == [1.0, 2.75, 3.0, 4.0, 4.0, 6.0]
    assert exp.region.tolist() == [False, True, False, False, True, False]
    assert exp.tol.reduce_dim == 2 and exp.atol_extra.tolist() == [2 * 2.0 ** (1 - 10), 0.0]


def test_duplicate_targets_accept_any_written_value() -> None:
    op = ROWS["index_put_"]
    call = _build(op, dict(dtype="fp32", shape=[4], index=[[3]], values=[3]))
    call.args[0] = torch.zeros(4)
    call.args[1] = [torch.tensor([1, 1, 2])]
    call.args[2] = torch.tensor([5.0, 7.0, 9.0])
    exp, _ = op.reference({}, call)
    assert exp.check is not None
    for v in (5.0, 7.0):
        assert exp.check(torch.tensor([0.0, v, 9.0, 0.0]), {}).ok
    res = exp.check(torch.tensor([0.0, 6.0, 9.0, 0.0]), {})
    assert not res.ok and "written 2 times" in res.message and "none of them" in res.message
    assert not exp.check(torch.tensor([0.0, 5.0, 8.0, 0.0]), {}).ok            # the unambiguous one is exact
    assert not exp.check(torch.tensor([1.0, 5.0, 9.0, 0.0]), {}).ok            # untouched elements stay
    # without duplicates (or with the same value written twice) the plain exact comparison applies
    e = Expected("return", torch.zeros(3), EXACT)
    assert winner_judge(e, torch.tensor([0, 0, 2]), torch.tensor([1.0, 1.0, 2.0])) is e


def test_scatter_references() -> None:
    op = ROWS["scatter"]
    p = dict(dtype="fp32", shape=[3], src_shape=[3], dim=0, index_shape=[3], dups=True, reduce="multiply")
    call = _build(op, p)
    call.args[0] = torch.ones(3)
    call.args[2] = torch.tensor([0, 0, 1])
    call.args[3] = torch.tensor([2.0, 3.0, 4.0])
    (exp,) = op.reference(p, call)
    assert exp.value.tolist() == [6.0, 4.0, 1.0] and exp.tol.reduce_dim == 2
    assert exp.atol_extra.tolist() == [2 * 2.0 ** (2 - 23), 0.0, 0.0]
    p = dict(dtype="fp32", shape=[2, 3], src_shape=[2, 3], dim=1, index_shape=[2, 2])
    call = _build(op, p)
    call.args[0] = torch.zeros(2, 3)
    call.args[2] = torch.tensor([[2, 0], [1, 2]])
    call.args[3] = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (exp,) = op.reference(p, call)
    assert exp.value.tolist() == [[2.0, 0.0, 1.0], [0.0, 4.0, 5.0]] and exp.tol.exact


def test_gather_embedding_masked_fill_im2col_references() -> None:
    g = ROWS["gather"]
    p = dict(dtype="fp32", shape=[2, 2], dim=1, index_shape=[2, 2], dups=True)
    call = _build(g, p)
    call.args[0] = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    call.args[2] = torch.tensor([[0, 0], [1, 0]])
    assert g.reference(p, call)[0].value.tolist() == [[1.0, 1.0], [4.0, 3.0]]
    e = ROWS["embedding"]
    p = dict(dtype="fp32", V=4, N=3, indices_shape=[1, 2])
    call = _build(e, p)
    call.args[0] = torch.tensor([[3, 0]])
    call.args[1] = torch.arange(12.0).view(4, 3)
    assert e.reference(p, call)[0].value.tolist() == [[[9.0, 10.0, 11.0], [0.0, 1.0, 2.0]]]
    m = ROWS["masked_fill_"]
    p = dict(value="t_int64", threshold=0.5, dtype="fp16", shape=[2, 3], mask_shape=[3], init="zeros")
    call = _build(m, p)
    call.args[1] = torch.tensor([True, False, True])
    exp, ret = m.reference(p, call)
    assert storage_view(call.args[0]).numel() == 6 and ret.alias == "arg.0"
    assert exp.value.tolist() == [1024.0, 0.0, 1024.0] * 2 and exp.tol.exact
    i = ROWS["im2col"]
    p = dict(dtype="fp32", shape=[1, 4, 4], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[2, 2])
    call = _build(i, p)
    call.args[0] = torch.arange(16.0).view(1, 4, 4)
    assert i.reference(p, call)[0].value.tolist() == [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]]


def test_costs() -> None:
    assert ROWS["gather"].cost(dict(dtype="fp32", index_shape=[2, 3, 4])).bytes == 24 * (8 + 8)
    c = ROWS["embedding"].cost(dict(dtype="fp16", N=128, indices_shape=[4, 8]))
    assert c.bytes == 2 * 32 * 128 * 2 + 32 * 8 and c.flops == 0
    c = ROWS["im2col"].cost(dict(dtype="fp32", shape=[3, 8, 8], kernel_size=[3, 3], dilation=[1, 1],
                                 padding=[1, 1], stride=[1, 1]))
    assert c.bytes == (192 + 27 * 64) * 4
    c = ROWS["index"].cost(dict(dtype="fp32", shape=[512, 512, 512], index=[[2]]))
    assert c.bytes == 2 * (2 * 512 * 512) * 4 + 2 * 8
    c = ROWS["index_put_"].cost(dict(dtype="fp16", shape=[32, 32], index=[[8], [8]], values=[8], accumulate=True))
    assert c.bytes == 8 * 2 + 8 * 2 * 2 + 16 * 8 and c.flops == 8
    c = ROWS["scatter"].cost(dict(dtype="fp32", shape=[4, 4], src_shape=[4, 4], index_shape=[2, 4], reduce="add"))
    assert c.bytes == 2 * 16 * 4 + 8 * (8 + 4 + 4 + 4) and c.flops == 8
    c = ROWS["masked_fill_"].cost(dict(value=1024, threshold=0.5, dtype="fp16", shape=[10, 10], mask_shape=[10]))
    assert c.bytes == 10 + 100 * 2


@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert scan_file(path, **op.scan_policy()) == []


# -- wrong kernels through the real pipeline ------------------------------------------------------------
def _edit(name: str, old: str, new: str) -> str:
    src = (SOLUTIONS / f"aten__{name}.py").read_text()
    assert old in src, (name, old)
    return src.replace(old, new)


BAD = {
    # broadcast dims always moved to the front: x[:, idx] gets the wrong shape
    "index_layout": ("index", 1, lambda: _edit(
        "index", "p = sum(1 for r in rest if r < where[0]) if adjacent else 0", "p = 0"),
        "shape (5, 8) != expected (8, 5)"),
    # an empty index list returns instead of raising IndexError
    "index_no_raise": ("index", 6, lambda: _edit(
        "index", "def index_Tensor(self, indices):\n",
        "def index_Tensor(self, indices):\n    if len(indices) == 0:\n        return self\n"),
        "must raise IndexError; it returned Tensor without raising"),
    # accumulate=True stores instead of adding
    "index_put_no_accumulate": ("index_put_", 3, lambda: _edit("index_put_", "2 if accumulate else 1", "1"),
                                "outside tolerance"),
    # writes a copy and returns it: self is never written
    "index_put_impl_not_in_place": ("_index_put_impl_", 0, lambda: _edit(
        "_index_put_impl_", "    _run(self, srcs, bshape, p, rest, v, 2 if accumulate else 1)\n    return self\n",
        "    res = self.clone()\n    _run(res, srcs, bshape, p, rest, v, 2 if accumulate else 1)\n    return res\n"),
        "arg.0: 4 of 4 elements differ"),  # the 4 addressed elements
    # the gathered coordinate ignores self's stride of dim
    "gather_stride": ("gather", 0, lambda: _edit("gather", "idx * sdim", "idx"), "elements differ"),
    # reduce='add' ignored (plain stores)
    "scatter_no_reduce": ("scatter", 1, lambda: _edit(
        "scatter", "    src_t = src if value is None else None\n",
        "    src_t = src if value is None else None\n    reduce = None\n"), "outside tolerance"),
    # the mask is ignored on the dense path
    "masked_fill_everywhere": ("masked_fill_", 0, lambda: _edit("masked_fill_", "tl.where(m, v, x)",
                                                                "tl.where(m, v, v)"), "elements differ"),
    # only the first half of each embedding row is written (the rest keeps the poison)
    "embedding_half_rows": ("embedding", 2, lambda: _edit("embedding", "    cm = cols < D\n",
                                                          "    cm = cols < (D + 1) // 2\n"), "got nan"),
    # dilation ignored
    "im2col_dilation": ("im2col", 2, lambda: _edit("im2col", "(i * dh)[:, None]", "(i * 1)[:, None]"),
                        "elements differ"),
}


def _run(tmp_path: Path, name: str, case_index: int, source: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    op = get_operator(f"aten::{name}")
    # one smoke case is enough to show the failure (the child only runs the cases the verifier sends)
    monkeypatch.setitem(op._grids, "smoke", [op.grid("smoke")[case_index]])
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir(parents=True, exist_ok=True)
    sub.write_text(textwrap.dedent(source))
    return Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                    Settings(import_timeout_s=120.0, case_timeout_s=120.0)).run()


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(BAD))
def test_wrong_kernels_fail(tmp_path: Path, what: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name, case_index, source, needle = BAD[what]
    rec = _run(tmp_path, name, case_index, source(), monkeypatch)
    assert (rec["status"], rec["failure_class"]) == ("failed", "wrong_result"), rec["first_failure"]
    assert needle in rec["first_failure"]["message"], rec["first_failure"]["message"]


def test_the_prod_reference_raises_no_beta_warning() -> None:
    import warnings

    from kernelgenbench.suite.aten.indexing import accumulated

    before = torch.tensor([1.0, 2.0, 3.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ref, _, _ = accumulated(before, torch.tensor([0, 0, 2]), torch.tensor([2.0, 3.0, 4.0]), "prod")
        wide, _, _ = accumulated(torch.tensor([1, 2, 3]), torch.tensor([1, 1]), torch.tensor([5, 7]), "prod")
    assert ref.tolist() == [6.0, 2.0, 12.0] and wide.tolist() == [1, 70, 3]
    assert not [w for w in caught if "index_reduce" in str(w.message)]
