"""The ATen dispatch trace of the candidate's Python code, and the traced wrapper.

:class:`CandidateMode`: a ``TorchDispatchMode`` entered around each call of a candidate wrapper.
It records every ATen op the candidate's Python code runs (the L3 dispatch-level trace), except
what Triton's own launcher does inside a launch, and it poisons every tensor the candidate
allocates, so unwritten output elements are visible. Composite (CompositeImplicitAutograd) ops are
decomposed and their pieces traced, so the trace is the same whether the wrapper runs inside another
mode's handler (interpreter) or registered at a dispatch key (GPUs). Allowed ops that compute,
convert or move elements along a mapping of the candidate's making are marked in their keys
(:func:`.provenance.op_marks`), from the call's memory provenance (:class:`.provenance.CallEvidence`).
The submission's import runs under the same trace (:func:`trace_import`); timed calls under
:class:`TimedTraceMode`. :func:`traced` wraps each of the candidate's wrappers (call counts, dispatch
recursion, the signature check, the trace); :class:`InterceptMode` routes a public call's overloads to
them on the interpreter.
"""
from __future__ import annotations

import abc
import cmath
import functools
import inspect
import math
import operator
import sys
import types
from collections import Counter
from typing import Any, Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ..suite.tensors import poison_, poison_variant
from .host_reads import count_widened, host_read
from .provenance import _UNCOUNTED, HOST_DATA_OPS, CallEvidence, _name, _storage, _tensors, host_data_units, op_marks
from .state import STATE
from .window import HARNESS_MODES, foreign_code

#: Allocation ops whose results are poisoned when the candidate makes them.
ALLOCATING = {"empty.memory_format", "empty_strided.default", "empty_like.default",
              "new_empty.default", "new_empty_strided.default", "empty.out", "resize_.default"}

#: ATen ops that draw random numbers: the elements they produce are also counted as
#: ``aten::random_draw`` (L3 budgets them where an operator may draw a seed with PyTorch).
RANDOM_DRAWS = {"randint", "randint_like", "rand", "rand_like", "randn", "randn_like", "randperm", "random_",
                "uniform_", "normal", "normal_", "bernoulli", "bernoulli_", "exponential_", "geometric_",
                "log_normal_", "cauchy_", "poisson", "multinomial", "binomial", "_standard_gamma",
                "_sample_dirichlet", "rrelu_with_noise", "native_dropout"}


class DispatchRecursion(RuntimeError):
    """A wrapper re-entered itself through the dispatcher (it called the op it replaces)."""


class SignatureMismatch(TypeError):
    """The candidate's function cannot take the arguments of the interface."""


def _op_key(func: Any, args: tuple = (), kwargs: dict | None = None, ev: CallEvidence | None = None,
            marks: list[str] | None = None) -> str:
    """The trace key of one ATen call: ``aten::name[.overload]``, with its marks in parentheses
    (``"aten::copy_ (dtype conversion)"``, ``"aten::copy_ (non-trivial mapping; reinterprets bytes)"``):
    :func:`op_marks` of the call, or ``marks`` when given."""
    key = f"aten::{_name(func)}"
    if func._overloadname != "default":
        key += f".{func._overloadname}"
    if marks is None:
        marks = op_marks(func, args, kwargs or {}, ev)
    return f"{key} ({'; '.join(dict.fromkeys(marks))})" if marks else key


def _count_draws(trace: Counter[str], func: Any, out: Any) -> None:
    """Count the elements a random ATen op drew as ``aten::random_draw`` (L3 budgets them)."""
    if _name(func) in RANDOM_DRAWS:
        drawn = out if isinstance(out, torch.Tensor) else (out[0] if isinstance(out, (tuple, list)) and out else None)
        trace["aten::random_draw"] += drawn.numel() if isinstance(drawn, torch.Tensor) else 1


#: ATen ops that return a Python scalar computed from tensor data (host reads), by the kind logged.
#: ``item``/``is_nonzero`` are composite: the modes decompose them (:func:`_traced_op`), so the read
#: reaches them as ``_local_scalar_dense`` on every path. ``equal`` computes (L3 rejects it) but its
#: answer is a host read all the same.
_SCALAR_READS = {torch.ops.aten._local_scalar_dense.default: "item", torch.ops.aten.item.default: "item",
                 torch.ops.aten.is_nonzero.default: "is_nonzero", torch.ops.aten.equal.default: "equal",
                 torch.ops.aten.allclose.default: "allclose"}

#: op -> whether it has a CompositeImplicitAutograd kernel (decomposed by the modes)
_COMPOSITE: dict[Any, bool] = {}


def is_composite(func: Any) -> bool:
    """Whether ``func`` (an ATen overload) is CompositeImplicitAutograd: made of other ATen ops, which
    a dispatch mode sees instead of it when the call passes the Autograd key first (a wrapper called at
    the top level, or registered at a device key) but not when the mode is entered inside another
    mode's handler (the interpreter's :class:`InterceptMode`)."""
    hit = _COMPOSITE.get(func)
    if hit is None:
        try:
            hit = bool(torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), "CompositeImplicitAutograd"))
        except Exception:  # noqa: BLE001 - not a dispatcher op
            hit = False
        _COMPOSITE[func] = hit
    return hit


