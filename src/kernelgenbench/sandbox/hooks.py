"""Instrumentation installed in the sandbox child *before* the submission is imported.

* Triton launch accounting: every launch through ``JITFunction.run`` (GPU) or
  ``InterpretedFunction.run`` (interpreter) is counted with its kernel name. Ghost mode (L2) turns
  launches into no-ops: the kernel does not run, but the launch processes its arguments as a real one
  does (see :func:`install_launch_hooks`).
* Replay (L2): in a normal case run, the result of every host read the candidate makes and the outcome
  of every launch are logged (:meth:`State.begin_case`); in a ghost replay of the same inputs, the
  k-th host read returns what the k-th read of the normal run returned and the k-th launch raises
  what it raised, so the candidate cannot tell a replay from a normal run by what it reads back (see
  :func:`host_read` and :func:`install_launch_hooks`). Covered on both platforms (on the interpreter
  the tensors are CPU tensors and the same reads reach the same hooks): ``.item()``, ``bool``/``int``/
  ``float``/``complex``/``__index__`` of a tensor, ``is_nonzero``, ``tolist``, ``numpy``, ``__array__``,
  ``str``/``repr``/``format``; a device-to-host copy (``.cpu()``) is not a read by itself, the read of
  its result is. Not covered, and why that is acceptable: reads through raw storage, ``data_ptr``,
  NumPy, ctypes, DLPack or pickling (L1 rejects them); reads inside an interpreted kernel body (a
  replay runs no body); reads of more than :data:`MAX_LOGGED_ELEMENTS` elements (live, and the
  replay reports a divergence; L3's budget fails them anyway); a logged launch error whose class
  cannot be rebuilt from its arguments (raised as ``RuntimeError`` with the same message); errors a
  GPU raises later, at a synchronisation (not a launch outcome). Other traces a launch leaves are
  closed elsewhere: warnings, Triton's runtime state, Python objects changed by a kernel body and
  polls or timers of device work are rejected by L1 (``verify/scan/``).
* :class:`CandidateMode`: a ``TorchDispatchMode`` entered around each call of a candidate wrapper.
  It records every ATen op the candidate's Python code runs (the L3 dispatch-level trace), except
  what Triton's own launcher does inside a launch, and it poisons every tensor the candidate
  allocates, so unwritten output elements are visible. Composite (CompositeImplicitAutograd) ops are
  decomposed and their pieces traced, so the trace is the same whether the wrapper runs inside another
  mode's handler (interpreter) or registered at a dispatch key (GPUs). Allowed ops that compute,
  convert or move elements along a mapping of the candidate's making are marked in their keys
  (:func:`op_marks`), from the call's memory provenance (:class:`CallEvidence`: the call's tensors as
  given, storages allocated in the call, storages its launches received), which also marks host reads
  of Triton-derived memory (L2) and finds returned outputs that outlive their call. The submission's
  import runs under the same trace (:func:`trace_import`); timed calls under :class:`TimedTraceMode`.
* Interpreter patches: ``@triton.autotune`` picks the first config that survives pruning (the
  interpreter has no driver to benchmark with; times are not reported there anyway).
* The L3 launch rule (:mod:`.launch_args`, :func:`check_launch`): at the entry of every launch
  (``JITFunction.run``, ``InterpretedFunction.run``, ``Autotuner.run``, ``Heuristics.run``), before
  Triton touches the arguments, only Triton values may be passed and the kernel body may read only
  allowed globals; a violation is recorded in ``STATE.launch_violations`` (the verifier fails the job
  as ``profile``) and the launch raises.

This module runs in the untrusted process: it only *collects* evidence. Verdicts are made by the
trusted verifier from what the child sends back.
"""
from __future__ import annotations

import inspect
import os
import sys
import types
import weakref
from collections import Counter
from typing import Any, Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ..verify.profile import (MARK_BYTES, MARK_CONJ, MARK_CONVERSION, MARK_MAPPING, MARK_NEG, MARK_PARTIAL_FILL,
                              MARK_VALUES)
from . import launch_args

#: Allocation ops whose results are poisoned when the candidate makes them.
ALLOCATING = {"empty.memory_format", "empty_strided.default", "empty_like.default",
              "new_empty.default", "new_empty_strided.default", "empty.out", "resize_.default"}

#: ATen ops that draw random numbers: the elements they produce are also counted as
#: ``aten::random_draw`` (L3 budgets them where an operator may draw a seed with PyTorch).
RANDOM_DRAWS = {"randint", "randint_like", "rand", "rand_like", "randn", "randn_like", "randperm", "random_",
                "uniform_", "normal", "normal_", "bernoulli", "bernoulli_", "exponential_", "geometric_",
                "log_normal_", "cauchy_", "poisson", "multinomial", "binomial", "_standard_gamma",
                "_sample_dirichlet", "rrelu_with_noise", "native_dropout"}


#: Host reads of more elements than this keep no value in the replay log (a ghost replay then reads
#: the live value and reports a divergence); L3's host-read budget fails such calls anyway.
MAX_LOGGED_ELEMENTS = 1 << 16


