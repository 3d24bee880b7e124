"""The ATen source: operators that replace PyTorch ATen overloads (aten.md §4).

An ATen case is a *public* PyTorch call (``torch.add(x, 2.5, alpha=a)``, ``F.softmax(x, dim)``)
that reaches one overload of the operator. How the candidate is driven:

* on GPUs, every wrapper of the submission is registered with
  ``torch.library.Library("aten", "IMPL").impl(overload, fn, <dispatch key>)`` and the public call
  runs as a user's program would (aten.md §4.3);
* on the interpreter, registering CPU kernels would hijack the interpreter's own tensor work, so a
  dispatch mode routes the reached overload to the wrapper, which is called directly with the
  dispatcher's arguments (wrapped Python numbers included); a CompositeImplicitAutograd overload, which
  a dispatch mode never sees whole, is called directly (:meth:`AtenOperator.interpreter_route`).

A row describes the call (:attr:`Call.api <kernelgenbench.suite.spec.Call.api>`, its wrappers, the
interpreter's route); ``sandbox/drive.py`` registers, traces and calls the wrappers in the child.

Operators are rows: an :class:`AtenOperator` instance with its wrappers, public API, grids,
reference and cost. Families (pointwise, reduction, …) are functions that build rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ..common import upcast
from ..spec import (
    Call,
    Cost,
    Expected,
    Interface,
    NothingToCompute,
    Operator,
    Tolerance,
    Wrapper,
    dtype_of,
    is_named_overload,
    written_expected,
)

#: Public APIs a case may drive, by name. The child resolves only these names and
#: ``torch.ops.aten.<op>.<overload>`` (dispatcher entry points for overloads with no public API).
PUBLIC_API: dict[str, Callable[..., Any]] = {
    "torch.add": torch.add,
    "torch.sum": torch.sum,
    "torch.mm": torch.mm,
    "torch.cumsum": torch.cumsum,
    "torch.index_select": torch.index_select,
    "torch.nn.functional.softmax": torch.nn.functional.softmax,
    # pointwise unary family (suite/aten/pointwise.py)
    "torch.cos": torch.cos,
    "torch.sin": torch.sin,
    "torch.neg": torch.neg,
    "torch.rsqrt": torch.rsqrt,
    "torch.bitwise_not": torch.bitwise_not,
    "torch.nn.functional.silu": torch.nn.functional.silu,
    # pointwise binary family (suite/aten/binary.py)
    "torch.sub": torch.sub,
    "torch.mul": torch.mul,
    "torch.div": torch.div,
    "torch.eq": torch.eq,
    "torch.gt": torch.gt,
    "torch.le": torch.le,
    "torch.floor_divide": torch.floor_divide,
    "torch.pow": torch.pow,
    "torch.Tensor.add_": torch.Tensor.add_,
    "torch.Tensor.div_": torch.Tensor.div_,
    "torch.ops.aten.rsub": torch.ops.aten.rsub,  # the packet: resolves to one of rsub's four overloads
}


#: ATen operators whose work is data movement (``Operator.data_movement``): their outputs are input
#: elements (or given values) moved to other places, so an ATen copy or fill along a mapping of the
#: candidate's making (from or into a slice, select, transpose, expand or unfold view) would do their work.
#: Chosen from the suite: the gathers (``embedding``, ``gather``, ``index``, ``index_select``), the
#: scatters and indexed writes (``index_put_``, ``_index_put_impl_``, ``scatter``, ``masked_fill_``),
#: writing a slice of a zero tensor (``select_backward``), padding and resampling gradients
#: (``reflection_pad1d_backward``, ``upsample_nearest2d_backward``: an interior or a scale-1 copy is most
#: of their work), unfolding (``im2col``), rotating (``rot90``), the ``out=`` forms of splitting
#: (``unsafe_split``, ``unsafe_split_with_sizes``: their ``.out`` overloads copy the pieces), and
#: concatenation (``cat``, ``stack``: their rows forbid copies altogether already). Not flagged: views
#: (the result must alias its input, no copy can make it), the copy and factory families (copies and
#: values through PyTorch are forbidden to them outright), and operators that compute.
#: The selecting operands of the data-movement operators (``Operator.selector_args``), by schema name.
SELECTORS: dict[str, frozenset[str]] = {
    "embedding": frozenset({"indices"}), "gather": frozenset({"index"}), "index": frozenset({"indices"}),
    "index_select": frozenset({"index"}), "index_put_": frozenset({"indices"}),
    "_index_put_impl_": frozenset({"indices"}), "scatter": frozenset({"index"}), "masked_fill_": frozenset({"mask"}),
}
DATA_MOVEMENT: frozenset[str] = frozenset({
    "embedding", "gather", "index", "index_select", "index_put_", "_index_put_impl_", "scatter",
    "masked_fill_", "select_backward", "reflection_pad1d_backward", "upsample_nearest2d_backward", "im2col",
    "rot90", "unsafe_split", "unsafe_split_with_sizes", "cat", "stack",
})


#: ``call.api`` prefix for cases that call a wrapper directly: ``"wrapper:acosh_int"``.
DIRECT = "wrapper:"


def resolve_api(name: str) -> Callable[..., Any]:
    """The callable a case drives: a key of :data:`PUBLIC_API`, a ``torch.ops.aten`` overload
    (``torch.ops.aten.add.Tensor``; ``torch.ops.aten.add`` alone is ``.default``), or
    any other dotted public name under ``torch`` (``torch.nn.functional.huber_loss``,
    ``torch.Tensor.masked_fill_``). Case names come from the suite, never from a submission.

    Raises:
        KeyError: ``name`` does not name a public PyTorch callable.
    """
    if name in PUBLIC_API:
        return PUBLIC_API[name]
    prefix = "torch.ops.aten."
    if name.startswith(prefix):
        op, _, overload = name[len(prefix):].partition(".")
        packet = getattr(torch.ops.aten, op)
        return getattr(packet, overload or "default")
    if name.startswith("torch.") and not any(part.startswith("_") for part in name.split(".")):
        obj: Any = torch
        try:
            for part in name.split(".")[1:]:
                obj = getattr(obj, part)
        except AttributeError:
            raise KeyError(f"unknown public API {name!r}") from None
        if callable(obj):
            PUBLIC_API[name] = obj
            return obj
    raise KeyError(f"unknown public API {name!r}")


def schema_of(op: str, overload: str) -> str:
    """The installed PyTorch's schema of ``aten::<op>.<overload>`` (PyTorch wins over the prompt)."""
    return str(getattr(getattr(torch.ops.aten, op), overload)._schema)


