"""ATen operator rows (aten.md §8). Each row states its wrappers, public API, grids per tier,
reference, timing gate and cost model; shared machinery lives in :mod:`.family` and :mod:`.pools`.
"""
from __future__ import annotations

import math
from typing import Any

import torch

from ..common import make_tensor, poisoned, upcast
from ..spec import (ACCUMULATION_NOTE, EXACT, EXACT_TEXT, Call, Cost, Counts, Expected, Tolerance, Wrapper,
                    accumulation_rule, accumulation_text, dtype_of, numel, product, written_expected)
from .family import AtenCase, AtenOperator, elem_bytes, flop_class, resolve_api
from .pools import ALPHAS, FLOAT3, POINTWISE_SHAPES, REDUCTION_SHAPES, REDUCTION_SMALL_SHAPES


def _sum_dtype(p: dict[str, Any]) -> torch.dtype:
    """The result dtype of sum/cumsum without ``dtype=``: int64 for integer and bool inputs."""
    dt = dtype_of(p["dtype"])
    return dt if dt.is_floating_point or dt.is_complex else torch.int64


def _native_then_exact(call: Call, ref_args: list[Any] | None = None, ref_kwargs: dict | None = None) -> torch.Tensor:
    """Run the case's public API natively: once on the inputs (for result dtype and shape), once
    on fp64-upcast inputs (for values), and return the upcast values in the native dtype."""
    api = resolve_api(functional_api(str(call.api)))
    kwargs = {k: v for k, v in call.kwargs.items() if k != "out"}
    native = api(*call.args, **kwargs)
    exact = api(*(ref_args if ref_args is not None else upcast(call.args)),
                **(ref_kwargs if ref_kwargs is not None else upcast(kwargs)))
    return exact.to(native.dtype)


def functional_api(name: str) -> str:
    """The functional overload of an out= dispatcher entry (``add.Scalar_out`` -> ``add.Scalar``)."""
    prefix = "torch.ops.aten."
    if not name.startswith(prefix):
        return name
    op, _, overload = name[len(prefix):].partition(".")
    if overload == "out":
        overload = "default"
    elif overload.endswith("_out"):
        overload = overload[: -len("_out")]
    return f"{prefix}{op}.{overload}"


def _out_expected(call: Call, ref: torch.Tensor, tol: Tolerance,
                  atol_extra: torch.Tensor | None = None) -> list[Expected]:
    """For ``out=`` cases: the out tensor must hold the values, the return must be that tensor."""
    out = call.kwargs["out"]
    return [written_expected("arg.out", out, ref, tol, atol_extra=atol_extra),
            Expected("return", None, tol, alias="arg.out")]


def _std_expected(params: dict[str, Any], call: Call, ref: torch.Tensor, tol: Tolerance,
                  atol_extra: torch.Tensor | None = None) -> list[Expected]:
    if "out" in call.kwargs:
        return _out_expected(call, ref, tol, atol_extra)
    return [Expected("return", ref, tol, atol_extra=atol_extra)]


# ---------------------------------------------------------------------------------------------- add
def _add_build(p: dict[str, Any], device, gen) -> AtenCase:
    form = p.get("form", "tt")
    layout = p.get("layout", "contig")
    a = make_tensor(p["shape"], p["dtype"], device, gen, layout=layout)
    kw: dict[str, Any] = {"alpha": p["alpha"]}
    if form == "tt":
        b = make_tensor(p.get("shape2", p["shape"]), p["dtype"], device, gen)
        args: list[Any] = [a, b]
    elif form == "ts":
        args = [a, p["scalar"]]
    elif form == "st":
        args = [p["scalar"], a]
    else:
        raise ValueError(f"aten::add: unknown form {form!r}")
    api = "torch.add"
    if p.get("overload") == "Scalar":
        api = "torch.ops.aten.add.Scalar"
    elif p.get("overload") == "Scalar_out":
        api = "torch.ops.aten.add.Scalar_out"
    written: tuple = ()
    if p.get("overload") in ("out", "Scalar_out"):
        shape = torch.broadcast_shapes(*(x.shape for x in args if isinstance(x, torch.Tensor)))
        kw["out"] = poisoned(shape, p["dtype"], device)
        written = ("out",)
    return AtenCase(api, args, kw, written)