class State:
    """Per-process instrumentation state (one candidate call at a time).

    Replay log (L2): ``log`` is ``{"reads": [...], "launches": [...]}`` while a normal case run records
    (each read ``{"kind", "shape", "dtype", "extra", "value"}``, each launch ``{"kernel", "error"}``);
    ``replay`` is such a log while a ghost replay consumes it, ``report`` what the replay did.
    """

    def __init__(self) -> None:
        self.inside_launch = 0
        #: > 0 while the interpreter executes a kernel body (host reads there are not the wrapper's and
        #: do not happen in a ghost replay: they are neither logged nor replayed)
        self.in_kernel = 0
        self.ghost = False
        #: > 0 while a ghost launch runs Triton's GPU launch path: the patched launcher passes an empty
        #: grid to the compiled launch entry, which then processes every argument and starts no kernel
        #: (:func:`install_launch_hooks`)
        self.empty_grid = 0
        #: allocations get the alternate poison pattern (ghost mode implies it; the verifier's
        #: alternate-poison re-run of a passed case sets it alone, with launches left on)
        self.alt_poison = False
        self.log: dict[str, list[Any]] | None = None
        self.replay: dict[str, list[Any]] | None = None
        self.report: dict[str, Any] | None = None
        self._pos = {"reads": 0, "launches": 0}
        self.launches: list[str] = []
        self.trace: Counter[str] = Counter()
        self.wrapper_calls: Counter[str] = Counter()
        self.active_wrappers: list[str] = []
        self.poison_allocations = True
        self.tracing = True  # False while timing: no poisoning, replay or signature binding
        #: while timing (verify/timing.py): per op key, the most times one timed candidate call ran it
        #: (:class:`TimedTraceMode`); None otherwise
        self.timed_trace: Counter[str] | None = None
        self._call_trace: Counter[str] | None = None
        #: ATen overloads the candidate's registration replaces in this process (set by the child on
        #: GPUs): the poisoning of allocations must not dispatch into them (see poison_allocation)
        self.registered: frozenset[str] = frozenset()
        #: violations of the launch rule (:mod:`.launch_args`), recorded before the launch raises and
        #: never cleared: the child reports them with every answer, the verifier fails the job on them
        #: (a submission that catches the error does not undo the record)
        self.launch_violations: list[str] = []
        #: memory provenance of the candidate call in progress (the outermost traced wrapper call), or
        #: of the submission's import (:func:`trace_import`); None between calls (:class:`CallEvidence`)
        self.call: CallEvidence | None = None
        #: storage data pointers of the case's read-only inputs (call tensors not in ``written``), set by
        #: the child around a case: a host read of them is never Triton's work (:func:`host_read`)
        self.readonly_inputs: frozenset[int] = frozenset()
        #: returned outputs that live in storage neither allocated during their call nor an argument's,
        #: one message each (at most 8), since the case (or timing command) began; the verifier fails the
        #: job on them as ``profile`` (:meth:`CallEvidence.stale_returns`)
        self.stale_outputs: list[str] = []
        #: the op counter of the submission's import while it runs (:func:`trace_import`), else None
        self._import_trace: Counter[str] | None = None
        #: overload keys (``"add.Tensor"``, ``"reshape"``) the candidate's wrappers replace, on every
        #: platform (set by the child): the modes do not decompose those composite ops (a call of one is a
        #: call of the op itself, as it is on GPUs, where it reaches the candidate's registration)
        self.replaced: frozenset[str] = frozenset()

    def reset(self) -> None:
        self.launches = []
        self.trace = Counter()
        self.wrapper_calls = Counter()
        self.stale_outputs = []

    def begin_case(self, ghost: bool, replay: dict[str, list[Any]] | None = None) -> None:
        """Start one case run: a normal run logs its host reads and launch outcomes; a ghost run
        (``ghost``) replays ``replay``, the log of a normal run on the same inputs (None: nothing to
        replay, every read is live)."""
        self.reset()
        self.ghost = ghost
        self._pos = {"reads": 0, "launches": 0}
        if ghost:
            self.log = None
            self.replay = {"reads": list((replay or {}).get("reads") or []),
                           "launches": list((replay or {}).get("launches") or [])}
            self.report = {"reads_replayed": 0, "triton_reads_replayed": 0, "launches_replayed": 0,
                           "errors_replayed": 0, "divergence": None}
        else:
            self.log = {"reads": [], "launches": []}
            self.replay = None
            self.report = None

    def end_case(self) -> tuple[dict[str, list[Any]] | None, dict[str, Any] | None]:
        """Finish a case run. Returns ``(log, report)``: the normal run's log (None in a ghost run) and
        the ghost run's replay report (None in a normal run): counts of replayed reads, launches and
        raised errors, ``divergence`` (the first difference from the log, or None) and the log entries
        the replay never reached (``unused_reads``, ``unused_launches``)."""
        log, report = self.log, self.report
        if report is not None and self.replay is not None:
            report["unused_reads"] = len(self.replay["reads"]) - self._pos["reads"]
            report["unused_launches"] = len(self.replay["launches"]) - self._pos["launches"]
        elif report is not None:  # diverged: the replay stopped where it diverged
            report["unused_reads"] = report["unused_launches"] = 0
        self.ghost = False
        self.log = self.replay = self.report = None
        return log, report

    def next_logged(self, stream: str) -> dict[str, Any] | None:
        """The next entry of ``stream`` (``"reads"`` or ``"launches"``) of the log being replayed, or
        None when the log is used up (or no replay is active)."""
        if self.replay is None:
            return None
        items = self.replay[stream]
        i = self._pos[stream]
        if i >= len(items):
            return None
        self._pos[stream] = i + 1
        return items[i]

    def diverge(self, stream: str, got: dict[str, Any], want: dict[str, Any] | None) -> None:
        """Record the replay's first divergence from the log and stop replaying (what follows is live):
        the candidate did something else than in the normal run on the same inputs."""
        if self.report is not None and self.report["divergence"] is None:
            n = self._pos[stream]
            self.report["divergence"] = {"stream": stream, "index": n, "replay": got,
                                         "normal": None if want is None else
                                         {k: v for k, v in want.items() if k != "value"}}
        self.replay = None


STATE = State()


class DispatchRecursion(RuntimeError):
    """A wrapper re-entered itself through the dispatcher (it called the op it replaces)."""


class SignatureMismatch(TypeError):
    """The candidate's function cannot take the arguments of the interface."""


def _kernel_name(fn: Any) -> str:
    inner = getattr(fn, "fn", None)
    return getattr(inner, "__name__", None) or getattr(fn, "__name__", type(fn).__name__)


def host_read(kind: str, t: torch.Tensor, extra: str, live: Callable[[], Any],
              again: Callable[[torch.Tensor], Any] | None = None) -> Any:
    """One host read of tensor ``t`` by the candidate: a value that reaches Python from tensor data
    (``.item()``, ``bool()``/``int()``/``float()``/``__index__`` as ``aten::item``,
    ``aten::_local_scalar_dense`` or ``aten::is_nonzero``; ``tolist``, ``numpy``, ``__array__``,
    ``str``/``repr``/``format``).

    Normal run: returns ``live()`` and logs ``{kind, shape, dtype, extra, value}``: the value returned
    (a Python scalar or string), or with ``again`` a CPU copy of ``t`` from which ``again(copy)``
    gives the value back (None above :data:`MAX_LOGGED_ELEMENTS` elements). Ghost replay: when the next
    logged read has the same kind, shape, dtype and ``extra`` (the call's other arguments), returns the
    logged value, so a flag that a no-op launch left unwritten reads as the normal run read it; else
    reads live and records the divergence (:meth:`State.diverge`). Reads inside a kernel body
    (interpreter) are live and not logged: a replay runs no kernel body. ``t`` may live on any device;
    a replayed read transfers nothing.

    A read of memory a Triton launch of this call received (or an ATen copy of it), other than a
    read-only input of the case, is *derived from Triton* (:meth:`CallEvidence.triton_derived`): its
    log entry says ``"triton": true``, and a replay of it counts in the report's
    ``triton_reads_replayed`` (it is replayed all the same, so that control flow stays that of the
    normal run; the verifier does not count a replay as passed where its result could be made of
    such values: a kernel's result read back and re-wrapped is the kernel's work).
    """
    if STATE.in_kernel or (STATE.log is None and STATE.replay is None):
        return live()
    key = {"kind": kind, "shape": list(t.shape), "dtype": str(t.dtype), "extra": extra}
    triton = STATE.call is not None and STATE.call.triton_derived(t)
    if STATE.replay is not None:
        want = STATE.next_logged("reads")
        if want is not None and all(want.get(k) == v for k, v in key.items()) and want.get("value") is not None:
            assert STATE.report is not None
            STATE.report["reads_replayed"] += 1
            if want.get("triton"):
                STATE.report["triton_reads_replayed"] += 1
            value = want["value"]
            return again(value) if again is not None else value
        STATE.diverge("reads", key, want)
        return live()
    value = live()
    if STATE.log is not None:
        if again is None:
            logged: Any = value
        elif t.numel() <= MAX_LOGGED_ELEMENTS:
            logged = t.detach().to("cpu", copy=True)
        else:
            logged = None
        STATE.log["reads"].append({**key, "value": logged, "triton": triton})
    return value


def _read_counter() -> Counter[str] | None:
    """The op counter a host read outside the dispatcher counts in: the import's while the submission is
    imported, the timed call's while timing, the case's while a wrapper runs; None for the harness's own
    reads and reads inside a launch."""
    if STATE.inside_launch:
        return None
    if STATE._import_trace is not None:
        return STATE._import_trace
    if not STATE.active_wrappers:
        return None
    if STATE._call_trace is not None:
        return STATE._call_trace
    return STATE.trace if STATE.tracing else None


def install_host_read_hooks() -> None:
    """Count the tensor values a candidate reads on the host through paths the dispatcher does not
    see (``tolist``, ``str``/``repr``/``format``, ``numpy``, ``__array__``): each element counts as
    one ``host_read`` in the trace (L3 budgets it like ``.item()``). The reads are logged and replayed
    like ``.item()`` (:func:`host_read`)."""
    for name in ("tolist", "__repr__", "__str__", "__format__", "numpy", "__array__"):
        orig = getattr(torch.Tensor, name)
        if getattr(orig, "_kgb_hooked", False):
            continue

        def read(self, *a, _orig=orig, _name=name, **k):
            counter = _read_counter()
            if counter is not None:
                counter["aten::host_read"] += max(1, self.numel())
                # The read is counted above; the device-to-host copy PyTorch runs inside it
                # (aten::to on CUDA tensors) is part of the read, not the candidate's compute.
                STATE.inside_launch += 1
                try:
                    extra = repr((a, sorted(k.items())))
                    if _name in ("__repr__", "__str__", "__format__"):  # a string: logged as returned
                        return host_read(_name, self, extra, lambda: _orig(self, *a, **k))
                    return host_read(_name, self, extra, lambda: _orig(self, *a, **k),
                                     lambda copy: _orig(copy, *a, **k))
                finally:
                    STATE.inside_launch -= 1
            return _orig(self, *a, **k)

        read._kgb_hooked = True  # type: ignore[attr-defined]
        setattr(torch.Tensor, name, read)


