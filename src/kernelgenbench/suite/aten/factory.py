"""The factory family (aten.md §8): ``arange``, ``full``, ``zeros``, ``zeros_like``, ``ones_like``,
``new_ones``, ``scalar_tensor`` and the in-place fills ``fill_`` and ``zero_``.

These ops compute nothing from tensor data, but their *values* are exact and must be written by a
Triton kernel: they are not operators with nothing to compute (that rule covers only views, scalar
reads and empty allocations, :class:`~kernelgenbench.suite.spec.NothingToCompute`). The intended
route is allocation with ``torch.empty*`` (poisoned by the sandbox, so an unwritten element shows)
and a Triton kernel that writes every element.

Every op is one :class:`FactoryOperator` row: the overloads PyTorch has (read from PyTorch, with the
Dimname overloads the prompt lists but PyTorch 2.13 lacks marked ``absent``), the grids per tier, and
``args(params, device, gen) -> (api, args, kwargs, written)``, which builds one public PyTorch call.
The family supplies the rest:

* **reference.** PyTorch itself: the same public call, run natively on a clone of the inputs on the
  verifier's device (the values are exact, so no upcast; aten.md §3 "factories ... assert_equal").
* **judging a new tensor** (a factory's return, or an ``out=`` that had to be resized): dtype,
  device, sizes, strides and storage offset exactly PyTorch's (contiguous for the factories;
  ``memory_format=preserve`` strides for the ``*_like`` ops, as PyTorch's own result has them), a
  storage shared with no argument, and the values bit for bit (the sign of zero aside, as upstream's
  ``assert_equal``). This is an :attr:`Expected.check` judge (:func:`new_tensor_judge`).
* **judging a written tensor** (``fill_``/``zero_``'s ``self``, an ``out=`` of the right size): its
  whole storage (:func:`~kernelgenbench.suite.spec.written_expected`): the addressed elements exact,
  every other element of the storage (gaps of strided views) untouched; the return must be the
  written tensor itself.
* **own ops.** Every row counts PyTorch's value-writing factories and fills (:data:`VALUE_WRITERS`:
  ``zeros``, ``ones``, ``full``, the ``*_like`` and ``new_*`` forms, ``fill_``, ``zero_``,
  ``arange``, ``scalar_tensor``) as the op itself: L1 rejects such a call as dispatch recursion and
  the L3 trace fails it. They are this family's whole computation (``torch.zeros`` inside
  ``zeros_like`` would answer without a kernel, and on GPUs ``zeros``/``full`` reach ``fill_``); the
  allowed allocation is ``torch.empty``/``empty_like``/``new_empty``/``empty_strided``. Copies
  (``copy_``, ``clone``, ``.contiguous()``) are not allowed either: a factory has nothing to copy,
  and PyTorch's ``fill_.Tensor`` *is* a ``copy_`` of the value.
* **cases.** Outputs are poisoned before the call; ``fill_``/``zero_`` get random ``self`` values
  (upstream fills ``torch.ones``; random values keep ghost replay informative where the fill value
  is 1). Strided ``self`` views of a wider buffer check that the gaps stay untouched.
* **timing gate and cost.** As the section says which calls upstream times; bytes = the elements
  written (plus a 0-d value tensor read), FLOPs = 2 per element for floating ``arange``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor, poisoned
from ..compare import SlotResult, compare_values, same_storage
from ..spec import EXACT, Call, Cost, Counts, Expected, clone_tree, dtype_of, numel, product, written_expected
from .family import AtenCase, AtenOperator, elem_bytes, resolve_api, wrappers_of
from .pools import FLOAT3, POINTWISE_SHAPES

#: PyTorch ops that write values into a tensor: the whole computation of this family. Each row counts
#: them as its own ops (L1: dispatch recursion; L3: the dispatch trace fails them).
VALUE_WRITERS: frozenset[str] = frozenset({
    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full",
    "fill_", "zero_", "arange", "scalar_tensor",
})

TOLERANCE_TEXT = ("exact (aten.md §3 assert_equal): every element bit for bit (the sign of zero aside; NaN where "
                  "PyTorch has NaN); a new tensor must have exactly PyTorch's dtype, device, sizes, strides and "
                  "storage offset (contiguous; the *_like ops: the input's strides under memory_format=preserve) "
                  "and share no argument's storage; in-place and out= writes leave every element of the storage "
                  "outside the written view untouched.")

ALL8 = ["bool", "int16", "int32", "int64", "fp16", "fp32", "bf16", "fp64"]  # full/zeros dtype axis


# -- the judge of new tensors -------------------------------------------------------------------------
def _arg_tensors(outputs: dict[str, Any]) -> list[torch.Tensor]:
    args = [*(outputs.get("args") or []), *(outputs.get("kwargs") or {}).values()]
    return [a for a in args if isinstance(a, torch.Tensor)]


def new_tensor_judge(ref: torch.Tensor, slot: str, *, fresh: bool) -> Callable[[Any, dict[str, Any]], SlotResult]:
    """The :attr:`Expected.check` of a tensor the call creates (or resizes): exactly PyTorch's dtype,
    device (for returns: as the sandbox reported it), sizes, strides and storage offset; with
    ``fresh``, a storage no argument shares; then the values, exact (aten.md §3 ``assert_equal``).

    Args:
        ref: PyTorch's result of the same call on the verifier's device.
        slot: ``"return"`` or ``"arg.out"`` (for messages; returns also check the device).
        fresh: the result must be a new tensor (factory returns), not an argument's storage.
    """
    def check(actual: Any, outputs: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, torch.Tensor):
            return SlotResult(False, f"{slot}: expected a tensor, got {type(actual).__name__}")
        if actual.dtype != ref.dtype:
            return SlotResult(False, f"{slot}: dtype {actual.dtype} != expected {ref.dtype}")
        if slot == "return":
            dev = outputs.get("ret_devices")
            if isinstance(dev, str) and dev.split(":", 1)[0] != ref.device.type:
                return SlotResult(False, f"{slot}: the result is on device {dev!r}, expected {ref.device.type!r}")
        got = (tuple(actual.shape), actual.stride(), actual.storage_offset())
        want = (tuple(ref.shape), ref.stride(), ref.storage_offset())
        if got != want:
            names = ("sizes", "strides", "storage_offset")
            diff = "; ".join(f"{n} {g} != expected {w}" for n, g, w in zip(names, got, want) if g != w)
            return SlotResult(False, f"{slot}: {diff} (a factory's result must have exactly PyTorch's layout: "
                                     f"contiguous, or the input's strides under memory_format=preserve)")
        if fresh and any(same_storage(actual, t) for t in _arg_tensors(outputs)):
            return SlotResult(False, f"{slot}: the result shares the storage of an argument; it must be a new "
                                     f"tensor")
        return compare_values(actual, ref, EXACT, 1.0, slot)

    return check


def _return_expected(ref: torch.Tensor) -> list[Expected]:
    return [Expected("return", ref, EXACT, check=new_tensor_judge(ref, "return", fresh=True))]


def _out_expected(before: torch.Tensor, ref: torch.Tensor, resized: bool) -> list[Expected]:
    """An ``out=`` case: an out PyTorch resizes (its shape changes) is judged as a new tensor with
    PyTorch's layout; an out of the right shape by its whole storage (values exact, gaps untouched).
    Either way the return must be ``out`` itself."""
    if resized:
        first = Expected("arg.out", ref, EXACT, check=new_tensor_judge(ref, "arg.out", fresh=False))
    else:
        first = written_expected("arg.out", before, ref, EXACT)
    return [first, Expected("return", None, EXACT, alias="arg.out")]


# -- the row class --------------------------------------------------------------------------------
class FactoryOperator(AtenOperator):
    """One row of the family (see the module docstring).

    Args:
        name: the op (``"full"``).
        exercised: the overload keys the tests drive (``"full"``, ``"fill_.Scalar"``).
        absent: Dimname overloads the prompt lists that PyTorch 2.13 lacks (``{overload: schema}``).
        args: ``args(params, device, gen) -> (api, args, kwargs, written)`` of a case; ``written`` is
            ``("out",)`` for ``out=`` calls and ``(0,)`` for the in-place fills.
        grids: case parameters per tier.
        timed: the timing gate (full tier).
        cost: FLOPs/bytes of a case.
        reference_api: computes the reference in place of the case's own API (same arguments), where PyTorch's
            devices disagree and the spec follows one of them (``arange``: CUDA's fp32 accumulation).
    """

    def __init__(self, name: str, *, category: str, semantics: str, exercised: Sequence[str],
                 grids: dict[str, list[dict[str, Any]]],
                 args: Callable[[dict[str, Any], torch.device, torch.Generator], tuple],
                 cost: Callable[[dict[str, Any]], Cost], timed: Callable[[dict[str, Any]], bool] = lambda p: True,
                 absent: dict[str, str] | None = None, notes: str = "",
                 reference_api: Callable[..., Any] | None = None) -> None:
        self._args = args
        self._reference_api = reference_api
        super().__init__(name, category=category, semantics=semantics,
                         wrappers=wrappers_of(name, exercised, absent), grids=grids, build=self._build_case,
                         reference=self._reference_of, cost=cost, timed=timed,
                         own_ops=VALUE_WRITERS | {name}, allow_copies=False, notes=notes)
        #: how the family judges (``kgb show``, prompts): exact values and PyTorch's layout
        self.tolerance_text = TOLERANCE_TEXT

    def tensor_dtypes(self, params: dict[str, Any]) -> set[torch.dtype]:
        """Every dtype a case names (result, ``out=``, ``self`` and value tensor), for platform limits."""
        keys = ("dtype", "out_dtype", "self_dtype", "value_dtype")
        return {dtype_of(params[k]) for k in keys if params.get(k) is not None}

    def _build_case(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> AtenCase:
        api, args, kwargs, written = self._args(p, device, gen)
        # a value tensor the case puts on another device (fill_'s held-out 0-d CPU value) stays there in the child
        host = tuple(i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.device.type != device.type)
        return AtenCase(api, args, kwargs, written, host=host)

    def _reference_of(self, p: dict[str, Any], call: Call) -> list[Expected]:
        api = self._reference_api or resolve_api(str(call.api))
        if call.written == (0,):  # in place: self's whole storage, gaps untouched
            before = call.args[0]
            after = clone_tree(call.args)
            api(*after, **call.kwargs)
            return [written_expected("arg.0", before, after[0], EXACT),
                    Expected("return", None, EXACT, alias="arg.0")]
        if "out" in call.kwargs:
            before = call.kwargs["out"]
            ref = None
            if isinstance(before, torch.Tensor) and before.numel() > 0:
                # Where PyTorch resizes a non-empty out it warns (Resize.cpp, on stderr, past Python's
                # warnings): learn the result's shape with an empty out first, and keep that result (a
                # resized out is judged as a new tensor) rather than repeat the call on a full clone.
                probe = api(*call.args, **dict(call.kwargs, out=before.new_empty(0)))
                if isinstance(probe, torch.Tensor) and tuple(probe.shape) != tuple(before.shape):
                    ref = probe
            if ref is None:
                ref = api(*call.args, **dict(call.kwargs, out=clone_tree(before)))
            return _out_expected(before, ref, resized=tuple(before.shape) != tuple(ref.shape))
        return _return_expected(api(*call.args, **call.kwargs))


def _write_cost(shape_of: Callable[[dict[str, Any]], Sequence[int]], dtype_key: str = "dtype",
                default: str = "fp32") -> Callable[[dict[str, Any]], Cost]:
    """Bytes written: the result's elements in its dtype."""
    def cost(p: dict[str, Any]) -> Cost:
        dt = p.get(dtype_key) or default
        return Cost(0.0, float(numel(shape_of(p)) * elem_bytes(dt)))
    return cost


def _infer_dtype(value: Any) -> str:
    """PyTorch's dtype for a ``full`` fill value with ``dtype=None`` (bool, int64, or the default float
    dtype, fp32, for a float)."""
    if isinstance(value, bool):
        return "bool"
    return "int64" if isinstance(value, int) else "fp32"


# ========================================================================================== arange
def _arange_scalars(p: dict[str, Any]) -> list[Any]:
    """The positional Scalars of a case's call: (end), (start, end) or (start, end, step)."""
    ov = p.get("overload", "start_step")
    if ov in ("default", "out"):
        return [p["end"]]
    if ov == "start":
        return [p["start"], p["end"]]
    return [p["start"], p["end"], p["step"]]


def _arange_len(p: dict[str, Any]) -> int:
    """PyTorch's length of the case's sequence (it depends on the result dtype: int64 is exact)."""
    dt = dtype_of(p["dtype"]) if p.get("dtype") is not None else None
    return torch.arange(*_arange_scalars(p), dtype=dt).numel()


def _arange_dtype(p: dict[str, Any]) -> str:
    if p.get("dtype") is not None:
        return p["dtype"]
    ints = all(isinstance(p.get(k, 0), int) for k in ("start", "end", "step"))
    return "int64" if ints else "fp32"


def _arange_args(p, device, gen):
    ov = p.get("overload", "start_step")
    dt = dtype_of(p["dtype"]) if p.get("dtype") is not None else None
    if ov in ("out", "start_out"):
        out = poisoned([_arange_len(p)], _arange_dtype(p), device, p.get("out_layout", "contig"))
        return "torch.arange", _arange_scalars(p), {"out": out}, ("out",)
    kw = {"dtype": dt, "device": device, "pin_memory": p.get("pin_memory", False)}
    return "torch.arange", _arange_scalars(p), kw, ()


def _arange_cost(p: dict[str, Any]) -> Cost:
    n = _arange_len(p)
    dt = _arange_dtype(p)
    return Cost(2.0 * n if dtype_of(dt).is_floating_point else 0.0, float(n * elem_bytes(dt)))


def arange_reference(*args: Any, dtype: torch.dtype | None = None, out: torch.Tensor | None = None,
                     **kwargs: Any) -> torch.Tensor:
    """``torch.arange`` as the spec states it (PyTorch's CUDA kernel) on any device: fp16 and bf16 values are
    computed in fp32 and then rounded once to the dtype. PyTorch's CPU kernel rounds bf16 otherwise in its
    vectorised path (``arange(3, 1024, 5, dtype=bf16)[66]`` is 334 on the CPU, 332 = rd_bf16(333) on CUDA), which
    would make the interpreter's reference differ from the GPU's."""
    want = out.dtype if out is not None else dtype
    if want not in (torch.float16, torch.bfloat16):
        return torch.arange(*args, dtype=dtype, out=out, **kwargs)
    if out is not None:
        kwargs.setdefault("device", out.device)
    r = torch.arange(*args, dtype=torch.float32, **kwargs).to(want)
    if out is None:
        return r
    if out.shape != r.shape:
        out.resize_(r.shape)
    return out.copy_(r)


ARANGE = FactoryOperator(
    "arange", category="factory (sequence)", reference_api=arange_reference,
    semantics="A 1-D tensor start + i*step for i in [0, ceil((end - start) / step)), the length computed in double "
              "(int64 results with integral arguments: exact integer ceil division). dtype None: int64 when start, "
              "end and step are all integral, else the default float dtype (fp32). Values are computed in the "
              "accumulate type and then cast: fp32 for fp16/bf16/fp32 (so bf16 1023 becomes 1024), fp64 for fp64, "
              "int64 for integers (a float start/step is truncated to int64 first). step 0, or a step whose sign "
              "disagrees with end - start, is an error; an empty result is allowed. arange(end) and "
              "arange.start(start, end) default step to 1; .out and .start_out resize out to the length (out's "
              "dtype is the result dtype) and return it.",
    exercised=["arange.start_step"], args=_arange_args, cost=_arange_cost,
    grids={
        "smoke": [dict(start=0, end=128, step=1, dtype=None, pin_memory=False),
                  dict(start=3, end=1024, step=5, dtype="bf16", pin_memory=None),
                  dict(start=1, end=256, step=2, dtype="int16", pin_memory=False),
                  dict(start=3, end=1024, step=5, dtype="fp16", pin_memory=False),
                  dict(start=1, end=7.5, step=0.25, dtype="fp32", pin_memory=False, overload="start_step"),
                  dict(end=100, dtype="int32", overload="default"),
                  dict(start=-5, end=40, dtype=None, overload="start"),
                  dict(end=50, dtype="fp32", overload="out", out_layout="resize"),
                  dict(start=2, end=300, step=3, dtype="int64", overload="start_out")],
        "full": product(pin_memory=[False, None], dtype=["fp16", "fp32", "bf16", "int16", "int32", "int64", None],
                        end=[128, 256, 1024], step=[1, 2, 5], start=[0, 1, 3]),
        "heldout": [dict(start=-3, end=17.5, step=0.75, dtype="fp32", pin_memory=False),
                    dict(start=10, end=0, step=-3, dtype="int32", pin_memory=False),
                    dict(start=0, end=1, dtype="fp64", overload="start"),
                    dict(start=-3, end=17.5, step=0.75, dtype=None, pin_memory=False),
                    dict(start=100, end=4099, step=7, dtype="bf16", pin_memory=False),
                    dict(start=5, end=5, step=1, dtype="int64", pin_memory=False),
                    dict(start=1000, end=-1000, step=-3, dtype="fp16", overload="start_out")],
    },
    notes="Full tier: test_arange's device=None half (378 of 756 cases) creates CPU tensors and never reaches the "
          "candidate (aten.md §6 item 3); it is dropped, leaving 378 cases that all pass device=<the device> (all "
          "timed, no clone). The grid's arguments are integers, so every value is exact in the accumulate type "
          "on both devices (PyTorch's CPU kernel accumulates fp32 in double and rounds bf16 differently in its "
          "vectorised path; CUDA accumulates in fp32). Upstream reaches only arange.start_step; the other four "
          "overloads are driven in smoke. PyTorch 2.13 truncates float arguments to int64 before "
          "computing an int64 result's length (arange(0.5, 10, 1.5, dtype=int64) has 10 elements).",
).facts(counts=Counts(smoke=9, full=378, timed=378, heldout=7))


# ============================================================================================ full
def _full_args(p, device, gen):
    shape, fill = list(p["shape"]), p["fill"]
    if p.get("overload") == "out":
        out = poisoned(shape, p["dtype"], device, p.get("out_layout", "contig"))
        return "torch.full", [shape, fill], {"out": out}, ("out",)
    kw: dict[str, Any] = {"device": device}
    if p.get("dtype") is not None:
        kw["dtype"] = dtype_of(p["dtype"])
    return "torch.full", [shape, fill], kw, ()


FILLS = [3.1415926, 2, False]

FULL = FactoryOperator(
    "full", category="factory (constant)",
    semantics="A tensor of shape size filled with fill_value. dtype None: bool for a bool value, int64 for an int, "
              "the default float dtype (fp32) for a float. The value is converted as PyTorch converts a Scalar: a "
              "float to an integer dtype truncates (3.1415926 -> 3), anything nonzero to "
              "bool is True, False to a float is 0, and a double reaches fp16/bf16 through fp32 (two round-to-"
              "nearest-even steps, as c10 converts); a value the dtype cannot hold (a finite value beyond a float "
              "dtype's largest finite value; NaN, infinities or out-of-range values for integers) is an error. "
              "full.out resizes out to size (keeping out's dtype and, when "
              "the size already matches, its strides) and returns it. The full.names variants are absent in "
              "PyTorch 2.13.",
    exercised=["full"], args=_full_args,
    absent={"names": "aten::full.names(int[] size, Scalar fill_value, *, Dimname[]? names, ScalarType? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            "names_out": "aten::full.names_out(int[] size, Scalar fill_value, *, Dimname[]? names, Tensor(a!) out) "
                         "-> Tensor(a!)"},
    cost=lambda p: Cost(0.0, float(numel(p["shape"]) * elem_bytes(p.get("dtype") or _infer_dtype(p["fill"])))),
    timed=lambda p: p.get("dtype") is not None and p.get("overload") != "out",
    grids={
        "smoke": [dict(shape=[17, 33], fill=3.1415926, dtype=None),
                  dict(shape=[], fill=2, dtype=None),
                  dict(shape=[5], fill=False, dtype="fp16"),
                  dict(shape=[4, 4], fill=3.1415926, dtype="int16"),
                  dict(shape=[8, 8], fill=True, dtype=None),
                  dict(shape=[9, 7], fill=-1.5, dtype="bf16"),
                  dict(shape=[6, 10], fill=0.1, dtype="fp64", overload="out"),
                  dict(shape=[3, 5], fill=1 + 2 ** -11 + 2 ** -40, dtype="fp16", overload="out",
                       out_layout="resize")],
        "full": product(fill=FILLS, dtype=ALL8, shape=POINTWISE_SHAPES)
        + product(fill=FILLS, dtype=[None], shape=POINTWISE_SHAPES),
        "heldout": [dict(shape=[511, 257], fill=-1.5, dtype="bf16"),
                    dict(shape=[2, 3, 4, 5, 6], fill=True, dtype="int32"),
                    dict(shape=[0, 3], fill=2.5, dtype=None),
                    dict(shape=[7, 17, 31], fill=-7, dtype="fp16", overload="out", out_layout="step2"),
                    dict(shape=[129, 65], fill=12345, dtype="bf16", overload="out", out_layout="resize")],
    },
    notes="Upstream's 144 cases each make two calls, torch.full(shape, fill) with the inferred dtype and "
          "torch.full(shape, fill, dtype=dt); the first does not depend on the dtype axis, so here it is 18 cases "
          "of its own (3 fills x 6 shapes, untimed: upstream times only the explicit-dtype call): 162 cases, 144 "
          "timed. Spec vs PyTorch: the spec says fp16 should round the double value directly; PyTorch (c10's "
          "Scalar conversion) rounds a double to fp32 first, then to fp16/bf16 (full(1 + 2^-11 + 2^-40, fp16) is "
          "1.0, not 1.0009765625); PyTorch wins, and the reference is PyTorch's own result. A finite value beyond "
          "a float dtype's range (fp16: 65504) is an error, not inf.",
).facts(counts=Counts(smoke=8, full=162, timed=144, heldout=5))


# =========================================================================================== zeros
def _zeros_args(p, device, gen):
    shape = list(p["shape"])
    if p.get("overload") == "out":
        out = poisoned(shape, p["dtype"], device, p.get("out_layout", "contig"))
        return "torch.zeros", [shape], {"out": out}, ("out",)
    kw: dict[str, Any] = {"device": device}
    if p.get("dtype") is not None:
        kw["dtype"] = dtype_of(p["dtype"])
    return "torch.zeros", [shape], kw, ()


ZEROS = FactoryOperator(
    "zeros", category="factory (constant)",
    semantics="A tensor of zeros of shape size; dtype None is the default float dtype (fp32); contiguous; layout and "
              "device from the keywords (pin_memory is ignored on GPUs). zeros.out resizes out to size (keeping "
              "its dtype, and its strides when the size already matches) and returns it. The zeros.names variants "
              "are absent in PyTorch 2.13.",
    exercised=["zeros"], args=_zeros_args,
    absent={"names": "aten::zeros.names(int[] size, *, Dimname[]? names, ScalarType? dtype=None, Layout? "
                     "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            "names_out": "aten::zeros.names_out(int[] size, *, Dimname[]? names, Tensor(a!) out) -> Tensor(a!)"},
    cost=_write_cost(lambda p: p["shape"]),
    timed=lambda p: p.get("dtype") is not None and p.get("overload") != "out",
    grids={
        "smoke": [dict(shape=[17, 33], dtype=None), dict(shape=[], dtype="bool"), dict(shape=[16, 7, 5], dtype="int16"),
                  dict(shape=[64, 65], dtype="fp16"), dict(shape=[3, 40], dtype="bf16"),
                  dict(shape=[12, 9], dtype="fp64", overload="out", out_layout="step2")],
        "full": product(dtype=ALL8, shape=POINTWISE_SHAPES) + product(dtype=[None], shape=POINTWISE_SHAPES),
        "heldout": [dict(shape=[511, 257], dtype="fp64"), dict(shape=[0, 5], dtype=None),
                    dict(shape=[2, 3, 4, 5, 6], dtype="bf16"),
                    dict(shape=[7, 17, 31], dtype="int32", overload="out", out_layout="resize")],
    },
    notes="Upstream's 48 cases each make two calls, torch.zeros(shape) and torch.zeros(shape, dtype=dt); the "
          "inferred-dtype call does not depend on the dtype axis, so here it is 6 cases of its own (untimed: "
          "upstream times the explicit-dtype call): 54 cases, 48 timed. A bool result of zeros equals the L2 "
          "ghost poison of bool outputs (False), so ghost replay skips those cases as uninformative.",
).facts(counts=Counts(smoke=6, full=54, timed=48, heldout=4))


# ================================================================================= zeros_like, ones_like
def _like_args(op: str):
    def args(p, device, gen):
        layout = p.get("layout", "contig")
        if layout == "channels_last":  # a dense 4-D input in NHWC order
            x = make_tensor(p["shape"], p["dtype"], device, gen).contiguous(memory_format=torch.channels_last)
        else:
            x = make_tensor(p["shape"], p["dtype"], device, gen, layout=layout)
        if p.get("overload") == "out":
            od = p.get("out_dtype") or p["dtype"]
            out = poisoned(p["shape"], od, device, p.get("out_layout", "contig"))
            return f"torch.ops.aten.{op}.out", [x], {"out": out}, ("out",)
        kw: dict[str, Any] = {}
        if p.get("out_dtype") is not None:
            kw["dtype"] = dtype_of(p["out_dtype"])
        return f"torch.{op}", [x], kw, ()
    return args


def _like_cost(p: dict[str, Any]) -> Cost:
    return Cost(0.0, float(numel(p["shape"]) * elem_bytes(p.get("out_dtype") or p["dtype"])))


def _like_grids(value: int) -> dict[str, list[dict[str, Any]]]:
    return {
        "smoke": [dict(shape=[64, 33], dtype="fp32"), dict(shape=[], dtype="bf16"),
                  dict(shape=[16, 7, 5], dtype="fp16"),
                  dict(shape=[40, 24], dtype="int32", layout="transposed"),
                  dict(shape=[6, 9], dtype="bool", layout="step2"),
                  dict(shape=[10, 12], dtype="fp32", out_dtype="int16" if value else "bool"),
                  dict(shape=[8, 5], dtype="fp16", overload="out", out_layout="transposed")],
        "full": product(dtype=FLOAT3, shape=POINTWISE_SHAPES),
        "heldout": [dict(shape=[511, 257], dtype="fp32", out_dtype="int32"),
                    dict(shape=[511, 257], dtype="fp16", layout="transposed"),
                    dict(shape=[0, 3], dtype="fp32"),
                    dict(shape=[7, 17, 31], dtype="bf16", layout="step2"),
                    dict(shape=[2, 3, 4, 5], dtype="fp32", layout="channels_last"),
                    dict(shape=[33, 20], dtype="fp32", layout="transposed", overload="out", out_layout="resize")],
    }


_LIKE_NOTES = ("self is a random tensor (upstream: an uninitialised torch.empty; only its metadata matters). "
               "memory_format=preserve (the default) keeps a dense input's strides (a transposed input gives a "
               "transposed result) and gives a non-dense input (a step-2 slice) the dense strides of its stride "
               "order, exactly as PyTorch's result has them; the judge requires PyTorch's strides. "
               "torch.empty_like(self, dtype=..., memory_format=...) allocates exactly that layout. .out resizes out "
               "(contiguous when it had to be resized) and is driven in smoke. A memory_format "
               "keyword cannot travel to the sandbox (torch.save cannot pickle it), so the cases keep the default "
               "(preserve) and vary the input's layout instead (transposed, step-2 slice, channels_last).")

ZEROS_LIKE = FactoryOperator(
    "zeros_like", category="factory (constant, like)",
    semantics="Zeros with self's shape, and self's dtype, device and layout unless the keywords say otherwise; "
              "memory_format defaults to preserve (a dense self's strides are kept; otherwise the dense strides of "
              "self's stride order). zeros_like.out(self, out) resizes out to self's shape and returns it. Only "
              "self's metadata is read.",
    exercised=["zeros_like"], args=_like_args("zeros_like"), cost=_like_cost, grids=_like_grids(0),
    notes=_LIKE_NOTES,
).facts(counts=Counts(smoke=7, full=18, timed=18, heldout=6))

ONES_LIKE = FactoryOperator(
    "ones_like", category="factory (constant, like)",
    semantics="Ones with self's shape, and self's dtype, device and layout unless the keywords say otherwise; "
              "memory_format defaults to preserve (a dense self's strides are kept; otherwise the dense strides of "
              "self's stride order). ones_like.out(self, out) resizes out to self's shape and returns it. Only "
              "self's metadata is read.",
    exercised=["ones_like"], args=_like_args("ones_like"), cost=_like_cost, grids=_like_grids(1),
    notes=_LIKE_NOTES,
).facts(counts=Counts(smoke=7, full=18, timed=18, heldout=6))


# ======================================================================================== new_ones
def _new_ones_args(p, device, gen):
    x = make_tensor(p["self_shape"], p.get("self_dtype", "fp32"), device, gen)
    if p.get("overload") == "out":
        out = poisoned(p["size"], p["dtype"], device, p.get("out_layout", "contig"))
        return "torch.ops.aten.new_ones.out", [x, list(p["size"])], {"out": out}, ("out",)
    kw = {"dtype": dtype_of(p["dtype"])} if p.get("dtype") is not None else {}
    return "torch.ops.aten.new_ones", [x, list(p["size"])], kw, ()


NEW_ONES = FactoryOperator(
    "new_ones", category="factory (constant, from self)",
    semantics="A contiguous tensor of ones of shape size on self's device; dtype is the keyword's, else self's. "
              "new_ones.out(self, size, out) resizes out to size (keeping out's dtype, and its strides when the "
              "size already matches), fills it with ones and returns it. self's values are not read.",
    exercised=["new_ones", "new_ones.out"], args=_new_ones_args,
    cost=lambda p: Cost(0.0, float(numel(p["size"]) * elem_bytes(p.get("dtype") or p.get("self_dtype", "fp32")))),
    grids={
        "smoke": [dict(self_shape=[2, 3], size=[2, 3], dtype="bf16"),
                  dict(self_shape=[2, 3], size=[32, 16, 8], dtype="fp16"),
                  dict(self_shape=[64, 64], size=[128, 256], dtype="fp32", overload="out"),
                  dict(self_shape=[4, 4], self_dtype="int32", size=[9, 11], dtype=None),
                  dict(self_shape=[3], size=[5, 7], dtype="bool"),
                  dict(self_shape=[2, 3], size=[6, 10], dtype="int64", overload="out", out_layout="resize")],
        "full": product(dtype=["fp32", "fp16", "bf16"],
                        size=[[2, 3], [128, 256], [32, 16, 8], [512, 512]], self_shape=[[2, 3], [128, 256]])
        + product(overload=["out"], dtype=["fp32", "fp16", "bf16"],
                  size=[[2, 3], [128, 256], [16, 8, 4], [512, 512]], self_shape=[[2, 3], [64, 64]]),
        "heldout": [dict(self_shape=[2, 3], size=[0, 5], dtype="fp32"),
                    dict(self_shape=[7, 3], size=[511, 257], dtype="int32"),
                    dict(self_shape=[2, 3], size=[257, 129], dtype="fp16", overload="out", out_layout="step2"),
                    dict(self_shape=[5], self_dtype="bf16", size=[2, 3, 4, 5, 6], dtype=None)],
    },
    notes="self is a random fp32 tensor (self_dtype where a case says otherwise); .out writes into a poisoned out "
          "of the requested size and the out's dtype (upstream's buffer), or resizes an out of another size. "
          "Upstream calls torch.ops.aten.new_ones(self, size, dtype=dt) and .out(self, size, out=buf).",
).facts(counts=Counts(smoke=6, full=48, timed=48, heldout=4))


# =================================================================================== scalar_tensor
SCALAR_VALUES = [-7, -1, 0, 3, 12345, -1.5, 2.75, 3.14159]


def _scalar_tensor_args(p, device, gen):
    if p.get("overload") == "out":
        out = poisoned(p.get("out_shape", []), p["dtype"], device, p.get("out_layout", "contig"))
        return "torch.ops.aten.scalar_tensor.out", [p["val"]], {"out": out}, ("out",)
    kw: dict[str, Any] = {"device": device, "layout": None, "pin_memory": None}
    if p.get("dtype") is not None:
        kw["dtype"] = dtype_of(p["dtype"])
    return "torch.ops.aten.scalar_tensor", [p["val"]], kw, ()


SCALAR_TENSOR = FactoryOperator(
    "scalar_tensor", category="factory (0-d)",
    semantics="A 0-d tensor holding s converted to dtype (default: the default float dtype, fp32, whatever the "
              "Python type of s) on device. The conversion is c10's Scalar conversion: fp16/bf16 round to nearest "
              "even through fp32 (12345 -> 12344 in fp16, 12352 in bf16), floats to integers truncate, nonzero to bool "
              "is True; a value the dtype cannot hold (a finite value beyond a float dtype's largest finite value; "
              "NaN, infinities or out-of-range values for integers) is an error, as CUDA's fill checks it. "
              "scalar_tensor.out(s, out) resizes out "
              "to 0-d, keeps out's dtype, writes s and returns out.",
    exercised=["scalar_tensor", "scalar_tensor.out"], args=_scalar_tensor_args,
    cost=lambda p: Cost(0.0, float(elem_bytes(p.get("dtype") or "fp32"))),
    grids={
        "smoke": [dict(val=12345, dtype="fp16"), dict(val=-1.5, dtype="bf16"),
                  dict(val=3.14159, dtype="fp32", overload="out"), dict(val=True, dtype="int16"),
                  dict(val=-7, dtype=None), dict(val=2.75, dtype="bool", overload="out", out_shape=[3])],
        "full": product(dtype=["fp32", "fp16", "bf16"], val=SCALAR_VALUES)
        + product(overload=["out"], dtype=["fp32", "fp16", "bf16"], val=SCALAR_VALUES),
        "heldout": [dict(val=True, dtype="int32"), dict(val=1e10, dtype="bf16"), dict(val=-7, dtype="int64"),
                    dict(val=0.1, dtype="fp64", overload="out"), dict(val=-2.9, dtype="int16", overload="out",
                                                                      out_shape=[2, 2])],
    },
    notes="Upstream calls torch.ops.aten.scalar_tensor(val, dtype=dt, device=..., layout=None, pin_memory=None) and "
          ".out(val, out=buf) with a 0-d buf of the case dtype. Spec vs PyTorch: the spec says to cast through fp64; "
          "PyTorch converts a double to fp16/bf16 through fp32 (c10), which the reference (PyTorch's own result) "
          "follows. A finite value beyond fp16's range is an error on CUDA (PyTorch's checked Scalar conversion), "
          "while PyTorch's CPU fast path for one-element fills returns inf; no case uses such a value (the spec's "
          "proposed 1e10 -> fp16 is replaced). An out that is not 0-d is resized to 0-d.",
).facts(counts=Counts(smoke=6, full=48, timed=48, heldout=5))


# =========================================================================================== fill_
def _fill_args(p, device, gen):
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    v = p["value"]
    if p.get("form", "Scalar") == "Tensor":
        vdev = torch.device("cpu") if p.get("value_device") == "cpu" else device
        v = torch.tensor(v, dtype=dtype_of(p.get("value_dtype") or p["dtype"]), device=vdev)
    return "torch.Tensor.fill_", [x, v], {}, (0,)


def _fill_cost(p: dict[str, Any]) -> Cost:
    b = numel(p["shape"]) * elem_bytes(p["dtype"])
    if p.get("form") == "Tensor":
        b += elem_bytes(p.get("value_dtype") or p["dtype"])
    return Cost(0.0, float(b))


FILL_ = FactoryOperator(
    "fill_", category="factory-like (in-place fill)",
    semantics="In place: every element of self (any strides; the gaps of a strided view untouched) is set to value, "
              "converted to self's dtype; returns self. fill_.Scalar converts a Python number as c10 converts a "
              "Scalar (a double reaches fp16/bf16 through fp32; floats to integers truncate; a value the dtype "
              "cannot hold is an error, as for full). fill_.Tensor takes a 0-d value tensor (anything else is an "
              "error): on self's device its "
              "element is copied as copy_ converts dtypes; on another device (a 0-d CPU tensor) its value is read "
              "as a Python number first. An overlapping self (expanded) is an error.",
    exercised=["fill_.Scalar", "fill_.Tensor"], args=_fill_args, cost=_fill_cost,
    timed=lambda p: p.get("form", "Scalar") == "Scalar",
    grids={
        "smoke": [dict(shape=[64, 33], dtype="fp32", value=9),
                  dict(shape=[], dtype="bf16", value=1, form="Tensor"),
                  dict(shape=[5, 7], dtype="fp16", value=0),
                  dict(shape=[40, 24], dtype="int32", value=-3, layout="transposed"),
                  dict(shape=[6, 9], dtype="bool", value=True, layout="step2"),
                  dict(shape=[12, 10], dtype="fp16", value=2.75, form="Tensor", value_dtype="fp64"),
                  dict(shape=[33, 8], dtype="int16", value=7.9, form="Tensor", value_dtype="fp32",
                       layout="step2")],
        "full": product(form=["Scalar", "Tensor"], dtype=FLOAT3, shape=POINTWISE_SHAPES, value=[0, 1, 9]),
        "heldout": [dict(shape=[257, 511], dtype="fp32", value=-2.5, layout="transposed"),
                    dict(shape=[511, 257], dtype="int32", value=7),
                    dict(shape=[7, 17, 31], dtype="fp16", value=3.3, form="Tensor", value_device="cpu",
                         value_dtype="fp32"),
                    dict(shape=[5, 7, 11, 13], dtype="bf16", value=1 + 2 ** -8 + 2 ** -40, layout="step2"),
                    dict(shape=[0, 3], dtype="fp32", value=1)],
    },
    notes="Pre-damage/release grid (aten.md §6b.2): each of its 54 cases fills x with a Python int (fill_.Scalar) and "
          "with torch.tensor(value, dtype=x.dtype) on the device (fill_.Tensor); here each call is a case of its "
          "own: 108 cases, the 54 Scalar ones timed (upstream times only x.clone().fill_(value)). self is random "
          "(upstream: torch.ones), so filling 1 is not a no-op and ghost replay stays informative. While fill_ is "
          "registered on GPUs, PyTorch's zero_/zeros reach it (the harness's L2 flush uses a kernel of its own); "
          "the sandbox poisons tensors a wrapper allocates with fill_, so a fill_ wrapper that allocates would "
          "re-enter itself on GPUs: a fill_ wrapper must not allocate.",
).facts(counts=Counts(smoke=7, full=108, timed=54, heldout=5))


# =========================================================================================== zero_
def _zero_args(p, device, gen):
    x = make_tensor(p["shape"], p["dtype"], device, gen, layout=p.get("layout", "contig"))
    return "torch.Tensor.zero_", [x], {}, (0,)


ZERO_ = FactoryOperator(
    "zero_", category="factory-like (in-place fill 0)",
    semantics="In place: every element of self (any strides; the gaps of a strided view untouched) is set to the "
              "dtype's zero (+0.0 for floats, False for bool); returns self. It must be fast on huge buffers "
              "(while zero_ is registered, upstream's do_bench zeroes its 256 MB int32 L2-flush buffer with it).",
    exercised=["zero_"], args=_zero_args, cost=_write_cost(lambda p: p["shape"]),
    grids={
        "smoke": [dict(shape=[64, 33], dtype="fp32"), dict(shape=[], dtype="int64"),
                  dict(shape=[16, 7, 5], dtype="bf16"),
                  dict(shape=[40, 24], dtype="fp16", layout="transposed"),
                  dict(shape=[6, 9], dtype="bool", layout="step2"),
                  dict(shape=[100, 30], dtype="int16", layout="step3")],
        "full": product(dtype=["fp16", "fp32", "bf16", "int16", "int32", "int64"], shape=POINTWISE_SHAPES),
        "heldout": [dict(shape=[257, 511], dtype="fp16", layout="transposed"),
                    dict(shape=[511, 257], dtype="int16"),
                    # do_bench's 256 MB L2-flush buffer (on the CPU interpreter: ~100 s and ~5 GB for this case)
                    dict(shape=[64 * 1024 * 1024], dtype="int32"),
                    dict(shape=[5, 7, 11, 13], dtype="fp32", layout="step2")],
    },
    notes="self is random (ints in [-100, 100)); the gaps of strided views must stay untouched.",
).facts(counts=Counts(smoke=6, full=36, timed=36, heldout=4))


# The rows' full-tier counts (Counts.full, Counts.timed). aten.md §8 totals and how this family differs:
#   arange 756 -> 378: the device=None half creates CPU tensors and never reaches the candidate (§6 item 3);
#   full 144 -> 162, zeros 48 -> 54: each upstream case makes an inferred-dtype call and an explicit-dtype call;
#       the inferred one does not depend on the dtype axis, so it is 18 (6) untimed cases of its own;
#   fill_ 54 (pre-damage grid, §6b.2) -> 108: each case's fill_.Scalar and fill_.Tensor calls are separate cases,
#       only the Scalar one timed (as upstream times it).
OPERATORS: list[FactoryOperator] = [ARANGE, FILL_, FULL, NEW_ONES, ONES_LIKE, SCALAR_TENSOR, ZERO_, ZEROS, ZEROS_LIKE]

__all__ = ["OPERATORS", "FactoryOperator", "VALUE_WRITERS", "new_tensor_judge"]
