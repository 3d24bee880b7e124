"""The copies family (suite/aten/copies.py): grids against aten.md §1/§8 (with the §6b corrections the rows
state), wrappers against the installed PyTorch, smoke coverage, hand-computed references (rounding ties,
truncation, bool, layouts, aliasing), the judges on their own, the harness pieces the family needs (lazy bits in
clone_tree, complex poison, dispatcher-style arguments, the child's I/O guard), the oracles' L1 scan, and wrong
kernels of each class caught through the real pipeline on the interpreter."""
from __future__ import annotations

import copy
import math
import os
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.aten.copies import OPERATORS, CopyOperator, _as_dispatched, input_shape, make_input
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call, clone_tree, dtype_of
from kernelgenbench.suite.tensors import poison_
from kernelgenbench.verify.scan import scan_file, scan_source

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]
CPU = torch.device("cpu")
ROWS: dict[str, CopyOperator] = {op.name: op for op in OPERATORS}

EXERCISED = {"_to_copy": {"_to_copy"}, "clone": {"clone"}, "contiguous": {"contiguous"}, "copy_": {"copy_"},
             "to": {"to.dtype"}, "resolve_conj": {"resolve_conj"}, "resolve_neg": {"resolve_neg"}, "cat": {"cat"},
             "stack": {"stack"}}


def _call(op: CopyOperator, params: dict, seed: int = 0) -> Call:
    return op.build(params, CPU, torch.Generator().manual_seed(seed))


def _ref(op: CopyOperator, params: dict, call: Call):
    return op.reference(params, call.clone())


def _judge(exp, actual, args) -> object:
    return exp.check(actual, {"args": args, "kwargs": {}, "ret": actual, "ret_devices": "cpu"})


# -- rows ----------------------------------------------------------------------------------------------
def test_rows_are_registered_and_copies_through_pytorch_are_not_allowed() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name, op in ROWS.items():
        assert get_operator(f"aten::{name}") is op
        assert op.allow_copies is False and name in op.own_ops
        assert op.nothing_to_compute is None


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_cases_are_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert len({repr(sorted(c.params.items())) for c in cases}) == len(cases), "duplicate full-tier cases"


