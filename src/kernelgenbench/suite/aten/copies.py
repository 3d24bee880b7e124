"""The copies family (aten.md §8): ``_to_copy``, ``clone``, ``contiguous``, ``copy_``, ``to``,
``resolve_conj``, ``resolve_neg``, ``cat`` and ``stack``.

Each operator is one :class:`CopyOperator` row: the overloads the tests exercise (every other
overload of the installed PyTorch is read from PyTorch, JIT-only ones marked, Dimname ones PyTorch
2.13 lacks listed as absent), the grids per tier, how a case's arguments are built, the timing gate
and the cost. The family supplies the rest:

* **cases.** ``dict(shape, dtype, ...)``. The input tensor comes from :func:`make_input`:
  ``shape``/``dtype``, a ``layout`` (``contig``, ``transposed``, ``step2``/``step3`` on the last
  dim, ``permuted``; ``slice0_2``/``slice0_3``: ``base[::k]`` along dim 0 of a base of ``shape``,
  as upstream's contiguous test; ``t_slice2``: ``base.t()[::2]`` of a base of ``shape``, as
  upstream's _to_copy stride test; ``perm``: ``base.permute(perm)`` with logical shape ``shape``),
  values (randn x ``scale`` for floats, ``randint`` in ``range`` for integers, 0/1 for bool,
  ``arange`` where upstream uses it), ``pin`` (values written at the leading logical positions:
  specials such as inf, NaN, -0.0, fp16 overflow edges) and ``ties`` (every other element an exact
  rounding tie of the named half type, the rest near ties). ``memory_format`` is passed as
  PyTorch's integer code through ``torch.ops.aten`` entry points (a ``torch.memory_format`` object
  cannot be pickled across the sandbox boundary; the wrapper receives the object).
* **driving.** On GPUs the wrappers are registered at the device key and the public call runs:
  ``torch.ops.aten._to_copy``/``clone`` (as upstream), ``x.contiguous()``, ``dst.copy_(src)``,
  ``x.to(dtype)``, ``x.resolve_conj()``/``x.resolve_neg()``, ``torch.cat``/``torch.stack``. The
  CompositeImplicit ops (``contiguous``, ``to.*``, ``resolve_conj``, ``resolve_neg``) are intercepted
  by the registration (aten.md §4.3); on the interpreter a dispatch mode only sees their
  decomposition, so there the family calls those wrappers directly with the public call's
  arguments. ``Tensor.contiguous()`` returns early in C++ for a contiguous input, so cases where
  PyTorch returns the input itself drive ``torch.ops.aten.contiguous.default``.
* **reference.** The op is exact (aten.md §3: ``assert_equal``), so the reference is PyTorch's own
  result of the same public call on a clone of the inputs, on the verifier's device (CUDA
  conversions on GPUs: round-to-nearest-even narrowing, truncation toward zero for float->int).
* **judging.** Every case is judged bit for bit (``-0.0 == 0.0``; NaN positions must match). Three
  kinds of result:

  - *a new tensor*: dtype, shape, exactly PyTorch's strides and storage offset (``preserve``
    keeps a dense input's strides, a non-dense one gets dense strides in its stride order, as
    ``infer_dense_strides``), no lazy conjugate/negative bit unless PyTorch's result has one,
    PyTorch's device, no storage shared with any input (list members included), exact values;
  - *the input itself* where PyTorch returns it (``x.to(x.dtype)``, ``contiguous`` of a contiguous
    input, ``resolve_conj``/``resolve_neg`` without the bit): the result must be a tensor on the
    input's storage with the input's sizes, strides, storage offset, dtype and bits (an alias
    indistinguishable from the input); no Triton launch is required there;
  - *in place / out=* (``copy_``, ``.out``): the written tensor's whole storage (the addressed
    elements exactly, everything else untouched) and the returned object must be that argument.

  Tensors in a list argument (``cat``/``stack``) must come back unchanged.
* **copies through PyTorch** are the op itself here: ``allow_copies=False`` for every row (L1 and
  L3 reject ``clone``/``copy_``/``_to_copy``/``contiguous`` inside a wrapper).
* **dtypes.** Every dtype a case converts from or to counts (for a platform's dtype limits; the interpreter's
  fp32->bf16 conversion rounds to nearest even since sandbox/interpreter_numerics.py).
* **cost.** bytes = elements read + elements written at their dtypes; no FLOPs.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch

from ..common import flat_tensors, make_tensor, poisoned
from ..compare import SlotResult, compare_values, same_storage, unchanged
from ..spec import EXACT, EXACT_TEXT, Call, Cost, Counts, Expected, dtype_of, numel, product, written_expected
from .family import DIRECT, AtenCase, AtenOperator, elem_bytes, pin_leading, resolve_api, wrappers_of
from .pools import FLOAT3, POINTWISE_SHAPES, SPECIAL_SHAPES

#: The names that reach ``_to_copy`` through ``Tensor.to`` and its dtype/device shorthands (aten.md §4 item 5):
#: the recursion aliases of ``_to_copy``, ``to`` and ``copy_`` (``Operator.aliases``).
TO_FAMILY: frozenset[str] = frozenset(
    {"to", "float", "half", "double", "bfloat16", "int", "long", "short", "char", "byte", "bool", "cpu", "cuda", "type",
     "type_as"})

#: PyTorch's integer codes of ``MemoryFormat`` (what ``torch.ops.aten`` accepts for a memory format).
MEMORY_FORMATS = {"contiguous": 0, "preserve": 1, "channels_last": 2, "channels_last_3d": 3}

#: the public method calls of CompositeImplicit overloads and the wrapper each reaches
_PUBLIC_COMPOSITE = {"torch.Tensor.contiguous": "contiguous", "torch.Tensor.to": "to_dtype",
                     "torch.Tensor.resolve_conj": "resolve_conj", "torch.Tensor.resolve_neg": "resolve_neg"}


# -- inputs ---------------------------------------------------------------------------------------
def _base_shape(p: dict[str, Any]) -> list[int]:
    """The shape of the buffer an input is a view of (``perm``: the permuted base)."""
    shape = list(p["shape"])
    if "perm" in p:
        base = [0] * len(shape)
        for i, d in enumerate(p["perm"]):
            base[d] = shape[i]
        return base
    return shape


def input_shape(p: dict[str, Any]) -> list[int]:
    """The logical shape of a case's input (``slice0_k``/``t_slice2`` layouts slice their base)."""
    shape = list(p["shape"])
    layout = p.get("layout", "contig")
    if layout.startswith("slice0_"):
        k = int(layout[-1])
        return [-(-shape[0] // k)] + shape[1:]
    if layout == "t_slice2":
        return [-(-shape[1] // 2), shape[0]]
    return shape


def _ties(x: torch.Tensor, target: str) -> torch.Tensor:
    """fp32 values at exact rounding ties of ``target`` (fp16/bf16) at even positions and one fp32
    ulp beside a tie at odd positions (both directions), from the magnitudes of ``x``."""
    t = x.to(dtype_of(target)).to(torch.float32)
    t = torch.where(t == 0, torch.ones_like(t), t)
    a = t.abs().to(torch.float64)
    mant = 10 if target == "fp16" else 7
    lo = 2.0 ** -14 if target == "fp16" else 2.0 ** -126
    a = a.clamp(lo, 60000.0 if target == "fp16" else 1e30)
    half_ulp = torch.pow(2.0, torch.floor(torch.log2(a)) - mant - 1)
    tie = (t.to(torch.float64).sign() * (a + half_ulp)).to(torch.float32)
    flat = torch.arange(x.numel(), device=x.device).reshape(x.shape)
    nudge = torch.where(flat % 4 == 1, torch.full_like(tie, math.inf), torch.full_like(tie, -math.inf))
    near = torch.nextafter(tie, nudge)
    return torch.where(flat % 2 == 0, tie, near)


def make_input(p: dict[str, Any], device: torch.device, gen: torch.Generator, *, dtype_key: str = "dtype",
               shape: Sequence[int] | None = None, layout: str | None = None) -> torch.Tensor:
    """The input tensor of a case (keys: see the module docstring).

    Args:
        p: the case parameters.
        dtype_key: the key naming the tensor's dtype.
        shape, layout: overrides of ``p["shape"]`` and ``p["layout"]`` (list members of cat/stack).
    """
    q = dict(p)
    if shape is not None:
        q["shape"] = list(shape)
        q.pop("perm", None)
    if layout is not None:
        q["layout"] = layout
    dt = dtype_of(q[dtype_key])
    lay = q.get("layout", "contig")
    lo, hi = q.get("range", (-100, 100))
    if q.get("values") == "arange":
        x = torch.arange(numel(input_shape(q)), device=device).reshape(input_shape(q))
        x = x.to(dt) if dt != torch.bool else (x % 3 == 1)
        return x
    mk_layout = lay if lay in ("contig", "transposed", "step2", "step3", "permuted") else "contig"
    base_shape = _base_shape(q)
    if lay == "t_slice2":
        base_shape = list(q["shape"])
    x = make_tensor(base_shape, dt, device, gen, layout=mk_layout, low=lo, high=hi)
    if dt.is_floating_point and q.get("scale", 1) != 1:
        x = (x.to(torch.float32) * q["scale"]).to(dt)
    if "ties" in q:
        x.copy_(_ties(x, q["ties"]))
    if lay.startswith("slice0_"):
        x = x[:: int(lay[-1])]
    elif lay == "t_slice2":
        x = x.transpose(0, 1)[::2]
    elif "perm" in q:
        x = x.permute(*q["perm"])
    if "pin" in q:
        pin_leading(x, q["pin"])
    return x


# -- judging --------------------------------------------------------------------------------------
def _bits(t: torch.Tensor) -> str:
    return ", ".join(n for n, on in (("conjugate", t.is_conj()), ("negative", t.is_neg())) if on) or "none"


def fresh_result(ref: torch.Tensor) -> Expected:
    """The returned tensor must be a new tensor exactly like PyTorch's ``ref`` (module docstring)."""
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, torch.Tensor):
            return SlotResult(False, f"return: expected a tensor, got {type(actual).__name__}")
        if actual.dtype != ref.dtype:
            return SlotResult(False, f"return: dtype {actual.dtype} != expected {ref.dtype}")
        if tuple(actual.shape) != tuple(ref.shape):
            return SlotResult(False, f"return: shape {tuple(actual.shape)} != expected {tuple(ref.shape)}")
        got, want = (actual.stride(), actual.storage_offset()), (ref.stride(), ref.storage_offset())
        if got != want:
            return SlotResult(False, f"return: strides {got[0]} and storage offset {got[1]} != PyTorch's {want[0]} "
                                     f"and {want[1]} (the result's layout must be exactly PyTorch's: memory_format "
                                     f"rules, aten.md § aten::clone)", rule="exact (layout)")
        if (actual.is_conj(), actual.is_neg()) != (ref.is_conj(), ref.is_neg()):
            return SlotResult(False, f"return: lazy bits {_bits(actual)} != expected {_bits(ref)} (the result must "
                                     f"hold materialised values)")
        dev = outputs.get("ret_devices")
        if isinstance(dev, str) and dev.split(":", 1)[0] != ref.device.type:
            return SlotResult(False, f"return: on device {dev!r}, expected {ref.device.type!r}")
        if actual.untyped_storage().nbytes() and any(
                same_storage(actual, t) for t in flat_tensors([outputs.get("args"), outputs.get("kwargs")])):
            return SlotResult(False, "return: shares the storage of an argument; PyTorch returns a new tensor here")
        return compare_values(actual, ref, EXACT, 1.0, "return")

    return Expected("return", ref, EXACT, check=check)


def returns_self(ref: torch.Tensor, why: str) -> Expected:
    """The returned tensor must be the input (argument 0) itself, as PyTorch returns it."""
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        args = outputs.get("args") or []
        x = args[0] if args else None
        if not isinstance(actual, torch.Tensor) or not isinstance(x, torch.Tensor):
            return SlotResult(False, f"return: expected the input tensor itself, got {type(actual).__name__}")
        same = (same_storage(actual, x) and actual.dtype == x.dtype and actual.shape == x.shape
                and actual.stride() == x.stride() and actual.storage_offset() == x.storage_offset()
                and (actual.is_conj(), actual.is_neg()) == (x.is_conj(), x.is_neg()))
        if not same:
            return SlotResult(False, f"return: PyTorch returns the input itself here ({why}); got a different tensor "
                                     f"(a copy or another view)", rule="the input itself")
        return SlotResult(True, rule="the input itself")

    return Expected("return", None, EXACT, check=check)


def list_unchanged(before: Sequence[torch.Tensor], slot: str = "arg.0") -> Expected:
    """Every tensor of a list argument must come back bit-identical (the verifier checks top-level
    tensor arguments itself; members of a list are checked here)."""
    kept = list(before)

    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, (list, tuple)) or len(actual) != len(kept):
            return SlotResult(False, f"{slot}: the tensor list argument came back changed")
        for i, (b, a) in enumerate(zip(kept, actual)):
            res = unchanged(b, a, f"{slot}[{i}]")
            if not res.ok:
                return res
        return SlotResult(True, rule="unchanged")

    return Expected(slot, None, EXACT, check=check)


# -- the row class --------------------------------------------------------------------------------
class CopyOperator(AtenOperator):
    """One row of the family (see the module docstring).

    Args:
        name: the op (``"clone"``).
        exercised: the overload keys the full tier drives (``"to.dtype"``).
        args: ``args(params, device, gen) -> AtenCase`` of a case (``needs_launch=False`` where
            PyTorch returns the input itself or the result is empty).
        absent: overloads the prompt lists that PyTorch 2.13 lacks (``{overload: schema}``).
        cost: bytes of a case.
        timed: the timing gate of full-tier cases (default: every case).
        own_ops: ATen op names that count as the op itself.
    """

    def __init__(self, name: str, *, category: str, semantics: str, exercised: Sequence[str],
                 grids: dict[str, list[dict[str, Any]]], args: Callable[..., AtenCase],
                 cost: Callable[[dict[str, Any]], Cost], timed: Callable[[dict[str, Any]], bool] = lambda p: True,
                 absent: dict[str, str] | None = None, own_ops: frozenset[str] | None = None,
                 notes: str = "") -> None:
        wrappers = wrappers_of(name, exercised, absent, dispatcher_first=True)
        super().__init__(name, category=category, semantics=semantics, wrappers=wrappers, grids=grids, build=args,
                         reference=self._reference_of, cost=cost, timed=timed, own_ops=own_ops,
                         allow_copies=False, notes=notes)
        self.tolerance_text = (EXACT_TEXT + "; new tensors must have PyTorch's exact strides and storage offset, and "
                               "where PyTorch returns the input itself the result must be that tensor")

    def tensor_dtypes(self, params: dict[str, Any]) -> set[torch.dtype]:
        """Every dtype the case reads or writes (casts count on both sides)."""
        out = set()
        for k in ("dtype", "target", "src_dtype", "other_dtype", "out_dtype"):
            if params.get(k) is not None:
                out.add(dtype_of(params[k]))
        for d in params.get("dtypes") or ():
            out.add(dtype_of(d))
        return out

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        api = str(call.api)
        if not api.startswith(DIRECT):
            # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
            name = _PUBLIC_COMPOSITE.get(api)
            if name is None and api.startswith("torch.ops.aten."):
                op, _, ov = api[len("torch.ops.aten."):].partition(".")
                ov = ov or "default"
                qual = f"aten::{op}" + ("" if ov == "default" else f".{ov}")
                if torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd"):
                    name = op if ov == "default" else f"{op}_{ov}"
            if name is not None:
                args, kwargs = _as_dispatched(api, call.args, call.kwargs)
                return name, args, kwargs
        return super().interpreter_route(call)

    def _reference_of(self, p: dict[str, Any], call: Call) -> list[Expected]:
        before = call.clone()
        ref = resolve_api(str(call.api))(*call.args, **call.kwargs)
        expected: list[Expected] = []
        if call.written:
            for slot in call.written:
                key = f"arg.{slot}"
                mutated = call.get(slot)
                expected.append(written_expected(key, mutated, mutated, EXACT))
                expected.append(Expected("return", None, EXACT, alias=key))
        elif _is_input(ref, call.args[0] if call.args else None):
            expected.append(returns_self(ref, p.get("why", "nothing changes")))
        else:
            expected.append(fresh_result(ref))
        for i, a in enumerate(before.args):
            if isinstance(a, (list, tuple)):
                expected.append(list_unchanged(a, f"arg.{i}"))
        return expected


_MEMORY_FORMAT_OBJECTS = {0: torch.contiguous_format, 1: torch.preserve_format, 2: torch.channels_last,
                          3: torch.channels_last_3d}


def _as_dispatched(api: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The arguments as the dispatcher hands them to a registered wrapper: a ``MemoryFormat`` given as
    its integer code becomes the ``torch.memory_format`` object, a ``Device`` given as a string a
    ``torch.device`` (direct calls on the interpreter see what the GPU registration sees)."""
    if not api.startswith("torch.ops.aten."):
        return list(args), dict(kwargs)
    op, _, ov = api[len("torch.ops.aten."):].partition(".")
    schema = getattr(getattr(torch.ops.aten, op), ov or "default")._schema

    def conv(arg: Any, value: Any) -> Any:
        kind = str(getattr(arg, "real_type", arg.type))
        if "MemoryFormat" in kind and isinstance(value, int) and not isinstance(value, bool):
            return _MEMORY_FORMAT_OBJECTS[value]
        if "Device" in kind and isinstance(value, str):
            return torch.device(value)
        return value

    by_name = {a.name: a for a in schema.arguments}
    out_args = [conv(a, v) for a, v in zip(schema.arguments, args)]
    out_kwargs = {k: conv(by_name[k], v) if k in by_name else v for k, v in kwargs.items()}
    return out_args, out_kwargs


def _is_input(ref: Any, x: Any) -> bool:
    """Whether PyTorch's result is the input tensor itself (same storage, sizes, strides, offset)."""
    return (isinstance(ref, torch.Tensor) and isinstance(x, torch.Tensor) and (ref is x or (
        same_storage(ref, x) and ref.shape == x.shape and ref.stride() == x.stride()
        and ref.storage_offset() == x.storage_offset() and ref.dtype == x.dtype)))


def _mf_kwargs(p: dict[str, Any]) -> dict[str, Any]:
    return {"memory_format": MEMORY_FORMATS[p["memory_format"]]} if "memory_format" in p else {}


# ======================================================================================== _to_copy
def _to_copy_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    if p.get("overload") == "out":
        out = poisoned(x.shape, dtype_of(p["target"]), device, p.get("out_layout", "contig"))
        return AtenCase("torch.ops.aten._to_copy.out", [x], {**_mf_kwargs(p), "out": out}, ("out",))
    return AtenCase("torch.ops.aten._to_copy.default", [x], {"dtype": dtype_of(p["target"]), **_mf_kwargs(p)})


def _cast_cost(p: dict[str, Any]) -> Cost:
    n = numel(input_shape(p))
    return Cost(0.0, float(n * (elem_bytes(p["dtype"]) + elem_bytes(p.get("target", p["dtype"])))))


_F16_EDGES = [65504.0, 65519.99609375, 65520.0, -65520.0, 1e-8, 2.9802322387695312e-08, 2.98023259e-08,
              6.103515625e-05, float("nan"), float("inf"), float("-inf"), -0.0, 0.0, -2.5, 3.5]

TO_COPY = CopyOperator(
    "_to_copy", category="copy / dtype cast",
    semantics="A new tensor (never an alias, even when nothing changes) holding self's values converted to dtype "
              "(default: self's dtype): float narrowing rounds to nearest-even (fp64 and integer sources round to "
              "fp32 first when the target is fp16/bf16, as PyTorch's conversions do), float->int truncates toward "
              "zero, numeric->bool is x != 0, bool->numeric is 0/1. memory_format None/preserve keeps a "
              "non-overlapping dense self's strides, else gives dense strides in self's stride order (infer_dense_"
              "strides: (8,8) with strides (2,16) -> (1,8)); contiguous_format/channels_last give those layouts. "
              "_to_copy.out converts into out's dtype.",
    exercised=["_to_copy"], args=_to_copy_args, cost=_cast_cost,
    own_ops=frozenset({"_to_copy", "to"}),
    grids={
        "smoke": [
            dict(shape=[17, 33], dtype="fp32", target="fp16"),
            dict(shape=[], dtype="fp16", target="fp32"),
            dict(shape=[64, 65], dtype="fp32", target="bf16", ties="bf16"),
            dict(shape=[8, 16], layout="t_slice2", dtype="fp32", target="fp32", memory_format="preserve"),
            dict(shape=[64, 65], dtype="fp32", target="fp16", ties="fp16", overload="out"),
            dict(shape=[7, 9], dtype="int32", target="bool", range=(-2, 3)),
        ],
        "full": [dict(shape=s, dtype="fp16" if t == "fp32" else "fp32", target=t)
                 for t in ["fp16", "fp32", "bf16", "fp64"] for s in POINTWISE_SHAPES]
        + [dict(shape=[8, 16], layout="t_slice2", dtype="fp32", target="fp32", memory_format=mf)
           for mf in ("preserve", "contiguous")],
        "heldout": [
            dict(shape=[511, 257], dtype="fp32", target="fp64"),
            dict(shape=[5, 7, 11, 13], perm=[3, 1, 0, 2], dtype="bf16", target="fp32"),
            dict(shape=[7, 17, 31], dtype="fp32", target="int32", scale=100.0),
            dict(shape=[33, 17], dtype="fp32", target="fp16", scale=1000.0, pin=_F16_EDGES),
            dict(shape=[129, 65], layout="step2", dtype="fp16", target="int16", scale=50.0, overload="out"),
            dict(shape=[6, 5, 4, 3], perm=[0, 2, 3, 1], dtype="fp64", target="fp16", memory_format="channels_last"),
        ],
    },
    notes="Grid: upstream HEAD (aten.md § aten::_to_copy), 26 cases, all timed: the dtype-cast test (the source is "
          "fp32, or fp16 when the target is fp32) and the stride test on randn(8, 16).t()[::2] (shape (8, 8), strides "
          "(2, 16)) with preserve_format and contiguous_format. Upstream asserts strides only with preserve; here "
          "every result must have PyTorch's strides exactly. fp64 and integer sources convert to fp16/bf16 through "
          "fp32 (PyTorch's c10::Half/BFloat16 take a float: two roundings), which a direct fp64->fp16 conversion "
          "does not match. NaN/inf/out-of-range float->int conversions are undefined and differ between CPU and "
          "CUDA PyTorch, so no case has them (fp16 overflow and NaN/inf in float->float casts are defined and are "
          "in the held-out tier). Inside the wrapper .to(), .float(), .half(), .cpu() and .type() are dispatch "
          "recursion.",
).facts(
    counts=Counts(smoke=6, full=26, timed=26, heldout=6), aliases=TO_FAMILY)


# ============================================================================================ clone
def _clone_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    if p.get("overload") == "out":
        out = poisoned(x.shape, x.dtype, device, p.get("out_layout", "contig"))
        return AtenCase("torch.ops.aten.clone.out", [x], {**_mf_kwargs(p), "out": out}, ("out",))
    return AtenCase("torch.ops.aten.clone.default", [x], _mf_kwargs(p),
                    needs_launch=x.numel() > 0)


def _copy_cost(p: dict[str, Any]) -> Cost:
    return Cost(0.0, float(2 * numel(input_shape(p)) * elem_bytes(p["dtype"])))


CLONE = CopyOperator(
    "clone", category="copy",
    semantics="A new tensor with self's values, never aliasing self. memory_format None/preserve keeps a "
              "non-overlapping dense self's strides (a transposed (16, 8) input keeps (1, 16)); a non-dense self gets "
              "dense strides in its stride order (infer_dense_strides); contiguous_format, channels_last and "
              "channels_last_3d give those layouts. clone.out copies into out (resized if its shape differs).",
    exercised=["clone"], args=_clone_args, cost=_copy_cost,
    grids={
        "smoke": [
            dict(shape=[17, 33], dtype="fp32"),
            dict(shape=[], dtype="int64"),
            dict(shape=[16, 8], layout="transposed", dtype="bf16", memory_format="preserve"),
            dict(shape=[16, 8], layout="transposed", dtype="fp16", memory_format="contiguous"),
            dict(shape=[9, 5], layout="step2", dtype="bool", overload="out"),
        ],
        "full": product(dtype=["fp16", "fp32", "bf16", "int32", "int64"], shape=POINTWISE_SHAPES)
        + product(dtype=FLOAT3, memory_format=["contiguous", "preserve"], shape=[[16, 8]], layout=["transposed"]),
        "heldout": [
            dict(shape=[511, 257], layout="step2", dtype="int32"),
            dict(shape=[5, 7, 11, 13], perm=[3, 1, 0, 2], dtype="fp16"),
            dict(shape=[2, 3, 4, 5, 6], dtype="bf16"),
            dict(shape=[2, 5, 7, 3], dtype="fp32", memory_format="channels_last"),
            dict(shape=[16, 12], layout="t_slice2", dtype="int64", overload="out", out_layout="transposed"),
        ],
    },
    notes="Grid: upstream HEAD, 36 cases, all timed (the bare call). The memory-format test's input is "
          "randn(8, 16).t() (shape (16, 8), strides (1, 16)); upstream checks only is_contiguous() for "
          "contiguous_format and only values for preserve, here every result must have PyTorch's strides (preserve: "
          "(1, 16)), aten.md §6b.7. x.clone(), torch.clone and x.contiguous() inside the wrapper are dispatch "
          "recursion or a copy through PyTorch.",
).facts(counts=Counts(smoke=5, full=36, timed=36, heldout=5), aliases={"contiguous"})


# ======================================================================================= contiguous
def _contiguous_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    kw = _mf_kwargs(p)
    fmt = {0: torch.contiguous_format, 2: torch.channels_last, 3: torch.channels_last_3d}[kw.get("memory_format", 0)]
    if x.is_contiguous(memory_format=fmt):
        # PyTorch returns self; Tensor.contiguous() would not even dispatch, so drive the op entry point
        return AtenCase("torch.ops.aten.contiguous.default", [x], kw, needs_launch=False)
    if kw:
        return AtenCase("torch.ops.aten.contiguous.default", [x], kw)
    return AtenCase("torch.Tensor.contiguous", [x])


CONTIGUOUS = CopyOperator(
    "contiguous", category="copy (memory layout, composite)",
    semantics="self itself when self is already contiguous in memory_format (default contiguous_format); otherwise "
              "a new tensor with self's values in that format (contiguous strides like torch.empty(shape); "
              "channels_last for 4-D). preserve_format is an error. CompositeImplicit in PyTorch; the registered "
              "wrapper intercepts it.",
    exercised=["contiguous"], args=_contiguous_args,
    cost=lambda p: Cost(0.0, 0.0) if numel(input_shape(p)) <= 1 or "why" in p else _copy_cost(p),
    timed=lambda p: numel(input_shape(p)) > 1,
    grids={
        "smoke": [
            dict(shape=[8, 33], layout="slice0_2", dtype="fp32", range=(-10000, 10000)),
            dict(shape=[6, 5, 7], layout="slice0_2", dtype="int64", range=(-10000, 10000)),
            dict(shape=[64, 3], layout="transposed", dtype="bf16"),
            dict(shape=[4, 6], dtype="fp16", why="the input is already contiguous"),
            dict(shape=[5, 4], layout="transposed", dtype="bool"),
        ],
        "full": product(dtype=["fp16", "fp32", "bf16", "int16", "int32", "int64"], shape=SPECIAL_SHAPES,
                        layout=["slice0_2"], range=[(-10000, 10000)]),
        "heldout": [
            dict(shape=[511, 257], layout="slice0_3", dtype="fp16"),
            dict(shape=[5, 7, 11, 13], perm=[3, 1, 0, 2], dtype="int16", range=(-10000, 10000)),
            dict(shape=[7, 17, 31], dtype="fp32", why="the input is already contiguous"),
            dict(shape=[2, 3, 5, 4], dtype="fp32", memory_format="channels_last"),
        ],
    },
    notes="Grid: upstream HEAD, 30 cases: x[::2] of SPECIAL_SHAPES (the (16, 128, 64, 1280) base is 168M "
          "elements) over six dtypes, ints randint(-10000, 10000). The six (1,) cases are contiguous after slicing: "
          "upstream returns before calling anything; here they check PyTorch's answer, the input itself, through "
          "torch.ops.aten.contiguous.default (Tensor.contiguous() returns early in C++ without dispatching), "
          "untimed, so the count stays 30 with 24 timed. Results must have contiguous strides exactly; where PyTorch "
          "returns self the candidate must return self (an alias with the same sizes, strides and offset). Never "
          "call .contiguous() inside (recursion); .clone() is a copy through PyTorch.",
).facts(counts=Counts(smoke=5, full=30, timed=24, heldout=4))


# ============================================================================================ copy_
def _copy__args(p, device, gen) -> AtenCase:
    src_p = dict(p, dtype=p.get("src_dtype", p["dtype"]), shape=p.get("src_shape", p["shape"]),
                 layout=p.get("src_layout", "contig"))
    src_p.pop("perm", None)
    src = make_input(src_p, device, gen)
    dst = poisoned(p["shape"], dtype_of(p["dtype"]), device, p.get("dst_layout", "contig"))
    return AtenCase("torch.Tensor.copy_", [dst, src], {}, (0,), needs_launch=dst.numel() > 0)


def _copy__cost(p: dict[str, Any]) -> Cost:
    return Cost(0.0, float(numel(p.get("src_shape", p["shape"])) * elem_bytes(p.get("src_dtype", p["dtype"]))
                           + numel(p["shape"]) * elem_bytes(p["dtype"])))


COPY_ = CopyOperator(
    "copy_", category="copy (in-place, with cast and broadcast)",
    semantics="self <- src in place, returning self: src broadcasts to self's shape; values convert to self's dtype "
              "(float narrowing rounds to nearest-even, float->int truncates toward zero, bool->number gives 0/1, "
              "number->bool is x != 0); self and src may have any strides; non_blocking is ignored. copy_.Tensor, "
              "copy_.int and copy_.float are TorchScript-only (self.copy_(other) and a fill with the number).",
    exercised=["copy_"], args=_copy__args, cost=_copy__cost,
    own_ops=frozenset({"copy_", "_copy_from", "_copy_from_and_resize"}),
    grids={
        "smoke": [
            dict(shape=[17, 33], dtype="fp32"),
            dict(shape=[2, 3], src_shape=[3], dtype="fp32", values="arange"),
            dict(shape=[8], dtype="fp32", src_dtype="int32", values="arange"),
            dict(shape=[8], dtype="fp32", src_dtype="bool", values="arange"),
            dict(shape=[6, 10], dtype="fp16", src_dtype="fp32", dst_layout="transposed"),
            dict(shape=[33, 20], dtype="bf16"),
        ],
        "full": product(dtype=FLOAT3, shape=POINTWISE_SHAPES)
        + [dict(shape=[2, 3], src_shape=[3], dtype="fp32", values="arange"),
           dict(shape=[8], dtype="fp32", src_dtype="int32", values="arange"),
           dict(shape=[8], dtype="int32", src_dtype="fp32", values="arange"),
           dict(shape=[8], dtype="fp32", src_dtype="int16", values="arange"),
           dict(shape=[8], dtype="fp32", src_dtype="bool", values="arange")],
        "heldout": [
            dict(shape=[511, 257], dtype="fp16", src_dtype="bf16"),
            dict(shape=[257, 511], dtype="fp32", dst_layout="transposed"),
            dict(shape=[7, 17, 31], dtype="int16", src_dtype="fp32", scale=3.0, pin=[2.7, -2.7, 0.5, -0.5, -0.0]),
            dict(shape=[4, 3, 5], src_shape=[1, 5], dtype="int32", src_dtype="int64"),
            dict(shape=[9, 33], dtype="bool", src_dtype="fp16", src_layout="step2", dst_layout="step2",
                 pin=[0.0, -0.0, 1.0, float("nan")]),
        ],
    },
    notes="Grid: upstream HEAD, 23 cases, all timed: the same-dtype test (18), the broadcast test (arange(3) into "
          "(2, 3)), the int32->fp32 fallback test and the three mixed-dtype tests (fp32->int32, int16->fp32, a "
          "bool pattern->fp32, on arange(8)). Upstream's destination is zeros_like; here it is poisoned, so every "
          "element must be written (stronger). The harness's own host<->device tensor transfers never reach the "
          "registered wrapper (they would arrive as cross-device copy_ calls). Inside the wrapper .clone(), "
          ".contiguous(), .to() and .copy_() all reach copy_ again.",
).facts(
    counts=Counts(smoke=6, full=23, timed=23, heldout=5), aliases=TO_FAMILY | {"clone", "contiguous"})


# =============================================================================================== to
def _to_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    target = dtype_of(p.get("target", p["dtype"]))
    ov = p.get("overload", "dtype")
    if ov == "dtype" and not p.get("copy") and "memory_format" not in p:
        return AtenCase("torch.Tensor.to", [x, target], needs_launch=target != x.dtype)
    if ov == "dtype":
        args = [x, target, False, bool(p.get("copy"))]
        if "memory_format" in p:
            args.append(MEMORY_FORMATS[p["memory_format"]])
        case = AtenCase("torch.ops.aten.to.dtype", args)
    elif ov == "other":
        other = make_input(dict(shape=[2], dtype=p["other_dtype"]), device, gen)
        case = AtenCase("torch.ops.aten.to.other", [x, other])
    elif ov == "device":
        case = AtenCase("torch.ops.aten.to.device", [x, device.type, target])
    elif ov == "dtype_layout":
        case = AtenCase("torch.ops.aten.to.dtype_layout", [x], {"dtype": target})
    else:
        raise ValueError(f"aten::to: unknown overload {ov!r}")
    # a launch is needed unless PyTorch answers with the input itself
    case.needs_launch = not _is_input(resolve_api(case.api)(*case.args, **case.kwargs), x)
    return case


TO = CopyOperator(
    "to", category="copy / dtype cast (composite)",
    semantics="to.dtype(self, dtype, non_blocking=False, copy=False, memory_format=None) returns self itself when "
              "dtype matches, copy is False and memory_format is None/preserve or equals self's suggested format; "
              "otherwise _to_copy(self, dtype=..., memory_format=...): a new tensor, float narrowing rounds to "
              "nearest-even, float->int truncates toward zero, preserve keeps a dense self's strides. to.device(self, "
              "device, dtype, ...), to.other(self, other, ...) (other's dtype and device) and to.dtype_layout(self, *, "
              "dtype, layout, device, pin_memory, ...) follow the same rule; prim_* forms are TorchScript-only. "
              "CompositeImplicit in PyTorch; the registered wrappers intercept them.",
    exercised=["to.dtype"], args=_to_args, cost=lambda p: Cost(0.0, 0.0) if p.get("target", p["dtype"]) == p["dtype"]
    and not p.get("copy") else _cast_cost(p),
    timed=lambda p: p["target"] != p["dtype"],
    own_ops=frozenset({"to", "_to_copy"}),
    grids={
        "smoke": [
            dict(shape=[64, 33], dtype="fp32", target="fp16"),
            dict(shape=[], dtype="fp16", target="bf16"),
            dict(shape=[17], dtype="fp32", target="int32", scale=50.0),
            dict(shape=[8, 8], dtype="fp16", target="fp16", why="x.to(x.dtype) returns x"),
            dict(shape=[5, 6], dtype="bool", target="fp32", overload="dtype_layout"),
            dict(shape=[3, 7], layout="transposed", dtype="fp32", other_dtype="int32", overload="other"),
            dict(shape=[6], dtype="int32", target="fp16", overload="device"),
        ],
        "full": [dict(target=t, dtype=s, shape=sh) for t in ["fp16", "bf16", "fp32", "int32"]
                 for s in ["fp32", "fp16"] for sh in POINTWISE_SHAPES],
        "heldout": [
            dict(shape=[511, 257], dtype="fp32", target="bf16", ties="bf16"),
            dict(shape=[7, 17, 31], layout="transposed", dtype="fp16", target="fp32"),
            dict(shape=[5, 7, 11, 13], dtype="fp32", other_dtype="fp32", overload="other",
                 why="to.other with other's dtype and device returns self"),
            dict(shape=[65, 33], dtype="fp32", target="fp32", copy=True, overload="dtype"),
            dict(shape=[33, 65], layout="transposed", dtype="fp32", target="fp32", memory_format="contiguous",
                 overload="dtype", why="PyTorch aliases when memory_format equals self's suggested format"),
            dict(shape=[129, 31], dtype="fp32", target="int16", scale=200.0, overload="dtype_layout"),
        ],
    },
    notes="Grid: upstream HEAD, 48 cases (dst fp16/bf16/fp32/int32 x src fp32/fp16 x POINTWISE_SHAPES). The 12 "
          "same-dtype cases return the input itself in PyTorch: judged as such (the result must be the input: same "
          "storage, sizes, strides, offset), no launch required, and untimed (36 timed): upstream's number for them "
          "is the clone inside its timing lambda; without it only a Python wrapper's dispatch against C++'s early "
          "return would be timed. Upstream compares float destinations with rtol/atol; the cast is exactly defined "
          "(round-to-nearest-even) and the reference is PyTorch's own cast on the same device, so every destination "
          "is compared exactly here, as for _to_copy. to.device cases pass the device as its type string (\"cuda\" "
          "or \"cpu\": the current device). Inside the wrapper .to(), .float(), .half() and .type() are dispatch "
          "recursion.",
).facts(
    counts=Counts(smoke=7, full=48, timed=36, heldout=6), aliases=TO_FAMILY)


# ===================================================================================== resolve_conj
def _resolve_conj_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    if p.get("conj", True):
        x = x.conj()
    return AtenCase("torch.Tensor.resolve_conj", [x], needs_launch=x.is_conj() and x.numel() > 0)


RESOLVE_CONJ = CopyOperator(
    "resolve_conj", category="copy (materialise the conjugate bit, composite)",
    semantics="If self.is_conj(): a new tensor holding the conjugated values with the bit cleared (a conj-bit "
              "tensor's memory holds the unconjugated values), laid out as clone() lays it out (preserve: a dense "
              "view keeps its strides). Otherwise self itself. CompositeImplicit in PyTorch.",
    exercised=["resolve_conj"], args=_resolve_conj_args,
    cost=lambda p: Cost(0.0, float(2 * numel(input_shape(p)) * elem_bytes(p["dtype"])) if p.get("conj", True) else 0.0),
    grids={
        "smoke": [
            dict(shape=[17], dtype="c64"),
            dict(shape=[4, 8], dtype="c64", conj=False, why="resolve_conj of a tensor without the bit returns self"),
            dict(shape=[], dtype="c64"),
        ],
        "full": product(dtype=["c64"], shape=SPECIAL_SHAPES),
        "heldout": [
            dict(shape=[511, 257], dtype="c64"),
            dict(shape=[64, 33], layout="transposed", dtype="c64"),
            dict(shape=[5, 7, 11, 13], dtype="c64"),
            dict(shape=[31, 9], layout="step2", dtype="c128"),
        ],
    },
    notes="Pre-damage grid (aten.md §6b.2): 5 cases, randn complex64 with the conjugate bit (x.conj()), all timed. "
          "Upstream asserted only that the bit is cleared; here the values are compared exactly with "
          "y.resolve_conj(), the result must have no bit, PyTorch's strides and its own storage (aten.md §6b.7), and "
          "a tensor without the bit must come back as itself. PyTorch 2.13 lays the result out like clone() "
          "(preserve), not in the suggested memory format. Reading a conj-bit tensor's memory: self.real is a "
          "bit-free fp32 view of the stored real parts (imag at +1 element); torch.view_as_real refuses conj-bit "
          "tensors.",
).facts(counts=Counts(smoke=3, full=5, timed=5, heldout=4))


# ====================================================================================== resolve_neg
def _resolve_neg_args(p, device, gen) -> AtenCase:
    x = make_input(p, device, gen)
    if x.is_complex():
        x = x.conj().imag  # a real strided view with the negative bit
    return AtenCase("torch.Tensor.resolve_neg", [x], needs_launch=x.is_neg() and x.numel() > 0)


RESOLVE_NEG = CopyOperator(
    "resolve_neg", category="copy (materialise the negative bit, composite)",
    semantics="If self.is_neg(): a new tensor holding the negated stored values with the bit cleared, laid out as "
              "clone() lays it out (a non-dense view gets dense strides in its stride order). Otherwise self itself. "
              "The bit arises e.g. from x.conj().imag of a complex x: a real view with stride 2 and storage offset 1 "
              "whose value is -(stored value). CompositeImplicit in PyTorch.",
    exercised=["resolve_neg"], args=_resolve_neg_args,
    cost=lambda p: Cost(0.0, float(2 * numel(input_shape(p)) * 4) if p["dtype"] == "c64" else 0.0),
    grids={
        "smoke": [
            dict(shape=[17], dtype="c64"),
            dict(shape=[4, 8], dtype="fp32", why="resolve_neg of a tensor without the bit returns self"),
            dict(shape=[], dtype="c64"),
        ],
        "full": product(dtype=["c64"], shape=SPECIAL_SHAPES),
        "heldout": [
            dict(shape=[511, 257], dtype="c64"),
            dict(shape=[1024, 1024], layout="transposed", dtype="c64"),
            dict(shape=[2, 3, 4, 5, 6], dtype="c64"),
        ],
    },
    notes="Pre-damage grid (aten.md §6b.2): 5 cases, z = x.conj().imag of a randn complex64 x (an fp32 view with the "
          "negative bit, strides 2x the complex ones, storage offset 1), all timed. Upstream asserted only that the "
          "bit is cleared; here the values are compared exactly with z.resolve_neg(), the result must have no bit, "
          "PyTorch's strides (dense, same order) and its own storage, and a tensor without the bit must come back "
          "as itself. A Triton kernel reads the stored values through the view's pointer and strides.",
).facts(counts=Counts(smoke=3, full=5, timed=5, heldout=3))


# ============================================================================================== cat
def _cat_shape_dims() -> list[tuple[list[list[int]], int]]:
    """Upstream's gen_cat_shapes_dim(CAT_SHAPES): each list at dim 0, then for every d >= 1 the list with dims 0
    and d swapped, at d and at d - rank (26 pairs)."""
    cat_shapes = [[[1, 32], [8, 32]], [[16, 128], [32, 128]], [[1024, 1024], [1024, 1024]],
                  [[1, 1024, 256], [8, 1024, 256], [16, 1024, 256]], [[16, 320, 15], [32, 320, 15], [64, 320, 15]],
                  [[16, 128, 64, 64], [16, 128, 64, 64], [24, 128, 64, 64], [32, 128, 64, 64]]]
    out = []
    for shapes in cat_shapes:
        rank = len(shapes[0])
        out.append((shapes, 0))
        for d in range(1, rank):
            swapped = []
            for s in shapes:
                t = list(s)
                t[0], t[d] = t[d], t[0]
                swapped.append(t)
            out.append((swapped, d))
            out.append((swapped, d - rank))
    return out


def _members(p: dict[str, Any], device, gen) -> list[torch.Tensor]:
    dtypes = p.get("dtypes") or [p["dtype"]] * len(p["shapes"])
    layouts = p.get("layouts") or ["contig"] * len(p["shapes"])
    return [make_input(dict(p, dtype=dt), device, gen, shape=s, layout=lay)
            for s, dt, lay in zip(p["shapes"], dtypes, layouts)]


def _result_dtype(p: dict[str, Any]) -> torch.dtype:
    dt = dtype_of((p.get("dtypes") or [p["dtype"]])[0])
    for d in p.get("dtypes") or []:
        dt = torch.promote_types(dt, dtype_of(d))
    return dt


def _cat_out_shape(p: dict[str, Any]) -> list[int]:
    valid = [s for s in p["shapes"] if not (len(s) == 1 and s[0] == 0)]
    if not valid:
        return [0]
    d = p["dim"] % len(valid[0])
    out = list(valid[0])
    out[d] = sum(s[d] for s in valid)
    return out


def _cat_args(p, device, gen) -> AtenCase:
    xs = _members(p, device, gen)
    shape = _cat_out_shape(p)
    if p.get("overload") == "out":
        out = poisoned(shape, _result_dtype(p), device)
        return AtenCase("torch.cat", [xs, p["dim"]], {"out": out}, ("out",), needs_launch=numel(shape) > 0)
    return AtenCase("torch.cat", [xs, p["dim"]], needs_launch=numel(shape) > 0)


def _cat_cost(p: dict[str, Any]) -> Cost:
    dtypes = p.get("dtypes") or [p["dtype"]] * len(p["shapes"])
    read = sum(numel(s) * elem_bytes(dt) for s, dt in zip(p["shapes"], dtypes))
    return Cost(0.0, float(read + numel(_cat_out_shape(p)) * _result_dtype(p).itemsize))


CAT = CopyOperator(
    "cat", category="shape (concatenate)",
    semantics="Concatenates a list of tensors along dim (negative allowed, wrapped by the first non-skipped "
              "tensor's rank). All non-empty inputs agree on every other dim; 1-D tensors of shape (0,) are skipped "
              "whatever dim is (legacy rule); 0-d tensors are an error. The result dtype promotes over all inputs "
              "(skipped ones included); the result is contiguous in the inputs' common suggested memory format "
              "(contiguous if they differ). cat.out writes into out.",
    exercised=["cat"], args=_cat_args, cost=_cat_cost,
    absent={"names": "aten::cat.names(Tensor[] tensors, Dimname dim) -> Tensor",
            "names_out": "aten::cat.names_out(Tensor[] tensors, Dimname dim, *, Tensor(a!) out) -> Tensor(a!)"},
    own_ops=frozenset({"cat", "stack", "_cat", "concat", "concatenate"}),
    grids={
        "smoke": [
            dict(shapes=[[2, 3], [4, 3]], dtype="fp32", dim=0),
            dict(shapes=[[3, 2, 5], [3, 7, 5]], dtype="bf16", dim=-2),
            dict(shapes=[[0], [2, 3]], dtype="int32", dim=1),
            dict(shapes=[[0, 3], [2, 3]], dtype="fp16", dim=0),
            dict(shapes=[[3, 2], [3, 1], [3, 4]], dtype="bool", dim=1, overload="out"),
        ],
        "full": [dict(dtype=dt, shapes=s, dim=d, range=(0, 0x7FFF))
                 for dt in ["fp16", "fp32", "bf16", "int16", "int32"] for s, d in _cat_shape_dims()]
        + [dict(dtype="fp32", shapes=s, dim=0) for s in ([[0, 3], [2, 3]], [[0, 3], [0, 3]], [[0], [0]])],
        "heldout": [
            dict(shapes=[[511, 257], [511, 3], [511, 1]], dtype="fp16", dim=1),
            dict(shapes=[[7, 17, 31], [7, 17, 31]], dtype="int16", dtypes=["int16", "int32"], dim=0),
            dict(shapes=[[64, 33], [10, 33]], dtype="fp32", layouts=["transposed", "contig"], dim=0),
            dict(shapes=[[5, 6], [5, 6], [5, 2]], dtype="fp32", dim=-1, overload="out"),
            dict(shapes=[[3, k] for k in range(1, 12)], dtype="int32", dim=1),
        ],
    },
    notes="Pre-damage / release grid (aten.md §6b.2): 133 cases, all timed: test_accuracy_cat (26 (shape list, dim) "
          "pairs from gen_cat_shapes_dim(CAT_SHAPES) x fp16/fp32/bf16/int16/int32, ints randint(0, 0x7FFF)) and the "
          "3 empty-tensor cases. Every result must have PyTorch's strides; cases with an empty result need no "
          "launch. The number of inputs varies (up to 11 in the held-out tier). Inside the wrapper torch.cat, "
          "torch.stack and copies through PyTorch are not allowed.",
).facts(counts=Counts(smoke=5, full=133, timed=133, heldout=5), aliases={"hstack", "vstack"})


# ============================================================================================ stack
def _stack_out_shape(p: dict[str, Any]) -> list[int]:
    shape = list(p["shapes"][0])
    d = p["dim"] % (len(shape) + 1)
    return shape[:d] + [len(p["shapes"])] + shape[d:]


def _stack_args(p, device, gen) -> AtenCase:
    xs = _members(p, device, gen)
    if p.get("overload") == "out":
        out = poisoned(_stack_out_shape(p), _result_dtype(p), device)
        return AtenCase("torch.stack", [xs, p["dim"]], {"out": out}, ("out",))
    return AtenCase("torch.stack", [xs, p["dim"]])


def _stack_cost(p: dict[str, Any]) -> Cost:
    n = numel(_stack_out_shape(p))
    return Cost(0.0, float(n * (elem_bytes(p["dtype"]) + _result_dtype(p).itemsize)))


_STACK_SHAPES = [[[16], [16]], [[16, 256], [16, 256]], [[20, 320, 15]] * 3]

STACK = CopyOperator(
    "stack", category="shape (stack)",
    semantics="Inserts a new dim at dim (in [-(ndim+1), ndim]) and concatenates the tensors along it; all inputs "
              "have the same shape; dtypes promote; the result is contiguous. stack.out writes into out.",
    exercised=["stack"], args=_stack_args, cost=_stack_cost,
    own_ops=frozenset({"stack", "cat", "_stack"}),
    grids={
        "smoke": [
            dict(shapes=[[16], [16]], dtype="fp32", dim=1),
            dict(shapes=[[4, 5]] * 3, dtype="bf16", dim=-2),
            dict(shapes=[[2, 3], [2, 3]], dtype="int16", dim=0),
            dict(shapes=[[3, 4], [3, 4]], dtype="bool", dim=2, overload="out"),
            dict(shapes=[[5, 3, 2]] * 4, dtype="fp16", dim=-1),
        ],
        "full": product(dtype=["fp16", "fp32", "bf16", "int16", "int32"], dim=[-2, -1, 0, 1], shapes=_STACK_SHAPES,
                        range=[(0, 0x7FFF)]),
        "heldout": [
            dict(shapes=[[511, 257]] * 2, dtype="fp16", dim=2),
            dict(shapes=[[7, 17, 31]] * 5, dtype="int32", dim=1),
            dict(shapes=[[33, 65]] * 2, dtype="fp32", layouts=["transposed", "step2"], dim=0),
            dict(shapes=[[6, 7]] * 3, dtype="fp32", dim=-1, overload="out"),
            dict(shapes=[[]] * 3, dtype="fp16", dim=0),
        ],
    },
    notes="Grid: upstream HEAD, 60 cases, all timed (ints randint(0, 0x7FFF)); for 1-D inputs dim -2 is 0 and dim 1 a "
          "new last dim. Every result must be contiguous with PyTorch's strides. stack is CompositeExplicit: the op "
          "itself is intercepted; torch.cat/torch.stack inside the wrapper are not allowed.",
).facts(counts=Counts(smoke=5, full=60, timed=60, heldout=5), aliases={"concat", "concatenate", "hstack", "vstack"})


# The rows' full-tier counts (Counts.full, Counts.timed): aten.md §1. contiguous keeps upstream's 30 registry cases;
# its six (1,) inputs are contiguous after slicing (upstream returns early), judged as "returns self" and untimed.
# to's twelve same-dtype cases return self in PyTorch and are untimed. cat and resolve_* use the pre-damage grids
# (§6b.2).
OPERATORS: list[CopyOperator] = [TO_COPY, CAT, CLONE, CONTIGUOUS, COPY_, RESOLVE_CONJ, RESOLVE_NEG, STACK, TO]

__all__ = ["OPERATORS", "CopyOperator", "MEMORY_FORMATS", "fresh_result", "input_shape", "list_unchanged",
           "make_input", "returns_self"]