def _add_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = _native_then_exact(call)
    return _std_expected(p, call, ref, Tolerance())


def _add_cost(p: dict[str, Any]) -> Cost:
    n = numel(p["shape"])
    reads = n + (numel(p.get("shape2", p["shape"])) if p.get("form", "tt") == "tt" else 0)
    return Cost(2.0 * n, (reads + n) * elem_bytes(p["dtype"]))


_ADD_FULL = (
    [dict(form="tt", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, shape=POINTWISE_SHAPES)]
    + [dict(form="ts", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=POINTWISE_SHAPES)]
    + [dict(form="st", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=POINTWISE_SHAPES)]
)

ADD = AtenOperator(
    "add", category="pointwise binary",
    semantics="out = self + alpha * other with NumPy broadcasting and PyTorch type promotion (wrapped Python "
              "numbers and 0-d tensors do not raise the category's dtype); fp16/bf16 compute in fp32 and round "
              "once; IEEE overflow.",
    wrappers=[
        Wrapper("add.Tensor", "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", exercised=True),
        Wrapper("add.Scalar", "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"),
        Wrapper("add.out", "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("add.Scalar_out", "aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(form="tt", shape=[64, 33], dtype="fp32", alpha=-0.999),
            dict(form="ts", shape=[17], dtype="bf16", scalar=2.5, alpha=100.001),
            dict(form="st", shape=[], dtype="fp16", scalar=0.001, alpha=-111.999),
            dict(form="tt", shape=[4, 1, 5], shape2=[3, 5], dtype="fp32", alpha=1),
            dict(form="tt", shape=[33, 7], dtype="fp16", alpha=2.0, overload="out"),
            dict(form="ts", shape=[9, 5], dtype="fp32", scalar=-1.5, alpha=0.5, overload="Scalar"),
        ],
        "full": _ADD_FULL,
        "heldout": [
            dict(form="tt", shape=[511, 257], shape2=[257], dtype="fp16", alpha=1),
            dict(form="tt", shape=[7, 17, 31], dtype="int32", alpha=3),
            dict(form="ts", shape=[257, 511], layout="transposed", dtype="bf16", scalar=-0.999, alpha=0.001),
            dict(form="tt", shape=[129, 65], layout="step2", dtype="fp32", alpha=-2.0, overload="out"),
            dict(form="ts", shape=[5, 7, 11, 13], dtype="fp16", scalar=100.001, alpha=1, overload="Scalar_out"),
        ],
    },
    build=_add_build, reference=_add_ref, cost=_add_cost,
).facts(counts=Counts(smoke=6, full=648, timed=648, heldout=5))


