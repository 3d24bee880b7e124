"""The operator spec model: what a task is, independent of any one operator.

An :class:`Operator` is one task of the benchmark (``aten::_softmax``, ``vllm::rms_norm``,
``cublas::cublasSgemm_v2``). It knows its interface, how to enumerate its cases per tier, how to
build the inputs of a case, how to compute the trusted reference, how a case calls the candidate, what
the production baseline is, and what a case costs (FLOPs, bytes).

The spec model imports neither the sandbox nor the verifier (``tests/test_layout.py``). Both processes use it:

* trusted side (verifier): :meth:`Operator.grid`, :meth:`Operator.build`, :meth:`Operator.reference`,
  :meth:`Operator.cost`, and the custom judges of :attr:`Expected.check`;
* untrusted child (sandbox): :meth:`Operator.drive` (how many calls, on which arguments: the calls
  themselves, the wrappers' registration and tracing are ``sandbox/drive.py``'s), :meth:`Operator.baseline`,
  and :meth:`Operator.build` for the timed repetitions' inputs.

The semantics of every operator are given by ``shared/spec/{aten,vllm,cublas}.md``; each operator
records the section it implements in :attr:`Operator.section`.
"""
from __future__ import annotations

import abc
import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Protocol, Sequence, TypeVar

import torch

from .tensors import clone_tree, region_mask, storage_view
from .tiers import ALL_TIERS, SHOWN_TIERS, TIERS, VERDICT_TIER, Counts, tier_label, tier_name, tier_parts, verdict_scope  # noqa: F401

# re-exported: the dtype names and the tolerance rules belong to the spec model (their home is .tolerance)
from .tolerance import (  # noqa: F401
    ACCUMULATION_LAMBDA,
    ACCUMULATION_NOTE,
    ATOL_REDUCE_DIM_1,
    DTYPE_NAMES,
    DTYPE_SHORT,
    EXACT,
    EXACT_ATOL,
    EXACT_TEXT,
    ROUNDING_LAMBDA,
    RTOL,
    RTOL_FP64_ACCUMULATION,
    RTOL_FP64_ACCUMULATION_TEXT,
    SOFTMAX_BOUND_CONST,
    UNIT_ROUNDOFF,
    Tolerance,
    accumulation_allowance,
    accumulation_rule,
    accumulation_text,
    dtype_of,
    is_exact_dtype,
    loss_reduction_rule,
    rounding_rule,
    rounding_text,
    softmax_terms,
    stated_rtol,
)

SOURCES = ("aten", "vllm", "cublas")


@dataclass(frozen=True)
class Cost:
    """The work of one case, for achieved rates and % of speed-of-light.

    Attributes:
        flops: floating-point operations (a real multiply-add = 2).
        bytes: the fewest bytes that must move through device memory (each input read once,
            each output written once).
        compute: the ceiling the FLOPs are measured against: ``"fp32"``, ``"fp16"`` (also bf16),
            ``"fp64"``, ``"int8"`` (int8 x int8 -> int32), ``"fp8"`` (e4m3) matrix-unit rates
            (:func:`kernelgenbench.verify.ceilings.measure`), or ``"none"`` for memory-bound work.
    """

    flops: float
    bytes: float
    compute: str = "none"


def is_named_overload(overload: str, schema: str) -> bool:
    """Whether ``overload`` (``"mean.names_dim"``) is a named-tensor (``Dimname``) overload. The
    installed PyTorch prints a Dimname argument as ``str`` in its schemas, so the overload name
    decides (``dimname*``, ``Dimname``, ``names*``: every named-tensor overload of the 110 ATen
    operators; seen on PyTorch 2.11)."""
    ov = overload.partition(".")[2].lower()
    return "Dimname" in schema or "dimname" in ov or ov.startswith("names")


