"""The operator spec model: what a task is, independent of any one operator.

An :class:`Operator` is one task of the benchmark (``aten::_softmax``, ``vllm::rms_norm``,
``cublas::cublasSgemm_v2``). It knows its interface, how to enumerate its cases per tier, how to
build the inputs of a case, how to compute the trusted reference, how the candidate is driven, what
the production baseline is, and what a case costs (FLOPs, bytes).

Code in this module runs on both sides of the trust boundary:

* trusted side (verifier): :meth:`Operator.grid`, :meth:`Operator.build`, :meth:`Operator.reference`,
  :meth:`Operator.cost`;
* untrusted child (sandbox): :meth:`Operator.invoke`, :meth:`Operator.baseline`.

The semantics of every operator are given by ``shared/spec/{aten,vllm,cublas}.md``; each operator
records the section it implements in :attr:`Operator.section`.
"""
from __future__ import annotations

import abc
import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Sequence

import torch

TIERS = ("smoke", "full", "heldout")
SOURCES = ("aten", "vllm", "cublas")

#: rtol by dtype (spec aten.md §3, vllm.md §2.3, cublas.md §2.8). Integers and bool are exact.
RTOL: dict[torch.dtype, float] = {
    torch.float16: 1e-3,
    torch.bfloat16: 1.6e-2,
    torch.float32: 1e-5,
    torch.float64: 1e-5,
    torch.complex32: 1e-3,
    torch.complex64: 1.3e-6,
    torch.complex128: 1e-6,
}

DTYPE_NAMES: dict[str, torch.dtype] = {
    "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64,
    "c64": torch.complex64, "c128": torch.complex128,
    "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "bool": torch.bool,
}
DTYPE_SHORT = {v: k for k, v in DTYPE_NAMES.items()}


def dtype_of(name: str | torch.dtype) -> torch.dtype:
    """Resolve a short dtype name (``"fp16"``) or a :class:`torch.dtype` to a :class:`torch.dtype`.

    Raises:
        KeyError: the name is not one of :data:`DTYPE_NAMES`.
    """
    if isinstance(name, torch.dtype):
        return name
    return DTYPE_NAMES[name]


def is_exact_dtype(dtype: torch.dtype) -> bool:
    """True for integer and bool dtypes, which are always compared exactly."""
    return not (dtype.is_floating_point or dtype.is_complex)


@dataclass(frozen=True)
class Tolerance:
    """How a value is compared with its reference (DESIGN.md "Tolerance").

    The default rule is ``rtol = RTOL[dtype]`` and ``atol = 1e-4 × reduce_dim``, where
    ``reduce_dim`` is the reduction length (1 for pointwise). Integer, bool and index outputs, and
    anything with ``exact=True``, must match bit for bit (``-0.0 == 0.0`` aside).

    Attributes:
        exact: compare with rtol = atol = 0.
        reduce_dim: the accumulation length that scales atol.
        rtol: an override of the dtype's rtol (the spec section says why).
        atol: an override of the atol formula.
        equal_nan: NaN in the same positions counts as equal (positions must always match).
    """

    exact: bool = False
    reduce_dim: int = 1
    rtol: float | None = None
    atol: float | None = None
    equal_nan: bool = True

    def resolve(self, dtype: torch.dtype, scale: float = 1.0) -> tuple[float, float, str]:
        """Return ``(rtol, atol, rule)`` for values of ``dtype``.

        Args:
            dtype: the dtype of the compared tensor.
            scale: a platform profile's tolerance scale (1.0 on NVIDIA and the interpreter).

        Returns:
            rtol, atol and a short text naming the rule applied (written into the record).
        """
        if self.exact or is_exact_dtype(dtype):
            return 0.0, 0.0, "exact"
        rtol = self.rtol if self.rtol is not None else RTOL.get(dtype, 1e-5)
        atol = self.atol if self.atol is not None else 1e-4 * max(1, self.reduce_dim)
        rule = f"rtol={rtol:g} atol={atol:g}"
        if self.rtol is None and self.atol is None:
            rule = f"rtol[{DTYPE_SHORT.get(dtype, dtype)}]={rtol:g} atol=1e-4*{max(1, self.reduce_dim)}"
        if scale != 1.0:
            rule += f" x{scale:g} (platform)"
        return rtol * scale, atol * scale, rule


EXACT = Tolerance(exact=True)


