"""The nothing-to-compute family (aten.md §8): views, scalar reads and allocations.

Views ``t``, ``expand``, ``expand_as``, ``select``, ``narrow``, ``as_strided``, ``unsqueeze``,
``reshape``; scalar reads ``item``, ``_local_scalar_dense``; allocations ``empty_strided``,
``new_empty_strided``. Each op is one :class:`ViewOperator` row: its wrappers (every overload PyTorch
has, JIT-only and absent ones marked), the grids per tier, and how a case's input is built. The
family supplies the rest, and the judging rule is the one stated once in
:class:`~kernelgenbench.suite.spec.NothingToCompute` (``VIEW``, ``SCALAR_READ``, ``ALLOCATION``):

* **cases.** Every case drives ``torch.ops.aten.<op>.<overload>`` with the section's arguments.
  Input tensors are built by :func:`make_input` from ``shape``/``dtype`` plus an optional
  ``layout`` (transposed, permuted, step2), ``transform`` (a named permutation of a contiguous
  ``base_shape``: reshape's ``transpose01``, ``permute201``, ...), ``view_of=[n, start]`` (a
  slice ``flat[start:]`` of a length-``n`` buffer: a nonzero storage offset) and ``value`` (the
  single element of a scalar read). ``overload="out"`` selects an ``.out`` form.
* **driving.** On GPUs the wrappers are registered at the device key (which also intercepts the
  CompositeImplicit ops ``expand_as``, ``narrow``, ``reshape`` and ``item``, aten.md §4.3). On the
  interpreter a dispatch mode routes the reached overload to the wrapper; a dispatch mode only
  sees the decomposition of a CompositeImplicit op, so there the family calls those wrappers
  directly.
* **reference.** The native op on a clone of the inputs: the reference view (its sizes, strides,
  storage offset and values), the reference allocation (metadata only) or the Python number.
* **launch.** No case needs a Triton launch (``needs_launch=False``), except ``reshape`` of an input
  whose strides allow no view, where PyTorch copies: that case needs a Triton copy and gets L2
  ghost replay like any computing op.
* **timing.** Every full-tier case is timed, as upstream times them (host-side metadata work on
  both sides); the cost model counts no bytes for views and allocations, the copy's bytes for
  reshape's copy path and one element for scalar reads.
* **dtypes.** Nothing is computed, so no platform dtype limit applies (a vendor profile's included).
"""
from __future__ import annotations

import random
from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor
from ..compare import same_storage
from ..spec import (
    ALLOCATION,
    SCALAR_READ,
    VIEW,
    Call,
    Cost,
    Counts,
    Expected,
    NothingToCompute,
    dtype_of,
    numel,
    product,
)
from ..tensors import poison_
from .family import DIRECT, AtenCase, AtenOperator, elem_bytes, resolve_api, wrappers_of

FLOATS = ["fp16", "fp32", "bf16"]
FLOATS_32 = ["fp32", "fp16", "bf16"]   # the axis order of the long-tail sections
LONGTAIL = [[2, 3], [128, 256], [512, 512]]

#: reshape's named input transforms (aten.md § aten::reshape): a permutation of a contiguous base
TRANSFORMS: dict[str, list[int]] = {"transpose01": [1, 0], "permute201": [2, 0, 1], "permute120": [1, 2, 0],
                                    "permute3102": [3, 1, 0, 2]}


def _api(op: str, overload: str = "default") -> str:
    return f"torch.ops.aten.{op}.{overload}"


def _overload_of(api: str) -> tuple[str, str]:
    op, _, ov = api[len("torch.ops.aten."):].partition(".")
    return op, ov or "default"


# -- inputs ---------------------------------------------------------------------------------------
def make_input(p: dict[str, Any], device: torch.device, gen: torch.Generator, *, shape_key: str = "shape",
               dtype_key: str = "dtype", int_range: tuple[int, int] = (-100, 100)) -> torch.Tensor:
    """The input tensor of a case (see the module docstring for the keys)."""
    dt = dtype_of(p[dtype_key])
    lo, hi = int_range
    if "transform" in p:
        base = make_tensor(p["base_shape"], dt, device, gen, low=lo, high=hi)
        return base.permute(*TRANSFORMS[p["transform"]])
    shape = list(p[shape_key])
    if "view_of" in p:
        n, start = p["view_of"]
        flat = make_tensor([n], dt, device, gen, low=lo, high=hi)
        x = flat[start:start + numel(shape)].view(shape)
    else:
        x = make_tensor(shape, dt, device, gen, layout=p.get("layout", "contig"), low=lo, high=hi)
    if "value" in p:
        x.fill_(p["value"])
    return x


