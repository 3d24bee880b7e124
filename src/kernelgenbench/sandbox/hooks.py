"""Instrumentation installed in the sandbox child *before* the submission is imported.

* Triton launch accounting: every launch through ``JITFunction.run`` (GPU) or
  ``InterpretedFunction.run`` (interpreter) is counted with its kernel name. Ghost mode (L2) turns
  launches into no-ops.
* :class:`CandidateMode`: a ``TorchDispatchMode`` entered around each call of a candidate wrapper.
  It records every ATen op the candidate's Python code runs (the L3 dispatch-level trace), except
  what Triton's own launcher does inside a launch, and it poisons every tensor the candidate
  allocates, so unwritten output elements are visible.
* Interpreter patches: ``@triton.autotune`` picks the first config that survives pruning (the
  interpreter has no driver to benchmark with; times are not reported there anyway).

This module runs in the untrusted process: it only *collects* evidence. Verdicts are made by the
trusted verifier from what the child sends back.
"""
from __future__ import annotations

import inspect
from collections import Counter
from typing import Any, Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

#: Allocation ops whose results are poisoned when the candidate makes them.
ALLOCATING = {"empty.memory_format", "empty_strided.default", "empty_like.default",
              "new_empty.default", "new_empty_strided.default", "empty.out", "resize_.default"}

#: ATen ops that draw random numbers: the elements they produce are also counted as
#: ``aten::random_draw`` (L3 budgets them where an operator may draw a seed with PyTorch).
RANDOM_DRAWS = {"randint", "randint_like", "rand", "rand_like", "randn", "randn_like", "randperm", "random_",
                "uniform_", "normal", "normal_", "bernoulli", "bernoulli_", "exponential_", "geometric_",
                "log_normal_", "cauchy_", "poisson", "multinomial", "binomial", "_standard_gamma",
                "_sample_dirichlet", "rrelu_with_noise", "native_dropout"}


class State:
    """Per-process instrumentation state (one candidate call at a time)."""

    def __init__(self) -> None:
        self.inside_launch = 0
        self.ghost = False
        #: allocations get the alternate poison pattern (ghost mode implies it; the verifier's
        #: alternate-poison re-run of a passed case sets it alone, with launches left on)
        self.alt_poison = False
        self.launches: list[str] = []
        self.trace: Counter[str] = Counter()
        self.wrapper_calls: Counter[str] = Counter()
        self.active_wrappers: list[str] = []
        self.poison_allocations = True
        self.tracing = True  # False while timing: no dispatch mode, no signature binding
        #: ATen overloads the candidate's registration replaces in this process (set by the child on
        #: GPUs): the poisoning of allocations must not dispatch into them (see poison_allocation)
        self.registered: frozenset[str] = frozenset()

    def reset(self) -> None:
        self.launches = []
        self.trace = Counter()
        self.wrapper_calls = Counter()


STATE = State()


class DispatchRecursion(RuntimeError):
    """A wrapper re-entered itself through the dispatcher (it called the op it replaces)."""


class SignatureMismatch(TypeError):
    """The candidate's function cannot take the arguments of the interface."""


def _kernel_name(fn: Any) -> str:
    inner = getattr(fn, "fn", None)
    return getattr(inner, "__name__", None) or getattr(fn, "__name__", type(fn).__name__)


def install_host_read_hooks() -> None:
    """Count the tensor values a candidate reads on the host through paths the dispatcher does not
    see (``tolist``, ``str``/``repr``/``format``, ``numpy``, ``__array__``): each element counts as
    one ``host_read`` in the trace (L3 budgets it like ``.item()``)."""
    for name in ("tolist", "__repr__", "__str__", "__format__", "numpy", "__array__"):
        orig = getattr(torch.Tensor, name)
        if getattr(orig, "_kgb_hooked", False):
            continue

        def read(self, *a, _orig=orig, **k):
            if STATE.active_wrappers and STATE.tracing and not STATE.inside_launch:
                STATE.trace["aten::host_read"] += max(1, self.numel())
                # The read is counted above; the device-to-host copy PyTorch runs inside it
                # (aten::to on CUDA tensors) is part of the read, not the candidate's compute.
                STATE.inside_launch += 1
                try:
                    return _orig(self, *a, **k)
                finally:
                    STATE.inside_launch -= 1
            return _orig(self, *a, **k)

        read._kgb_hooked = True  # type: ignore[attr-defined]
        setattr(torch.Tensor, name, read)