@dataclass(frozen=True)
class Wrapper:
    """One ATen overload a submission implements (aten.md §4.1).

    Attributes:
        overload: the overload key, e.g. ``"add.Tensor"`` (``"_softmax"`` for the default one).
        name: the wrapper's Python name, the key with ``.`` → ``_`` (``add_Tensor``).
        schema: the dispatcher schema, or the JIT/scalar signature.
        kind: ``"dispatcher"`` (registered into ``torch.library``), ``"jit"`` (TorchScript-only
            scalar overload: a plain Python function), or ``"named"`` (named-tensor ``Dimname``
            overloads: optional on every PyTorch version, registered where the installed PyTorch
            has them; 2.11 does, 2.13 does not).
        exercised: the tests drive this overload (full tier).
    """

    overload: str
    schema: str
    kind: str = "dispatcher"
    exercised: bool = False

    def __post_init__(self) -> None:
        # Named-tensor overloads are optional whoever builds the row (families list the installed
        # PyTorch's overloads: 2.11 has Dimname forms, 2.13 not; one interface for both).
        if self.kind == "dispatcher" and is_named_overload(self.overload, self.schema):
            object.__setattr__(self, "kind", "named")

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


def format_param(v: Any) -> str:
    """One case parameter as the harness writes it: a float by its repr, a list or tuple as ``[a, b]`` (its items
    the same way: a tuple of operand names ``('x',)`` reads ``[x]``, as a list would), anything else by str."""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_param(x) for x in v) + "]"
    return str(v)


def describe_params(params: dict[str, Any]) -> str:
    """A case's parameters, ``k=v`` joined by commas, each value by :func:`format_param`."""
    return ", ".join(f"{k}={format_param(v)}" for k, v in params.items())