def test_full_grids_are_the_upstream_ones() -> None:
    cat = ROWS["cat"].grid("full")
    pairs = {(repr(p["shapes"]), p["dim"]) for p in cat if p["dtype"] == "int16"}
    assert len(pairs) == 26
    assert (repr([[32, 1], [32, 8]]), -1) in pairs and (repr([[256, 1024, 1], [256, 1024, 8], [256, 1024, 16]]), 2) \
        in pairs and (repr([[64, 128, 64, 16], [64, 128, 64, 16], [64, 128, 64, 24], [64, 128, 64, 32]]), -1) in pairs
    assert sum(1 for p in cat if p["shapes"] in ([[0, 3], [2, 3]], [[0, 3], [0, 3]], [[0], [0]])) == 3
    tc = ROWS["_to_copy"].grid("full")
    assert all(p["dtype"] == ("fp16" if p["target"] == "fp32" and "layout" not in p else "fp32") for p in tc)
    assert {p.get("memory_format") for p in tc} == {None, "preserve", "contiguous"}
    stack = ROWS["stack"].grid("full")
    assert {p["dim"] for p in stack} == {-2, -1, 0, 1} and len({p["dtype"] for p in stack}) == 5
    contig = ROWS["contiguous"].grid("full")
    assert {input_shape(p)[0] for p in contig} == {1, 512, 10, 8} and all(p["layout"] == "slice0_2" for p in contig)
    to = ROWS["to"].grid("full")
    assert sum(p["target"] == p["dtype"] for p in to) == 12


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_pytorchs_overloads(name: str) -> None:
    op = ROWS[name]
    want = {name if o == "default" else f"{name}.{o}" for o in getattr(torch.ops.aten, name).overloads()}
    # named-tensor (Dimname) overloads are optional rows on every PyTorch (2.11 has them, 2.13 not)
    want = {k for k in want
            if "Dimname" not in str(getattr(getattr(torch.ops.aten, name), k.partition(".")[2] or "default")._schema)}
    got = {w.overload for w in op.interface.wrappers if w.kind != "named"}
    assert got == want
    assert {w.overload for w in op.interface.wrappers if w.exercised} == EXERCISED[name]
    kinds = {w.overload: w.kind for w in op.interface.wrappers}
    if name == "cat":
        assert kinds["cat.names"] == kinds["cat.names_out"] == "named" and kinds["cat.out"] == "dispatcher"
    if name == "to":
        assert {k for k, v in kinds.items() if v == "jit"} == {"to.prim_Device", "to.prim_dtype", "to.prim_other"}
        assert set(op.interface.required_names()) == {"to_dtype", "to_device", "to_other", "to_dtype_layout"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 3 <= len(smoke) <= 7 and len(held) >= 3 and not any(c.timed for c in smoke + held)
    full = [c.params for c in op.cases("full")]
    assert not any(c.params in full for c in held)
    driven, classes = set(), set()
    for case in smoke:
        call = _call(op, case.params, case.seed)
        flat = [t for a in [*call.args, *call.kwargs.values()] for t in (a if isinstance(a, list) else [a])
                if isinstance(t, torch.Tensor)]
        assert all(t.numel() <= 65536 for t in flat)
        api = str(call.api)
        driven.add({"torch.Tensor.to": "to.dtype", "torch.cat": "cat.out" if "out" in call.kwargs else "cat",
                    "torch.stack": "stack.out" if "out" in call.kwargs else "stack"}.get(
            api, api.replace("torch.ops.aten.", "").replace("torch.Tensor.", "").replace(".default", "")))
        for dt in op.tensor_dtypes(case.params):
            classes.add("int" if not (dt.is_floating_point or dt.is_complex or dt == torch.bool) else str(dt))
    dispatcher = {w.overload for w in op.interface.wrappers if w.kind == "dispatcher"}
    assert dispatcher <= driven, dispatcher - driven
    if name not in ("resolve_conj", "resolve_neg"):  # aten.md §5b: every dtype class the op's grid has
        assert {"torch.float32", "torch.float16", "torch.bfloat16", "int", "torch.bool"} <= classes, classes


# -- references computed by hand --------------------------------------------------------------------
def _to_copy_ref(values, target, src=torch.float32):
    op = ROWS["_to_copy"]
    x = torch.tensor(values, dtype=src)
    call = Call([x], {"dtype": target}, api="torch.ops.aten._to_copy.default")
    (exp,) = op.reference({"dtype": "fp32", "target": "fp16"}, call.clone())
    return exp.value


def test_narrowing_rounds_to_nearest_even() -> None:
    # fp16 spacing at 1 is 2^-10: 1 + 2^-11 is a tie (to even: 1), 1 + 3 * 2^-11 a tie (to even: 1 + 2^-9)
    got = _to_copy_ref([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, 65519.99609375, 65520.0, -2.5],
                       torch.float16)
    assert got.tolist() == [1.0, 1 + 2 ** -9, 1 + 2 ** -10, 65504.0, math.inf, -2.5]
    # bf16 spacing at 1 is 2^-7
    got = _to_copy_ref([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8)], torch.bfloat16)
    assert got.tolist() == [1.0, 1 + 2 ** -6, -1.0]
    # fp64 reaches fp16 through fp32 (two roundings): 1 + 2^-11 + 2^-40 rounds to the fp32 tie 1 + 2^-11, then to 1
    assert _to_copy_ref([1 + 2 ** -11 + 2 ** -40], torch.float16, torch.float64).tolist() == [1.0]


def test_float_to_int_truncates_and_bool_is_nonzero() -> None:
    assert _to_copy_ref([-2.7, 2.7, -0.5, 0.5, 100.99], torch.int32).tolist() == [-2, 2, 0, 0, 100]
    assert _to_copy_ref([0.0, -0.0, 0.5, -1e-30, math.nan], torch.bool).tolist() == [False, False, True, True, True]
    assert _to_copy_ref([0, 3, -2], torch.float32, torch.bool).tolist() == [0.0, 1.0, 1.0]