def check_launch(kernel: Any, args: tuple, kwargs: dict) -> None:
    """The launch rule (:func:`.launch_args.check_launch`): a launch of ``kernel`` hands it only Triton
    values, and its body reads only allowed globals. A violation is recorded in
    ``STATE.launch_violations`` and raised as :class:`.launch_args.LaunchArgumentError`; nothing of the
    launch (argument copies, binding, hooks, heuristics, autotuning, the body) has run yet."""
    msg = launch_args.check_launch(kernel, args, kwargs)
    if msg is not None:
        _launch_violation(msg)


def _launch_violation(msg: str) -> None:
    """Record a launch-rule violation (kept whatever the submission catches) and raise it."""
    if len(STATE.launch_violations) < 8:
        STATE.launch_violations.append(msg)
    raise launch_args.LaunchArgumentError(msg)


def _meta(fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    names = list(getattr(fn, "arg_names", []) or [])
    meta = dict(zip(names, args))
    meta.update({k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})
    return meta


def _error_spec(exc: BaseException) -> dict[str, Any]:
    """What a replay needs to raise ``exc`` again: its class (module, qualified name), its arguments
    when they are plain values (else its message) and its message."""
    plain = all(isinstance(a, (str, int, float, bool, type(None))) for a in exc.args)
    return {"module": type(exc).__module__, "qualname": type(exc).__qualname__,
            "args": list(exc.args) if plain else [str(exc)], "message": str(exc)}


def _rebuild_error(spec: dict[str, Any]) -> Exception:
    """The exception :func:`_error_spec` described: its class when the child has it loaded and it can be
    built from the logged arguments, else a ``RuntimeError`` with the same message."""
    obj: Any = sys.modules.get(str(spec.get("module") or ""))
    for part in str(spec.get("qualname") or "").split("."):
        obj = getattr(obj, part, None) if obj is not None else None
    message = str(spec.get("message") or "")
    if isinstance(obj, type) and issubclass(obj, Exception):
        try:
            return obj(*(spec.get("args") or [message]))
        except Exception:  # noqa: BLE001 - a class that wants other arguments
            pass
    return RuntimeError(message)


def _log_launch(name: str, exc: BaseException | None) -> None:
    """Log the outcome of one of the candidate's launches in a normal run (replayed by a ghost run)."""
    if STATE.log is not None:
        STATE.log["launches"].append({"kernel": name, "error": None if exc is None else _error_spec(exc)})


def _replayed_launch(name: str) -> dict[str, Any] | None:
    """Consume the log entry of this launch in a ghost replay: the entry when it is a launch of the same
    kernel, else None (and the replay records a divergence)."""
    if STATE.replay is None:
        return None
    want = STATE.next_logged("launches")
    if want is None or want.get("kernel") != name:
        STATE.diverge("launches", {"kernel": name}, want)
        return None
    assert STATE.report is not None
    STATE.report["launches_replayed"] += 1
    return want


def _run_pre_run_hooks(kernel: Any, args: tuple, kwargs: dict) -> None:
    """Run an interpreted kernel's pre-run hooks (``add_pre_run_hook``) as Triton's ``GridExecutor``
    does, with the launch's arguments (the host copies it would pass share the arguments' CPU
    storages on the interpreter)."""
    hooks = list(getattr(kernel, "pre_run_hooks", None) or [])
    if not hooks:
        return
    names = inspect.getfullargspec(kernel.fn).args
    kw = {k: v for k, v in kwargs.items() if k in names}
    for hook in hooks:
        hook(*args, **kw)


class _SkippedBody:
    """Stands in for an interpreted kernel body in a ghost launch (:func:`install_launch_hooks`).

    Triton's ``GridExecutor`` gets it instead of the rewritten kernel function and does everything a
    launch does with it: it reads the body's signature (``inspect.getfullargspec``, which honours
    ``__signature__``), annotations (constexpr parameters) and globals (``_patch_lang``), binds the
    arguments (``inspect.getcallargs``, whose errors name the body), and walks the grid; only the
    call of each program does nothing.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        # the signature getfullargspec sees for the function itself (no __wrapped__ chain)
        self.__signature__ = inspect.Signature.from_callable(fn, follow_wrapped=False)
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__module__ = getattr(fn, "__module__", None)
        self.__globals__ = fn.__globals__
        self.__annotations__ = fn.__annotations__

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None


#: GPU launcher classes (module, class name) whose compiled launch entry ``launcher.launch`` a ghost
#: launch calls with an empty grid, and the position of gridX in that call (gridY and gridZ follow).
#: Both C entries parse and check every argument (``data_ptr`` of each pointer, its device
#: accessibility, tensor descriptors), call the launch enter/exit hooks, and start the kernel only
#: when gridX * gridY * gridZ > 0 (Triton 3.6, ``backends/*/driver.py``).
_EMPTYABLE_LAUNCHERS = {("triton.backends.nvidia.driver", "CudaLauncher"): 0,
                        ("triton.backends.amd.driver", "HIPLauncher"): 1}
_EMPTIED: set[type] = set()


def _emptying(entry: Callable[..., Any], at: int) -> Callable[..., Any]:
    """A launcher's compiled launch entry that, while ``STATE.empty_grid``, is called with gridX, gridY
    and gridZ (positions ``at`` to ``at + 2``) set to 0; every other argument is passed unchanged."""

    def launch(*la: Any) -> Any:
        if STATE.empty_grid:
            la = la[:at] + (0, 0, 0) + la[at + 3:]
        return entry(*la)

    return launch


def _install_empty_grid_launchers() -> None:
    """Patch the known GPU launcher classes so that, while ``STATE.empty_grid``, the compiled launch
    entry gets a grid of zero programs (everything else of the launch unchanged: scratch allocations
    are sized by the real grid before it)."""
    import importlib

    for (mod_name, cls_name), at in _EMPTYABLE_LAUNCHERS.items():
        try:
            cls = getattr(importlib.import_module(mod_name), cls_name)
        except Exception:  # noqa: BLE001 - backend not installed or not importable here
            continue
        if cls in _EMPTIED:
            continue
        orig_init = cls.__init__

        def init(self, *a, _orig=orig_init, _at=at, **k):
            _orig(self, *a, **k)
            self.launch = _emptying(self.launch, _at)

        cls.__init__ = init
        _EMPTIED.add(cls)


def _can_empty_gpu_launch() -> bool:
    """Whether the active GPU driver's launcher is one :func:`_install_empty_grid_launchers` patched."""
    try:
        from triton.runtime.driver import driver

        return getattr(driver.active, "launcher_cls", None) in _EMPTIED
    except Exception:  # noqa: BLE001 - no active driver
        return False


def _source_violation(fn: Any, why: str) -> None:
    _launch_violation(f"the Triton interpreter would run a kernel body other than the one Python compiled for "
                      f"{getattr(fn, '__qualname__', fn)!s}: {why}")


#: The global name under which a rewritten kernel reaches the interpreter's semantic object: not an
#: identifier, so no submission code can name it (Triton's own rewriter copies every global of its
#: interpreter module, ``inspect`` included, into the submission's module; red-team: host code then used
#: ``inspect`` it never imported to find the harness's state).
_SEMANTIC_GLOBAL = "interpreter_semantic (kgb)"


def _exec_rewritten(fn: Any, module: Any, filename: str) -> Any:
    """Compile and define the interpreter's transformed kernel ``module`` (one ``def``) like Triton's
    ``FunctionRewriter._compile_and_exec``, with three differences: only the interpreter's semantic
    object is added to the kernel's globals, under :data:`_SEMANTIC_GLOBAL`; default values and
    annotations are not evaluated again (a default like ``G=_make()`` would run the submission's code
    a second time, after the launch rule checked the first result; red-team) but taken from the
    imported function, as the GPU path takes them."""
    import ast

    from triton.runtime import interpreter

    fdef = module.body[0]
    a = fdef.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    fdef.returns = None
    a.defaults = []
    a.kw_defaults = [None] * len(a.kwonlyargs)
    fdef.decorator_list = []
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id == "interpreter_semantic":
            node.id = _SEMANTIC_GLOBAL
    fn.__globals__.setdefault(_SEMANTIC_GLOBAL, interpreter.interpreter_semantic)
    if fn.__code__.co_freevars:
        # a kernel made in a factory: the transformed def is compiled inside an enclosing function that
        # binds its free variables, and the function is built on the imported function's own cells
        code = compile(launch_args.scoped_module([fdef], fn, prelude=False), filename or "<kernel>", "exec",
                       dont_inherit=True)
        inner = launch_args.scoped_code(code, fn)
        if inner is None:
            _source_violation(fn, "its transformed source does not define it once")
        out = types.FunctionType(inner, fn.__globals__, fn.__name__, None, launch_args.closure_for(inner, fn))
    else:
        code = compile(module, filename or "<kernel>", "exec", dont_inherit=True)
        ns: dict[str, Any] = {}
        exec(code, fn.__globals__, ns)  # noqa: S102 - the kernel's own source, checked by launch_args.code_matches
        out = ns[fn.__name__]
    out.__defaults__ = fn.__defaults__
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__annotations__ = dict(fn.__annotations__)
    return out


#: id(kernel's Python function) -> (that function, the interpreter's rewrite of it), made by the harness
_REWRITTEN: dict[int, tuple[Any, Any]] = {}


def _rewritten(kernel: Any) -> Any:
    """The function the interpreter runs for ``kernel`` (an ``InterpretedFunction``): the verified rewrite
    of ``kernel.fn`` (the function the launch rule checked), made here with Triton's own
    ``FunctionRewriter`` class, never through the kernel object's ``rewrite``/``rewriter`` (instance
    attributes a submission could replace; red-team: a replaced rewriter ran a host function as the
    body)."""
    from triton.runtime.interpreter import FunctionRewriter

    fn = kernel.__dict__.get("fn")
    hit = _REWRITTEN.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    out = FunctionRewriter.rewrite_ast(FunctionRewriter(fn, **(kernel.__dict__.get("kwargs") or {})))
    _REWRITTEN[id(fn)] = (fn, out)
    return out


def _install_verified_rewriter() -> None:
    """Tie what the interpreter runs to what was imported.

    Triton 3.6's interpreter does not run a kernel's code object: ``FunctionRewriter.rewrite_ast``
    re-reads the function's source lines, starts at the *last* line that begins with ``def `` (one
    inside a string literal included), transforms and compiles that. A kernel whose docstring holds
    a second ``def`` line then runs hidden Python that L1 and the launch rule never see (red-team
    finding), and source lines changed after import (the file, ``linecache``) would run too. Here the
    ``def`` line is taken from the parsed source (the function's own ``def`` statement), and the
    source from it on must compile to the code object Python built at import (:func:`.launch_args.code_matches`);
    otherwise the launch fails (recorded like a launch-rule violation: failure class ``profile``).
    """
    try:
        from triton.runtime.interpreter import FunctionRewriter
    except ImportError:  # pragma: no cover - older Triton
        return
    if getattr(FunctionRewriter.rewrite_ast, "_kgb_hooked", False):
        return
    import ast
    import textwrap

    def rewrite_ast(self):
        fn = self.fn
        try:
            lines, _ = inspect.getsourcelines(fn)
        except Exception:  # noqa: BLE001 - no source: Triton runs the function itself (its own code)
            return fn
        self.filename, self.def_file_lineno = self._get_jit_fn_file_line()
        try:
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except SyntaxError as exc:
            _source_violation(fn, f"its source lines do not parse ({exc.msg})")
        node = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != fn.__name__:
            _source_violation(fn, "its source lines are not one definition of it")
        self.def_lineno = node.lineno
        src = self._prepare_source(lines)
        # compiled in a scope like the function's own (module-level import names, and the closure of a
        # kernel made in a factory: launch_args.scoped_module), so the body's bytecode is comparable
        code = compile(launch_args.scoped_module(ast.parse(src).body, fn), self.filename or "<kernel>", "exec",
                       dont_inherit=True)
        mine = launch_args.scoped_code(code, fn)
        if mine is None or not launch_args.code_matches(mine, fn.__code__):
            _source_violation(fn, "its source lines now compile to other code than the imported function's "
                              "(a second 'def' line inside it, or source changed after import)")
        return _exec_rewritten(fn, self._transform_ast(src), self.filename)

    rewrite_ast._kgb_hooked = True  # type: ignore[attr-defined]
    FunctionRewriter.rewrite_ast = rewrite_ast

    # a jit helper called from a kernel body runs its rewrite too: the same, not the object's own
    from triton.runtime.interpreter import InterpretedFunction, InterpreterError, _patch_lang

    def device_call(self, *args, **kwargs):
        _patch_lang(self.__dict__.get("fn"))
        fn = _rewritten(self)
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise InterpreterError(repr(e)) from e

    InterpretedFunction.__call__ = device_call


def install_launch_hooks() -> None:
    """Wrap Triton's launch entry points for accounting and ghost replay (idempotent).

    Everything the candidate's Python runs stays traced, including the launch grid callable,
    ``@triton.heuristics`` functions, pre-run hooks and autotune hooks; only the interpreter's own
    execution of a kernel (copying arguments to and from the host) and Triton's autotune benchmarking
    are left out of the trace.

    Ghost mode skips only what the device (or the interpreter) would execute: a ghost launch goes
    through the same code as a normal one and processes the launch arguments exactly as it would, up
    to the kernel itself, so that no object passed to a kernel (one whose ``__getattr__`` counts the
    probes, say) can tell a ghost launch from a real one by how it was inspected (defence in depth: the
    launch rule, :func:`check_launch`, first in every launch, lets no such object through):

    * Interpreter: the grid callable (with the same meta dict), the pre-run hooks and the rewrite run
      as in a normal launch, then Triton's own ``GridExecutor`` runs with the kernel body replaced by
      :class:`_SkippedBody`: it copies the arguments to the host (``hasattr(arg, "data_ptr")``, the
      storages of tensors, tuples and tensor descriptors), binds them to the body's signature, converts
      them (``_implicit_cvt``: ``data_ptr()``, the dtype through ``mangle_type``), patches the language,
      walks the grid (its errors included) and copies the arguments back (``hasattr(arg, "data_ptr")``
      again); only the body of each program is not run.
    * GPUs (the CUDA and HIP launchers, :data:`_EMPTYABLE_LAUNCHERS`): ``JITFunction.run`` runs in full
      (pre-run hooks, the binder's specialization of every argument, the cache key, compilation on a
      miss, the used-globals check, the grid callable with the bound arguments, launch metadata,
      scratch allocation sized by the real grid), and the compiled launch entry gets an empty grid: it
      still parses every argument (``data_ptr`` of each pointer and its device check, tensor
      descriptors) and calls the launch enter/exit hooks, and starts no kernel. On another backend's
      launcher the ghost falls back to compiling without launching (``warmup=True``) and calling the
      grid callable with the launch's arguments by name: the launcher's own argument parsing and the
      grid's bound-argument dict are then not reproduced.

    A ghost launch then raises what the same launch raised in the normal run being replayed (an
    interpreter error in the kernel body, a launch failure), unless the argument processing above
    raised first (as it did in the normal run). In a normal run the outcome of each of the candidate's
    launches is logged (:meth:`State.begin_case`). Launches inside Triton's autotune benchmarking are
    not the candidate's: neither logged nor replayed.
    """
    import triton.runtime.autotuner as autotuner
    import triton.runtime.jit as jit

    launch_args.install()  # snapshot the allowed types before the submission is imported
    _install_empty_grid_launchers()
    _install_verified_rewriter()
    try:
        from triton.runtime.interpreter import GridExecutor as _GridExecutor
    except ImportError:  # pragma: no cover - older Triton
        _GridExecutor = None

    classes: list[tuple[type, bool]] = [(jit.JITFunction, False)]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append((InterpretedFunction, True))
    except ImportError:  # pragma: no cover - older Triton
        pass

    def ghost_launch(self, args, kwargs, _orig, _interp, name, top):
        want = _replayed_launch(name) if top else None
        grid = kwargs.get("grid")
        if _interp and _GridExecutor is not None and hasattr(self, "rewrite"):
            ret = interpreted_launch(self, args, kwargs, ghost=True)  # all but the kernel body
        elif _interp:  # pragma: no cover - older Triton: no GridExecutor to run without the body
            if callable(grid):
                grid(_meta(self, args, kwargs))
            _run_pre_run_hooks(self, args, {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})
            if hasattr(self, "rewrite"):
                self.rewrite()
            ret = None
        elif _can_empty_gpu_launch():
            STATE.empty_grid += 1
            try:
                ret = _orig(self, *args, **kwargs)  # the whole launch path, an empty grid at the end
            finally:
                STATE.empty_grid -= 1
        else:
            ret = _orig(self, *args, **{**kwargs, "warmup": True})  # pre-run hooks, binding, compilation
            if callable(grid):
                grid(_meta(self, args, kwargs))
        if want is not None and want.get("error"):
            assert STATE.report is not None
            STATE.report["errors_replayed"] += 1
            raise _rebuild_error(want["error"])
        return ret

    def interpreted_launch(self, args, kwargs, ghost=False):
        grid = kwargs.get("grid")
        if callable(grid):  # evaluated here, traced, as the candidate's own code
            grid = tuple(grid(_meta(self, args, kwargs)))
        call_kw = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        _run_pre_run_hooks(self, args, call_kw)
        fn = _rewritten(self)
        # The launch rule again, now that the candidate's grid callable and pre-run hooks have run: they
        # could rebind a global the body reads after the check at the entry (red-team: a plain int when
        # checked, a probe object whose __bool__ counts body executions when the body runs).
        check_launch(self, args, kwargs)
        # The kernel body runs traced (Python in a kernel body is the candidate's code on the
        # interpreter); only the argument copies to and from the host are suspended. Its host reads
        # are not the wrapper's (in_kernel): a ghost replay runs no body (GridExecutor runs all else).
        STATE.in_kernel += 1
        try:
            return _GridExecutor(_SkippedBody(fn) if ghost else fn, self.arg_names, grid, [])(*args, **call_kw)
        finally:
            STATE.in_kernel -= 1

    for cls, interpreted in classes:
        if getattr(cls.run, "_kgb_hooked", False):
            continue
        orig = cls.run

        def run(self, *args, _orig=orig, _interp=interpreted, **kwargs):
            check_launch(self, args, kwargs)
            if kwargs.get("warmup"):
                return _orig(self, *args, **kwargs)
            name = _kernel_name(self)
            STATE.launches.append(name)
            top = not STATE.inside_launch and not STATE.in_kernel  # not Triton's autotune benchmarking
            if top and STATE.call is not None:
                STATE.call.note_launch(args, kwargs)  # what this call's launches touched (CallEvidence)
            if STATE.ghost:
                return ghost_launch(self, args, kwargs, _orig, _interp, name, top)
            try:
                if _interp and _GridExecutor is not None and hasattr(self, "rewrite"):
                    ret = interpreted_launch(self, args, kwargs)
                else:
                    ret = _orig(self, *args, **kwargs)
            except Exception as exc:
                if top:
                    _log_launch(name, exc)
                raise
            if top:
                _log_launch(name, None)
            return ret

        run._kgb_hooked = True  # type: ignore[attr-defined]
        cls.run = run

    # The autotune and heuristics wrappers probe and hand on the arguments before JITFunction.run
    # (the autotuner's key reads hasattr(arg, "dtype"), heuristics and prune functions get them all):
    # the launch rule runs at their entry too.
    for cls in (autotuner.Autotuner, autotuner.Heuristics):
        if getattr(cls.run, "_kgb_hooked", False):
            continue

        def wrapped_run(self, *args, _orig=cls.run, **kwargs):
            check_launch(self, args, kwargs)
            return _orig(self, *args, **kwargs)

        wrapped_run._kgb_hooked = True  # type: ignore[attr-defined]
        cls.run = wrapped_run

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
    install_interpreter_bounds_checks()


#: What :func:`install_interpreter_progress` counts, in this order, as little-endian int64 in the file.
PROGRESS_FIELDS = ("launches", "programs", "scan_steps", "grid")


def install_interpreter_progress(path: str) -> None:
    """Publish the interpreter's progress in a small file the trusted verifier reads while it waits for a
    case (``sandbox/runner.py``): interpreted launches started, programs started (grid points) and steps of
    reductions and scans run element by element with a custom combine function, plus the grid size of the
    latest launch. A case that reaches its timeout while these still advance is slow on the interpreter,
    not stuck: the verifier marks it ``unsupported`` there (``run/job.py``); one stuck inside a program (a
    spin-wait, an endless loop) advances none of them and stays a timeout. Counted in plain Python (a few
    hundred ns per program or combine step); the file is written every 64 updates and at each program."""
    import mmap
    import struct

    from triton.runtime.interpreter import InterpreterBuilder, ReduceScanOpInterface

    if getattr(InterpreterBuilder.set_grid_idx, "_kgb_progress", False):
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    os.ftruncate(fd, 8 * len(PROGRESS_FIELDS))
    mm = mmap.mmap(fd, 8 * len(PROGRESS_FIELDS))
    os.close(fd)
    counts = [0] * len(PROGRESS_FIELDS)

    def publish() -> None:
        struct.pack_into("<4q", mm, 0, *counts)

    orig_dim, orig_idx, orig_tt = (InterpreterBuilder.set_grid_dim, InterpreterBuilder.set_grid_idx,
                                   ReduceScanOpInterface.to_tensor)

    def set_grid_dim(self, nx, ny, nz, _orig=orig_dim):
        counts[0] += 1
        counts[3] = int(nx) * int(ny) * int(nz)
        publish()
        return _orig(self, nx, ny, nz)

    def set_grid_idx(self, x, y, z, _orig=orig_idx):
        counts[1] += 1
        publish()
        return _orig(self, x, y, z)

    def to_tensor(self, ret, dtype, _orig=orig_tt):
        counts[2] += 1
        if counts[2] % 64 == 0:
            publish()
        return _orig(self, ret, dtype)

    set_grid_idx._kgb_progress = True  # type: ignore[attr-defined]
    InterpreterBuilder.set_grid_dim = set_grid_dim
    InterpreterBuilder.set_grid_idx = set_grid_idx
    ReduceScanOpInterface.to_tensor = to_tensor
    publish()


class OutOfBoundsAccess(RuntimeError):
    """An interpreted kernel loaded or stored memory outside every tensor argument of its launch (on a GPU:
    an illegal address, or silent corruption of another allocation). Raised before the access happens."""


#: ``(start, end)`` byte ranges of the storages the interpreted launch running now received (its tensor
#: arguments, tuple elements and tensor descriptors' bases), set when Triton copies the arguments to the host
_REGIONS: list[tuple[int, int]] = []
_REGION_KERNEL: list[str] = [""]


def _storage_regions(args: Any) -> list[tuple[int, int]]:
    """The byte ranges of the storages behind the (host copies of the) launch arguments ``args``."""
    from triton.runtime.interpreter import _unwrap_tensor

    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:  # pragma: no cover - older Triton
        TensorDescriptor = ()  # noqa: N806
    out: list[tuple[int, int]] = []
    stack = list(args)
    while stack:
        a = stack.pop()
        if isinstance(a, tuple):
            stack.extend(a)
        elif TensorDescriptor and isinstance(a, TensorDescriptor):
            stack.append(a.base)
        elif isinstance(a, torch.Tensor) or hasattr(a, "base") and isinstance(getattr(a, "base"), torch.Tensor):
            st = _unwrap_tensor(a).untyped_storage()
            out.append((st.data_ptr(), st.data_ptr() + st.nbytes()))
    return out


def _check_access(ptrs: Any, mask: Any, what: str) -> None:
    """Raise :class:`OutOfBoundsAccess` unless every masked-in element address of ``ptrs`` (a NumPy array of
    addresses of elements of the pointer's dtype) lies, with its whole element, inside one region."""
    import numpy as np

    data = np.asarray(ptrs.data)
    if data.size == 0:
        return
    m = np.broadcast_to(np.asarray(mask.data, dtype=bool), data.shape) if mask is not None else None
    live = data[m] if m is not None else data.reshape(-1)
    if live.size == 0:
        return
    size = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    lo, hi = int(live.min()), int(live.max()) + size
    if any(start <= lo and hi <= end for start, end in _REGIONS):
        return
    ok = np.zeros(live.shape, dtype=bool)
    for start, end in _REGIONS:
        ok |= (live >= start) & (live + size <= end)
    bad = int((~ok).sum())
    if bad == 0:
        return
    first = int(live[~ok][0])
    near = min(_REGIONS, key=lambda r: min(abs(first - r[0]), abs(first - r[1])), default=None)
    where = (f"{first - near[1]} bytes past the end of" if near and first >= near[1] else
             f"{near[0] - first} bytes before the start of" if near else "outside") + " the nearest argument's memory"
    raise OutOfBoundsAccess(f"out-of-bounds memory access: kernel {_REGION_KERNEL[0] or '?'} {what} {bad} element(s) "
                            f"outside every tensor argument of its launch (the first {where}); on a GPU this is an "
                            f"illegal address or a silent write into another allocation")


def install_interpreter_bounds_checks() -> None:
    """Check every load, store and atomic an interpreted kernel makes against the memory of its launch's
    tensor arguments (whole storages, so views may reach the rest of their base tensor) before it happens.

    Triton's interpreter performs loads and stores at raw host addresses: an unmasked access past a
    tensor reads or overwrites the process's heap, which aborts the sandbox later, during another case
    (the record then blamed the wrong case), or silently changes a result. Checked, the access fails in the
    case that makes it, as a device fault would on a GPU (failure class ``cuda_fault``). Masked-off
    elements are not accessed and not checked."""
    from triton.runtime.interpreter import GridExecutor, InterpreterBuilder

    if getattr(InterpreterBuilder.create_masked_store, "_kgb_bounds", False):
        return
    orig_init = GridExecutor._init_args_hst

    def init_args(self, args_dev, kwargs, _orig=orig_init):
        args_hst, kwargs_hst = _orig(self, args_dev, kwargs)
        _REGIONS[:] = _storage_regions([*args_hst, *kwargs_hst.values()])
        _REGION_KERNEL[0] = getattr(self.fn, "__name__", "")
        return args_hst, kwargs_hst

    GridExecutor._init_args_hst = init_args

    def checked(name: str, what: str, ptr_at: int, mask_at: int | None) -> None:
        orig = getattr(InterpreterBuilder, name)

        def method(self, *a, _orig=orig, **k):
            _check_access(a[ptr_at], a[mask_at] if mask_at is not None and mask_at < len(a) else None, what)
            return _orig(self, *a, **k)

        method._kgb_bounds = True  # type: ignore[attr-defined]
        setattr(InterpreterBuilder, name, method)

    checked("create_masked_load", "loads", 0, 1)
    checked("create_masked_store", "stores", 0, 2)
    checked("create_atomic_rmw", "updates atomically", 1, 3)
    checked("create_atomic_cas", "updates atomically", 0, None)


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


# -- memory provenance of a candidate call ------------------------------------------------------------
#
# Per candidate call (the outermost traced wrapper call; :class:`CallEvidence`) the modes below keep what
# the verifier's rules about memory need, as evidence (never a verdict):
#
# * the layouts of the call's tensors as given, the storages allocated during the call (``fresh``), the
#   storages its Triton launches received (``launched``) and ATen copies of them (``derived``);
# * marks on the trace keys of allowed ops that compute or convert (``aten::clone (materialises a
#   negative bit)``) or that move elements along a mapping of the candidate's making (``aten::copy_
#   (non-trivial mapping)``), judged by ``verify/profile.py``;
# * host reads of Triton-derived memory (L2, :func:`host_read`), returned outputs in storage that
#   outlives its call (:meth:`CallEvidence.stale_returns`), tensor data built from host Python
#   (``aten::host_data``, elements).

#: ATen copies (their element mapping is judged), fills, and ops that turn host Python data into a tensor
#: (``torch.tensor``, ``torch.as_tensor``, a Python number assigned into a tensor: counted as
#: ``aten::host_data`` elements).
COPY_OPS = frozenset({"copy_", "clone", "contiguous", "_to_copy", "_copy_from", "_copy_from_and_resize"})
FILL_OPS = frozenset({"fill_", "zero_"})
HOST_DATA_OPS = frozenset({"lift_fresh", "lift_fresh_copy", "lift"})
#: ops that write a Python fill value into a new or given tensor, and the position of the value
_FILL_VALUE_AT = {"full": 1, "full_like": 1, "new_full": 2, "fill_": 1, "scalar_tensor": 0}
#: memory formats under which a functional copy keeps the element mapping (the result is dense in the
#: source's logical order, or in its own dense layout)
_PLAIN_FORMATS = (None, torch.preserve_format, torch.contiguous_format)
#: ops not counted in the trace: ``detach_`` after ``lift_fresh`` reaches a mode only inside another
#: mode's handler (the interpreter's path), and only drops autograd history
_UNCOUNTED = frozenset({"detach_"})


def _name(func: Any) -> str:
    return func._schema.name.split("::")[-1]


def _tensors(obj: Any, path: str = "") -> Any:
    """``(path, tensor)`` for every tensor in nested lists, tuples and dicts (``"[0][1]"``)."""
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _tensors(v, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _tensors(v, f"{path}[{k!r}]")


def _storage(t: Any) -> Any:
    """``t``'s untyped storage, or None (no storage: sparse, nested, functional wrappers)."""
    try:
        return t.untyped_storage()
    except Exception:  # noqa: BLE001 - a tensor without a plain storage
        return None


def layout_form(t: torch.Tensor) -> tuple[int, int, tuple[tuple[int, int], ...]] | None:
    """The bytes a strided tensor addresses, in its row-major order, in a canonical form:
    ``(storage data pointer, byte offset, ((size, byte stride), ...))``, outermost first, with size-1
    dims dropped, the element's bytes as the innermost dim ``(element size, 1)``, and each dim merged
    into the next inner one where it steps exactly over it. Two tensors with the same form enumerate
    the same bytes in the same order: one is a reshape of the other, or a dtype view of the same
    layout (``view(torch.uint8)`` of bools, ``view_as_real``). None for an empty tensor or one without
    a plain storage."""
    if t.numel() == 0:
        return None
    st = _storage(t)
    if st is None:
        return None
    esz = t.element_size()
    merged: list[list[int]] = [[esz, 1]]  # innermost first
    for size, stride in reversed(list(zip(t.shape, t.stride()))):
        if size == 1:
            continue
        stride *= esz
        inner = merged[-1]
        if stride == inner[0] * inner[1]:
            inner[0] *= size
        else:
            merged.append([size, stride])
    return st.data_ptr(), t.storage_offset() * esz, tuple((s, d) for s, d in reversed(merged))


#: storage data pointer -> (a weak reference to the storage, the element size it was allocated or given
#: with): a view of other element size that splits those elements is a reinterpretation of bytes
_NATIVE: dict[int, tuple[Any, int]] = {}


def _alive(table: dict[int, Any], ptr: int) -> bool:
    """Whether ``table`` holds a live storage at ``ptr`` (entries are weak: a freed storage, whose
    address a later allocation may reuse, no longer counts)."""
    ref = table.get(ptr)
    if ref is None:
        return False
    st = (ref[0] if isinstance(ref, tuple) else ref)()
    return st is not None and st.data_ptr() == ptr


def _note_native(t: torch.Tensor) -> None:
    st = _storage(t)
    if st is not None and st.nbytes():
        _NATIVE[st.data_ptr()] = (weakref.ref(st), t.element_size())


def splits_elements(t: torch.Tensor) -> bool:
    """Whether ``t`` views its storage with a smaller element than the storage was made with and cuts
    those elements apart (``x.view(torch.int16)[..., 1::2]`` of a float32 ``x``: its high halves). A
    copy that moves such pieces converts (truncation, byte extraction); moving whole elements does not
    (``view_as_real`` of a transposed complex tensor)."""
    st = _storage(t)
    if st is None or not st.nbytes() or not _alive(_NATIVE, st.data_ptr()):
        return False
    native = _NATIVE[st.data_ptr()][1]
    form = layout_form(t)
    if form is None or native <= t.element_size():
        return False
    _, offset, dims = form
    run, step = dims[-1]
    if step != 1 or run % native:
        return True
    return offset % native != 0 or any(d % native for _, d in dims[:-1])


class CallEvidence:
    """The memory provenance of one candidate call (the outermost traced wrapper call, or the
    submission's import), kept by the sandbox's dispatch modes (weak references only: it keeps no
    memory alive).

    Attributes:
        given: :func:`layout_form` of every tensor the wrapper was called with (lists and tuples of
            tensors included), as given.
        readonly: storage data pointers of the case's read-only inputs (``State.readonly_inputs``).
        fresh: storages allocated during the call (by the candidate's ATen ops), by data pointer.
        launched: storages that a Triton launch of this call received (tensor arguments, elements of
            tuples, the base of tensor descriptors and ``triton.reinterpret`` wrappers).
        derived: storages written by ATen copies of ``launched`` (or ``derived``) memory.
        last_read: ``(value, dtype)`` of the scalar host read just made, for the op that follows it
            (a fill with that value converts it when the dtypes differ); None otherwise.
    """

    def __init__(self, args: Any = (), kwargs: Any = None, readonly: frozenset[int] = frozenset()) -> None:
        tensors = [t for _, t in _tensors((args, kwargs or {}))]
        self.given = {f for f in (layout_form(t) for t in tensors) if f is not None}
        self.readonly = readonly
        self.fresh: dict[int, Any] = {}
        self.launched: dict[int, Any] = {}
        self.derived: dict[int, Any] = {}
        self.last_read: tuple[Any, torch.dtype] | None = None
        for t in tensors:
            _note_native(t)

    # -- what a side of a copy is ---------------------------------------------------------------
    def side_ok(self, t: torch.Tensor) -> bool:
        """Whether ``t``, one side of a copy or fill, keeps the element mapping trivial: empty, a call
        tensor exactly as given (or a reshape / same-layout dtype view of one: the same bytes in the same
        order), or the whole of a storage allocated during this call, densely in row-major order from
        its start. Any other view (a slice, select, transpose, permute, expand, unfold, diagonal,
        as_strided of a call tensor or of a fresh buffer) is the candidate's own element mapping."""
        if t.numel() == 0:
            return True
        form = layout_form(t)
        if form is None:
            return False
        if form in self.given:
            return True
        ptr = form[0]
        if not _alive(self.fresh, ptr):
            return False
        return form[1:] == (0, ((self.fresh[ptr]().nbytes(), 1),))

    # -- Triton launches and what they touched --------------------------------------------------
    def note_launch(self, args: tuple, kwargs: dict) -> None:
        """Record the storages a Triton launch of this call received."""
        def visit(v: Any, depth: int = 0) -> None:
            if depth > 8:
                return
            if isinstance(v, torch.Tensor):
                st = _storage(v)
                if st is not None and st.nbytes():
                    self.launched[st.data_ptr()] = weakref.ref(st)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    visit(x, depth + 1)
            else:  # a tensor descriptor or triton.reinterpret wrapper (the launch rule let only those in)
                attrs = getattr(v, "__dict__", None)
                if isinstance(attrs, dict) and attrs.get("base") is not None:
                    visit(attrs["base"], depth + 1)

        for v in (*args, *kwargs.values()):
            visit(v)

    def triton_derived(self, t: torch.Tensor) -> bool:
        """Whether ``t`` lives in memory a Triton launch of this call received (other than a read-only
        input of the case) or in an ATen copy of such memory."""
        st = _storage(t)
        if st is None or not st.nbytes():
            return False
        ptr = st.data_ptr()
        if _alive(self.derived, ptr):
            return True
        return _alive(self.launched, ptr) and ptr not in self.readonly

    # -- around each ATen op --------------------------------------------------------------------
    def take_read(self) -> tuple[Any, torch.dtype] | None:
        read, self.last_read = self.last_read, None
        return read

    @staticmethod
    def input_ptrs(args: tuple, kwargs: dict) -> set[int]:
        """Data pointers of the storages an op gets (tensor and storage arguments), before it runs."""
        ptrs: set[int] = set()

        def visit(v: Any) -> None:
            if isinstance(v, torch.Tensor):
                st = _storage(v)
                if st is not None:
                    ptrs.add(st.data_ptr())
            elif isinstance(v, (torch.UntypedStorage, torch.TypedStorage)):
                ptrs.add(v.data_ptr())
            elif isinstance(v, (list, tuple)):
                for x in v:
                    visit(x)

        for v in (*args, *kwargs.values()):
            visit(v)
        return ptrs

    def after_op(self, func: Any, args: tuple, kwargs: dict, out: Any, before: set[int],
                 read: tuple[Any, torch.dtype] | None) -> list[str]:
        """Update the evidence after an op ran: storages it allocated (an output storage none of its
        arguments had before it ran; a ``resize_`` that reallocated included) are fresh, a copy of
        Triton-derived memory is Triton-derived. Returns marks that only the result shows: a functional
        copy that materialised a negative or conjugate bit, a fill or ``torch.tensor`` whose value is
        the scalar host read just made (``read``) of a tensor of another dtype (a conversion)."""
        name = _name(func)
        marks: list[str] = []
        outs = [t for _, t in _tensors(out)]
        for t in outs:
            st = _storage(t)
            if st is not None and st.nbytes() and st.data_ptr() not in before:
                self.fresh[st.data_ptr()] = weakref.ref(st)
                _NATIVE[st.data_ptr()] = (weakref.ref(st), t.element_size())
        if name in COPY_OPS and args and isinstance(args[0], torch.Tensor):
            src = args[1] if name == "copy_" and len(args) > 1 else args[0]
            dsts = [args[0]] if name == "copy_" else ([args[1]] if name.startswith("_copy_from") else outs)
            if isinstance(src, torch.Tensor):
                if self.triton_derived(src):
                    for d in dsts:
                        st = _storage(d)
                        if st is not None and st.nbytes():
                            self.derived[st.data_ptr()] = weakref.ref(st)
                if name in ("clone", "_to_copy", "contiguous") and isinstance(out, torch.Tensor):
                    if src.is_neg() and not out.is_neg():
                        marks.append(MARK_NEG)
                    if src.is_conj() and not out.is_conj():
                        marks.append(MARK_CONJ)
        if read is not None and (name in _FILL_VALUE_AT or name in HOST_DATA_OPS) and isinstance(out, torch.Tensor):
            value, dtype = read
            fill = _fill_value(name, args)
            if out.dtype != dtype and _same_number(fill, value):
                marks.append(MARK_CONVERSION)
        return marks

    # -- what a call returned -------------------------------------------------------------------
    def stale_returns(self, ret: Any, args: tuple, kwargs: dict) -> list[str]:
        """The returned tensors (paths into the return: ``""``, ``"[1]"``) that live in storage neither
        allocated during this call nor shared with an argument (as the arguments are now: an ``out=``
        resized during the call is its argument): a buffer kept across calls (a module-level pool, a
        workspace made on an earlier call), so that successive results alias each other. Empty
        tensors are never stale."""
        arg_ptrs = {st.data_ptr() for _, t in _tensors((args, kwargs)) for st in [_storage(t)] if st is not None}
        stale = []
        for path, t in _tensors(ret):
            st = _storage(t)
            if st is None or not st.nbytes():
                continue
            ptr = st.data_ptr()
            if ptr in arg_ptrs or _alive(self.fresh, ptr):
                continue
            stale.append(path or "the result")
        return stale


def _fill_value(name: str, args: tuple) -> Any:
    """The Python value a fill-like op writes (``full``'s fill_value; the one element of a
    ``lift_fresh`` tensor), or None."""
    if name in HOST_DATA_OPS:
        t = args[0] if args else None
        if isinstance(t, torch.Tensor) and t.numel() == 1 and t.device.type == "cpu":
            return t.item()
        return None
    at = _FILL_VALUE_AT.get(name)
    return args[at] if at is not None and len(args) > at else None


def _same_number(a: Any, b: Any) -> bool:
    return (isinstance(a, (bool, int, float, complex)) and isinstance(b, (bool, int, float, complex))
            and a == b)


def _arange_computes(args: tuple, kwargs: dict) -> bool:
    """Whether an ``arange`` computes values beyond an integer sequence (a floating or complex result,
    or a non-integral start, end or step)."""
    nums = [a for a in args if isinstance(a, (int, float))]
    if any(isinstance(a, float) and not float(a).is_integer() for a in nums):
        return True
    out = kwargs.get("out")
    dt = kwargs.get("dtype") or (out.dtype if isinstance(out, torch.Tensor) else None)
    if dt is not None:
        return dt.is_floating_point or dt.is_complex
    return any(isinstance(a, float) for a in nums)


def op_marks(func: Any, args: tuple, kwargs: dict, ev: CallEvidence | None) -> list[str]:
    """What an allowed op does beyond allocating, viewing, moving or reading, seen before it runs (the
    marks of its trace key; :data:`~kernelgenbench.verify.profile.COMPUTE_MARKS` fail every operator,
    :data:`~kernelgenbench.verify.profile.MOVE_MARKS` operators whose work is data movement):

    * copies (``copy_``, ``_copy_from*``, ``clone``, ``_to_copy``): a dtype change; a source and
      destination whose negative or conjugate bits differ (the copy negates or conjugates); a
      non-trivial element mapping (a side that is not :meth:`CallEvidence.side_ok`, sides of other
      shapes (a broadcast), a memory format other than preserve/contiguous), and among those, a side
      that cuts the storage's elements apart (:func:`splits_elements`);
    * fills (``fill_``, ``zero_``): from a tensor of another dtype or with a negative/conjugate bit, into
      a view with such a bit, or into a part of a call tensor or of a fresh buffer (a partial fill);
    * ``arange`` of floating values or with non-integral bounds (it computes them).
    """
    name = _name(func)
    marks: list[str] = []
    try:
        if name in ("copy_", "_copy_from", "_copy_from_and_resize"):
            dst, src = (args[0], args[1]) if name == "copy_" else (args[1], args[0])
            if isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor):
                if src.dtype != dst.dtype:
                    marks.append(MARK_CONVERSION)
                if src.is_neg() != dst.is_neg():
                    marks.append(MARK_NEG)
                if src.is_conj() != dst.is_conj():
                    marks.append(MARK_CONJ)
                resized = name == "_copy_from_and_resize" and dst.numel() == 0
                if ev is not None and ((tuple(src.shape) != tuple(dst.shape) and not resized)
                                       or not ev.side_ok(src) or not ev.side_ok(dst)):
                    marks.append(MARK_MAPPING)
                    if splits_elements(src) or splits_elements(dst):
                        marks.append(MARK_BYTES)
        elif name in ("clone", "_to_copy", "contiguous"):
            src = args[0]
            if name == "_to_copy" and kwargs.get("dtype") is not None and kwargs["dtype"] != src.dtype:
                marks.append(MARK_CONVERSION)
            if ev is not None and (not ev.side_ok(src) or kwargs.get("memory_format") not in _PLAIN_FORMATS):
                marks.append(MARK_MAPPING)
                if splits_elements(src):
                    marks.append(MARK_BYTES)
        elif name in FILL_OPS:
            dst = args[0]
            value = args[1] if name == "fill_" and len(args) > 1 else None
            if isinstance(value, torch.Tensor):
                if value.dtype != dst.dtype:
                    marks.append(MARK_CONVERSION)
                if value.is_neg() != dst.is_neg():
                    marks.append(MARK_NEG)
                if value.is_conj() != dst.is_conj():
                    marks.append(MARK_CONJ)
            elif value is not None and (dst.is_neg() or dst.is_conj()):
                marks.append(MARK_NEG if dst.is_neg() else MARK_CONJ)
            if ev is not None and not ev.side_ok(dst):
                marks.append(MARK_PARTIAL_FILL)
        elif name == "arange" and _arange_computes(args, kwargs):
            marks.append(MARK_VALUES)
    except (AttributeError, IndexError, RuntimeError, TypeError):
        pass
    return marks


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
    read = _SCALAR_READS.get(func)
    if read is not None and args and isinstance(args[0], torch.Tensor):
        # .item(), bool(t), int(t), float(t), t.__index__: a value reaches Python here (L2 replay)
        extra = repr([(list(a.shape), str(a.dtype)) if isinstance(a, torch.Tensor) else a for a in args[1:]])
        value = host_read(read, args[0], extra, lambda: func(*args, **kwargs))
        if ev is not None:
            ev.last_read = (value, args[0].dtype)
        return value
    pending = ev.take_read() if ev is not None else None
    before = ev.input_ptrs(args, kwargs) if ev is not None else set()
    out = func(*args, **kwargs)
    if ev is not None:
        late = ev.after_op(func, args, kwargs, out, before, pending)
        if late:
            trace[key] -= 1
            if not trace[key]:
                del trace[key]
            trace[_op_key(func, marks=[*marks, *late])] += 1
    _count_draws(trace, func, out)
    if name in HOST_DATA_OPS and isinstance(out, torch.Tensor):
        trace["aten::host_data"] += out.numel()
    if poison and STATE.poison_allocations and f"{func.__name__}" in ALLOCATING and isinstance(out, torch.Tensor):
        if out.numel() and not out.is_meta:
            from ..suite.tensors import poison_variant

            with poison_variant(STATE.ghost or STATE.alt_poison):
                poison_allocation(out)
    return out


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
        if STATE.inside_launch:
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
        calls = STATE._call_trace
        if STATE.inside_launch or calls is None:
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
    from ..suite.tensors import poison_

    if not any(k.split(".", 1)[0] == "fill_" for k in STATE.registered):
        poison_(t)
        return
    one = poison_(torch.empty((), dtype=t.dtype))
    try:
        t.copy_(one.to(t.device).expand(t.shape))
    except RuntimeError:  # an overlapping allocation (zero strides) that copy_ refuses: left as allocated
        pass


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
                f"its arguments (a buffer kept across calls: every call's result would share it)")


def traced(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """Wrap a candidate wrapper: count calls, detect dispatch recursion, check that it accepts the
    arguments, trace its ATen ops (while timing: op counts only, :class:`TimedTraceMode`), and keep the
    memory provenance of the outermost call (:class:`CallEvidence`; its returned tensors must live in
    storage allocated during the call or be arguments, ``STATE.stale_outputs``)."""
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
        top = STATE.call is None
        if top:
            STATE.call = CallEvidence(args, kwargs, STATE.readonly_inputs if STATE.tracing else frozenset())
        STATE.active_wrappers.append(name)
        try:
            if not STATE.tracing:
                if STATE.timed_trace is not None:
                    ret = _timed_traced_call(fn, args, kwargs)
                else:
                    ret = fn(*args, **kwargs)
            else:
                with CandidateMode():
                    ret = fn(*args, **kwargs)
            if top:
                _check_returns(name, ret, args, kwargs)
            return ret
        finally:
            STATE.active_wrappers.pop()
            if top:
                STATE.call = None

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