def is_dispatcher(op: str, overload: str) -> bool:
    """Whether ``aten::<op>.<overload>`` has a dispatcher entry (False: a TorchScript-only overload)."""
    try:
        torch._C._dispatch_find_schema_or_throw(f"aten::{op}", "" if overload == "default" else overload)
    except RuntimeError:
        return False
    return True


def overload_kind(overload: str, schema: str, dispatcher: bool) -> str:
    """The :attr:`~kernelgenbench.suite.spec.Wrapper.kind` of ``overload`` (``"mean.names_dim"``):
    named-tensor overloads (:func:`~kernelgenbench.suite.spec.is_named_overload`) are ``"named"``
    (optional) on every PyTorch version, so the interface a submission must implement does not change
    between the CPU's PyTorch 2.13 (which lacks them) and the GPU image's 2.11 (which has them); others
    are ``"dispatcher"`` or JIT-only ``"jit"``."""
    if is_named_overload(overload, schema):
        return "named"
    return "dispatcher" if dispatcher else "jit"


@dataclass
class AtenCase:
    """How one ATen case is built: public API name, args, kwargs, written slots, and whether the case
    must launch a Triton kernel (False for direct calls of JIT-only Python-scalar overloads)."""

    api: str
    args: list[Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    written: tuple[int | str, ...] = ()
    needs_launch: bool = True
    host: tuple[int | str, ...] = ()  # tensors that stay on the host (Call.host)


class AtenOperator(Operator):
    """One ATen task (a row). See the module docstring for how cases are driven.

    Args:
        name: the op name (``"add"``, ``"_softmax"``).
        wrappers: every overload of the op (aten.md section "Wrappers to implement" and "Other
            overloads").
        grids: the case parameters per tier.
        build: ``build(params, device, gen) -> AtenCase``.
        reference: ``reference(params, call) -> list[Expected]`` on a clone of the inputs.
        timed: the timing gate (full tier).
        cost: FLOPs/bytes of a case.
        own_ops: ATen op names that count as the op itself (dispatch recursion when called).
        nothing_to_compute: the :class:`~kernelgenbench.suite.spec.NothingToCompute` rule of a view,
            scalar-read or allocation op (its cases set ``needs_launch`` per that rule).
        allow_copies: same-dtype ATen copies are allowed (L1 and L3).
        data_movement: the op's work is data movement (:attr:`Operator.data_movement`); default:
            whether ``name`` is in :data:`DATA_MOVEMENT`.
    """

    source = "aten"

    def __init__(self, name: str, *, category: str, semantics: str, wrappers: list[Wrapper],
                 grids: dict[str, list[dict[str, Any]]], build: Callable[..., AtenCase],
                 reference: Callable[[dict[str, Any], Call], list[Expected]],
                 cost: Callable[[dict[str, Any]], Cost], timed: Callable[[dict[str, Any]], bool] = lambda p: True,
                 own_ops: frozenset[str] | None = None, nothing_to_compute: NothingToCompute | None = None,
                 allow_copies: bool = True, notes: str = "", data_movement: bool | None = None) -> None:
        super().__init__(name, category=category, section=f"aten.md § aten::{name}", semantics=semantics,
                         interface=Interface(wrappers=tuple(wrappers)), nothing_to_compute=nothing_to_compute,
                         notes=notes)
        self._grids = grids
        self._build = build
        self._reference = reference
        self._cost = cost
        self._timed = timed
        self.own_ops = own_ops or frozenset({name})
        self.allow_copies = allow_copies
        self.data_movement = name in DATA_MOVEMENT if data_movement is None else data_movement
        self.selector_args = SELECTORS.get(name, frozenset()) if self.data_movement else frozenset()

    def grid(self, tier: str) -> list[dict[str, Any]]:
        return list(self._grids.get(tier, []))

    def timed(self, params: dict[str, Any]) -> bool:
        return self._timed(params)

    def build(self, params: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
        c = self._build(params, device, gen)
        return Call(c.args, c.kwargs, c.written, api=c.api, needs_launch=c.needs_launch, host=c.host)

    def reference(self, params: dict[str, Any], call: Call) -> list[Expected]:
        return self._reference(params, call)

    def cost(self, params: dict[str, Any]) -> Cost:
        return self._cost(params)

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        """On the interpreter, the wrapper ``call`` reaches and its arguments, where a dispatch mode would
        see only the decomposition of a CompositeImplicitAutograd overload: ``(wrapper name, args, kwargs)``,
        called directly (``sandbox/drive.py``); None (default): drive ``call.api``, whose overload reaches
        the wrapper through the dispatch mode."""
        return None

    def baseline(self, call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        if str(call.api).startswith(DIRECT):
            raise ValueError(f"{self.id}: direct wrapper calls ({call.api}) have no timed baseline")
        api = resolve_api(str(call.api))
        return (lambda c: api(*c.args, **c.kwargs)), f"ATen {call.api} (native, same device)"


# -- shared pieces of ATen rows --------------------------------------------------------------------

def functional_expected(ref: torch.Tensor, tol: Tolerance) -> list[Expected]:
    """A functional op's single returned tensor."""
    return [Expected("return", ref, tol)]


def elem_bytes(dtype: str) -> int:
    return torch.empty(0, dtype=dtype_of(dtype)).element_size()


def flop_class(dtype: str) -> str:
    dt = dtype_of(dtype)
    if dt == torch.float64:
        return "fp64"
    if dt in (torch.float16, torch.bfloat16):
        return "fp16"
    return "fp32"


def native_then_exact(call: Call, ref_args: list[Any] | None = None,
                      ref_kwargs: dict | None = None) -> torch.Tensor:
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


def std_expected(params: dict[str, Any], call: Call, ref: torch.Tensor, tol: Tolerance,
                 atol_extra: torch.Tensor | None = None) -> list[Expected]:
    """The expected outputs of a case with one result: the returned tensor, or for an ``out=`` case the
    written out tensor and the return aliasing it."""
    if "out" in call.kwargs:
        return _out_expected(call, ref, tol, atol_extra)
    return [Expected("return", ref, tol, atol_extra=atol_extra)]


def pin_leading(x: torch.Tensor, values: Sequence[Any]) -> None:
    """Write ``values`` into the leading elements of ``x`` in logical (row-major) order, in place: each value
    goes through fp64 and is then cast to ``x``'s dtype (integers truncate); a None leaves its element as
    drawn; values beyond ``x.numel()`` are dropped."""
    k = min(len(values), x.numel())
    at = [i for i in range(k) if values[i] is not None]
    if not at:
        return
    vals = torch.tensor([float(values[i]) for i in at], dtype=torch.float64).to(x.dtype).to(x.device)
    if x.dim() == 0:
        x.copy_(vals[0])
        return
    x[torch.unravel_index(torch.tensor(at, device=x.device), x.shape)] = vals


def wrappers_of(op: str, exercised: Sequence[str], absent: dict[str, str] | None = None, *,
                dispatcher_first: bool = False) -> list[Wrapper]:
    """Every overload the installed PyTorch has for ``aten::<op>`` (PyTorch wins over the prompt) with its
    schema and kind (JIT-only ones ``jit``, :func:`overload_kind`), plus the ``absent`` ones the upstream
    prompt lists but PyTorch 2.13 lacks (``{overload: schema}``, kind ``named``). ``exercised`` are the
    overload keys the tests drive (``"add.Tensor"``); ``dispatcher_first`` orders dispatcher overloads first,
    exercised ones first within each kind.

    Raises:
        ValueError: an exercised overload is not in the installed PyTorch.
    """
    out = []
    for ov in getattr(torch.ops.aten, op).overloads():
        key = op if ov == "default" else f"{op}.{ov}"
        schema = schema_of(op, ov)
        out.append(Wrapper(key, schema, kind=overload_kind(key, schema, is_dispatcher(op, ov)),
                           exercised=key in exercised))
    unknown = set(exercised) - {w.overload for w in out}
    if unknown:
        raise ValueError(f"aten::{op}: exercised overloads {sorted(unknown)} are not in PyTorch {torch.__version__}")
    have = {w.overload for w in out}
    for ov, schema in (absent or {}).items():
        if f"{op}.{ov}" not in have:
            out.append(Wrapper(f"{op}.{ov}", schema, kind="named"))
    if dispatcher_first:
        out.sort(key=lambda w: (w.kind != "dispatcher", not w.exercised))
    return out


class ReachedOverloads(TorchDispatchMode):
    """A dispatch mode that records the overloads of ``aten::<op>`` a call reaches, in order
    (``seen``: overload names, ``"default"`` for the bare op)."""

    def __init__(self, op: str) -> None:
        super().__init__()
        self.op, self.seen = op, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._schema.name == f"aten::{self.op}":
            self.seen.append(func._overloadname)
        return func(*args, **(kwargs or {}))
