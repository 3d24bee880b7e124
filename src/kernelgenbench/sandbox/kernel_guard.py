"""The launch rule at ``kernel[grid]`` (red team rt39b): an instance attribute set on a Triton kernel object over an
entry of its class (``kernel.run = f``) takes the kernel's launches past the harness's hooked run, so the hook never
sees them; ``KernelInterface.__getitem__``, which every ``kernel[grid](...)`` goes through before it calls
``self.run``, refuses such a kernel (:func:`shadowed_entry`), and so does every traced launch
(:func:`.launch_args.check_launch`).

The one instance entry Triton itself writes over its class is a ``functools.cached_property``'s value
(``Autotuner.do_bench`` in Triton 3.6, stored on the autotuner the first time it benchmarks its configs, which only a
GPU does): such an entry is allowed when it is the very object the property's own function returns now."""
from __future__ import annotations

import functools
import os
import sys
import types
from typing import Any, Callable

from .state import STATE


def _cached_value(obj: Any, klass: type, name: str, value: Any) -> bool:
    """True when ``klass.__dict__[name]`` is a ``functools.cached_property`` whose function, called on ``obj`` now,
    returns ``value`` itself (identity). Triton's class entries are audited against a snapshot, so the function is
    Triton's; an exception in it (no GPU driver on the interpreter) counts as no match."""
    prop = vars(klass).get(name)
    if type(prop) is not functools.cached_property:
        return False
    try:
        return prop.func(obj) is value
    except Exception:  # noqa: BLE001 - Triton's own property failing means the value is not its
        return False


def _fn_name(kernel: Any) -> str:
    """The name of the function under ``kernel``'s ``.fn`` chain (read with ``vars``), else its type's name."""
    obj = kernel
    for _ in range(8):
        fn = vars(obj).get("fn") if hasattr(obj, "__dict__") else None
        if type(fn) is types.FunctionType:
            return fn.__name__
        if fn is None:
            break
        obj = fn
    return type(kernel).__name__


def shadowed_entry(kernel: Any, name: Callable[[Any], str] = _fn_name) -> str | None:
    """An instance attribute of ``kernel`` (a jit, autotune or heuristics object) or of the kernels it wraps
    (``.fn``) that shadows an entry of its class (rt39b: ``k.run = f`` on a kernel an autotuner wraps sends Triton's
    benchmarking, and every launch, past the hooked run): None when there is none, else the violation's message,
    naming the kernel by ``name`` (:func:`.launch_args.kernel_name`; this module does not import that one, which
    imports it). Triton sets none but ``__doc__``/``__module__`` and the cached values of its ``cached_property``
    entries (see the module's note); read with ``vars`` and identity only."""
    obj, seen = kernel, 0
    while obj is not None and seen < 8:
        own = vars(obj) if hasattr(obj, "__dict__") else {}
        for attr in own:
            if attr in ("__doc__", "__module__"):
                continue
            klass = next((c for c in type(obj).__mro__[:-1] if attr in vars(c)), None)
            if klass is not None and not _cached_value(obj, klass, attr, own[attr]):
                return (f"kernel {name(kernel)}: .{attr} set on the kernel "
                        "object shadows its Triton class's (a submission may not change Triton's kernel objects: "
                        "monkey-patching)")
        obj, seen = own.get("fn") if type(own.get("fn")) is not types.FunctionType else None, seen + 1
    return None


#: What Triton's own benchmark functions may hold in their closures and defaults (Autotuner.__init__'s lambdas close
#: over ``warmup=``/``rep=``, ``triton.testing`` and ``do_bench_cudagraph``; ``do_bench``'s defaults are numbers and
#: strings): anything else is an object of the submission whose methods Triton's arithmetic would call.
_PLAIN = (int, float, bool, str, type(None))