def _meta(fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    names = list(getattr(fn, "arg_names", []) or [])
    meta = dict(zip(names, args))
    meta.update({k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})
    return meta


def install_launch_hooks() -> None:
    """Wrap Triton's launch entry points for accounting and ghost replay (idempotent).

    Everything the candidate's Python runs stays traced, including the launch grid callable,
    ``@triton.heuristics`` functions and autotune hooks; only the interpreter's own execution of a
    kernel (copying arguments to and from the host) and Triton's autotune benchmarking are left out
    of the trace. In ghost mode the grid is still evaluated, then the launch is skipped.
    """
    import triton.runtime.autotuner as autotuner
    import triton.runtime.jit as jit

    classes: list[tuple[type, bool]] = [(jit.JITFunction, False)]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append((InterpretedFunction, True))
    except ImportError:  # pragma: no cover - older Triton
        pass

    for cls, interpreted in classes:
        if getattr(cls.run, "_kgb_hooked", False):
            continue
        orig = cls.run

        def run(self, *args, _orig=orig, _interp=interpreted, **kwargs):
            if kwargs.get("warmup"):
                return _orig(self, *args, **kwargs)
            STATE.launches.append(_kernel_name(self))
            grid = kwargs.get("grid")
            if STATE.ghost:
                if callable(grid):
                    grid(_meta(self, args, kwargs))
                return None
            if not _interp:
                return _orig(self, *args, **kwargs)
            if callable(grid):  # evaluated here, traced, as the candidate's own code
                kwargs["grid"] = tuple(grid(_meta(self, args, kwargs)))
            # The kernel body and pre-run hooks run traced (Python in a kernel body is the candidate's
            # code on the interpreter); only the argument copies to and from the host are suspended.
            return _orig(self, *args, **kwargs)

        run._kgb_hooked = True  # type: ignore[attr-defined]
        cls.run = run

    try:
        from triton.runtime.interpreter import GridExecutor

        for meth in ("_init_args_hst", "_restore_args_dev"):
            orig_m = getattr(GridExecutor, meth)
            if getattr(orig_m, "_kgb_suspended", False):
                continue

            def copy_args(self, *a, _orig=orig_m, **k):
                STATE.inside_launch += 1
                try:
                    return _orig(self, *a, **k)
                finally:
                    STATE.inside_launch -= 1

            copy_args._kgb_suspended = True  # type: ignore[attr-defined]
            setattr(GridExecutor, meth, copy_args)
    except ImportError:  # pragma: no cover - older Triton
        pass

    # Triton's own autotune benchmarking (timing loops, cache flushes) is not the candidate's work.
    if not getattr(autotuner.Autotuner._bench, "_kgb_suspended", False):
        orig_bench = autotuner.Autotuner._bench

        def _bench(self, *args, _orig=orig_bench, **kwargs):
            STATE.inside_launch += 1
            try:
                return _orig(self, *args, **kwargs)
            finally:
                STATE.inside_launch -= 1

        _bench._kgb_suspended = True  # type: ignore[attr-defined]
        autotuner.Autotuner._bench = _bench


def install_interpreter_patches() -> None:
    """Make ``@triton.autotune`` usable under ``TRITON_INTERPRET=1``.

    Triton 3.6's autotuner benchmarks every config through the active driver, and the interpreter
    has none ("0 active drivers"). Here the benchmark is replaced by a ranking that prefers the
    first config surviving pruning; the chosen config then runs normally.
    """
    import triton.runtime.autotuner as autotuner

    if getattr(autotuner.Autotuner._bench, "_kgb_hooked", False):
        return

    def _bench(self, *args, config, **meta):
        return [float(self.configs.index(config)) if config in self.configs else 0.0] * 3

    _bench._kgb_hooked = True  # type: ignore[attr-defined]
    autotuner.Autotuner._bench = _bench
    _map_libdevice_to_tl_math()
    _cuda_device_accepts_cpu()


def _map_libdevice_to_tl_math() -> None:
    """Triton 3.6's interpreter implements no ``libdevice`` function (every call fails); the ones
    ``tl.math`` also has (sqrt, exp, log, sin, cos, rsqrt, erf, floor, ceil, fma, ...) are pointed at
    ``tl.math``, which the interpreter runs. Kernels using the others fail on the interpreter with
    class ``platform`` (verify/failures.py), never as the submission's fault."""
    import importlib

    import triton.language as tl

    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        for fn in dir(mod):
            if not fn.startswith("_") and hasattr(tl.math, fn) and callable(getattr(tl.math, fn)):
                # looked up at call time: the interpreter patches tl.math while a kernel runs
                setattr(mod, fn, lambda *a, _fn=fn, **k: getattr(tl.math, _fn)(*a, **k))


def _cuda_device_accepts_cpu() -> None:
    """``with torch.cuda.device(x.device):`` is a common launch idiom; on the interpreter x is a CPU
    tensor, so a CPU device (or index) makes the context a no-op instead of an error."""
    import contextlib

    orig = torch.cuda.device

    class device(orig):  # type: ignore[misc, valid-type]
        def __new__(cls, dev):  # noqa: D401 - a context manager factory
            if isinstance(dev, torch.device) and dev.type == "cpu" or dev == "cpu":
                return contextlib.nullcontext()
            return orig(dev)

    torch.cuda.device = device  # type: ignore[misc]


def _dtype_changes(func: Any, args: tuple, kwargs: dict) -> bool:
    name = func.__name__ if hasattr(func, "__name__") else str(func)
    try:
        if name.startswith("copy_"):
            return args[0].dtype != args[1].dtype
        if name.startswith("_to_copy"):
            dt = kwargs.get("dtype")
            return dt is not None and dt != args[0].dtype
    except (AttributeError, IndexError):
        return False
    return False


class CandidateMode(TorchDispatchMode):
    """Trace and poison the ATen ops a candidate's Python code runs (see module docstring)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if STATE.inside_launch:
            return func(*args, **kwargs)
        name = f"aten::{func._schema.name.split('::')[-1]}"
        overload = func._overloadname
        key = name + ("" if overload == "default" else f".{overload}")
        if _dtype_changes(func, args, kwargs):
            key += " (dtype conversion)"
        STATE.trace[key] += 1
        out = func(*args, **kwargs)
        if name[len("aten::"):] in RANDOM_DRAWS:
            drawn = out if isinstance(out, torch.Tensor) else (out[0] if isinstance(out, (tuple, list)) and out else None)
            STATE.trace["aten::random_draw"] += drawn.numel() if isinstance(drawn, torch.Tensor) else 1
        if STATE.poison_allocations and f"{func.__name__}" in ALLOCATING and isinstance(out, torch.Tensor):
            if out.numel() and not out.is_meta:
                from ..verify.compare import poison_variant

                with poison_variant(STATE.ghost or STATE.alt_poison):
                    poison_allocation(out)
        return out


def poison_allocation(t: torch.Tensor) -> None:
    """Poison a tensor the candidate allocated: PyTorch's fill_, or, while the candidate's
    registration replaces fill_ (aten::fill_ under test on a GPU), one poisoned CPU element copied and
    broadcast onto ``t``, so that the poisoning does not dispatch into the candidate (which would
    count as the candidate re-entering itself)."""
    from ..verify.compare import poison_

    if not any(k.split(".", 1)[0] == "fill_" for k in STATE.registered):
        poison_(t)
        return
    one = poison_(torch.empty((), dtype=t.dtype))
    try:
        t.copy_(one.to(t.device).expand(t.shape))
    except RuntimeError:  # an overlapping allocation (zero strides) that copy_ refuses: left as allocated
        pass


def traced(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """Wrap a candidate wrapper: count calls, detect dispatch recursion, check that it accepts the
    arguments, and trace its ATen ops (tracing is off while timing)."""
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None

    def wrapper(*args, **kwargs):
        if name in STATE.active_wrappers:
            raise DispatchRecursion(
                f"dispatch recursion: {name} was re-entered through the dispatcher while it was running "
                f"(it calls the ATen op it replaces, directly or through a tensor method or operator)")
        STATE.wrapper_calls[name] += 1
        if STATE.tracing and sig is not None:
            try:
                sig.bind(*args, **kwargs)
            except TypeError as exc:
                kinds = [type(a).__name__ for a in args] + [f"{k}=" for k in kwargs]
                raise SignatureMismatch(f"{name}{sig} cannot be called with ({', '.join(kinds)}): {exc}") from None
        STATE.active_wrappers.append(name)
        try:
            if not STATE.tracing:
                return fn(*args, **kwargs)
            with CandidateMode():
                return fn(*args, **kwargs)
        finally:
            STATE.active_wrappers.pop()

    wrapper.__name__ = f"kgb_traced_{name}"
    return wrapper


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

