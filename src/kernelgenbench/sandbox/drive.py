"""Driving the candidate in the child: the submission's wrappers made traced callables, registered where
the platform registers them, and called as a case asks.

An operator describes how a case calls the candidate (``suite/``: :meth:`Operator.drive
<kernelgenbench.suite.spec.Operator.drive>` says how many calls on which arguments, an ATen case's
:attr:`Call.api <kernelgenbench.suite.spec.Call.api>` which public API it drives, and
:meth:`AtenOperator.interpreter_route <kernelgenbench.suite.aten.family.AtenOperator.interpreter_route>`
which wrapper the interpreter calls directly); this module does the calling:

* :func:`make_impl`: the candidate of one submission module: :class:`AtenImpl` (every wrapper traced,
  registered into ``torch.library`` at the platform's dispatch key on GPUs) or :class:`FunctionImpl` (one
  traced function: vLLM, cuBLAS);
* :func:`invoke` / :func:`invoke_timed`: a case run / one timed repetition: the operator's drive, with a
  :class:`CandidateDriver` making each call:

  - ATen on GPUs: the public call runs as a user's program would and reaches the registered wrappers
    through the dispatcher (aten.md §4.3);
  - ATen on the interpreter: registering CPU kernels would hijack the interpreter's own tensor work, so
    :class:`.dispatch.InterceptMode` routes the reached overload to its wrapper, called directly with the
    dispatcher's arguments (wrapped Python numbers included); a CompositeImplicitAutograd overload, which a
    dispatch mode never sees whole, goes to its wrapper directly (the row's ``interpreter_route``);
  - ``"wrapper:<name>"`` cases call that wrapper as a plain Python function (JIT-only scalar overloads);
  - vLLM and cuBLAS: the function, with the case's arguments.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import torch

from ..suite.aten.family import DIRECT, AtenOperator, resolve_api
from ..suite.spec import Call, Operator, bind_pointers, unbind_result
from .dispatch import DispatchRecursion, InterceptMode, SignatureMismatch, traced


def schema_param_names(schema: str) -> list[str]:
    """The parameter names of an ATen schema string, in order (keyword-only ones after the positional ones):
    ``"aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)"`` gives
    ``["self", "mask", "value"]``; ``[]`` when the string has no parameter list."""
    start = schema.find("(")
    if start < 0:
        return []
    depth, end = 0, -1
    for i in range(start, len(schema)):
        depth += schema[i] in "([" and 1 or (-1 if schema[i] in ")]" else 0)
        if depth == 0:
            end = i
            break
    names, part, depth = [], "", 0
    for ch in schema[start + 1:end] + ",":
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            head = part.split("=", 1)[0].strip()
            if head and head != "*":
                names.append(head.split()[-1])
            part = ""
        else:
            part += ch
    return names


def _has_overload(key: str) -> bool:
    """Whether the installed PyTorch has the overload ``"select.Dimname"`` (named-tensor overloads
    exist in PyTorch 2.11, not in 2.13)."""
    op, _, ov = key.partition(".")
    return (ov or "default") in getattr(torch.ops.aten, op).overloads()


def module_value(module: Any, name: str) -> Any:
    """The value the submission's module binds to ``name``, or None: read from its ``__dict__``, so that a
    module-level ``__getattr__`` of the submission (PEP 562) never runs (``getattr`` would call it for every optional
    wrapper the file does not define, after the import's trace and before any call's)."""
    d = vars(module)
    return dict.get(d, name) if isinstance(d, dict) else None


class AtenImpl:
    """The candidate's wrappers, traced, and their registration state (runs in the child).

    Attributes:
        fns: traced wrapper by overload key (``"add.Tensor"``).
        by_name: traced wrapper by wrapper name (``"add_Tensor"``), for direct calls.
    """

    def __init__(self, module: Any, op: "AtenOperator", platform: Any) -> None:
        self.platform = platform
        self.fns: dict[str, Callable[..., Any]] = {}
        self.by_name: dict[str, Callable[..., Any]] = {}
        for w in op.interface.wrappers:
            fn = module_value(module, w.name)
            if not callable(fn):
                continue
            sel = tuple((i, n) for i, n in enumerate(schema_param_names(w.schema)) if n in op.selector_args)
            t = traced(fn, w.name, selectors=sel)
            self.by_name[w.name] = t
            if w.kind == "dispatcher" or (w.kind == "named" and _has_overload(w.overload)):
                self.fns[w.overload] = t
        self.lib: Any = None
        self.activate()

    def activate(self) -> None:
        """Register the wrappers at the platform's dispatch key (no-op on the interpreter)."""
        if self.platform.dispatch_key is None or self.lib is not None:
            return
        lib = torch.library.Library("aten", "IMPL")
        for overload, fn in self.fns.items():
            lib.impl(overload, fn, self.platform.dispatch_key)
        self.lib = lib

    def deactivate(self) -> None:
        """Remove the registration (the native kernels answer again)."""
        if self.lib is not None:
            self.lib._destroy()
            self.lib = None