def _overload_key(func: Any) -> str:
    """``"add.Tensor"``, ``"reshape"``: the key of an ATen overload as wrappers are registered by."""
    return _name(func) if func._overloadname == "default" else f"{_name(func)}.{func._overloadname}"


def _traced_op(mode: TorchDispatchMode, trace: Counter[str], func: Any, args: tuple, kwargs: dict,
               poison: bool) -> Any:
    """Run one ATen op the candidate's Python code called, as the modes trace it.

    The trace is the same on every call path: a CompositeImplicitAutograd op is decomposed here and its
    pieces are traced (``reshape`` of a non-viewable tensor is ``clone`` + ``_unsafe_view``, ``item``
    is ``_local_scalar_dense``), as the dispatcher decomposes it before a mode sees it when the wrapper
    runs at the top level or registered at a device key; except an overload the candidate replaces
    (``STATE.replaced``), which on GPUs reaches its registration (dispatch recursion) and here is counted
    whole (the op itself: dispatch recursion too). Each op is counted under its key with its
    marks (:func:`op_marks`, and marks :meth:`CallEvidence.after_op` finds in its result); a scalar
    host read goes through :func:`host_read`; random draws and host data are counted in elements
    (``aten::random_draw``, ``aten::host_data``); with ``poison``, allocations are poisoned."""
    if is_composite(func) and _overload_key(func) not in STATE.replaced:
        # the C++ composite kernel the dispatcher runs (not a Python decomposition some ops also register)
        with mode:
            return func._op_dk(torch._C.DispatchKey.CompositeImplicitAutograd, *args, **kwargs)
    name = _name(func)
    if name in _UNCOUNTED:
        return func(*args, **kwargs)
    ev = STATE.call
    marks = op_marks(func, args, kwargs, ev)
    key = _op_key(func, marks=marks)
    trace[key] += 1
    note_site(trace, key)
    read = _SCALAR_READS.get(func)
    if read is not None and args and isinstance(args[0], torch.Tensor):
        # .item(), bool(t), int(t), float(t), t.__index__: a value reaches Python here (L2 replay)
        extra = repr([(list(a.shape), str(a.dtype)) if isinstance(a, torch.Tensor) else a for a in args[1:]])
        value = host_read(read, args[0], extra, lambda: func(*args, **kwargs))
        count_widened(trace, args[0])
        if ev is not None:
            ev.last_read = (value, args[0].dtype)
        return value
    pending = ev.take_read() if ev is not None else None
    before = ev.input_ptrs(args, kwargs) if ev is not None else set()
    # resize_ keeps the elements a tensor had and leaves only memory it adds uninitialised: that part alone is
    # poisoned (a same-size or shrinking resize_, an out= that aliases an input, keeps its data)
    kept_bytes = 0
    if name == "resize_" and args and isinstance(args[0], torch.Tensor):
        st = _storage(args[0])
        kept_bytes = st.nbytes() if st is not None else 0
    out = func(*args, **kwargs)
    if ev is not None:
        late = ev.after_op(func, args, kwargs, out, before, pending)
        if late:
            trace[key] -= 1
            if not trace[key]:
                del trace[key]
            late_key = _op_key(func, marks=[*marks, *late])
            trace[late_key] += 1
            note_site(trace, late_key)
    _count_draws(trace, func, out)
    if name in HOST_DATA_OPS and isinstance(out, torch.Tensor):
        trace["aten::host_data"] += host_data_units(out)
    if poison and STATE.poison_allocations and f"{func.__name__}" in ALLOCATING and isinstance(out, torch.Tensor):
        if out.numel() and not out.is_meta:
            target: torch.Tensor | None = out
            if name == "resize_":  # contiguous after resize_: element i sits at byte (offset + i) * size
                first = max(0, -(-kept_bytes // out.element_size()) - out.storage_offset())
                target = out.reshape(-1)[first:] if first < out.numel() else None
            if target is not None:
                with poison_variant(STATE.ghost or STATE.alt_poison):
                    poison_allocation(target)
    return out


def note_site(trace: Counter[str], key: str) -> None:
    """Remember where in the submission's own file the op ``key`` of ``trace`` (the case's or the import's) first
    ran: the innermost frame of that file, ``"line N in fn"``, for L3's verdict to name (at most 32 keys; nothing
    for a trace of timed calls or an op no frame of the file reached). Information for the author only."""
    sites = STATE.op_sites if trace is STATE.trace else STATE.import_sites if trace is STATE._import_trace else None
    if sites is None or key in sites or len(sites) >= 32:
        return
    from .launch_args import KERNEL_BODIES
    path = KERNEL_BODIES[0] if KERNEL_BODIES else None
    f = sys._getframe(1)
    while f is not None and path:
        if f.f_code.co_filename == path:
            sites[key] = f"line {f.f_lineno} in {f.f_code.co_name}"
            return
        f = f.f_back


def _subclass_handler(types: tuple) -> None:
    """Refuse an ATen op on a tensor subclass with a ``__torch_dispatch__`` of its own (the dispatcher names such
    types in ``types``; plain tensors and ``torch.nn.Parameter`` give none): after the mode, the op reaches that
    handler, which runs with the mode off, untraced (tests/bad/tensor_subclass, param_subclass: ATen compute in the
    handler of a ``Parameter`` subclass). Recorded as a launch violation (the job fails as ``profile``). Classes are
    read through ``type``'s own descriptors (no metaclass code runs); ``types`` may name ``torch.Tensor`` itself."""
    foreign = []
    for t in types:
        if t is torch.Tensor or t is torch.nn.Parameter or not isinstance(t, type):
            continue
        mro = type.__dict__["__mro__"].__get__(t)
        owner = next((k for k in mro if "__torch_dispatch__" in type.__dict__["__dict__"].__get__(k)), None)
        if owner is not torch.Tensor and owner is not torch._C.TensorBase:
            foreign.append(t)
    if not foreign:
        return
    names = ", ".join(sorted({type.__repr__(t) for t in foreign}))
    msg = (f"an ATen op on a tensor subclass with its own __torch_dispatch__ ({names}): its handler runs outside the "
           f"dispatch trace; a submission's tensors are plain torch.Tensor")
    STATE.note_violation(msg)
    raise RuntimeError(msg)


class CandidateMode(TorchDispatchMode):
    """Trace and poison the ATen ops a candidate's Python code runs (see module docstring and
    :func:`_traced_op`). ``trace``: the counter to count in (default: the case's, ``STATE.trace``);
    ``poison``: poison the candidate's allocations."""

    def __init__(self, trace: Counter[str] | None = None, poison: bool = True) -> None:
        super().__init__()
        self._trace = trace
        self._poison = poison

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if types:
            _subclass_handler(types)
        if STATE.inside_launch and not foreign_code():  # the harness's and Triton's own work (sandbox/window.py)
            return func(*args, **kwargs)
        return _traced_op(self, STATE.trace if self._trace is None else self._trace, func, args, kwargs,
                          self._poison)


class TimedTraceMode(TorchDispatchMode):
    """The L3 dispatch trace of a timed candidate call: op keys with their marks and the call's memory
    provenance (:func:`_traced_op`; no poisoning, no host-read log, no replay), so that the timed calls
    are judged by the same allowlist as the correctness calls (a candidate that tells timing apart, by
    call counts or by the absence of poisoned allocations, and then computes with PyTorch or a vendor
    library, fails as ``profile``). Its cost is host time only, which the timing protocol's device lead
    keeps out of the device events."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if types:
            _subclass_handler(types)
        calls = STATE._call_trace
        if calls is None or (STATE.inside_launch and not foreign_code()):
            return func(*args, **kwargs)
        return _traced_op(self, calls, func, args, kwargs, poison=False)


def _timed_traced_call(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """Run one timed candidate call under :class:`TimedTraceMode` (the outermost wrapper only) and fold
    its op counts into ``STATE.timed_trace`` (the most per call)."""
    if STATE._call_trace is not None:  # a wrapper reached from another through the dispatcher (which
        with TimedTraceMode():         # runs it with the outer mode off): its ops count for the same call
            return fn(*args, **kwargs)
    STATE._call_trace = Counter()
    try:
        with TimedTraceMode():
            return fn(*args, **kwargs)
    finally:
        calls, STATE._call_trace = STATE._call_trace, None
        if STATE.timed_trace is not None:
            for k, n in calls.items():
                if n > STATE.timed_trace[k]:
                    STATE.timed_trace[k] = n


def trace_import(run: Callable[[], Any]) -> Counter[str]:
    """Run the submission's import (``run``) under the dispatch trace of a call (:class:`CandidateMode`
    with its own counter, allocations not poisoned): every ATen op its module-level code runs is counted
    with its marks, host reads and tensor data built from host Python (``aten::host_data``) included,
    so that the verifier judges the import by the allowlist and budgets of a call (work done once at
    import and looked up later is still work). Returns the counts; exceptions of the import propagate."""
    counter: Counter[str] = Counter()
    STATE.call = CallEvidence()
    STATE._import_trace = counter
    try:
        with CandidateMode(counter, poison=False):
            run()
    finally:
        STATE.call = None
        STATE._import_trace = None
    return counter


def poison_allocation(t: torch.Tensor) -> None:
    """Poison a tensor the candidate allocated: PyTorch's fill_, or, while the candidate's
    registration replaces fill_ (aten::fill_ under test on a GPU), one poisoned CPU element copied and
    broadcast onto ``t``, so that the poisoning does not dispatch into the candidate (which would
    count as the candidate re-entering itself)."""
    if not any(k.split(".", 1)[0] == "fill_" for k in STATE.registered):
        poison_(t)
        return
    one = poison_(torch.empty((), dtype=t.dtype))
    try:
        t.copy_(one.to(t.device).expand(t.shape))
    except RuntimeError:  # an overlapping allocation (zero strides) that copy_ refuses: left as allocated
        pass


#: Types a wrapper's result may be made of besides tensors, lists and tuples (judged by ``type()``, exactly).
_PLAIN_LEAVES = (type(None), bool, int, float, complex, str, torch.dtype, torch.device, torch.Size, torch.layout,
                 torch.memory_format)
#: Values :func:`plain_result` walks in one call's result and arguments (lists of tensors: copy_blocks' caches, pointer
#: arrays, unbind's pieces); more is a violation, not a place to stop looking (red team 30: an object of the
#: submission's 10,001 values into an argument's list ran its ``__class__`` property after the call).
_RESULT_MAX = 100_000


def _return_types() -> frozenset[type]:
    import torch.return_types as rt

    return frozenset(v for v in vars(rt).values() if isinstance(v, type))


def _arg_values(args: tuple, kwargs: dict) -> list[Any]:
    """Every value of a call's arguments, in lists, tuples and dicts (walked by ``type()``), before the call."""
    out: list[Any] = []
    stack: list[Any] = [list(args), list(kwargs.values())]
    while stack and len(out) < _RESULT_MAX:
        x = stack.pop()
        out.append(x)
        t = type(x)
        if t is list or t is tuple:
            stack.extend(x)
        elif t is dict:
            stack.extend(x.values())
    return out


def plain_result(name: str, ret: Any, args: tuple, kwargs: dict, given: list[Any] = ()) -> Any:
    """The outermost wrapper call's result, checked before any harness code touches it (red team 28): only tensors
    (exactly ``torch.Tensor``/``Parameter``), Python numbers, strings, None, dtypes and the like, in lists, tuples
    and ``torch.return_types`` (a tuple of another class, a namedtuple, comes back as a plain tuple), and no
    tensor of the result or the arguments carrying instance attributes; an argument's list may hold only what it
    held before the call (``given``: :func:`_arg_values`), tensors and such
    values (the harness reads its lists again after the call: ``copy_blocks``' caches).

    Anything else would run the submission's code after the traced call, where nothing is traced: ``isinstance`` of
    an object reads its ``__class__`` (a property of the submission's class computed rms_norm with PyTorch into
    ``out``; its result, None, is not judged), and pickling a tensor for the verifier calls an instance attribute
    ``__getstate__``. Judged with ``type()`` and the tensors' own ``__dict__`` only (no code of the submission
    runs); a violation goes to ``STATE.stale_outputs`` (the job fails as ``profile``), and the result (or the list
    entry) is replaced by None and the attributes dropped here, inside the trace, so that nothing of the
    submission's runs later."""
    from . import launch_args

    problems: list[str] = []
    before = {id(v) for v in given}
    leaves = _PLAIN_LEAVES
    rtypes = _return_types()
    seen = 0

    def visit(x: Any, where: str, is_ret: bool) -> bool:
        nonlocal seen
        seen += 1
        if seen > _RESULT_MAX:
            if seen == _RESULT_MAX + 1:
                problems.append(f"{where}: more than {_RESULT_MAX} values in the result and the arguments")
            return False
        t = type(x)
        if t is torch.Tensor or t is torch.nn.Parameter:
            attrs = x.__dict__
            if attrs and launch_args.amp_tags_only(attrs):
                attrs.clear()  # torch.amp.custom_fwd on a plain wrapper tagged the caller's tensor: nothing shadowed
            elif attrs:
                problems.append(f"{where} carries Python attributes ({', '.join(repr(k) for k in list(attrs)[:3])})"
                                f"{launch_args.custom_fwd_hint(attrs)}")
                attrs.clear()
            if x.is_leaf and x._grad is not None:
                # a .grad keeps a Python object alive with the tensor (red team 29b: a finalizer hung on it ran when
                # the harness dropped the argument, outside every trace)
                problems.append(f"{where} carries a .grad")
                x.grad = None
            return True
        if t is list or t is tuple or t in rtypes:
            good = [visit(v, f"{where}[{i}]", is_ret) for i, v in enumerate(x)]
            if t is list and not is_ret:  # the caller's list: what the candidate put there goes, inside the trace
                for i, g in enumerate(good):
                    if not g:
                        x[i] = None
            return all(good)
        if t is dict and not is_ret:
            return all([visit(v, f"{where}[{k!r}]", is_ret) for k, v in list(x.items()) if type(k) is str])
        if t in leaves or (not is_ret and id(x) in before):
            return True  # a plain value, or an argument as the harness passed it (a generator, say)
        if type(t) is launch_args._ENUM_META and launch_args._intenum_ok(t, launch_args.types_()):
            return True  # a member of a plain enum.IntEnum (a status code), as the launch rule admits one
        problems.append(f"{where} is a {type.__repr__(t)}")
        return False

    if type(ret) not in rtypes and type(ret) is not tuple and issubclass(type(ret), tuple):
        # a namedtuple of the submission's (values, indices): its elements, read through tuple's own slots (no method
        # of its class runs), as a plain tuple
        ret = tuple([tuple.__getitem__(ret, i) for i in range(tuple.__len__(ret))])
    ok = visit(ret, "the return value", True)
    visit(list(args), "args", False)
    visit(dict(kwargs), "kwargs", False)
    if problems:
        if len(STATE.stale_outputs) < 8:
            STATE.stale_outputs.append(
                f"{name}: {problems[0]}: a wrapper returns tensors, Python numbers, None, or lists and tuples of them, "
                f"and attaches no Python objects to tensors (the harness would run their code after the call, "
                f"outside the trace)")
    return ret if ok else None


def _check_returns(name: str, ret: Any, args: tuple, kwargs: dict) -> None:
    """Record (``STATE.stale_outputs``) each tensor the outermost wrapper call returned in storage that
    was not allocated during the call and is no argument's (:meth:`CallEvidence.stale_returns`)."""
    ev = STATE.call
    if ev is None:
        return
    for path in ev.stale_returns(ret, args, kwargs):
        if len(STATE.stale_outputs) < 8:
            STATE.stale_outputs.append(
                f"{name} returned {path} in storage that was not allocated during this call and is not one of "
                f"its arguments (a buffer kept across calls: every call's result would share it; a result must "
                f"be a new tensor of its call, and timed calls would allocate nothing)")


def _extent_bytes(t: torch.Tensor) -> int:
    """Bytes of storage ``t`` addresses from the storage's start (0 for an empty tensor)."""
    if t.numel() == 0:
        return 0
    last = t.storage_offset() + sum((n - 1) * abs(s) for n, s in zip(t.shape, t.stride()))
    return (last + 1) * t.element_size()


def argument_storages(args: tuple, kwargs: dict) -> list[tuple[str, torch.Tensor, int, int]]:
    """``(path, tensor, storage data pointer, storage bytes)`` of every tensor argument of a call (in lists and
    tuples too), taken before the call for :func:`replaced_storages`."""
    out = []
    for path, t in _tensors((args, kwargs)):
        st = _storage(t)
        if st is not None:
            out.append((path, t, st.data_ptr(), st.nbytes()))
    return out


def replaced_storages(before: list[tuple[str, torch.Tensor, int, int]]) -> list[str]:
    """The tensor arguments whose storage the call replaced (``t.data = other``, ``t.set_(...)``) although
    their own storage could hold them: the caller's other views of that storage (a KV cache's blocks, a
    slice of a larger output, ``out=`` of an in-place op) never see a result written into the new one.
    A storage that had to grow (an ``out=`` resized to a larger shape, aten.md §7) may be replaced."""
    bad = []
    for path, t, ptr, nbytes in before:
        st = _storage(t)
        if st is None or st.data_ptr() == ptr or _extent_bytes(t) > nbytes:
            continue
        where = "args" + path[len("[0]"):] if path.startswith("[0]") else "kwargs" + path[len("[1]"):]
        bad.append(where)
    return bad


class _Default:
    """The stand-in of a wrapper parameter's default value in :func:`wrapper_signature` (the value itself is
    the submission's object: comparing or printing it could run its code)."""

    def __repr__(self) -> str:
        return "<default>"


_DEFAULT = _Default()


#: How many wrapped objects (``__wrapped__`` ending in a partial, method or callable object, a partial of one, ...)
#: :func:`wrapper_signature` follows before it refuses a wrapper.
_NEST_MAX = 8


def wrapper_signature(fn: Any, _depth: int = 0) -> inspect.Signature:
    """The signature the harness binds a wrapper's calls against and checks against the interface, read without
    running any of the submission's code (red team 30: a ``__signature__`` of an ``inspect.Signature`` subclass
    computed the operator with ATen in its ``bind``, which ran on every call before the trace began; a property
    on a wrapper object would run at registration, untraced, where an answer table could be made).

    ``fn`` is a Python function, followed through ``__wrapped__`` while that is a Python function too
    (``functools.wraps``: the innermost one's parameters are the interface's), a bound method of one, or an
    instance of a class whose ``__call__`` is a Python function (looked up without descriptors; the class's
    metaclass must be ``type`` and it may not define ``__getattr__``/``__getattribute__``); no function on the way
    may set ``__signature__`` (the parameters come from the code, which is what a call runs). The result is built
    from the code object: exactly :class:`inspect.Signature` and :class:`inspect.Parameter`, no annotations,
    every default replaced by a stand-in (whether a parameter has one is kept; :func:`wrapper_defaults` gives the
    values).

    A ``functools.partial`` of any of those is read as :func:`inspect.signature` reads one, and a ``functools.wraps``
    chain that ends in a partial, a bound method, a callable object or a scalar builtin (a checking decorator applied
    to ``functools.partial(_unary, op="neg")``, to ``torch.no_grad()``'s wrapper of one) reads as that object does
    (fp31: these passed before wrapper_signature).

    Raises:
        TypeError: ``fn`` is none of those (the message says what it is and what a wrapper may be).
    """
    if _depth > _NEST_MAX:
        raise TypeError(f"it nests partials and wrapped objects more than {_NEST_MAX} deep")
    if type(fn) is functools.partial:
        base, nargs, keys = _partial_parts(fn)
        stand_in = types.FunctionType((lambda: None).__code__, {}, "wrapper")
        stand_in.__signature__ = wrapper_signature(base, _depth + 1)  # the harness's own Signature: inspect may read it
        return inspect.signature(functools.partial(stand_in, *([_DEFAULT] * nargs), **dict.fromkeys(keys, _DEFAULT)))
    if _plain_builtin(fn):
        try:
            return inspect.Signature(list(inspect.signature(fn).parameters.values()))
        except ValueError:  # int, float, ...: no text signature; a call binds as the type itself does
            return inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                      inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
    f, bound = _wrapper_function(fn)
    if type(f) is not types.FunctionType:
        return _wrapped(lambda: wrapper_signature(f, _depth + 1), f)
    code = f.__code__
    n_defaults = tuple.__len__(f.__defaults__) if f.__defaults__ else 0
    plain = types.FunctionType(code, {}, "wrapper", (_DEFAULT,) * n_defaults,
                               tuple(types.CellType() for _ in code.co_freevars) or None)
    kw = f.__kwdefaults__
    if kw:
        plain.__kwdefaults__ = {k: _DEFAULT for k in dict.keys(kw) if type(k) is str}
    params = list(inspect.signature(plain).parameters.values())
    if bound:
        if not params or params[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                inspect.Parameter.POSITIONAL_OR_KEYWORD):
            raise TypeError("its __call__ (or method) takes no self parameter")
        params = params[1:]
    return inspect.Signature(params)


def wrapper_defaults(fn: Any, _depth: int = 0) -> dict[str, Any]:
    """Parameter name -> default value of the function :func:`wrapper_signature` reads (the submission's objects:
    compare them only after checking their ``type()``)."""
    if _depth > _NEST_MAX:
        raise TypeError(f"it nests partials and wrapped objects more than {_NEST_MAX} deep")
    if type(fn) is functools.partial:
        base, _, keys = _partial_parts(fn)
        kw = fn.keywords
        return {**wrapper_defaults(base, _depth + 1), **{k: dict.__getitem__(kw, k) for k in keys}}
    if _plain_builtin(fn):
        return {}
    f, _ = _wrapper_function(fn)
    if type(f) is not types.FunctionType:
        return _wrapped(lambda: wrapper_defaults(f, _depth + 1), f)
    code = f.__code__
    names = code.co_varnames[:code.co_argcount]
    d = f.__defaults__
    defs = [tuple.__getitem__(d, i) for i in range(tuple.__len__(d))] if d else []
    out = dict(zip(names[len(names) - len(defs):], defs))
    kw = f.__kwdefaults__
    if kw:
        out.update({k: dict.__getitem__(kw, k) for k in dict.keys(kw) if type(k) is str})
    return out


#: ``functools.lru_cache``'s C wrapper: followed to the function it caches (``__wrapped__``), as ``functools.wraps``.
_LRU_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))
#: ``torch.nn.Module.__call__`` and its ``forward`` placeholder (:func:`_wrapper_function` reads a module's forward).
_MODULE_CALL = inspect.getattr_static(torch.nn.Module, "__call__")
_MODULE_FORWARD = inspect.getattr_static(torch.nn.Module, "forward")
#: ``torch.autograd.Function.apply`` (the function of the classmethod), its metaclass, and the base class's forward and
#: setup_context (:func:`_wrapper_function` reads a Function subclass's forward).
_FUNCTION_APPLY = torch.autograd.Function.__dict__["apply"].__func__
_FUNCTION_META = type(torch.autograd.Function)
_FUNCTION_FORWARD = inspect.getattr_static(torch.autograd.Function, "forward").__func__
_FUNCTION_SETUP_CONTEXT = inspect.getattr_static(torch.autograd.Function, "setup_context")
#: Builtin types a wrapper may be (``floor_int = int``: a JIT-only scalar overload): none of the submission's code.
_BUILTIN_TYPES = (int, float, complex, bool)