@dataclass
class Case:
    """One test case: an operator, its tier, its index in that tier's grid and its parameters.

    ``params`` is JSON-serialisable (shapes as lists, dtypes as short names) and is what the record
    shows as the case. The seed is derived from the operator id, tier and parameters, so a case
    draws the same inputs in every run on the same platform, and a case of a union of tiers
    (``"all"``) is the same case as in its own tier: same :attr:`id`, parameters and seed.

    Attributes:
        tier: the case's own tier (one of :data:`TIERS`, also in a union).
        index: the case's position in the selection it was drawn for, unique within a job (the
            verifier keys a job's runs by it): in a single tier, its index in that tier's grid; in a
            union, its position in the union.
        tier_index: its index in its own tier's grid (the ``N`` of :attr:`id`); defaults to ``index``.
    """

    op: str
    tier: str
    index: int
    params: dict[str, Any]
    timed: bool = False
    tier_index: int | None = None

    def __post_init__(self) -> None:
        if self.tier_index is None:
            self.tier_index = self.index

    @property
    def id(self) -> str:
        return f"{self.tier}/{self.tier_index}"

    @property
    def seed(self) -> int:
        key = f"{self.op}|{self.tier}|{sorted(self.params.items())!r}".encode()
        return int.from_bytes(hashlib.sha256(key).digest()[:4], "little")

    def describe(self) -> str:
        """The parameters as every output of the harness writes them (failure messages, ``kgb show --cases``,
        prompts): ``k=v`` joined by commas, each value by :func:`format_param`."""
        return describe_params(self.params)


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
        pointers: pointer-array arguments (cuBLAS ``*Batched``, cublas.md §2.2): argument position ->
            element offsets, one per batch, into the tensor held at that position. A device address
            means nothing once a tensor has travelled through ``torch.save`` to the sandbox child, so
            the case holds the *storage* of the pointed-to arrays at that position (everything the
            verifier saves, clones, poisons, compares and checks untouched is that tensor) and
            :func:`bind_pointers` turns it into the int64 address tensor right before each call of
            the candidate or the baseline, in the process that makes the call. A submission only
            ever sees the address tensor.
        host: slots of tensors that stay on the host (aten::fill_'s 0-d CPU value): every other tensor reaches
            the sandbox child on the case's device (``torch.load(map_location=...)``), these are moved back.
    """

    args: list[Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    written: tuple[int | str, ...] = ()
    unchanged: tuple[int | str, ...] | None = None
    api: str | None = None
    needs_launch: bool = True
    pointers: dict[int, tuple[int, ...]] = field(default_factory=dict)
    host: tuple[int | str, ...] = ()

    def get(self, slot: int | str) -> Any:
        """The argument at ``slot``: a position (int), a keyword name, or a dotted path into a list argument
        (``"0.1"``: element 1 of the list at position 0; written lists such as ``copy_blocks``' caches are
        judged element by element as slots ``arg.0.1``).

        Raises:
            IndexError, KeyError: no such argument or element.
        """
        if isinstance(slot, str) and (slot.isdigit() or "." in slot):
            head, *rest = slot.split(".")
            value = self.get(int(head) if head.isdigit() else head)
            for part in rest:
                value = value[int(part)]
            return value
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
                    self.needs_launch, dict(self.pointers), self.host)

    def saved(self) -> dict[str, Any]:
        """What travels to the sandbox child (``torch.save``): arguments, written slots, API, launch need,
        pointer arrays. :meth:`loaded` makes the Call again."""
        return {"args": self.args, "kwargs": self.kwargs, "written": list(self.written), "api": self.api,
                "needs_launch": self.needs_launch, "pointers": {int(k): list(v) for k, v in self.pointers.items()},
                "host": list(self.host)}

    @staticmethod
    def loaded(d: dict[str, Any], args: list[Any] | None = None, kwargs: dict[str, Any] | None = None) -> "Call":
        """The Call of :meth:`saved`'s dict ``d`` (``args``/``kwargs``: clones to use instead)."""
        return Call(d["args"] if args is None else args, d["kwargs"] if kwargs is None else kwargs,
                    tuple(d["written"]), api=d.get("api"), needs_launch=bool(d.get("needs_launch", True)),
                    pointers={int(k): tuple(int(o) for o in v) for k, v in (d.get("pointers") or {}).items()},
                    host=tuple(d.get("host") or ()))


class PointerArrayTampered(RuntimeError):
    """The candidate (or baseline) changed an address in a pointer-array argument (an input, §2.2)."""


def _addresses(t: torch.Tensor, offsets: Sequence[int]) -> list[int]:
    es = t.element_size()
    base = t.data_ptr()
    return [base + int(o) * es for o in offsets]


def bind_pointers(call: Call) -> Call:
    """The call as the candidate (or the cuBLAS baseline) receives it: every pointer-array position
    (:attr:`Call.pointers`) holds a new 1-D int64 tensor, on the storage tensor's device, of the addresses
    ``data_ptr() + offset * element_size`` of the batches' arrays in the tensor the case holds there
    (cublas.md §2.2). Calls without pointer arrays are returned as they are.

    The addresses are computed in the calling process from the tensors it holds, so they are right after
    any ``torch.save``/``torch.load`` or clone. The bound call is built once per Call and cached (timed
    repetitions reuse it, as a caller reuses its pointer arrays); :func:`unbind_result` checks it afterwards.
    Raises ValueError when a pointer position does not hold a tensor or an offset lies outside it."""
    if not call.pointers:
        return call
    cached = call.__dict__.get("_bound")
    if cached is not None:
        return cached[0]
    args = list(call.args)
    want: dict[int, list[int]] = {}
    for slot, offsets in call.pointers.items():
        t = call.args[slot]
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"pointer-array argument {slot} holds {type(t).__name__}, not the arrays' tensor")
        if any(o < 0 or (o >= t.numel() and t.numel() > 0) for o in offsets):
            raise ValueError(f"pointer-array argument {slot}: offsets {list(offsets)} outside its "
                             f"{t.numel()} elements")
        want[slot] = _addresses(t, offsets)
        args[slot] = torch.tensor(want[slot], dtype=torch.int64, device=t.device)
    bound = Call(args, call.kwargs, call.written, call.unchanged, call.api, call.needs_launch)
    call.__dict__["_bound"] = (bound, want)
    return bound