class FunctionImpl:
    """The candidate's function, traced (runs in the child). Nothing to register."""

    def __init__(self, module: Any, name: str, packed: tuple[tuple[int, str], ...] = ()) -> None:
        self.fn = traced(module_value(module, name), name, packed)

    def activate(self) -> None:
        """No registration for function tasks."""

    def deactivate(self) -> None:
        """No registration for function tasks."""


def make_impl(op: Operator, module: Any, platform: Any) -> AtenImpl | FunctionImpl:
    """The candidate of ``module`` (the imported submission) for ``op``: an ATen operator's wrappers
    (registered at once where the platform has a dispatch key), or a vLLM/cuBLAS operator's function (its
    packed parameters, ``Operator.packed_args``, tracked as packed data by the call's evidence)."""
    if op.interface.function is not None:
        params = op.interface.params
        packed = tuple((params.index(n), n) for n in sorted(op.packed_args))
        return FunctionImpl(module, str(op.interface.function), packed)
    return AtenImpl(module, op, platform)  # type: ignore[arg-type]


def _call_aten(op: AtenOperator, impl: AtenImpl, call: Call, platform: Any) -> Any:
    """One call of an ATen case (see the module docstring)."""
    if platform.dispatch_key is None:
        routed = op.interpreter_route(call)
        if routed is not None:  # Interpreter: a dispatch mode sees only a CompositeImplicit op's decomposition.
            wrapper, args, kwargs = routed
            return impl.by_name[wrapper](*args, **kwargs)
    if str(call.api).startswith(DIRECT):
        # A wrapper called as a plain Python function (JIT-only scalar overloads, aten.md §6b.5;
        # CompositeImplicit ops on the interpreter): no dispatcher involved.
        return impl.by_name[str(call.api)[len(DIRECT):]](*call.args, **call.kwargs)
    api = resolve_api(str(call.api))
    if platform.dispatch_key is None:
        with InterceptMode(impl.fns):
            return api(*call.args, **call.kwargs)
    return api(*call.args, **call.kwargs)


class CandidateDriver:
    """The candidate as an operator's drive calls it (:class:`~kernelgenbench.suite.spec.Candidate`):
    one call per ``driver(call)``."""

    def __init__(self, op: Operator, impl: Any, platform: Any, timed: bool = False) -> None:
        self.op = op
        self.impl = impl
        self.platform = platform
        #: a timed repetition: pointer arrays are not read back after the call (no host sync in the timing)
        self.timed = timed

    def __call__(self, call: Call) -> Any:
        if self.op.interface.function is not None:
            if call.pointers:
                # cuBLAS *Batched: the candidate gets int64 address tensors built here, outside its traced
                # call, from the tensors this process holds (suite/spec.py bind_pointers); a returned
                # address tensor stands for the case's argument at its position
                bound = bind_pointers(call)
                if self.platform.interpreter:
                    # the interpreter's bounds checks let the call's launches reach what the addresses point to
                    from .interpreter import pointer_targets

                    with pointer_targets([call.args[s] for s in call.pointers]):
                        ret = self.impl.fn(*bound.args, **bound.kwargs)
                else:
                    ret = self.impl.fn(*bound.args, **bound.kwargs)
                return unbind_result(call, ret, check=not self.timed)
            return self.impl.fn(*call.args, **call.kwargs)
        return _call_aten(self.op, self.impl, call, self.platform)  # type: ignore[arg-type]

    def attempt(self, call: Call) -> tuple[Any, Exception | None]:
        """Call once: ``(result, None)``, or ``(None, exc)`` where the call raised the ``Exception`` ``exc``.
        The harness's own findings (:class:`.dispatch.DispatchRecursion`, :class:`.dispatch.SignatureMismatch`)
        are not an outcome of the call: they propagate with their failure classes."""
        try:
            ret = self(call)
        except (DispatchRecursion, SignatureMismatch):
            raise  # the harness's own findings keep their failure classes
        except Exception as exc:  # noqa: BLE001 - the outcome the case asks for (judged by the operator's judge)
            return None, exc
        return ret, None


def foreign_modes(where: str) -> str | None:
    """What a submission left on PyTorch's mode stacks, or None: any ``TorchFunctionMode`` or ``TorchDispatchMode``
    on them between calls. A mode left pushed runs its handler on every torch
    call the harness makes outside the trace (red team 30b: a ``TorchFunctionMode`` pushed at import, or inside the
    first call, wrote the result with ATen around the harness's own ``torch.neg(x)`` or ``untyped_storage()``, while
    a Triton flag kernel gated it past the ghost replay). Between calls the harness has no mode pushed, so any mode
    on either stack is the submission's. Reads the stacks' lengths and ``type()`` only."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    n_fn = torch._C._len_torch_function_stack()
    if n_fn:
        return (f"{n_fn} torch function mode(s) left pushed {where}: a submission may not install PyTorch modes (their "
                f"handlers would run on the harness's own torch calls, outside the trace)")
    stack = _get_current_dispatch_mode_stack()
    if stack:  # between calls the harness has none pushed (its modes live inside a call)
        return (f"{len(stack)} torch dispatch mode(s) left pushed {where} ({type.__repr__(type(stack[-1]))}): a "
                f"submission may not install PyTorch modes")
    return None


#: PyTorch's global state just before the submission was imported (:func:`record_global_state`): dynamo's
#: ``GlobalStateGuard`` (grad mode, autocast, default dtype, deterministic algorithms, TF32 and reduced-precision
#: flags, threads, torch function state) and inference mode; None before (nothing is checked then)
_GLOBAL: tuple[Any, bool] | None = None


def record_global_state() -> None:
    """Record PyTorch's global state now, as the state the submission must leave after its import and after every
    call (:func:`global_state_change`). Called by the sandbox child right before the submission's import."""
    global _GLOBAL
    from torch._C._dynamo.guards import GlobalStateGuard

    _GLOBAL = (GlobalStateGuard(), torch.is_inference_mode_enabled())