#: Modules whose C functions a wrapper may be (JIT-only scalar overloads: ``floor_float = math.floor``).
_SCALAR_MODULES = (math, cmath, operator)


def _plain_builtin(fn: Any) -> bool:
    """Whether ``fn`` is a scalar function of Python's own that runs none of the submission's code: a C function of
    math, cmath or operator (its ``__self__`` is the module) or a builtin numeric type, told apart by ``type()`` and
    identity (fp30: ``floor_float = math.floor`` and ``floor_int = int`` passed before wrapper_signature). Other
    builtins (``print``) stay refused."""
    if type(fn) is types.BuiltinFunctionType:
        return any(fn.__self__ is m for m in _SCALAR_MODULES)
    return any(fn is k for k in _BUILTIN_TYPES)


def _wrapped(read: Callable[[], Any], obj: Any) -> Any:
    """``read()`` of the object a ``functools.wraps`` chain ends in, its refusal said as the wrapping's."""
    try:
        return read()
    except TypeError as exc:
        raise TypeError(f"it wraps (__wrapped__) a {type.__repr__(type(obj))}: {exc}") from None


def _partial_parts(fn: functools.partial) -> tuple[Any, int, list[str]]:
    """``(func, number of bound positional arguments, bound keyword names)`` of a ``functools.partial``."""
    args, kw = fn.args, fn.keywords
    keys = list(dict.keys(kw)) if kw else []
    if type(args) is not tuple or any(type(k) is not str for k in keys):
        raise TypeError("it is a functools.partial whose bound arguments are not a plain tuple and str keywords")
    return fn.func, tuple.__len__(args), keys