@dataclass(frozen=True)
class Cost:
    """The work of one case, for achieved rates and % of speed-of-light.

    Attributes:
        flops: floating-point operations (a real multiply-add = 2).
        bytes: the fewest bytes that must move through device memory (each input read once,
            each output written once).
        compute: the ceiling the FLOPs are measured against: ``"fp32"``, ``"fp16"`` (also bf16),
            ``"fp64"`` matrix-unit rates, or ``"none"`` for memory-bound work.
    """

    flops: float
    bytes: float
    compute: str = "none"


@dataclass(frozen=True)
class Wrapper:
    """One ATen overload a submission implements (aten.md §4.1).

    Attributes:
        overload: the overload key, e.g. ``"add.Tensor"`` (``"_softmax"`` for the default one).
        name: the wrapper's Python name, the key with ``.`` → ``_`` (``add_Tensor``).
        schema: the dispatcher schema, or the JIT/scalar signature.
        kind: ``"dispatcher"`` (registered into ``torch.library``), ``"jit"`` (TorchScript-only
            scalar overload: a plain Python function), or ``"absent"`` (Dimname overloads that
            PyTorch 2.13 no longer has).
        exercised: the tests drive this overload (full tier).
    """

    overload: str
    schema: str
    kind: str = "dispatcher"
    exercised: bool = False

    @property
    def name(self) -> str:
        return self.overload.replace(".", "_")

    @property
    def required(self) -> bool:
        """Exercised and dispatcher overloads must exist; JIT-only and absent ones are optional."""
        return self.exercised or self.kind == "dispatcher"


@dataclass(frozen=True)
class Interface:
    """What a submission file must define.

    ATen operators list :class:`Wrapper` s. vLLM and cuBLAS operators define one function whose
    parameters must have exactly the names, order and defaults of ``signature``.

    Attributes:
        wrappers: the ATen wrappers (empty for vLLM/cuBLAS).
        function: the function name (vLLM/cuBLAS).
        params: parameter names in order (vLLM/cuBLAS).
        defaults: default values by parameter name.
        written: parameters written in place (outputs that already exist).
        returns: what the function returns (text).
        args_doc: per-parameter dtype/shape/role text for prompts and ``kgb show``.
    """

    wrappers: tuple[Wrapper, ...] = ()
    function: str | None = None
    params: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)
    written: tuple[str, ...] = ()
    returns: str = ""
    args_doc: dict[str, str] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        if self.function is None:
            return "; ".join(f"{w.name}: {w.schema}" for w in self.wrappers)
        parts = [f"{p}={self.defaults[p]!r}" if p in self.defaults else p for p in self.params]
        return f"{self.function}({', '.join(parts)}) -> {self.returns or 'None'}"

    def required_names(self) -> list[str]:
        if self.function is not None:
            return [self.function]
        return [w.name for w in self.wrappers if w.required]