def global_state_change(where: str) -> str | None:
    """What the submission left changed in PyTorch's global state since :func:`record_global_state`, or None.

    Both sides of the timing protocol run under that state, and a ``native-compiled`` baseline's graphs are guarded
    on it: red team 33 left ``torch.no_grad()`` or ``torch.inference_mode()`` entered after the warm-up calls, and
    the compiled vLLM reference compiled again in its first timed block (its times would hold the compile, or it
    falls back to the weaker eager bar). Grad mode, inference mode, autocast, the default dtype, deterministic
    algorithms, TF32 and reduced-precision matmul flags: a wrapper that changes them must restore them (``with
    torch.no_grad():``, a decorator) before it returns."""
    if _GLOBAL is None:
        return None
    guard, inference = _GLOBAL
    if guard.check() and torch.is_inference_mode_enabled() == inference:
        return None
    what = "inference mode" if torch.is_inference_mode_enabled() != inference else \
        (str(getattr(guard, "reason", lambda: "")() or "").strip() or "global state")
    return (f"PyTorch's global state changed {where} ({what}): a submission must leave grad mode, inference mode, "
            f"autocast, the default dtype and the math flags as it found them (use context managers that exit "
            f"before the wrapper returns, a fresh one per with: one torch.no_grad() object entered twice, nested, "
            f"restores the inner entry's state); the baseline is timed under the same state")


def compiled_graphs() -> int:
    """How many graphs ``torch.compile`` (dynamo) compiled in this process so far (dynamo's ``unique_graphs``; 0 while
    dynamo was never imported). The harness compiles only a vLLM baseline, in an ``ahead`` or ``prepare`` command,
    never while the submission's code runs."""
    utils = sys.modules.get("torch._dynamo.utils")
    counters = getattr(utils, "counters", None)
    return int(counters["stats"]["unique_graphs"]) if counters is not None else 0


def compiler_used(graphs: int, where: str) -> str | None:
    """The violation when dynamo compiled graphs since ``graphs`` (:func:`compiled_graphs` before the submission's
    code ran), or None: the PyTorch compiler stack generates kernels (Triton ones on GPUs) the submission did not
    write. L1 refuses ``torch.compile`` and its paths; a module's own ``compile()`` method reads like any method
    (red team 33), so the count is checked around the import, every call and every collection."""
    n = compiled_graphs() - graphs
    if n <= 0:
        return None
    return (f"torch.compile compiled {n} graph(s) {where}: the PyTorch compiler stack (torch.compile, "
            f"nn.Module.compile) generates kernels the submission did not write")


def _check_compiles(graphs: int, where: str) -> None:
    from .state import STATE

    msg = compiler_used(graphs, where)
    if msg is not None:
        STATE.note_violation(msg)
        raise RuntimeError(msg)


def _check_modes(where: str) -> None:
    from .state import STATE

    msg = foreign_modes(where) or global_state_change(where)
    if msg is not None:
        STATE.note_violation(msg)
        raise RuntimeError(msg)


def invoke(op: Operator, impl: Any, call: Call, platform: Any) -> Any:
    """Run a case: the candidate (``impl``, from :func:`make_impl`) on ``call`` as ``op`` drives it
    (:meth:`~kernelgenbench.suite.spec.Operator.drive`). Returns what the child reports as its result. A PyTorch
    mode of the submission's on the stacks before or after the call is a violation (:func:`foreign_modes`)."""
    _check_modes("before a call")
    graphs = compiled_graphs()
    try:
        return op.drive(call, CandidateDriver(op, impl, platform))
    finally:
        _check_modes("after a call")
        _check_compiles(graphs, "during a call")


def invoke_timed(op: Operator, impl: Any, call: Call, platform: Any) -> Any:
    """Run one timed repetition (verify/timing.py): as ``op`` drives one
    (:meth:`~kernelgenbench.suite.spec.Operator.drive_timed`); modes judged as by :func:`invoke`."""
    _check_modes("before a timed call")
    graphs = compiled_graphs()
    try:
        return op.drive_timed(call, CandidateDriver(op, impl, platform, timed=True))
    finally:
        _check_modes("after a timed call")
        _check_compiles(graphs, "during a timed call")