def test_ties_input_holds_exact_ties() -> None:
    for half, bits in (("fp16", 11), ("bf16", 8)):
        x = make_input(dict(shape=[64, 65], dtype="fp32", ties=half), CPU, torch.Generator().manual_seed(0))
        flat = x.reshape(-1).to(torch.float64)
        e = torch.floor(torch.log2(flat.abs()))
        # an exact tie has one significant bit more than the half type holds, and that bit is set
        k = flat.abs() * torch.pow(2.0, bits - e)
        assert bool((k[0::2] == torch.round(k[0::2])).all()) and bool((torch.round(k[0::2]) % 2 == 1).all())
        assert bool((flat[1::2] != x.reshape(-1)[1::2].to(dtype_of(half)).to(torch.float64)).all())


def test_layouts_of_new_tensors() -> None:
    op = ROWS["_to_copy"]
    p = dict(shape=[8, 16], layout="t_slice2", dtype="fp32", target="fp32", memory_format="preserve")
    call = _call(op, p)
    assert (call.args[0].shape, call.args[0].stride()) == ((8, 8), (2, 16))
    (exp,) = _ref(op, p, call)
    assert exp.value.stride() == (1, 8) and exp.check is not None  # infer_dense_strides: same order, dense
    p = dict(p, memory_format="contiguous")
    assert _ref(op, p, _call(op, p))[0].value.stride() == (8, 1)
    clone = ROWS["clone"]
    p = dict(shape=[16, 8], layout="transposed", dtype="fp32", memory_format="preserve")
    assert _ref(clone, p, _call(clone, p))[0].value.stride() == (1, 16)  # dense: strides kept
    contig = ROWS["contiguous"]
    p = dict(shape=[8, 33], layout="slice0_2", dtype="fp32")
    call = _call(contig, p)
    assert call.api == "torch.Tensor.contiguous" and call.args[0].stride() == (66, 1)
    (exp,) = _ref(contig, p, call)
    assert exp.value.stride() == (33, 1) and torch.equal(exp.value, call.args[0])
    cat = ROWS["cat"]
    p = dict(shapes=[[0], [2, 3]], dtype="int32", dim=1)
    assert _ref(cat, p, _call(cat, p))[0].value.shape == (2, 3)  # the legacy skip of a (0,) input
    stack = ROWS["stack"]
    p = dict(shapes=[[16], [16]], dtype="fp32", dim=1)
    call = _call(stack, p)
    (exp, _) = _ref(stack, p, call)
    assert exp.value.shape == (16, 2) and torch.equal(exp.value[:, 1], call.args[0][1])


def test_where_pytorch_returns_the_input_itself() -> None:
    cases = [("to", dict(shape=[8, 8], dtype="fp16", target="fp16")),
             ("contiguous", dict(shape=[1], layout="slice0_2", dtype="fp32")),
             ("resolve_conj", dict(shape=[4, 8], dtype="c64", conj=False)),
             ("resolve_neg", dict(shape=[4, 8], dtype="fp32")),
             ("to", dict(shape=[33, 65], layout="transposed", dtype="fp32", target="fp32",
                         memory_format="contiguous", overload="dtype"))]
    for name, p in cases:
        op = ROWS[name]
        call = _call(op, p)
        (exp,) = _ref(op, p, call)
        assert not call.needs_launch and exp.value is None and exp.check is not None, (name, p)
        x = call.args[0]
        assert _judge(exp, x, [x]).ok
        res = _judge(exp, x.clone(), [x])
        assert not res.ok and "returns the input itself" in res.message
    # contiguous of a contiguous input must drive the op entry point: Tensor.contiguous() would not dispatch
    assert _call(ROWS["contiguous"], dict(shape=[1], layout="slice0_2", dtype="fp32")).api == \
        "torch.ops.aten.contiguous.default"