# -- the row class --------------------------------------------------------------------------------
class ViewOperator(AtenOperator):
    """One row of the family (see the module docstring).

    Args:
        name: the op (``"t"``).
        rule: its :class:`~kernelgenbench.suite.spec.NothingToCompute` kind.
        exercised: the overload keys the tests drive (``"select.int"``).
        absent: overloads the prompt lists that PyTorch 2.13 lacks.
        args: ``args(params, device, gen) -> (api, args, kwargs, written)`` of a case.
        cost: bytes of a case (default: none).
    """

    def __init__(self, name: str, *, rule: NothingToCompute, category: str, semantics: str,
                 exercised: Sequence[str], grids: dict[str, list[dict[str, Any]]],
                 args: Callable[[dict[str, Any], torch.device, torch.Generator], tuple],
                 cost: Callable[[dict[str, Any]], Cost] = lambda p: Cost(0.0, 0.0),
                 absent: dict[str, str] | None = None, own_ops: frozenset[str] | None = None,
                 allow_copies: bool = True, notes: str = "") -> None:
        self._args = args
        super().__init__(name, category=category, semantics=semantics,
                         wrappers=wrappers_of(name, exercised, absent), grids=grids, build=self._build_case,
                         reference=self._reference_of, cost=cost, own_ops=own_ops, nothing_to_compute=rule,
                         allow_copies=allow_copies, notes=notes)

    # -- build ------------------------------------------------------------------------------------
    def _build_case(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> AtenCase:
        api, args, kwargs, written = self._args(p, device, gen)
        needs_launch = False
        if self.name == "reshape":  # PyTorch copies where the strides allow no view: a computing case
            needs_launch = not _reshape_is_view(args[0], args[1])
        return AtenCase(api, args, kwargs, written, needs_launch=needs_launch)

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        api = str(call.api)
        if not api.startswith(DIRECT):
            op, ov = _overload_of(api)
            qual = f"aten::{op}" + ("" if ov == "default" else f".{ov}")
            if torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd"):
                # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
                name = op if ov == "default" else f"{op}_{ov}"
                return name, call.args, call.kwargs
        return super().interpreter_route(call)

    # -- reference --------------------------------------------------------------------------------
    def _reference_of(self, p: dict[str, Any], call: Call) -> list[Expected]:
        rule = self.nothing_to_compute
        assert rule is not None
        if "out" in call.kwargs:  # only the resized layout matters; PyTorch warns when resizing a non-empty out
            call.kwargs["out"].resize_(0)
        ref = resolve_api(str(call.api))(*call.args, **call.kwargs)
        if "out" in call.kwargs:
            return [rule.expected("arg.out", call.kwargs["out"]),
                    Expected("return", None, rule.expected("arg.out", ref).tol, alias="arg.out")]
        if rule.kind == "view":
            copy = not same_storage(ref, call.args[0])
            return [rule.expected("return", ref, alias_of=None if copy else "arg.0", copy=copy)]
        return [rule.expected("return", ref)]


def _reshape_is_view(x: torch.Tensor, shape: Sequence[int]) -> bool:
    return same_storage(torch.ops.aten.reshape.default(x, list(shape)), x)


def _seeded(cases: list[dict[str, Any]], draw: Callable[[random.Random, dict[str, Any]], dict[str, Any]]
            ) -> list[dict[str, Any]]:
    """Cases completed with parameters upstream draws from Python ``random``: drawn here from
    ``random.Random(42)`` in grid order, so the grid is the same in every run (aten.md §6b.8)."""
    rng = random.Random(42)
    return [dict(c, **draw(rng, c)) for c in cases]


def c(shape: list[int], dtype: str, **kw: Any) -> dict[str, Any]:
    """One tensor case."""
    return dict(shape=shape, dtype=dtype, **kw)


# ================================================================================================ t
def _t_args(p, device, gen):
    layout = "contig" if p.get("contig", True) else "transposed"
    return _api("t"), [make_input(dict(p, layout=layout), device, gen)], {}, ()


T = ViewOperator(
    "t", rule=VIEW, category="view (transpose <= 2-D)",
    semantics="A view with sizes and strides of a 2-D input swapped (same storage and storage offset); 0-D and 1-D "
              "inputs give a view of themselves (same sizes and strides); more than 2 dims is an error.",
    exercised=["t"], args=_t_args,
    grids={
        "smoke": [c([2, 3], "fp32"), c([128, 256], "bf16", contig=False), c([5], "fp16"),
                  c([3, 4], "int32", contig=False), c([], "bool")],
        "full": product(contig=[True, False], dtype=FLOATS_32, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32"), c([], "fp32"), c([1, 7], "bf16"), c([6, 9], "fp16", view_of=[60, 3])],
    },
    notes="Inputs are contiguous, or (contig=False) the transposed view base.t() of a contiguous base. A wrapper "
          "must not call x.t() (dispatch recursion on GPUs): build the view with as_strided.",
).facts(counts=Counts(smoke=5, full=18, timed=18, heldout=4))


# =========================================================================================== expand
def _expand_args(p, device, gen):
    return _api("expand"), [make_input(p, device, gen), list(p["size"])], {}, ()


_EXPAND_PAIRS = [([1], [8]), ([1, 16], [8, 16]), ([1, 1, 32], [4, 8, 32]), ([16, 1], [16, 32]),
                 ([1, 16, 1], [8, 16, 32])]

EXPAND = ViewOperator(
    "expand", rule=VIEW, category="view (broadcast)",
    semantics="A view of self with the new size, matched from the trailing dim: -1 keeps a dim, a size-1 dim may "
              "grow (stride 0), new leading dims get stride 0, a non-1 dim must match; implicit is ignored. No "
              "data is copied.",
    exercised=["expand"], args=_expand_args,
    grids={
        "smoke": [c([1, 4], "fp32", size=[3, 4]), c([4, 1, 8], "bf16", size=[-1, 16, -1]),
                  c([3], "fp16", size=[2, 3]), c([2, 1], "int32", size=[2, 5]), c([], "bool", size=[4])],
        "full": product(dtype=FLOATS, **{"shape,size": _EXPAND_PAIRS})
        + product(dtype=FLOATS, shape=[[4, 1, 8]], size=[[-1, 16, -1]]),
        "heldout": [c([1, 257, 1], "fp32", size=[511, 257, 3]), c([], "fp32", size=[5, 7]),
                    c([6, 1], "fp16", layout="transposed", size=[2, 6, 3])],
    },
    notes="Pre-damage grid (aten.md §6b.2): test_accuracy_expand (15) and test_accuracy_expand_with_minus_one (3; "
          "the (-1, 16, -1) expansion of a (4, 1, 8) input). Upstream compared values only; here the result must "
          "alias the input with stride 0 on broadcast dims (aten.md §6b.7).",
).facts(counts=Counts(smoke=5, full=18, timed=18, heldout=3), aliases={"broadcast_to", "expand_as"})


# ======================================================================================== expand_as
def _expand_as_args(p, device, gen):
    x = make_input(p, device, gen)
    other = make_input(dict(shape=p["other"], dtype=p["dtype"], layout=p.get("other_layout", "contig")), device, gen)
    return _api("expand_as"), [x, other], {}, ()


EXPAND_AS = ViewOperator(
    "expand_as", rule=VIEW, category="view (broadcast, composite)",
    semantics="self.expand(other.size()): a view with other's shape under expand's rules; only other's shape "
              "matters. CompositeImplicit in PyTorch; the registered wrapper intercepts it.",
    exercised=["expand_as"], args=_expand_as_args,
    grids={
        "smoke": [c([1, 16], "fp32", other=[8, 16]), c([16, 1], "bf16", other=[16, 32]),
                  c([1, 1, 32], "fp16", other=[4, 8, 32]), c([3, 1], "int64", other=[3, 4]),
                  c([1], "bool", other=[2, 3])],
        "full": product(dtype=FLOATS, **{"shape,other": _EXPAND_PAIRS}),
        "heldout": [c([1, 257], "fp16", other=[511, 257]), c([3], "fp32", other=[2, 2, 3]),
                    c([1, 5], "fp32", other=[7, 5], other_layout="transposed")],
    },
    notes="Pre-damage grid (aten.md §6b.2). expand is not registered in this test, so self.expand(other.shape) is a "
          "legal implementation, as is as_strided.",
).facts(counts=Counts(smoke=5, full=15, timed=15, heldout=3))


# =========================================================================================== select
def _select_args(p, device, gen):
    return _api("select", "int"), [make_input(p, device, gen), p["dim"], p["index"]], {}, ()


def _draw_select(rng: random.Random, p: dict[str, Any]) -> dict[str, Any]:
    dim = rng.randrange(len(p["shape"]))
    n = p["shape"][dim]
    return {"dim": dim, "index": rng.randrange(-n, n)}


SELECT = ViewOperator(
    "select", rule=VIEW, category="view (index one slice)",
    semantics="The view self.select(dim, index): dim is removed and position index (negative wraps) taken; the rank "
              "drops by 1 and the storage offset advances by index * stride[dim]. No data is copied. select.t is the "
              "JIT list form (list[idx]); select.Dimname is absent in PyTorch 2.13.",
    exercised=["select.int"], args=_select_args,
    absent={"Dimname": "aten::select.Dimname(Tensor(a) self, str dim, int index) -> Tensor(a)"},
    grids={
        "smoke": [c([1, 2], "fp32", dim=1, index=1), c([64, 33], "bf16", dim=0, index=-1),
                  c([5, 40, 3], "fp16", dim=2, index=0), c([6, 7], "int32", dim=1, index=-3),
                  c([3, 4], "bool", dim=0, index=2)],
        "full": _seeded(product(dtype=FLOATS, shape=[[1, 2], [4096, 256], [200, 40999, 3]]), _draw_select),
        "heldout": [c([2048, 129], "fp32", dim=1, index=128), c([17, 33], "fp16", layout="transposed", dim=0, index=5),
                    c([9], "bf16", dim=0, index=-2)],
    },
    notes="Upstream draws dim and index from unseeded Python random; here they are drawn once from "
          "random.Random(42) (aten.md §6b.8), so the grid is fixed. Indexing self[i] inside the wrapper reaches "
          "select again (dispatch recursion).",
).facts(counts=Counts(smoke=5, full=9, timed=9, heldout=3))


# =========================================================================================== narrow
def _narrow_args(p, device, gen):
    x = make_input(p, device, gen)
    if p.get("overload") == "Tensor":
        start = torch.tensor(p["start"], dtype=torch.int64, device=device)
        return _api("narrow", "Tensor"), [x, p["dim"], start, p["length"]], {}, ()
    return _api("narrow"), [x, p["dim"], p["start"], p["length"]], {}, ()


def _draw_narrow(rng: random.Random, p: dict[str, Any]) -> dict[str, Any]:
    dim = rng.randrange(len(p["shape"]))
    n = p["shape"][dim]
    start = rng.randrange(n)
    return {"dim": dim, "start": start, "length": rng.randint(0, n - start)}


NARROW = ViewOperator(
    "narrow", rule=VIEW, category="view (slice, composite)",
    semantics="The view of elements [start, start + length) along dim; a negative start wraps once (start += size); "
              "the range must lie inside. narrow.Tensor takes start as a 0-d integer tensor. CompositeImplicit in "
              "PyTorch (it calls slice).",
    exercised=["narrow"], args=_narrow_args,
    grids={
        "smoke": [c([256, 256], "fp32", dim=0, start=5, length=100), c([20, 32, 15], "bf16", dim=2, start=14, length=1),
                  c([2, 7, 5, 3, 9], "fp16", dim=4, start=-3, length=3), c([8, 6], "int32", dim=1, start=2, length=4),
                  c([5, 4], "bool", dim=0, start=1, length=3),
                  c([10, 12], "fp32", dim=1, start=-5, length=2, overload="Tensor")],
        "full": _seeded(product(dtype=FLOATS, shape=[[1], [1024, 1024], [20, 320, 15], [16, 128, 64, 60],
                                                     [16, 7, 57, 32, 29]]), _draw_narrow),
        "heldout": [c([511, 257], "fp32", dim=1, start=256, length=1),
                    c([33, 17], "bf16", layout="transposed", dim=0, start=7, length=20),
                    c([7, 17, 31], "fp16", dim=2, start=4, length=9, overload="Tensor")],
    },
    notes="Upstream's grid has 18 cases; the 3 with the 0-d shape () return early without calling anything (narrow "
          "of a 0-d tensor is an error), so the full tier keeps the other 15. dim, start and length are drawn once "
          "from random.Random(42) (aten.md §6b.8). The dispatcher overload narrow.Tensor (start as a 0-d int64 "
          "tensor on the device) is required and tested in the smoke and held-out tiers.",
).facts(counts=Counts(smoke=6, full=15, timed=15, heldout=3))


# ======================================================================================= as_strided
def _contig_strides(shape: Sequence[int]) -> list[int]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return list(reversed(out))


def _as_strided_geometry(kind: str, base: list[int]) -> tuple[list[int], list[int], int | None]:
    """(size, stride, storage_offset) of an upstream as_strided case kind on a contiguous base."""
    st = _contig_strides(base)
    n = numel(base)
    half = [-(-s // 2) for s in base]
    if kind == "contig":
        return list(base), st, None
    if kind == "subsample":
        return half, [2 * s for s in st], None
    if len(base) == 2:
        h, w = base
        if kind == "transpose":
            return [w, h], [1, w], None
        if kind == "offset_cropped":
            return [h - 1, w - 1], st, st[0] + st[1]
        if kind == "reshape_like":
            return [n // h, h], [h, 1], None
    if len(base) == 1:
        if kind == "skip_step":
            return half, [2], None
        if kind == "offset_start":
            return [n - 1], [1], 1
        if kind == "reshape2d":
            return [2, n // 2], [n // 2, 1], None
    if len(base) == 3:
        a, b, c_ = base
        if kind == "swap_last_two":
            return [a, c_, b], [b * c_, 1, c_], None
        if kind == "offset_plane":
            return [a - 1, b, c_], st, b * c_
    raise ValueError(f"as_strided: no case {kind!r} for a {len(base)}-D base")


def _as_strided_grid(kinds: list[str], shapes: list[list[int]]) -> list[dict[str, Any]]:
    out = []
    for p in product(case=kinds, dtype=FLOATS_32, shape=shapes):
        size, stride, offset = _as_strided_geometry(p["case"], p["shape"])
        out.append(dict(p, size=size, stride=stride, offset=offset))
    return out


def _as_strided_args(p, device, gen):
    return _api("as_strided"), [make_input(p, device, gen), list(p["size"]), list(p["stride"]), p["offset"]], {}, ()


AS_STRIDED = ViewOperator(
    "as_strided", rule=VIEW, category="view (metadata only)",
    semantics="A view on self's storage with the given size, stride and storage_offset (None keeps "
              "self.storage_offset()); no data is copied, writes through it are visible in self; every addressed "
              "element must lie inside the storage.",
    exercised=["as_strided"], args=_as_strided_args,
    grids={
        "smoke": [c([6], "fp32", size=[3], stride=[2], offset=None),
                  c([4, 6], "bf16", size=[6, 4], stride=[1, 6], offset=None),
                  c([2, 3, 4], "fp16", size=[1, 3, 3], stride=[12, 4, 1], offset=13),
                  c([5, 4], "int32", size=[3, 3], stride=[4, 1], offset=5),
                  c([8], "bool", size=[2, 3], stride=[1, 2], offset=None)],
        "full": _as_strided_grid(["contig", "transpose", "subsample", "offset_cropped", "reshape_like"],
                                 [[2, 3], [128, 256], [512, 512]])
        + _as_strided_grid(["contig", "skip_step", "offset_start", "reshape2d"], [[6], [64], [1024]])
        + _as_strided_grid(["contig", "swap_last_two", "subsample", "offset_plane"],
                           [[2, 3, 4], [8, 16, 8], [16, 32, 16]]),
        "heldout": [c([511, 257], "fp32", size=[255, 128], stride=[514, 2], offset=1),
                    c([8], "fp16", size=[4, 4], stride=[1, 1], offset=None),
                    c([7], "fp32", view_of=[12, 5], size=[3], stride=[2], offset=None)],
    },
    notes="Case kinds derive size, stride and offset from a contiguous base (aten.md § aten::as_strided): contig; "
          "transpose; subsample (strides x2, sizes halved up); offset_cropped (offset stride0 + stride1, each size "
          "-1); reshape_like (size [numel/h, h], stride [h, 1]); 1-D skip_step, offset_start, reshape2d; 3-D "
          "swap_last_two, offset_plane (offset one plane). as_strided cannot call itself; set_ is allowed for views: "
          "out.set_(src, offset, size, stride) aliases src's storage, but wants a contiguous src and takes offset "
          "relative to src's own storage offset (the spec's suggested out.set_(self, ...) fails on non-contiguous "
          "or offset inputs).",
).facts(counts=Counts(smoke=5, full=117, timed=117, heldout=3))


# ======================================================================================== unsqueeze
_UNSQUEEZE_PAIRS = [([], 0), ([], -1), ([2, 3], -3), ([2, 3], -1), ([2, 3], 0), ([2, 3], 1), ([2, 3], 2),
                    ([128, 256], -3), ([128, 256], -1), ([128, 256], 0), ([128, 256], 2), ([512, 512], -3),
                    ([512, 512], 0), ([512, 512], 2), ([64, 32, 16], -4), ([64, 32, 16], -1), ([64, 32, 16], 0),
                    ([64, 32, 16], 2), ([64, 32, 16], 3), ([4], -2), ([4], -1), ([4], 0), ([4], 1)]


def _unsqueeze_args(p, device, gen):
    return _api("unsqueeze"), [make_input(p, device, gen), p["dim"]], {}, ()


UNSQUEEZE = ViewOperator(
    "unsqueeze", rule=VIEW, category="view (add a size-1 dim)",
    semantics="A view with a new dim of size 1 at position dim in [-(ndim+1), ndim] (negative counts from the end "
              "of the new shape); its stride is size[dim] * stride[dim] of the following dim, or 1 at the end, as "
              "PyTorch computes it.",
    exercised=["unsqueeze"], args=_unsqueeze_args,
    grids={
        "smoke": [c([], "fp32", dim=0), c([2, 3], "bf16", dim=-1), c([64, 32, 16], "fp16", dim=2),
                  c([5, 3], "int64", dim=1), c([4], "bool", dim=-2)],
        "full": product(dtype=FLOATS_32, **{"shape,dim": _UNSQUEEZE_PAIRS}),
        "heldout": [c([511, 257], "fp32", dim=1), c([257, 511], "fp16", layout="transposed", dim=0),
                    c([2, 3, 4, 5, 6], "bf16", dim=-6)],
    },
    notes="Build the view with as_strided; x.unsqueeze, x[None] and x.view with a None index reach unsqueeze "
          "again (dispatch recursion).",
).facts(counts=Counts(smoke=5, full=69, timed=69, heldout=3))


# ========================================================================================== reshape
def _reshape_args(p, device, gen):
    return _api("reshape"), [make_input(p, device, gen), list(p["out_shape"])], {}, ()


def _reshape_cost(p: dict[str, Any]) -> Cost:
    if "transform" not in p:
        return Cost(0.0, 0.0)
    return Cost(0.0, 2.0 * numel(p["base_shape"]) * elem_bytes(p["dtype"]))


RESHAPE = ViewOperator(
    "reshape", rule=VIEW, category="view / copy (composite)",
    semantics="A tensor with the new shape (one -1 inferred): a view whenever the input's strides allow it (always "
              "for contiguous inputs), else a contiguous copy. CompositeImplicit in PyTorch (view when possible, "
              "else clone + view).",
    exercised=["reshape"], args=_reshape_args, cost=_reshape_cost, allow_copies=False,
    grids={
        "smoke": [c([2, 3], "fp32", out_shape=[3, 2]), c([32, 32, 32], "bf16", out_shape=[-1]),
                  dict(base_shape=[32, 64], transform="transpose01", dtype="fp16", out_shape=[-1]),
                  c([4, 6], "int32", out_shape=[2, -1, 3]),
                  dict(base_shape=[6, 5], transform="transpose01", dtype="bool", out_shape=[3, 10])],
        "full": product(dtype=FLOATS_32, **{"shape,out_shape": [
            ([2, 3], [3, 2]), ([2, 3], [1, 6]), ([2, 3], [-1]), ([128, 256], [256, 128]), ([128, 256], [32, -1]),
            ([128, 256], [-1, 128]), ([64, 64, 64], [-1]), ([64, 64, 64], [64, 4096]), ([512, 512], [-1]),
            ([256, 512], [512, 256])]})
        + product(dtype=FLOATS_32, **{"base_shape,out_shape,transform": [
            ([32, 64], [-1], "transpose01"), ([64, 128], [128, 64], "transpose01"),
            ([8, 16, 32], [256, 16], "permute201"), ([64, 64, 64], [4096, 64], "permute120")]}),
        "heldout": [c([511, 257], "fp32", out_shape=[257, 511]),
                    dict(base_shape=[5, 7, 11, 13], transform="permute3102", dtype="fp16", out_shape=[13, -1]),
                    c([0, 5], "fp32", out_shape=[5, 0]), c([6, 8], "bf16", layout="step2", out_shape=[6, 2, 4])],
    },
    notes="Cases whose input strides allow a view are judged as views: the contiguous test, step-sliced inputs whose "
          "merged dims are compatible, and two of the noncontiguous test's four inputs: (64, 128)^T -> (128, 64) keeps "
          "the shape, and (64, 64, 64).permute(1, 2, 0) -> (4096, 64) merges dims that are contiguous with each other. "
          "(32, 64)^T -> (-1,) and (8, 16, 32).permute(2, 0, 1) -> (256, 16) need a copy, which must be a Triton "
          "kernel (copies through PyTorch are not allowed for this op; the case needs a launch and gets L2 ghost "
          "replay). Smoke shrinks the (64, 64, 64) view to (32, 32, 32) (64K elements per "
          "tensor). Never call .reshape inside (dispatch recursion); .view is fine.",
).facts(counts=Counts(smoke=5, full=42, timed=42, heldout=4), aliases={"reshape_as"})


# ===================================================================================== scalar reads
def _scalar_args(op: str, int_range: tuple[int, int]):
    def args(p, device, gen):
        return _api(op), [make_input(p, device, gen, int_range=int_range)], {}, ()
    return args


def _scalar_cost(p: dict[str, Any]) -> Cost:
    return Cost(0.0, float(elem_bytes(p["dtype"])))


ITEM = ViewOperator(
    "item", rule=SCALAR_READ, category="memory / device-to-host scalar read (composite)",
    semantics="The value of a one-element tensor as a Python number, like _local_scalar_dense (which PyTorch's "
              "composite calls): float for floating dtypes (the exact value widened to double), int for integers, "
              "bool for bool. CompositeImplicit; the backend registration intercepts it.",
    exercised=["item"], args=_scalar_args("item", (0, 100)), cost=_scalar_cost,
    own_ops=frozenset({"item", "_local_scalar_dense"}),
    grids={
        "smoke": [c([1], "fp32"), c([1], "bf16"), c([1], "int16"), c([1], "fp16"), c([], "bool")],
        "full": product(dtype=["fp16", "fp32", "bf16", "int16", "int32", "int64"], shape=[[1]]),
        "heldout": [c([], "int64"), c([1, 1, 1], "fp16"), c([1], "fp32", view_of=[9, 4])],
    },
    notes="Values: randn for floats, randint(0, 100) for ints. .item(), float(x) and int(x) inside the wrapper reach "
          "item/_local_scalar_dense again (dispatch recursion on GPUs; counted the same on every platform): copy the "
          "element with a Triton kernel into a one-element tensor and read it with .tolist().",
).facts(counts=Counts(smoke=5, full=6, timed=6, heldout=3))

LOCAL_SCALAR_DENSE = ViewOperator(
    "_local_scalar_dense", rule=SCALAR_READ, category="memory / device-to-host scalar read",
    semantics="The single element of a one-element tensor (any shape, numel 1) as a Python number: float for "
              "floating dtypes (the exact value widened to double), int for integers, bool for bool, complex for "
              "complex. Implies a device-to-host synchronisation; numel != 1 is an error.",
    exercised=["_local_scalar_dense"], args=_scalar_args("_local_scalar_dense", (-100, 100)), cost=_scalar_cost,
    own_ops=frozenset({"_local_scalar_dense", "item"}),
    grids={
        "smoke": [c([1], "fp32", value=-1.25), c([], "bf16", value=3.0), c([1], "int64", value=-7),
                  c([1, 1], "fp16", value=0.5), c([1], "bool")],
        "full": product(dtype=["fp16", "fp32", "bf16", "int32", "int64"], shape=[[1]])
        + product(dtype=FLOATS, shape=[[]]),
        "heldout": [c([1, 1, 1], "int32"), c([1], "fp32", view_of=[10, 3]), c([1], "bool", value=True),
                    c([], "fp32", value=-0.0)],
    },
    notes="Values: randn for floats, randint(-100, 100) for ints. Upstream compares 0-d results within 1e-5; here "
          "every result must be exact (the element's value, widened exactly), of the Python type PyTorch returns.",
).facts(counts=Counts(smoke=5, full=8, timed=8, heldout=4))


# ====================================================================================== allocations
def _strides(kind: str, size: Sequence[int]) -> list[int]:
    row = _contig_strides(size)
    if kind == "contig":
        return row
    if kind in ("reversed", "revcontig"):
        return list(reversed(_contig_strides(list(reversed(size)))))
    if kind in ("padded2", "expanded"):
        return [2 * s for s in row]
    raise ValueError(f"unknown stride kind {kind!r}")


def _with_strides(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cases completed with the strides of their ``stride_kind``."""
    return [dict(p, stride=_strides(p["stride_kind"], p["size"])) for p in cases]


def _empty_strided_args(p, device, gen):
    if p.get("overload") == "out":
        out = poison_(torch.empty(0, dtype=dtype_of(p["dtype"]), device=device))
        return _api("empty_strided", "out"), [list(p["size"]), list(p["stride"])], {"out": out}, ("out",)
    kw = {"dtype": dtype_of(p["dtype"]), "device": device}
    return _api("empty_strided"), [list(p["size"]), list(p["stride"])], kw, ()


_ES_SIZES = [[1024], [2, 3], [128, 256], [512, 512], [8, 16, 4]]

EMPTY_STRIDED = ViewOperator(
    "empty_strided", rule=ALLOCATION, category="factory (uninitialised, metadata)",
    semantics="An uninitialised tensor with exactly the given size and stride, dtype and device from the keywords "
              "(dtype None: the default float dtype); its storage covers 1 + sum((size_i - 1) * stride_i) elements. "
              "empty_strided.out(size, stride, out) resizes out to size, which in PyTorch gives contiguous strides "
              "whatever stride says, keeps out's dtype, and returns out.",
    exercised=["empty_strided", "empty_strided.out"], args=_empty_strided_args,
    grids={
        "smoke": [dict(dtype="fp32", size=[2, 3], stride=[1, 2]),
                  dict(dtype="bf16", size=[8, 16, 4], stride=[1, 8, 128]),
                  dict(dtype="fp16", size=[2, 3], stride=[3, 1], overload="out"),
                  dict(dtype="int64", size=[3, 5], stride=[10, 2]),
                  dict(dtype="bool", size=[4, 2], stride=[2, 1], overload="out")],
        "full": _with_strides(product(dtype=FLOATS_32, stride_kind=["contig", "reversed", "padded2"], size=_ES_SIZES))
        + _with_strides(product(overload=["out"], dtype=FLOATS_32, stride_kind=["contig", "reversed", "padded2"],
                                size=_ES_SIZES)),
        "heldout": [dict(dtype="fp16", size=[511, 257], stride=[1, 511]),
                    dict(dtype="fp32", size=[0, 5], stride=[5, 1]),
                    dict(dtype="fp32", size=[7, 17, 31], stride=[1070, 62, 2]),
                    dict(dtype="int32", size=[9, 4], stride=[1, 9], overload="out")],
    },
    own_ops=frozenset({"empty_strided"}),
    notes="Stride kinds: contig (row-major), reversed (column-major), padded2 (row-major x2). Upstream checks the "
          "metadata and then overwrites the contents; here the metadata (sizes, strides, offset 0, dtype, device) "
          "is checked exactly and the contents never (aten.md §6b.7). torch.empty_strided inside the wrapper is "
          "recursion: allocate with torch.empty and view with as_strided.",
).facts(counts=Counts(smoke=5, full=90, timed=90, heldout=4), aliases={"new_empty_strided"})


def _new_empty_strided_args(p, device, gen):
    self_dt = p.get("self_dtype", p["dtype"])
    x = make_tensor([1], self_dt, device, gen)
    if p.get("overload") == "out":
        out = poison_(torch.empty([1], dtype=dtype_of(p["dtype"]), device=device))
        return _api("new_empty_strided", "out"), [x, list(p["size"]), list(p["stride"])], {"out": out}, ("out",)
    kw = {"dtype": dtype_of(p["dtype"])} if p.get("pass_dtype") else {}
    return _api("new_empty_strided"), [x, list(p["size"]), list(p["stride"])], kw, ()


NEW_EMPTY_STRIDED = ViewOperator(
    "new_empty_strided", rule=ALLOCATION, category="factory (uninitialised, metadata)",
    semantics="Like empty_strided(size, stride), with dtype and device defaulting to self's (dtype overrides). "
              ".out(self, size, stride, out) resizes out to size: contiguous strides whatever stride says, out's "
              "dtype, and returns out.",
    exercised=["new_empty_strided", "new_empty_strided.out"], args=_new_empty_strided_args,
    grids={
        "smoke": [dict(pass_dtype=True, dtype="fp32", size=[2, 3], stride=[1, 2]),
                  dict(pass_dtype=False, dtype="bf16", size=[8, 4], stride=[8, 1]),
                  dict(overload="out", dtype="fp16", size=[4, 5], stride=[5, 1]),
                  dict(pass_dtype=False, dtype="int32", size=[3, 3], stride=[1, 3]),
                  dict(pass_dtype=True, dtype="bool", size=[2, 4], stride=[8, 2])],
        "full": _with_strides(product(pass_dtype=[True, False], stride_kind=["contig", "revcontig", "expanded"],
                                      dtype=FLOATS_32, size=LONGTAIL))
        + _with_strides(product(overload=["out"], stride_kind=["contig", "revcontig", "expanded"], dtype=FLOATS_32,
                                size=LONGTAIL)),
        "heldout": [dict(pass_dtype=True, dtype="fp16", size=[511, 257], stride=[1, 511]),
                    dict(pass_dtype=False, dtype="fp32", size=[0, 3], stride=[3, 1]),
                    dict(pass_dtype=True, self_dtype="bf16", dtype="fp32", size=[6, 7], stride=[7, 1])],
    },
    own_ops=frozenset({"new_empty_strided"}),
    notes="self is a randn (1,) tensor of the case dtype (self_dtype where the case overrides the dtype); .out writes "
          "into a (1,) buffer. Stride kinds: contig, revcontig (column-major), expanded (row-major x2, padded). "
          "Upstream checks only values after overwriting both tensors; here sizes, strides, offset 0, dtype and "
          "device are checked exactly and the contents never (aten.md §6b.7).",
).facts(counts=Counts(smoke=5, full=81, timed=81, heldout=3))


# The rows' full-tier counts (Counts.full): aten.md §1, with the pre-damage grids of expand/expand_as (§6b.2);
# narrow keeps 15 of its 18 registry cases (the three 0-d cases return early upstream and call nothing)
OPERATORS: list[ViewOperator] = [
    LOCAL_SCALAR_DENSE, AS_STRIDED, EMPTY_STRIDED, EXPAND, EXPAND_AS, ITEM, NARROW, NEW_EMPTY_STRIDED, RESHAPE,
    SELECT, T, UNSQUEEZE,
]

__all__ = ["OPERATORS", "ViewOperator", "make_input"]