@dataclass
class Case:
    """One test case: an operator, a tier, an index in that tier's grid and its parameters.

    ``params`` is JSON-serialisable (shapes as lists, dtypes as short names) and is what the record
    shows as the case. The seed is derived from the operator id, tier and parameters, so a case
    draws the same inputs in every run on the same platform.
    """

    op: str
    tier: str
    index: int
    params: dict[str, Any]
    timed: bool = False

    @property
    def id(self) -> str:
        return f"{self.tier}/{self.index}"

    @property
    def seed(self) -> int:
        key = f"{self.op}|{self.tier}|{sorted(self.params.items())!r}".encode()
        return int.from_bytes(hashlib.sha256(key).digest()[:4], "little")

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass
class Call:
    """The concrete arguments of one case, as the candidate receives them.

    Attributes:
        args: positional arguments (tensors on the device, Python scalars, dtypes, strings).
        kwargs: keyword arguments.
        written: positions in ``args`` (or names in ``kwargs``) that the call writes in place;
            the verifier poisons their unaddressed memory and checks all of it afterwards.
        unchanged: positions/names of tensor arguments that must be bit-identical after the call.
            By default every tensor argument that is not written.
        api: for ATen cases, the public PyTorch API the case drives (a key of
            ``suite.aten.family.PUBLIC_API``, a ``torch.ops.aten`` overload, or
            ``"wrapper:<name>"`` for a direct call); None for vLLM and cuBLAS.
        needs_launch: the case must launch a Triton kernel (False for Python-scalar overloads and
            operators with nothing to compute).
    """

    args: list[Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    written: tuple[int | str, ...] = ()
    unchanged: tuple[int | str, ...] | None = None
    api: str | None = None
    needs_launch: bool = True

    def get(self, slot: int | str) -> Any:
        return self.args[slot] if isinstance(slot, int) else self.kwargs[slot]

    def tensor_slots(self) -> list[int | str]:
        slots: list[int | str] = [i for i, a in enumerate(self.args) if isinstance(a, torch.Tensor)]
        slots += [k for k, v in self.kwargs.items() if isinstance(v, torch.Tensor)]
        return slots

    def unchanged_slots(self) -> list[int | str]:
        if self.unchanged is not None:
            return list(self.unchanged)
        return [s for s in self.tensor_slots() if s not in self.written]

    def clone(self) -> "Call":
        """A deep copy whose tensors keep their strides, storage offsets and whole storages."""
        return Call(clone_tree(self.args), clone_tree(self.kwargs), self.written, self.unchanged, self.api,
                    self.needs_launch)


@dataclass
class Expected:
    """One value the candidate must produce.

    Attributes:
        slot: ``"return"``, ``"return.<i>"`` for tuple returns, or ``"arg.<pos|name>"`` for a
            written argument.
        value: the expected tensor. For a written argument it is the expected *whole storage*
            (flat), the poisoned/original bits outside ``region``.
        tol: the tolerance inside the compared region.
        region: for written arguments, a flat bool mask over the storage of the elements the
            call addresses; elements outside must be bit-identical to ``value``.
        check_dtype: the returned tensor's dtype must equal ``value.dtype``.
        alias: for ``slot == "return"`` with no value: the return must be the very object passed
            as this argument slot (``"arg.4"``, ``"arg.out"``): in-place and out= variants return
            their output argument.
        atol_extra: an elementwise absolute allowance added to the tolerance bound, shaped like
            the compared values (for written arguments: like the region's values in storage
            order). Used where the spec's rounding points let one ulp of an intermediate move the
            output by more than rtol (see :func:`intermediate_ulp`).
    """

    slot: str
    value: torch.Tensor | None
    tol: Tolerance
    region: torch.Tensor | None = None
    check_dtype: bool = True
    alias: str | None = None
    atol_extra: torch.Tensor | None = None


def clone_tree(obj: Any) -> Any:
    """Clone every tensor in a nested list/tuple/dict, preserving views on whole storages.

    Tensors that share one storage in ``obj`` still share one (cloned) storage in the result,
    with the same sizes, strides and storage offsets.
    """
    memo: dict[int, torch.Tensor] = {}

    def storage_clone(t: torch.Tensor) -> torch.Tensor:
        st = t.untyped_storage()
        key = st.data_ptr()
        if key not in memo:
            flat = torch.empty(0, dtype=torch.uint8, device=t.device)
            flat.set_(st.clone())
            memo[key] = flat
        base = memo[key]
        out = torch.empty(0, dtype=t.dtype, device=t.device)
        out.set_(base.untyped_storage(), t.storage_offset(), t.size(), t.stride())
        return out

    def rec(o: Any) -> Any:
        if isinstance(o, torch.Tensor):
            return storage_clone(o)
        if isinstance(o, list):
            return [rec(x) for x in o]
        if isinstance(o, tuple):
            return tuple(rec(x) for x in o)
        if isinstance(o, dict):
            return {k: rec(v) for k, v in o.items()}
        return o

    return rec(obj)


def storage_view(t: torch.Tensor) -> torch.Tensor:
    """A flat tensor of ``t``'s dtype over the whole of ``t``'s storage (from element 0)."""
    n = t.untyped_storage().nbytes() // t.element_size()
    out = torch.empty(0, dtype=t.dtype, device=t.device)
    out.set_(t.untyped_storage(), 0, (n,), (1,))
    return out


def region_mask(t: torch.Tensor) -> torch.Tensor:
    """A flat bool mask over ``t``'s storage marking the elements the view ``t`` addresses."""
    n = t.untyped_storage().nbytes() // t.element_size()
    mask = torch.zeros(n, dtype=torch.bool, device=t.device)
    if t.numel():
        mask.as_strided(t.size(), t.stride(), t.storage_offset()).fill_(True)
    return mask


def ulp(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The spacing of ``dtype`` at each |value| of ``t`` (float64 result; normal numbers)."""
    mant = {torch.float16: 10, torch.bfloat16: 7, torch.float32: 23, torch.float64: 52}[dtype]
    tiny = torch.finfo(dtype).tiny
    e = torch.floor(torch.log2(t.double().abs().clamp_min(tiny)))
    return torch.pow(2.0, e - mant)


def written_expected(slot: str, before: torch.Tensor, logical: torch.Tensor, tol: Tolerance,
                     region_view: torch.Tensor | None = None, atol_extra: torch.Tensor | None = None) -> Expected:
    """Expected whole storage of a written argument.

    Args:
        slot: the record slot, ``"arg.<i>"``.
        before: the argument as given to the candidate (poisoned where it will be written).
        logical: the reference values of the addressed region, shaped like ``region_view``.
        tol: tolerance inside the region.
        region_view: the view of ``before`` that the call addresses (default: ``before`` itself).
    """
    view = before if region_view is None else region_view
    exp_flat = storage_view(before).clone()
    target = exp_flat.as_strided(view.size(), view.stride(), view.storage_offset())
    target.copy_(logical.to(view.dtype))
    mask = region_mask(view)
    extra = None
    if atol_extra is not None:
        full = torch.zeros(exp_flat.shape, dtype=torch.float64, device=exp_flat.device)
        full.as_strided(view.size(), view.stride(), view.storage_offset()).copy_(atol_extra)
        extra = full[mask]
    return Expected(slot, exp_flat, tol, mask, atol_extra=extra)


class Operator(abc.ABC):
    """One benchmark task. Subclasses (families) fill in the hooks.

    Class attributes describe the task; instance hooks build cases. A new operator of an existing
    family is one instance (a row), not a new class.
    """

    source: ClassVar[str] = ""

    def __init__(self, name: str, *, category: str, section: str, semantics: str,
                 interface: Interface, nothing_to_compute: bool = False, notes: str = "") -> None:
        self.name = name
        self.category = category
        self.section = section
        self.semantics = semantics
        self.interface = interface
        self.nothing_to_compute = nothing_to_compute
        self.notes = notes

    # -- identity ---------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return f"{self.source}::{self.name}"

    @property
    def filename(self) -> str:
        """The submission file name (``aten__add.py``)."""
        return f"{self.source}__{self.name}.py"

    # -- trusted side -----------------------------------------------------------------------
    @abc.abstractmethod
    def grid(self, tier: str) -> list[dict[str, Any]]:
        """The parameters of every case of ``tier``, in order."""
        ...

    def timed(self, params: dict[str, Any]) -> bool:
        """Whether a full-tier case passes the spec's timing gate."""
        return False

    def cases(self, tier: str) -> list[Case]:
        """The cases of ``tier``.

        Raises:
            ValueError: unknown tier.
        """
        if tier not in TIERS:
            raise ValueError(f"{self.id}: unknown tier {tier!r}; expected one of {TIERS}")
        return [Case(self.id, tier, i, p, timed=(tier == "full" and self.timed(p)))
                for i, p in enumerate(self.grid(tier))]

    @abc.abstractmethod
    def build(self, params: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
        """Draw the inputs of one case on ``device`` from ``gen``."""
        ...

    @abc.abstractmethod
    def reference(self, params: dict[str, Any], call: Call) -> list[Expected]:
        """The expected outputs, computed from a clone of the inputs as given to the candidate."""
        ...

    def cost(self, params: dict[str, Any]) -> Cost:
        """FLOPs and bytes of one case (spec "Cost" lines)."""
        return Cost(0.0, 0.0)

    def tensor_dtypes(self, params: dict[str, Any]) -> set[torch.dtype]:
        """The dtypes a case computes in (for platform dtype limits)."""
        out = set()
        for k in ("dtype", "out_dtype"):
            if k in params and params[k] is not None:
                out.add(dtype_of(params[k]))
        return out

    # -- untrusted child --------------------------------------------------------------------
    @abc.abstractmethod
    def invoke(self, impl: Any, call: Call, platform: Any) -> Any:
        """Run the candidate on ``call`` (in the sandbox child). Returns what the candidate returns."""
        ...

    @abc.abstractmethod
    def baseline(self, call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        """The production baseline for timing: ``(fn, label)``; ``fn(call)`` runs it once."""
        ...

    def baseline_label(self) -> str:
        """Which production implementation the timing compares against (for records)."""
        return {"aten": "ATen (native op, same device)", "cublas": "cuBLAS routine (libcublas via ctypes)"}.get(
            self.source, "production baseline")

    # -- description --------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id, "source": self.source, "category": self.category,
            "section": self.section, "semantics": self.semantics,
            "interface": self.interface.signature,
            "nothing_to_compute": self.nothing_to_compute,
        }


def product(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of named axes, first axis outermost, as a list of dicts.

    A key that joins names with commas (``"m,n,k"``) binds a tuple of values together.
    """
    keys = list(axes)
    out: list[dict[str, Any]] = [{}]
    for k in keys:
        nxt = []
        for base in out:
            for v in axes[k]:
                d = dict(base)
                if "," in k:
                    for name, val in zip(k.split(","), v):
                        d[name] = val
                else:
                    d[k] = v
                nxt.append(d)
        out = nxt
    return out


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape) if shape else 1