def test_lazy_bits() -> None:
    op = ROWS["resolve_conj"]
    p = dict(shape=[5, 3], dtype="c64")
    call = _call(op, p)
    y = call.args[0]
    assert y.is_conj() and call.needs_launch
    (exp,) = _ref(op, p, call)
    stored = torch.view_as_real(y.conj())  # the memory: conj() of a conj-bit tensor is a bit-free view of it
    assert not exp.value.is_conj() and torch.equal(exp.value, torch.complex(stored[..., 0], -stored[..., 1]))
    res = _judge(exp, y, [y])  # the input itself, bit still set: equal values, but not resolved
    assert not res.ok and "lazy bits conjugate" in res.message
    good = y.resolve_conj()
    assert _judge(exp, good, [y]).ok
    raw = torch.view_as_complex(torch.view_as_real(y.conj()).clone())  # the stored values, not conjugated
    assert not _judge(exp, raw, [y]).ok
    op = ROWS["resolve_neg"]
    p = dict(shape=[6, 4], dtype="c64")
    call = _call(op, p)
    z = call.args[0]
    assert z.is_neg() and z.stride() == (8, 2) and z.storage_offset() == 1
    (exp,) = _ref(op, p, call)
    stored = torch.empty(0).set_(z.untyped_storage(), z.storage_offset(), z.shape, z.stride())  # no bit
    assert exp.value.stride() == (4, 1) and not stored.is_neg() and torch.equal(exp.value, -stored)


def test_judges_compare_exactly_and_check_freshness() -> None:
    op = ROWS["clone"]
    p = dict(shape=[17, 33], dtype="fp32")
    call = _call(op, p)
    (exp,) = _ref(op, p, call)
    x = call.args[0]
    assert _judge(exp, x.clone(), [x]).ok
    bumped = x.clone()
    bumped[3, 4] = torch.nextafter(bumped[3, 4], torch.tensor(math.inf))  # one ulp: exact comparison fails
    assert "differ (exact comparison)" in _judge(exp, bumped, [x]).message
    assert "shares the storage" in _judge(exp, x, [x]).message
    wide = torch.empty(17, 34)[:, :33]
    wide.copy_(x)
    assert "strides (34, 1)" in _judge(exp, wide, [x]).message
    assert "dtype" in _judge(exp, x.double(), [x]).message
    cat = ROWS["cat"]
    p = dict(shapes=[[2, 3], [4, 3]], dtype="fp32", dim=0)
    call = _call(cat, p)
    ret_exp, list_exp = _ref(cat, p, call)
    members = [t.clone() for t in call.args[0]]
    assert list_exp.check(members, {}).ok
    members[1][0, 0] += 1
    assert "arg.0[1]" in list_exp.check(members, {}).message


def test_tolerance_is_exact_everywhere() -> None:
    for op in OPERATORS:
        for case in op.cases("smoke"):
            for exp in _ref(op, case.params, _call(op, case.params, case.seed)):
                assert exp.tol.exact, (op.name, case.params, exp.slot)
                if exp.check is not None and exp.value is not None:
                    x = exp.value
                    assert _judge(exp, x.clone(), []).rule == "exact"


# -- harness pieces the family needs ---------------------------------------------------------------------
def test_clone_tree_keeps_lazy_bits_and_poison_handles_complex_layouts() -> None:
    x = torch.randn(3, 4, dtype=torch.complex64)
    y, z = x.conj(), x.conj().imag
    cy, cz = clone_tree([y, z])
    assert cy.is_conj() and cz.is_neg() and torch.equal(cy, y) and torch.equal(cz, z)
    assert cz.stride() == z.stride() and cz.storage_offset() == z.storage_offset()
    for t in (torch.empty((), dtype=torch.complex64), torch.empty(5, 3, dtype=torch.complex128).t()):
        poison_(t)
        assert bool(torch.isnan(torch.view_as_real(t)).all())