# ----------------------------------------------------------------------------------------- _softmax
def _softmax_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    special = p.get("neg_inf", False)
    if special is True:
        x = torch.where(x < 0, torch.full_like(x, -math.inf), x)
    elif special == "rows":  # smoke: row 0 all -inf, row 1 half -inf
        x[0] = -math.inf
        x[1, : x.shape[1] // 2] = -math.inf
    if p.get("overload") == "out":
        out = poisoned(p["shape"], p["dtype"], device)
        return AtenCase("torch.ops.aten._softmax.out", [x, p["dim"], False], {"out": out}, ("out",))
    return AtenCase("torch.nn.functional.softmax", [x], {"dim": p["dim"]})


def _softmax_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x = call.args[0]
    ref = torch.softmax(x.to(torch.float64), dim=p["dim"]).to(x.dtype)
    return _std_expected(p, call, ref, Tolerance())


SOFTMAX_ = AtenOperator(
    "_softmax", category="reduction",
    semantics="out = exp(x - max) / sum(exp(x - max)) along dim (negative dims allowed); output dtype = input "
              "dtype (half_to_float=False in every case); accumulate in fp32; an all -inf slice gives NaN, -inf "
              "entries next to finite ones give 0, +inf gives NaN; any rank, strided reduction dims.",
    wrappers=[
        Wrapper("_softmax", "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", exercised=True),
        Wrapper("_softmax.out", "aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(shape=[4, 33], dtype="fp32", dim=1, neg_inf="rows"),
            dict(shape=[3, 64, 5], dtype="bf16", dim=1),
            dict(shape=[1, 100], dtype="fp16", dim=0, neg_inf=True),
            dict(shape=[6, 40], dtype="fp32", dim=-1, overload="out"),
        ],
        "full": product(neg_inf=[True, False], dim=[0, 1], dtype=FLOAT3,
                        shape=[[1, 256], [4096, 256], [200, 2560, 3]]),
        "heldout": [
            dict(shape=[511, 257], dtype="fp32", dim=0),
            dict(shape=[151, 8191, 5], dtype="bf16", dim=1),
            dict(shape=[257, 511], layout="transposed", dtype="fp16", dim=-1),
            dict(shape=[33, 1000], dtype="fp32", dim=1, overload="out"),
        ],
    },
    build=_softmax_build, reference=_softmax_ref,
    cost=lambda p: Cost(4.0 * numel(p["shape"]), 2 * numel(p["shape"]) * elem_bytes(p["dtype"])),
    own_ops=frozenset({"_softmax", "softmax", "_softmax_backward_data", "log_softmax", "_log_softmax"}),
).facts(counts=Counts(smoke=4, full=36, timed=36, heldout=4))


# ---------------------------------------------------------------------------------------------- sum
def _sum_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    if "dim" not in p:
        if p.get("overload") == "out":
            return AtenCase("torch.ops.aten.sum.out", [x], {"out": poisoned([], _sum_dtype(p), device)}, ("out",))
        return AtenCase("torch.sum", [x])
    if p.get("overload") == "IntList_out":
        rank = len(p["shape"])
        dims = p["dim"] if isinstance(p["dim"], list) else [p["dim"]]
        reduced = {d % rank for d in dims} if dims else set(range(rank))
        shape = [1 if i in reduced else s for i, s in enumerate(p["shape"]) if p["keepdim"] or i not in reduced]
        out = poisoned(shape, _sum_dtype(p), device)
        return AtenCase("torch.sum", [x], {"dim": p["dim"], "keepdim": p["keepdim"], "out": out}, ("out",))
    return AtenCase("torch.sum", [x], {"dim": p["dim"], "keepdim": p["keepdim"]})


def _reduced(p: dict[str, Any]) -> int:
    shape = p["shape"]
    d = p.get("dim")
    if d is None or d == []:
        return numel(shape)
    dims = d if isinstance(d, list) else [d]
    return math.prod(shape[i] for i in dims) if shape else 1


def _sum_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = _native_then_exact(call)
    x = call.args[0]
    kwargs = {k: v for k, v in call.kwargs.items() if k != "out"}
    # the accumulation rule (README "Tolerance and precision policy"): sum |x| over the same dims, in fp64
    absum = torch.sum(x.abs().to(torch.float64), **kwargs) if x.is_floating_point() else None
    tol, extra = accumulation_rule(ref.dtype, absum, _reduced(p), _reduced(p))
    return _std_expected(p, call, ref, tol, extra)


SUM = AtenOperator(
    "sum", category="reduction",
    semantics="sum(self, dtype=None) sums all elements into a 0-d tensor; sum.dim_IntList reduces over a list "
              "of dims (an empty list or None means all dims; keepdim keeps size-1 dims). Integer and bool inputs "
              "give int64 unless dtype says otherwise; half types accumulate in fp32.",
    wrappers=[
        Wrapper("sum", "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", exercised=True),
        Wrapper("sum.dim_IntList", "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
                                   "ScalarType? dtype=None) -> Tensor", exercised=True),
        Wrapper("sum.IntList_out", "aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, "
                                   "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("sum.out", "aten::sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(shape=[1, 2], dtype="fp32"),
            dict(shape=[64, 33], dtype="bf16", dim=[], keepdim=True),
            dict(shape=[3, 50, 3], dtype="fp16", dim=1, keepdim=False),
            dict(shape=[40, 30], dtype="int32", dim=0, keepdim=True, overload="IntList_out"),
            dict(shape=[7, 9], dtype="fp32", overload="out"),
        ],
        "full": product(dtype=FLOAT3, shape=REDUCTION_SHAPES)
        + [dict(dtype=d["dtype"], keepdim=d["kd"][0], dim=d["kd"][1], shape=d["shape"])
           for d in product(dtype=FLOAT3, kd=[(True, 0), (False, 1), (False, []), (True, [])],
                            shape=REDUCTION_SHAPES)],
        "heldout": [
            dict(shape=[2048, 129], dtype="fp32", dim=0, keepdim=False),
            dict(shape=[151, 8191, 5], dtype="bf16", dim=[0, 2], keepdim=False),
            dict(shape=[7, 17, 31], dtype="int32"),
            dict(shape=[129, 257], layout="transposed", dtype="fp16", dim=1, keepdim=True, overload="IntList_out"),
        ],
    },
    build=_sum_build, reference=_sum_ref,
    cost=lambda p: Cost(float(numel(p["shape"])), numel(p["shape"]) * elem_bytes(p["dtype"])),
    notes=ACCUMULATION_NOTE.format(n="the number of reduced elements"),
).facts(counts=Counts(smoke=5, full=45, timed=45, heldout=4))
SUM.atol_text = accumulation_text("the number of reduced elements", "sum|x|")


# ----------------------------------------------------------------------------------------------- mm
def _mm_build(p: dict[str, Any], device, gen) -> AtenCase:
    m, n, k = p["m"], p["n"], p["k"]
    a = make_tensor([m, k], p["dtype"], device, gen)
    if p.get("b_column_major"):
        b = make_tensor([n, k], p["dtype"], device, gen).t()
    else:
        b = make_tensor([k, n], p["dtype"], device, gen)
    if p.get("overload") == "out":
        return AtenCase("torch.mm", [a, b], {"out": poisoned([m, n], p["dtype"], device)}, ("out",))
    if p.get("overload") == "dtype":
        return AtenCase("torch.mm", [a, b], {"out_dtype": dtype_of(p["out_dtype"])})
    return AtenCase("torch.mm", [a, b])


def _mm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, b = call.args[0], call.args[1]
    out_dtype = dtype_of(p.get("out_dtype", p["dtype"]))
    ref = (a.to(torch.float64) @ b.to(torch.float64)).to(out_dtype)
    # the accumulation rule (README "Tolerance and precision policy"): |A| @ |B| in fp64 bounds each
    # element's rounding error
    tol, extra = accumulation_rule(out_dtype, a.abs().to(torch.float64) @ b.abs().to(torch.float64), p["k"], p["k"])
    return _std_expected(p, call, ref, tol, extra)


def _mm_cost(p: dict[str, Any]) -> Cost:
    m, n, k = p["m"], p["n"], p["k"]
    return Cost(2.0 * m * n * k, (m * k + k * n + m * n) * elem_bytes(p["dtype"]), flop_class(p["dtype"]))


MM = AtenOperator(
    "mm", category="matmul",
    semantics="self (M,K) @ mat2 (K,N) -> (M,N); no broadcasting; same dtype; accumulate in fp32 with true fp32 "
              "(no TF32) for fp32 inputs; mm.dtype/mm.dtype_out allow an fp32 output from fp16/bf16 inputs.",
    wrappers=[
        Wrapper("mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor", exercised=True),
        Wrapper("mm.out", "aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("mm.dtype_out", "aten::mm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, "
                                "Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("mm.dtype", "aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor"),
    ],
    grids={
        "smoke": [
            dict(m=1, n=1, k=32, dtype="fp32"),
            dict(m=17, n=33, k=64, dtype="bf16", b_column_major=True),
            dict(m=16, n=16, k=16, dtype="fp16"),
            dict(m=9, n=20, k=24, dtype="fp32", b_column_major=True, overload="out"),
        ],
        "full": [dict(b_column_major=d["bcm"], dtype=d["dtype"], m=d["mnk"][0], n=d["mnk"][1], k=d["mnk"][2])
                 for d in product(bcm=[True, False], dtype=FLOAT3,
                                  mnk=[(1, 1, 32), (15, 160, 1024), (495, 5333, 71)])],
        "heldout": [
            dict(m=497, n=5331, k=73, dtype="fp32", b_column_major=True),  # spec: (495,5333,71) is a full case
            dict(m=511, n=129, k=257, dtype="bf16"),
            dict(m=1, n=1, k=4096, dtype="fp16"),
            dict(m=64, n=96, k=80, dtype="fp16", overload="dtype", out_dtype="fp32"),
        ],
    },
    build=_mm_build, reference=_mm_ref, cost=_mm_cost,
    own_ops=frozenset({"mm", "matmul", "bmm", "addmm", "linear", "dot", "mv", "baddbmm", "einsum", "tensordot"}),
    notes=ACCUMULATION_NOTE.format(n="K"),
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=4))
MM.atol_text = accumulation_text("K", "(|A| @ |B|)[i,j]")


# ------------------------------------------------------------------------------------------- cumsum
def _cumsum_dim(p: dict[str, Any]) -> int:
    if "dim" in p:
        return p["dim"]
    return 1 if list(p["shape"]) == [200, 40999, 3] else -1


def _cumsum_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"), low=-3, high=3)
    if p.get("overload") == "out":
        out = poisoned(p["shape"], _sum_dtype(p), device)
        return AtenCase("torch.cumsum", [x, _cumsum_dim(p)], {"out": out}, ("out",))
    return AtenCase("torch.cumsum", [x], {"dim": _cumsum_dim(p)})


def _cumsum_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    # aten.md §3.1: the fp16/bf16 reference accumulates in higher precision (fp64 here), cast once.
    ref = _native_then_exact(call)
    d = _cumsum_dim(p)
    length = p["shape"][d] if p["shape"] else 1
    x = call.args[0]
    absum, terms = None, length
    if x.is_floating_point() and x.dim() > 0:
        # the accumulation rule (README "Tolerance and precision policy"): element i of the scan sums
        # i+1 terms; cumsum |x| in fp64
        absum = torch.cumsum(x.abs().to(torch.float64), d)
        shape = [1] * x.dim()
        shape[d] = length
        terms = torch.arange(1, length + 1, dtype=torch.float64, device=x.device).reshape(shape)
    tol, extra = accumulation_rule(ref.dtype, absum, terms, length)
    return _std_expected(p, call, ref, tol, extra)


CUMSUM = AtenOperator(
    "cumsum", category="scan",
    semantics="inclusive prefix sum along dim; result dtype = dtype if given, else int64 for integer/bool inputs "
              "and the input dtype for floats; fp16/bf16 accumulate in fp32; any rank, strided dims.",
    wrappers=[
        Wrapper("cumsum", "aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", exercised=True),
        Wrapper("cumsum.out", "aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) "
                              "-> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(shape=[4, 33], dtype="fp32", dim=-1),
            dict(shape=[3, 1000, 3], dtype="bf16", dim=1),
            dict(shape=[2637], dtype="int32", dim=0),
            dict(shape=[5, 300], dtype="fp16", dim=1),
            dict(shape=[6, 70], dtype="fp32", dim=0, overload="out"),
        ],
        "full": product(dtype=FLOAT3 + ["int16", "int32"],
                        shape=[[1, 2], [4096, 256], [200, 40999, 3], [2637], [16, 1025, 255]]),
        "heldout": [
            dict(shape=[151, 8191, 5], dtype="fp16", dim=1),
            dict(shape=[2048, 129], dtype="int16", dim=0),
            dict(shape=[129, 2048], layout="transposed", dtype="fp32", dim=-1),
            dict(shape=[77, 300], dtype="int32", dim=1, overload="out"),
        ],
    },
    build=_cumsum_build, reference=_cumsum_ref,
    cost=lambda p: Cost(float(numel(p["shape"])), numel(p["shape"]) * (
        elem_bytes(p["dtype"]) + torch.empty(0, dtype=_sum_dtype(p)).element_size())),
    notes=ACCUMULATION_NOTE.format(n="the scanned length"),
).facts(counts=Counts(smoke=5, full=25, timed=25, heldout=4))
CUMSUM.atol_text = accumulation_text("i + 1 at scan position i", "cumsum(|x|)[i]", "1e-4 x the scanned length")


# ------------------------------------------------------------------------------------- index_select
def _isel_build(p: dict[str, Any], device, gen) -> AtenCase:
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    size = p["shape"][p["dim"]]
    count = p.get("count", int(math.floor(0.8 * size)))
    idx = torch.randint(0, size, (count,), generator=gen, device=device, dtype=torch.int64)
    idx = idx.to(dtype_of(p.get("index_dtype", "int64")))
    if p.get("overload") == "out":
        shape = list(p["shape"])
        shape[p["dim"]] = count
        return AtenCase("torch.index_select", [x, p["dim"], idx], {"out": poisoned(shape, p["dtype"], device)},
                        ("out",))
    return AtenCase("torch.index_select", [x, p["dim"], idx])


def _isel_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    x, dim, idx = call.args
    ref = torch.index_select(x, dim, idx)
    return _std_expected(p, call, ref, EXACT)


def _isel_cost(p: dict[str, Any]) -> Cost:
    size = p["shape"][p["dim"]]
    count = p.get("count", int(math.floor(0.8 * size)))
    out = numel(p["shape"]) // max(1, size) * count
    return Cost(0.0, 2 * out * elem_bytes(p["dtype"]) + count * 8)


INDEX_SELECT = AtenOperator(
    "index_select", category="index",
    semantics="out = self with dim `dim` replaced by self[index[j]] for each j; index is a 1-D (or 0-d) int64/"
              "int32 tensor; duplicates allowed; an empty index gives a size-0 dim; out-of-range indices are an "
              "error.",
    wrappers=[
        Wrapper("index_select", "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", exercised=True),
        Wrapper("index_select.out", "aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) "
                                    "-> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(shape=[1, 2], dtype="fp32", dim=0),
            dict(shape=[64, 33], dtype="bf16", dim=1),
            dict(shape=[5, 40, 3], dtype="fp16", dim=1),
            dict(shape=[30, 20], dtype="fp32", dim=0, index_dtype="int32", overload="out"),
        ],
        "full": product(dtype=FLOAT3, dim=[0, 1], shape=REDUCTION_SHAPES),
        "heldout": [
            dict(shape=[2048, 129], dtype="fp32", dim=0, index_dtype="int32"),
            dict(shape=[151, 8191, 5], dtype="bf16", dim=1),
            dict(shape=[257, 511], layout="transposed", dtype="fp16", dim=0),
            dict(shape=[64, 65], dtype="int32", dim=1, overload="out"),
        ],
    },
    build=_isel_build, reference=_isel_ref, cost=_isel_cost,
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=4))
INDEX_SELECT.tolerance_text = EXACT_TEXT

OPERATORS: list[AtenOperator] = [SOFTMAX_, ADD, CUMSUM, INDEX_SELECT, MM, SUM]

__all__ = ["OPERATORS", "REDUCTION_SMALL_SHAPES"]