def _wrapper_function(fn: Any) -> tuple[types.FunctionType, bool]:
    """``(the Python function whose code a call of fn runs, whether fn binds its first parameter)``, found with
    ``type()``, function attributes and class dictionaries only (see :func:`wrapper_signature`). Where a
    ``functools.wraps`` chain of an unbound function ends in something else (a partial, method, callable object,
    builtin), that object takes the function's place, for the caller to read by the same rules."""
    t = type(fn)
    bound = False
    if t is _LRU_WRAPPER:
        fn = dict.get(fn.__dict__, "__wrapped__")
        t = type(fn)
        if t is not types.FunctionType:
            raise TypeError(f"it is a functools.lru_cache of a {type.__repr__(t)}, not of a Python function")
    if t is types.MethodType and fn.__func__ is _FUNCTION_APPLY and type(fn.__self__) is _FUNCTION_META:
        # rms_norm = RMSNormFn.apply (a torch.autograd.Function): apply runs the class's forward with the same
        # arguments, after ctx unless the class has its own setup_context (fp31: read as (*args, **kwargs), which
        # failed a function task's interface)
        cls = fn.__self__
        fwd = inspect.getattr_static(cls, "forward", None)
        fwd = fwd.__func__ if type(fwd) is staticmethod else None
        if type(fwd) is not types.FunctionType or fwd is _FUNCTION_FORWARD:
            raise TypeError(f"it is the apply of {type.__repr__(cls)}, whose forward is not a staticmethod function")
        ctx_first = inspect.getattr_static(cls, "setup_context", None) is _FUNCTION_SETUP_CONTEXT
        fn, t, bound = fwd, types.FunctionType, ctx_first
    elif t is types.MethodType:
        fn, t, bound = fn.__func__, type(fn.__func__), True
    elif t is not types.FunctionType:
        if type(t) is not type and type(t) is not abc.ABCMeta:  # abc.ABCMeta: an op object's abstract base (fp31)
            raise TypeError(f"it is an instance of {type.__repr__(t)}, whose metaclass is not type")
        call = inspect.getattr_static(t, "__call__", None)
        if type(call) is not types.FunctionType:
            raise TypeError(f"it is a {type.__repr__(t)}: a wrapper is a Python function (def, lambda; "
                            f"functools.wraps decorators are followed), a method, a functools.partial of one, or an "
                            f"instance of a class whose __call__ is a Python function")
        mro = type.__dict__["__mro__"].__get__(t)
        for name in ("__getattr__", "__getattribute__"):
            # torch.nn.Module's own __getattr__ (parameters, buffers, submodules) is PyTorch's code, and nothing here
            # reads the instance's attributes: a module instance is a wrapper like any __call__ class (fp30)
            if any(name in type.__dict__["__dict__"].__get__(k) and not (k is torch.nn.Module and name == "__getattr__")
                   for k in mro[:-1]):
                raise TypeError(f"it is an instance of {type.__repr__(t)}, whose class defines {name}")
        if call is _MODULE_CALL:
            # an nn.Module that keeps torch.nn.Module's own __call__: the call runs its class's forward with the same
            # arguments (PyTorch's hooks around it), so forward's parameters are the wrapper's (fp31: a function
            # task's module read as (*args, **kwargs) and failed the interface); an instance attribute named
            # forward, which Module.__call__ would run instead, is refused
            fwd = inspect.getattr_static(t, "forward", None)
            if type(fwd) is not types.FunctionType or fwd is _MODULE_FORWARD:
                raise TypeError(f"it is an instance of {type.__repr__(t)}, a torch.nn.Module whose class defines no "
                                f"forward function")
            own = object.__getattribute__(fn, "__dict__")
            if type(own) is not dict or "forward" in own:
                raise TypeError(f"it is an instance of {type.__repr__(t)} with its own forward attribute")
            call = fwd
        fn, t, bound = call, types.FunctionType, True
    if t is not types.FunctionType:
        raise TypeError(f"it is a method of a {type.__repr__(t)}")
    f = fn
    for _ in range(16):
        if dict.get(f.__dict__, "__signature__") is not None:
            raise TypeError("it sets __signature__ (a wrapper's parameters are read from its code)")
        nxt = dict.get(f.__dict__, "__wrapped__")
        if nxt is None:
            return f, bound
        if type(nxt) is _LRU_WRAPPER:  # functools.wraps around an lru_cache: the function it caches
            nxt = dict.get(nxt.__dict__, "__wrapped__")
        if type(nxt) is not types.FunctionType:
            if bound or nxt is None:
                raise TypeError(f"it wraps (__wrapped__) a {type.__repr__(type(nxt))}, not a Python function")
            return nxt, False
        f = nxt
    raise TypeError("its __wrapped__ chain is longer than 16 functions")