def _triton_function(fn: Any, triton_dir: str, depth: int = 0) -> bool:
    """Whether ``fn`` is a plain function of Triton's files (not a bound method, partial or callable object, whose
    ``__code__`` may be Triton's while what it calls is not: red team rt40) whose closure and defaults hold only
    plain values, modules and such functions; or the harness's interpreter benchmarker itself
    (:func:`.interpreter.rank_configs`, by identity)."""
    if type(fn) is not types.FunctionType or depth > 2:
        return False
    if fn is getattr(sys.modules.get("kernelgenbench.sandbox.interpreter"), "rank_configs", None):
        return True  # the interpreter's benchmarker and triton.testing's there (gd40: Triton's own _bench runs with it)
    if not os.path.abspath(fn.__code__.co_filename).startswith(triton_dir):
        return False
    held = list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
    for cell in fn.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return all(type(v) in _PLAIN or type(v) is types.ModuleType
               or (v is not fn and _triton_function(v, triton_dir, depth + 1)) for v in held)


def foreign_bench(tuner: Any) -> str | None:
    """The benchmark function Triton's autotuning of ``tuner`` (a ``triton.runtime.autotuner.Autotuner``) would call
    that is not Triton's own, in words, or None: the ``do_bench=`` it was given (``_do_bench``), the value cached over
    the class's ``do_bench`` property (a store there through a function parameter after the launch rule ran, red team
    rt40) and, when neither is set, the active driver's benchmarker. Each must be :func:`_triton_function`. The
    ``reset_to_zero=``/``restore_value=`` names, which Triton's own hooks hash and compare while it benchmarks, must
    be plain strings (rt40: a ``str`` subclass's ``__hash__`` ran there), and the values of heuristics under the
    tuner a plain dict of str keys (:func:`.launch.traced_autotune_hooks` traces the functions of a plain dict only:
    a subclass's ``items()`` and its functions ran there untraced)."""
    import triton
    from triton.runtime import autotuner

    triton_dir = os.path.dirname(os.path.abspath(triton.__file__)) + os.sep
    own = vars(tuner)
    inner = own.get("fn")
    for _ in range(8):  # heuristics under the tuner: launch.traced_autotune_hooks traces a plain dict's functions
        if type(inner) is not autotuner.Heuristics:
            break
        values = vars(inner).get("values")
        if type(values) is not dict or any(type(k) is not str for k in dict.keys(values)):
            return f"heuristics values of type {type(values).__name__} (not a plain dict of str keys)"
        inner = vars(inner).get("fn")
    for attr in ("reset_to_zero", "restore_value"):  # Triton's own pre/post hooks look them up in a dict there
        names = own.get(attr) or []
        odd = [type(n).__name__ for n in (names if type(names) is list else [names]) if type(n) is not str]
        if type(names) is not list or odd:
            return f"a {attr}= name of type {(odd or [type(names).__name__])[0]} (its methods)"
    if own.get("_do_bench") is not None and not _triton_function(own["_do_bench"], triton_dir):
        return "a do_bench= of the submission"
    if "do_bench" in own and not _triton_function(own["do_bench"], triton_dir):
        return "a do_bench set over the autotuner's own"
    if own.get("_do_bench") is None and "do_bench" not in own:
        try:
            from triton.runtime.driver import driver

            bench = driver.active.get_benchmarker()
        except Exception:  # noqa: BLE001 - no GPU driver (the interpreter never benchmarks)
            return None
        if not _triton_function(bench, triton_dir):
            return "a benchmarker of the active driver that is not Triton's"
    return None


#: The ``triton.jit`` options and the exact types each may hold (:func:`plain_option`): Triton reads them when it
#: makes a kernel object (``JITFunction.__init__`` iterates ``do_not_specialize``) and when it compiles one (``repr``
#: names it, ``noinline``/``debug`` are tested); ``launch_metadata`` runs at a launch under a profiler's hook.
OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "version": (type(None), int, str), "debug": (type(None), bool), "noinline": (type(None), bool),
    "do_not_specialize": (type(None), list, tuple), "do_not_specialize_on_alignment": (type(None), list, tuple),
    "repr": (type(None), types.FunctionType), "launch_metadata": (type(None), types.FunctionType)}