def unbind_result(call: Call, ret: Any, check: bool = True) -> Any:
    """After a call made with :func:`bind_pointers` ``(call)``: a return that *is* one of the bound address
    tensors stands for the case's argument at that position (the routine returns its output pointer
    array, §2.1), so that argument is returned; anything else is returned as it is. With ``check``, every
    address tensor must still hold its addresses (a pointer array is an input), else
    :class:`PointerArrayTampered` naming the position. A device-to-host read: never inside a timed region."""
    cached = call.__dict__.get("_bound")
    if cached is None:
        return ret
    bound, want = cached
    if check:
        for slot, addrs in want.items():
            got = bound.args[slot]
            if got.dtype != torch.int64 or got.shape != (len(addrs),) or got.tolist() != addrs:
                raise PointerArrayTampered(f"pointer array argument {slot} was changed by the call "
                                           f"(it is an input: its addresses must stay as given)")
    for slot in want:
        if ret is bound.args[slot]:
            return call.args[slot]
    return ret


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
        rule: set on the slots of operators with nothing to compute (built by
            :meth:`NothingToCompute.expected`); the verifier then applies the checks below instead
            of the plain value comparison.
        alias_of: the result must share the untyped storage of this slot's tensor after the call
            (``"arg.0"``): views must alias their input.
        layout: sizes, strides and storage offset must equal ``value``'s exactly, and the storage
            must cover every element the result addresses.
        check_values: compare values (exact); False where the contents are unspecified
            (allocations).
        fresh: the result must share its storage with no tensor argument (allocations, and the
            copy path of ``reshape``).
        check_device: the result's device type must equal ``value``'s (reported by the sandbox,
            since loading maps every tensor to the verifier's device).
        py_scalar: the result must be a Python number, not a tensor, of exactly the type of
            ``value.item()`` (float, int, bool, complex) and exactly equal to it (sign of zero
            included; NaN equals NaN).
        check: a custom judge used *instead of* the value comparison, for results that are right
            in more than one way: random samples (judged by statistics and invariants), sort
            indices among ties. Called in the verifier as ``check(actual, outputs)`` with the
            slot's value and the dict of every output of the call (``outputs["ret"]``,
            ``outputs["args"]``, ``outputs["kwargs"]``, on the verifier's device); it returns a
            :class:`~kernelgenbench.suite.compare.SlotResult`. It must not raise for malformed
            results: a wrong type or shape is a failed result with a message. ``value`` may hold
            the reference anyway (shown in messages, used for the ghost-poison test).
        index_of: for written arguments, the argument's own index (a tuple over its dims) of the element at
            a storage offset, or None where none lies there: failure messages name the first bad element by
            it instead of its position among the region's values (:func:`strided_index`).
    """

    slot: str
    value: torch.Tensor | None
    tol: Tolerance
    region: torch.Tensor | None = None
    check_dtype: bool = True
    alias: str | None = None
    atol_extra: torch.Tensor | None = None
    rule: str | None = None
    alias_of: str | None = None
    layout: bool = False
    check_values: bool = True
    fresh: bool = False
    check_device: bool = False
    py_scalar: bool = False
    check: Callable[[Any, dict[str, Any]], Any] | None = None
    index_of: Callable[[int], tuple[int, ...] | None] | None = None


def strided_index(size: Sequence[int], stride: Sequence[int], offset: int) -> Callable[[int], tuple[int, ...] | None]:
    """For :attr:`Expected.index_of`: the index into a view of ``size``/``stride``/``offset`` (elements) of the
    element at a storage offset, or None where no element of the view lies there (or the view overlaps
    itself so that the greedy division below does not recover it)."""
    size, stride = tuple(int(x) for x in size), tuple(int(x) for x in stride)

    def index_of(pos: int) -> tuple[int, ...] | None:
        rem = pos - offset
        coords = [0] * len(size)
        for d in sorted(range(len(size)), key=lambda d: -abs(stride[d])):
            if stride[d] > 0 and size[d] > 1:
                coords[d] = min(rem // stride[d], size[d] - 1) if rem >= 0 else 0
                rem -= coords[d] * stride[d]
        ok = rem == 0 and all(0 <= c < n for c, n in zip(coords, size))
        return tuple(coords) if ok else None
    return index_of


@dataclass(frozen=True)
class NothingToCompute:
    """The one rule for operators with nothing to compute (aten.md §4.6, §6b.7; DESIGN.md).

    Views (``t``, ``expand``, ``expand_as``, ``select``, ``narrow``, ``as_strided``, ``unsqueeze``,
    ``reshape``), scalar reads (``item``, ``_local_scalar_dense``) and allocations (``empty_strided``,
    ``new_empty_strided``) produce their result without any arithmetic. For them the usual proof of
    work (a Triton launch in every case, L2 ghost replay) cannot apply: a correct view launches
    nothing. Instead each case checks what makes the result right, per kind:

    ``view``
        The returned tensor must share the input's storage (the same untyped storage; a copy fails,
        however right its values), with exactly the sizes, strides and storage offset of PyTorch's
        view of the same input, the input's dtype and device, and the same element values (exact).
        The input must be unchanged. No Triton launch is required (one is allowed); L2 ghost replay
        does not apply. Views are built from the input with view and metadata operations other than
        the op itself (``as_strided``; for ``as_strided`` itself ``set_`` on an empty tensor, which
        this kind allows).
        Where PyTorch's result is a copy for some inputs (``reshape`` of an input whose strides do
        not allow a view), those cases are judged as a computing op: shape, dtype, device and exact
        values, a result that shares no input's storage, a Triton launch required, and L2 ghost
        replay.
    ``scalar_read``
        The result must be a Python number, not a tensor, of the type PyTorch returns (``float`` for
        floating dtypes, holding the exact value widened to double; ``int`` for integers; ``bool``;
        ``complex``), exactly equal to the element, sign of zero included. The input must be
        unchanged. No Triton launch is required (a one-element Triton copy into a staging tensor is
        the usual route). The element is read on the host with ``.tolist()``, which this kind allows:
        ``.item()``, ``float(x)`` and ``int(x)`` dispatch ``item``/``_local_scalar_dense``, which is
        dispatch recursion.
    ``allocation``
        The result must be a new tensor (sharing no argument's storage) with exactly the requested
        sizes and strides, storage offset 0, PyTorch's dtype and device for the call, and a storage
        that covers every addressed element. Its contents are not checked (they are uninitialised).
        ``.out`` forms resize ``out`` as PyTorch does (contiguous strides, out's dtype) and return
        ``out`` itself. No Triton launch is required.

    Every kind: the wrapper must be called (the native op answering instead fails as
    ``not_exercised``), and the L1 static scan and L3 dispatch trace apply as for any operator
    (allocation, views and metadata only; calling the op itself is dispatch recursion). A case that
    fails any check fails as ``wrong_result`` with a message naming the check.

    Attributes:
        kind: ``"view"``, ``"scalar_read"`` or ``"allocation"``.
        aliasing: what the result's storage must be.
        layout: what is checked of sizes, strides and storage offset.
        values: what is checked of the values.
        launch: whether a Triton launch is required.
        methods: tensor methods the L1 scan allows for this kind beyond the global allowlist.
        trace: names the L3 dispatch trace allows for this kind beyond the global allowlist
            (``host_read``: the elements ``.tolist()`` reads; the L3 budget still applies).
    """

    kind: str
    aliasing: str
    layout: str
    values: str
    launch: str
    methods: tuple[str, ...] = ()
    trace: tuple[str, ...] = ()

    def text(self) -> str:
        """The rule as shown to users (``kgb show``, prompts): one line per check."""
        return (f"Nothing to compute ({self.kind}). Aliasing: {self.aliasing}. Layout: {self.layout}. "
                f"Values: {self.values}. Triton launch: {self.launch}."
                + (f" Allowed for this kind: {', '.join(f'.{m}()' for m in self.methods)}." if self.methods else ""))

    def expected(self, slot: str, ref: Any, *, alias_of: str | None = None, copy: bool = False) -> "Expected":
        """The :class:`Expected` of one result slot under this rule.

        Args:
            slot: ``"return"`` or ``"arg.out"``.
            ref: PyTorch's result on a clone of the inputs: the reference view, the reference
                allocation (only its metadata is used), or the Python number of a scalar read.
            alias_of: for views, the slot whose storage the result must share (``"arg.0"``).
            copy: a view op's case where PyTorch copies (``reshape`` of a non-viewable input).
        """
        if self.kind == "scalar_read":
            if not isinstance(ref, (bool, int, float, complex)):
                raise TypeError(f"a scalar read's reference must be a Python number, got {type(ref).__name__}")
            kind = {bool: torch.bool, int: torch.int64, float: torch.float64, complex: torch.complex128}[type(ref)]
            return Expected(slot, torch.tensor(ref, dtype=kind), EXACT, rule=self.kind, py_scalar=True,
                            check_dtype=False)
        if self.kind == "view":
            if copy:
                return Expected(slot, ref, EXACT, rule="view (copy path)", fresh=True, check_device=True)
            return Expected(slot, ref, EXACT, rule=self.kind, alias_of=alias_of, layout=True, check_device=True)
        if self.kind == "allocation":
            return Expected(slot, ref, EXACT, rule=self.kind, layout=True, check_values=False,
                            fresh=slot == "return", check_device=True)
        raise ValueError(f"unknown nothing-to-compute kind {self.kind!r}")


VIEW = NothingToCompute(
    kind="view",
    aliasing="the result shares the input's storage (same untyped storage; not checked where that storage is "
             "empty, as there is nothing to share); a copy fails",
    layout="sizes, strides and storage_offset exactly equal PyTorch's view of the same input",
    values="exactly the input's elements, in the input's dtype and on its device; the input is unchanged",
    launch="not required (allowed); no L2 ghost replay. Where PyTorch copies instead (reshape of a "
           "non-viewable input) the case is judged as a copy: shape, dtype, device and exact values, "
           "no storage shared with the input, a Triton launch required, L2 ghost replay",
    methods=("set_",),
)
SCALAR_READ = NothingToCompute(
    kind="scalar_read",
    aliasing="not applicable (the result is a Python number, not a tensor)",
    layout="not applicable",
    values="exactly the element's value and Python type (float for floating dtypes, widened exactly; int "
           "for integers; bool; complex); the input is unchanged",
    launch="not required (a one-element Triton copy into a staging tensor read with .tolist() is the "
           "usual route; .item(), float(x) and int(x) are dispatch recursion)",
    methods=("tolist",),
    trace=("host_read",),
)
ALLOCATION = NothingToCompute(
    kind="allocation",
    aliasing="a new storage that no argument shares (.out forms: out itself, resized as PyTorch resizes it)",
    layout="sizes, strides and storage_offset exactly as requested (PyTorch's for .out: contiguous), the "
           "storage covering every addressed element",
    values="not checked (uninitialised); dtype and device exactly PyTorch's",
    launch="not required",
)
NOTHING_TO_COMPUTE: dict[str, NothingToCompute] = {r.kind: r for r in (VIEW, SCALAR_READ, ALLOCATION)}


@dataclass(frozen=True)
class GeneratorSeed:
    """A ``torch.Generator`` argument as it travels in a :class:`Call` (random operators).

    A generator cannot go through ``torch.save`` to the sandbox child, so a case holds this marker
    where the public call takes ``generator=``; the child turns it into a real generator right
    before the call (:meth:`materialize`). Loading with ``weights_only=True`` accepts it (it is
    registered as a safe global below).

    Attributes:
        seed: the seed (``manual_seed``) of the generator.
        default: instead of a generator object, seed the device's *default* generator with ``seed``
            and pass ``None`` (the call reads the default generator, as ``x.exponential_()`` does).
    """

    seed: int
    default: bool = False

    def materialize(self, device: torch.device, seed: int | None = None) -> torch.Generator | None:
        """A new generator on ``device`` seeded with ``seed`` (default: :attr:`seed`); or, for a
        ``default`` marker, seed the device's default generator and return None."""
        s = self.seed if seed is None else seed
        if self.default:
            if device.type == "cuda":
                torch.cuda.default_generators[device.index if device.index is not None
                                              else torch.cuda.current_device()].manual_seed(s)
            else:
                torch.default_generator.manual_seed(s)
            return None
        g = torch.Generator(device=device)
        g.manual_seed(s)
        return g


torch.serialization.add_safe_globals([GeneratorSeed])


def bind_generators(obj: Any, bind: Callable[[GeneratorSeed], Any]) -> Any:
    """``obj`` (nested lists/tuples/dicts of call arguments) with every :class:`GeneratorSeed` replaced
    by ``bind(marker)``; tensors and everything else are kept as the same objects."""
    if isinstance(obj, GeneratorSeed):
        return bind(obj)
    if isinstance(obj, list):
        return [bind_generators(x, bind) for x in obj]
    if isinstance(obj, tuple):
        return tuple(bind_generators(x, bind) for x in obj)
    if isinstance(obj, dict):
        return {k: bind_generators(v, bind) for k, v in obj.items()}
    return obj


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
    return Expected(slot, exp_flat, tol, mask, atol_extra=extra,
                    index_of=strided_index(view.size(), view.stride(), view.storage_offset()))


class Candidate(Protocol):
    """The candidate as :meth:`Operator.drive` calls it in the sandbox child (``sandbox/drive.py`` makes it,
    registered, traced and routed): ``candidate(call)`` calls it once, returning what it returns and raising
    what it raises; ``candidate.attempt(call)`` returns ``(result, None)``, or ``(None, exc)`` where the call
    raised ``exc`` (the harness's own findings, dispatch recursion and a signature mismatch, still raise)."""

    def __call__(self, call: Call) -> Any: ...

    def attempt(self, call: Call) -> tuple[Any, Exception | None]: ...


_Row = TypeVar("_Row", bound="Operator")


class Operator(abc.ABC):
    """One benchmark task. Subclasses (families) fill in the hooks.

    Class attributes describe the task; instance hooks build cases. A new operator of an existing
    family is one instance (a row), not a new class.
    """

    source: ClassVar[str] = ""
    #: How values are judged when that is not the default dtype rule (``kgb show``, prompts):
    #: exact operators, statistical judges; None means "rtol by dtype, atol 1e-4 x reduce_dim".
    tolerance_text: str | None = None
    #: The operator's work is data movement (gathering, scattering, padding, rotating, unfolding rows or
    #: slices): L3 then fails ATen copies and fills whose element mapping is of the candidate's making
    #: (``verify/profile.py`` MOVE_MARKS), since they would do the operator's work.
    data_movement: bool = False
    #: Parameters whose contents are an encoded layout (packed weight words, permuted or packed scales and
    #: zeros, GGUF blocks, Marlin tiles and meta): decoding them is the operator's work, so L3 fails an ATen
    #: copy that rearranges or reinterprets their bytes (``verify/profile.py`` MARK_UNPACK).
    packed_args: frozenset[str] = frozenset()
    #: Parameters of a data-movement operator that select rather than move (an index, a mask, an index list):
    #: an ATen copy of one into a buffer of the call's own (``mask.expand(shape).contiguous()``, materialising
    #: a broadcast operand) lays out the operand and moves none of the data, so it is not the operator's work
    #: (red team 26, masked_fill_). Copies of the moved tensors stay judged (``sandbox/provenance.py``).
    selector_args: frozenset[str] = frozenset()
    #: The row's atol in words where its reduce_dim is not 1 on every case (``kgb show``, prompts): the
    #: reduce_dim's formula in the case's parameters, an override, or the accumulation rule
    #: (:func:`accumulation_text`); None means reduce_dim 1 (:data:`ATOL_REDUCE_DIM_1`), which
    #: tests/test_shown_tolerance.py checks against the tolerances the references build.
    atol_text: str | None = None
    #: The row's case counts per tier (:class:`Counts`), set with :meth:`facts`; None where not stated yet.
    counts: Counts | None = None
    #: Names beyond the row's own ops (``own_ops``) that reach it through PyTorch's own decompositions
    #: (aten.md §4 item 5: ``divide`` for ``div``, ``x.float()`` for ``_to_copy``, ...): the L1 scan
    #: treats calling them as dispatch recursion. Curated, not complete: the L3 dispatch trace sees the rest.
    aliases: frozenset[str] = frozenset()

    def __init__(self, name: str, *, category: str, section: str, semantics: str,
                 interface: Interface, nothing_to_compute: NothingToCompute | None = None,
                 notes: str = "") -> None:
        self.name = name
        self.category = category
        self.section = section
        self.semantics = semantics
        self.interface = interface
        #: the rule of :class:`NothingToCompute` this operator follows, or None (it computes)
        self.nothing_to_compute: NothingToCompute | None = nothing_to_compute or None
        self.notes = notes

    @property
    def shown_atol(self) -> str:
        """The atol the verdict applies, in words (``kgb show``, prompts): :attr:`atol_text`, else
        :data:`ATOL_REDUCE_DIM_1`, never the general "1e-4 x reduce_dim" (which would let a model assume a
        looser atol than applied)."""
        return self.atol_text or ATOL_REDUCE_DIM_1

    @property
    def allow_methods(self) -> frozenset[str]:
        """Tensor methods the L1 scan allows this operator beyond the global allowlist (its
        nothing-to-compute kind's, e.g. ``.tolist()`` for scalar reads); an entry ``"torch.<name>"``
        allows that ``torch`` function (random operators: ``torch.randint`` to draw a seed)."""
        return frozenset(self.nothing_to_compute.methods) if self.nothing_to_compute else frozenset()

    @property
    def allow_trace(self) -> frozenset[str]:
        """Names the L3 dispatch trace allows this operator beyond the global allowlist (its
        nothing-to-compute kind's, e.g. ``host_read`` for scalar reads)."""
        return frozenset(self.nothing_to_compute.trace) if self.nothing_to_compute else frozenset()

    def facts(self: _Row, *, counts: Counts | None = None, aliases: Iterable[str] | None = None) -> _Row:
        """Set the row's facts that tests and scans read (:attr:`counts`, :attr:`aliases`); returns the
        row, so a family module writes ``ROW = Family(...).facts(counts=Counts(...))``."""
        if counts is not None:
            self.counts = counts
        if aliases is not None:
            self.aliases = frozenset(aliases)
        return self

    def scan_policy(self) -> dict[str, Any]:
        """The L1 static scan's settings for this operator, as keyword arguments of
        ``verify.scan.scan_file``/``scan_source``/``scan_kernel_body``: its own ops, their aliases, whether
        copies are allowed, the methods its rule allows, and the names the harness calls (its wrappers or function)."""
        iface = self.interface
        names = [iface.function] if iface.function is not None else [w.name for w in iface.wrappers]
        return {"own_ops": frozenset(getattr(self, "own_ops", frozenset())), "aliases": self.aliases,
                "allow_copies": getattr(self, "allow_copies", True), "allow_methods": frozenset(self.allow_methods),
                "entry_points": frozenset(names)}

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
        """The parameters of every case of ``tier`` (one of :data:`TIERS`), in order; :meth:`cases`
        builds the cases of a selection of several tiers from these grids."""
        ...

    def timed(self, params: dict[str, Any]) -> bool:
        """Whether a full-tier case passes the spec's timing gate."""
        return False

    def cases(self, tier: str) -> list[Case]:
        """The cases of ``tier``: a single tier, ``"all"`` or a comma list (:func:`tier_parts`).

        A selection of several tiers is the concatenation of its tiers' cases in :data:`TIERS` order;
        each case keeps its own tier, grid index (its :attr:`Case.id`), parameters and seed, and only
        the full tier's cases can be timed. :attr:`Case.index` numbers the selection.

        Raises:
            ValueError: unknown tier.
        """
        try:
            parts = tier_parts(tier)
        except ValueError as exc:
            raise ValueError(f"{self.id}: {exc}") from None
        out: list[Case] = []
        for t in parts:
            for i, p in enumerate(self.grid(t)):
                out.append(Case(self.id, t, len(out), p, timed=(t == "full" and self.timed(p)), tier_index=i))
        return out

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
        """The dtypes a case computes in (for platform dtype limits). Operators with nothing to
        compute compute in none: a platform's arithmetic limits never make their cases unjudgeable."""
        if self.nothing_to_compute:
            return set()
        out = set()
        for k in ("dtype", "out_dtype"):
            if k in params and params[k] is not None:
                out.add(dtype_of(params[k]))
        return out

    # -- untrusted child --------------------------------------------------------------------
    def drive(self, call: Call, candidate: Candidate) -> Any:
        """How a case run calls the candidate on ``call`` (in the sandbox child; ``sandbox/drive.py``
        runs it): returns what the child reports as the candidate's result. Default: one call,
        ``candidate(call)``. Random operators call it four times; error cases record the outcome."""
        return candidate(call)

    def drive_timed(self, call: Call, candidate: Candidate) -> Any:
        """How one timed repetition calls the candidate (verify/timing.py). Default: :meth:`drive`.
        Operators whose correctness runs call the candidate more than once (random operators: the same
        seed twice, another seed) time a single call here."""
        return self.drive(call, candidate)

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
            "nothing_to_compute": self.nothing_to_compute.kind if self.nothing_to_compute else None,
            "data_movement": self.data_movement,
            "packed_args": sorted(self.packed_args),
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


def shape_elements(params: dict[str, Any]) -> float:
    """The elements of the shapes (non-empty lists of integers) among a case's parameters, summed: a case's
    size where its cost model has none."""
    return float(sum(math.prod(v) for v in params.values()
                     if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) for x in v)))