def traced(fn: Callable[..., Any], name: str, packed: tuple[tuple[int, str], ...] = (),
           selectors: tuple[tuple[int, str], ...] = ()) -> Callable[..., Any]:
    """Wrap a candidate wrapper: count calls, detect dispatch recursion, check that it accepts the
    arguments, trace its ATen ops (while timing: op counts only, :class:`TimedTraceMode`), and keep the
    memory provenance of the outermost call (:class:`CallEvidence`; its returned tensors must live in
    storage allocated during the call or be arguments, ``STATE.stale_outputs``). ``packed``: the
    ``(position, name)`` of each parameter holding packed data (``Operator.packed_args``), whose storages
    the evidence tracks as packed (:meth:`CallEvidence.unpacks`); ``selectors``: those of the selecting operands
    of a data-movement operator (``Operator.selector_args``), whose layout copies are not its work."""
    refused = ""
    try:
        sig: inspect.Signature | None = wrapper_signature(fn)
    except TypeError as exc:  # a call fails (below): its parameters cannot be read without running its code
        sig, refused = None, str(exc)

    def wrapper(*args, **kwargs):
        if name in STATE.active_wrappers:
            raise DispatchRecursion(
                f"dispatch recursion: {name} was re-entered through the dispatcher while it was running "
                f"(it calls the ATen op it replaces, directly or through a tensor method or operator)")
        STATE.wrapper_calls[name] += 1
        if refused:
            raise SignatureMismatch(f"{name}: the harness cannot read this wrapper's parameters: {refused}")
        if STATE.tracing and sig is not None:
            try:
                sig.bind(*args, **kwargs)
            except TypeError as exc:
                kinds = [type(a).__name__ for a in args] + [f"{k}=" for k in kwargs]
                raise SignatureMismatch(f"{name}{sig} cannot be called with ({', '.join(kinds)}): {exc}") from None
        top = STATE.call is None
        storages = None
        given: list[Any] = []
        if top:
            given = _arg_values(args, kwargs)  # kept alive: plain_result tells the caller's objects by identity
            held = [args[i] if i < len(args) else kwargs.get(n) for i, n in packed]
            sel = [args[i] if i < len(args) else kwargs.get(n) for i, n in selectors]
            STATE.call = CallEvidence(args, kwargs, STATE.readonly_inputs if STATE.tracing else frozenset(), held,
                                      selectors=sel)
            storages = argument_storages(args, kwargs)
        STATE.active_wrappers.append(name)
        try:
            if not STATE.tracing:
                if STATE.timed_trace is not None:
                    ret = _timed_traced_call(fn, args, kwargs)
                else:
                    ret = fn(*args, **kwargs)
                if top:
                    ret = plain_result(name, ret, args, kwargs, given)
            else:
                with CandidateMode():
                    ret = fn(*args, **kwargs)
                    if top:  # inside the trace: a finalizer of what it drops runs traced
                        ret = plain_result(name, ret, args, kwargs, given)
            if top and STATE.call is not None and STATE.call.kernel_errors:
                raise KernelErrorCaught(
                    f"{name}: the kernel launch {STATE.call.kernel_errors[0]} raised inside the Triton CPU "
                    f"interpreter and the wrapper caught the error and returned a result. On a GPU a kernel "
                    f"cannot raise into the wrapper once it runs (a failed device assertion ends the process; compile "
                    f"errors come before any data is seen); on the interpreter its error message can carry the "
                    f"values the kernel loaded, so an error escaping a kernel body may not be caught")
            if top:
                _check_returns(name, ret, args, kwargs)
                for where in replaced_storages(storages or []):
                    if len(STATE.stale_outputs) < 8:
                        STATE.stale_outputs.append(
                            f"{name} replaced the storage of its argument {where} (tensor.data = ..., set_) "
                            f"instead of writing into it: the caller's other views of that storage would not "
                            f"see the result")
            return ret
        finally:
            STATE.active_wrappers.pop()
            if top:
                STATE.call = None

    wrapper.__name__ = f"kgb_traced_{name}"
    return wrapper



class KernelErrorCaught(RuntimeError):
    """A candidate call returned although one of its interpreted kernel launches raised (the wrapper caught
    the error): the case fails as ``runtime_error``. Interpreter only (the interpreter runs kernel bodies in
    Python: ``tl.static_assert``/``device_assert`` messages and raises on data-dependent branches would
    otherwise be a channel from loaded values to the host)."""

class InterceptMode(TorchDispatchMode):
    """On the interpreter, route the target ATen overloads of a public call to the candidate's
    wrappers (called directly with the dispatcher's arguments, wrapped numbers included)."""

    def __init__(self, targets: dict[str, Callable[..., Any]]) -> None:
        super().__init__()
        self.targets = targets

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        key = f"{func._schema.name.split('::')[-1]}.{func._overloadname}"
        fn = self.targets.get(key) or (self.targets.get(key[: -len(".default")])
                                        if key.endswith(".default") else None)
        if fn is not None:
            return fn(*args, **kwargs)
        return func(*args, **kwargs)


HARNESS_MODES.update({CandidateMode, TimedTraceMode, InterceptMode})  # sandbox/window.py