#: Where a JIT function keeps each option (GPU ``JITFunction``: attributes; the interpreter keeps the keywords as given)
_OPTION_ATTRS = {"repr": "_repr"}


def plain_option(key: str, value: Any) -> bool:
    """Whether ``value`` may be the ``triton.jit`` option ``key`` (:data:`OPTION_TYPES`), judged with ``type()`` only
    (nothing of it runs): lists and tuples of ints and strs (parameter indices and names), flags, and for ``repr``/
    ``launch_metadata`` a Python function of the submission's file (its frames are the submission's, so what it runs
    inside a launch window is traced: sandbox/window.py ``foreign_code``). Red team 43: Triton iterated a ``map`` of
    C callables (``operator``, bound methods: no frame at all) given as ``do_not_specialize`` inside the interpreter's
    GPU compile check, and calls ``repr`` when it compiles inside its autotune benchmarking: ATen ran untraced."""
    kinds = OPTION_TYPES.get(key)
    if kinds is None or type(value) not in kinds:
        return False
    if type(value) in (list, tuple):
        return all(type(e) in (int, str) for e in value)
    if type(value) is types.FunctionType:
        # the submission's file as the child registered it (launch_args.KERNEL_BODIES; read here without importing
        # launch_args, which imports this module)
        bodies = getattr(sys.modules.get("kernelgenbench.sandbox.launch_args"), "KERNEL_BODIES", None)
        sub = bodies[0] if type(bodies) is tuple and bodies and type(bodies[0]) is str else ""
        return bool(sub) and os.path.abspath(value.__code__.co_filename) == os.path.abspath(sub)
    return True


def foreign_options(kernel: Any, name: Callable[[Any], str] = _fn_name) -> str | None:
    """The first ``triton.jit`` option of ``kernel`` or of the kernels it wraps (``.fn``) that is not
    :func:`plain_option`, as the violation's message, or None; read with ``vars`` only."""
    obj, seen = kernel, 0
    while obj is not None and seen < 8:
        own = vars(obj) if hasattr(obj, "__dict__") else {}
        given = own.get("kwargs")  # the interpreter's InterpretedFunction: the keywords as given to triton.jit
        opts = dict(given) if type(given) is dict else {}
        opts.update({k: own[_OPTION_ATTRS.get(k, k)] for k in OPTION_TYPES if _OPTION_ATTRS.get(k, k) in own})
        for key, value in opts.items():
            if type(key) is str and key in OPTION_TYPES and not plain_option(key, value):
                return (f"kernel {name(kernel)}: triton.jit's {key}= holds a {type.__repr__(type(value))}: Triton "
                        f"reads its options where nothing is traced (making a kernel, compiling one inside its "
                        f"autotune benchmarking); give a list or tuple of parameter names or indices, a bool, or a "
                        f"function of the file")
        obj, seen = own.get("fn") if type(own.get("fn")) is not types.FunctionType else None, seen + 1
    return None


def install(error: type[Exception], name: Callable[[Any], str]) -> None:
    """Wrap ``triton.runtime.jit.KernelInterface.__getitem__`` (idempotent): a kernel :func:`shadowed_entry` finds is
    recorded as a violation and raised as ``error`` (:class:`.launch_args.LaunchArgumentError`), named by ``name``."""
    try:
        from triton.runtime.jit import KernelInterface
    except ImportError:  # pragma: no cover - another Triton
        return
    orig = KernelInterface.__getitem__
    if getattr(orig, "_kgb_hooked", False):
        return

    def getitem(self: Any, grid: Any) -> Any:
        msg = shadowed_entry(self, name)
        if msg is not None:
            STATE.note_violation(msg)
            raise error(msg)
        return orig(self, grid)

    getitem._kgb_hooked = True  # type: ignore[attr-defined]
    KernelInterface.__getitem__ = getitem