def test_direct_calls_get_dispatcher_style_arguments() -> None:
    x = torch.randn(2, 3, 4, 5)
    args, kwargs = _as_dispatched("torch.ops.aten.contiguous.default", [x], {"memory_format": 2})
    assert args == [x] and kwargs == {"memory_format": torch.channels_last}
    args, _ = _as_dispatched("torch.ops.aten.to.dtype", [x, torch.float16, False, True, 0], {})
    assert args[1:] == [torch.float16, False, True, torch.contiguous_format]
    args, _ = _as_dispatched("torch.ops.aten.to.device", [x, "cpu", torch.float16], {})
    assert args[1] == torch.device("cpu")


def test_child_lifts_the_registration_around_its_own_io(tmp_path: Path) -> None:
    from kernelgenbench.sandbox.child import Child

    events = []

    class Impl:
        lib = object()

        def deactivate(self):
            events.append("off")
            self.lib = None

        def activate(self):
            events.append("on")
            self.lib = object()

    child = Child.__new__(Child)
    child.impl = Impl()
    child.torch = torch
    child.platform = PROFILES["interpreter"]
    path = tmp_path / "t.pt"
    torch.save({"a": torch.ones(2)}, path)
    assert torch.equal(child.load(str(path))["a"], torch.ones(2))
    assert events == ["off", "on"] and child.impl.lib is not None


# -- oracles and L1 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    assert scan_file(SOLUTIONS / op.filename, **op.scan_policy()) == []


@pytest.mark.parametrize("name,body,rule", [
    ("clone", "def clone(self, *, memory_format=None):\n    return torch.empty_like(self).copy_(self)\n",
     "tensor-method"),
    ("contiguous", "def contiguous(self, *, memory_format=torch.contiguous_format):\n    return self.contiguous()\n",
     "dispatch-recursion"),
    ("_to_copy", "def _to_copy(self, *, dtype=None, **kw):\n    return self.to(dtype)\n", "dispatch-recursion"),
    ("to", "def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):\n    return self.half()\n",
     "dispatch-recursion"),
    ("stack", "def stack(tensors, dim=0):\n    return torch.cat([t.unsqueeze(dim) for t in tensors], dim)\n",
     "dispatch-recursion"),
    ("copy_", "def copy_(self, src, non_blocking=False):\n    return self.set_(src.clone())\n", "dispatch-recursion"),
])
def test_copies_through_pytorch_are_rejected_by_l1(name: str, body: str, rule: str) -> None:
    op = ROWS[name]
    found = scan_source("import torch\n\n" + body, **op.scan_policy())
    assert rule in {f.rule for f in found}, found


# -- wrong kernels through the real pipeline -------------------------------------------------------------
_HEAD = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _gather2(x, y, n, n1, s0, s1, TRUNC: tl.constexpr, NEG: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(x + (o // n1) * s0 + (o % n1) * s1, mask=m)
    if TRUNC:  # drop the 13 mantissa bits fp16 cannot hold: truncation instead of round-to-nearest-even
        v = (v.to(tl.int32, bitcast=True) & -8192).to(tl.float32, bitcast=True)
    if NEG:
        v = v * -1
    tl.store(y + o, v.to(y.dtype.element_ty), mask=m)


def _copy2(x, y, trunc=False, neg=False):
    """y (contiguous) <- x, for tensors of at most 2 dims."""
    n = y.numel()
    if n:
        xx = x if x.dim() == 2 else x.reshape(1, -1) if x.is_contiguous() else x.unsqueeze(0)
        _gather2[(triton.cdiv(n, 1024),)](xx, y, n, xx.shape[1], xx.stride(0), xx.stride(1), TRUNC=trunc, NEG=neg,
                                         BLOCK=1024)
    return y
'''

BAD = {
    # the cast class: truncation instead of round-to-nearest-even (fp32 -> fp16 ties)
    "cast_truncates": ("_to_copy", dict(shape=[64, 65], dtype="fp32", target="fp16", ties="fp16"), '''
def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    return _copy2(self, torch.empty(self.shape, dtype=dtype, device=self.device), trunc=True)


def _to_copy_out(self, *, non_blocking=False, memory_format=None, out):
    return _copy2(self, out)
''', "wrong_result", "elements differ (exact comparison)"),
    # the layout class: right values, but contiguous strides where preserve keeps (1, 8)
    "ignores_preserve": ("_to_copy", dict(shape=[8, 16], layout="t_slice2", dtype="fp32", target="fp32",
                                          memory_format="preserve"), '''
def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    return _copy2(self, torch.empty(self.shape, dtype=dtype, device=self.device))


def _to_copy_out(self, *, non_blocking=False, memory_format=None, out):
    return _copy2(self, out)
''', "wrong_result", "strides (8, 1) and storage offset 0 != PyTorch's (1, 8)"),
    # the alias class: a copy where PyTorch returns self
    "to_always_copies": ("to", dict(shape=[8, 8], dtype="fp16", target="fp16"), '''
def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _copy2(self, torch.empty(self.shape, dtype=dtype, device=self.device))


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return to_dtype(self, dtype)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return to_dtype(self, other.dtype)


def to_dtype_layout(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, copy=False,
                    memory_format=None):
    return to_dtype(self, dtype)
''', "wrong_result", "PyTorch returns the input itself here"),
    # the in-place class: a new tensor instead of writing self
    "copy_not_in_place": ("copy_", dict(shape=[17, 33], dtype="fp32"), '''
def copy_(self, src, non_blocking=False):
    return _copy2(src, torch.empty(self.shape, dtype=self.dtype, device=self.device))
''', "wrong_result", "arg.0"),
    # the materialising class: the stored values of a negative-bit view, not negated
    "neg_bit_ignored": ("resolve_neg", dict(shape=[17], dtype="c64"), '''
def resolve_neg(self):
    if not self.is_neg():
        return self
    return _copy2(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
''', "wrong_result", "elements differ"),
    # the concatenation class: members written one after another whatever dim is
    "cat_ignores_dim": ("cat", dict(shapes=[[3, 2], [3, 1], [3, 4]], dtype="fp32", dim=1), '''
def cat(tensors, dim=0):
    total = sum(t.numel() for t in tensors)
    shape = list(tensors[0].shape)
    shape[dim] = sum(t.shape[dim] for t in tensors)
    out = torch.empty(total, dtype=tensors[0].dtype, device=tensors[0].device)
    off = 0
    for t in tensors:
        _copy2(t, out[off:off + t.numel()])
        off += t.numel()
    return out.view(shape)


def cat_out(tensors, dim=0, *, out):
    raise NotImplementedError
''', "wrong_result", "elements differ"),
}


def _run_bad(tmp: Path, what: str) -> dict:
    name, params, body, _, _ = JOBS[what]
    op = copy.copy(ROWS[name])
    op._grids = {"smoke": [params]}  # one case: the child runs the registered row, the verifier this grid
    sub = tmp / what / op.filename
    sub.parent.mkdir(parents=True)
    sub.write_text(textwrap.dedent(_HEAD + body))
    return Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp / what / "job",
                    Settings(import_timeout_s=120.0, case_timeout_s=120.0)).run()


_FIXED = BAD["to_always_copies"][2].replace(
    "def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):\n",
    "def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):\n"
    "    if dtype == self.dtype and not copy:\n        return self\n")
# the scaffolding of the bad submissions is sound: the alias case, fixed, passes
JOBS = {**BAD, "to_fixed": ("to", BAD["to_always_copies"][1], _FIXED, None, None)}


@pytest.mark.slow
def test_wrong_kernels_of_each_class_fail(tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        records = dict(zip(JOBS, pool.map(lambda w: _run_bad(tmp_path, w), JOBS)))
    assert records["to_fixed"]["status"] == "passed", records["to_fixed"]["first_failure"]
    for what in BAD:
        rec = records[what]
        _, _, _, cls, needle = BAD[what]
        assert (rec["status"], rec["failure_class"]) == ("failed", cls), (what, rec["first_failure"])
        assert needle in rec["first_failure"]["message"], (what, rec["first_failure"]["message"])
        assert rec["anti_hack"]["L1"]["ok"], (what, rec["anti_hack"]["L1"])
