"""What a submission may not change at run time, compared with its state before the import (sandbox child):
Triton's language modules and classes (a kernel body calls them) and the PyTorch modules and classes the child
itself uses after a traced call (saving and checking results). L1 (``verify/scan``) refuses the stores it can
resolve; these snapshots catch the ones it cannot (a loop variable, a container, a call's result). The child
snapshots both after the harness's own patches and checks them after every traced call and with every answer.
The launch rule's value and global checks are :mod:`.launch_args`.
"""
from __future__ import annotations

import builtins
import functools
import os
import sys
import types
from typing import Any

from .launch_args import _ABSENT, ALLOWED_GLOBALS, _Types, dict_snapshot, types_

# -- functions changed in place (red team 35) --------------------------------------------------------


def _functions_of(v: Any) -> list[Any]:
    """The plain functions an entry of a module's or class's dictionary holds: itself, a static/class method's
    function, a property's accessors, a Triton jit function's ``fn``."""
    out = []
    for f in (v, getattr(v, "__func__", None) if type(v) in (staticmethod, classmethod) else None,
              *((v.fget, v.fset, v.fdel) if type(v) is property else ())):
        if type(f) is types.FunctionType:
            out.append(f)
    return out


def _fn_state(f: Any) -> tuple:
    """What makes a function run the code it runs: its code object, its defaults and the ``__wrapped__`` that
    ``inspect.signature`` follows (Triton's code generator passes ``_semantic`` by the signature it finds)."""
    return (f.__code__, f.__defaults__, f.__kwdefaults__, f.__dict__.get("__wrapped__"))


#: The entries of a Triton jit function that decide what runs: the function the interpreter runs, the source and
#: globals a GPU compiles with, the parameters and hooks; set when it is made. Caches that Triton rebinds on its own
#: are left out: ``hash``, ``device_caches``, and ``used_global_vals``, which ``JITCallable.cache_key`` replaces with
#: a new dict the first time a GPU compile hashes a kernel and every jit function it calls (the GPU run at 9cc2a7b
#: failed 115 of 210 held-out oracles as ``profile``: "triton.language.sum was changed in place"; the interpreter
#: never hashes, so no CPU test saw it). L1 refuses a submission's access to ``used_global_vals`` by name.
_JIT_KEYS = ("fn", "src", "_src", "raw_src", "__globals__", "params", "arg_names", "constexprs", "signature",
             "pre_run_hooks", "launch_metadata", "noinline", "do_not_specialize")


def _jit_state(v: Any) -> tuple:
    d = v.__dict__
    return ("jit", *(d.get(k, _ABSENT) for k in _JIT_KEYS))


def code_snapshot(snapshot: list[tuple[Any, tuple]]) -> list[tuple[str, Any, tuple]]:
    """``(name, function, its state)`` of every plain function held by the entries of a :func:`dict_snapshot`, and,
    for a Triton jit function among them, of its ``fn`` and its ``src`` (what the interpreter runs, what a GPU
    compiles)."""
    out: list[tuple[str, Any, tuple]] = []
    for obj, items in snapshot:
        owner = getattr(obj, "__name__", "?")
        for k, v in items:
            for f in _functions_of(v):
                out.append((f"{owner}.{k}", f, _fn_state(f)))
            if "fn" in getattr(v, "__dict__", {}) and hasattr(type(v), "run"):  # a Triton jit function
                out.append((f"{owner}.{k}", v, _jit_state(v)))
    return out


def code_changed(state: list[tuple[str, Any, tuple]] | None) -> str | None:
    """The first function of :func:`code_snapshot` whose code, defaults, ``__wrapped__`` (or a jit function's
    ``fn``/``src``) changed in place, or None. Red team 35: ``functools.update_wrapper(tl.maximum, mine,
    ("__code__",), ())`` passed L1 and every identity snapshot (the object stays the same) and ran the submission's
    Python in every kernel that called Triton's maximum on the interpreter. Compared by identity (strings by
    value); runs no code of the submission."""
    for name, f, old in state or ():
        if old and old[0] == "jit":
            now = _jit_state(f)
            same = all(a is b or (type(a) is str and type(b) is str and a == b) for a, b in zip(now, old))
        else:
            now = _fn_state(f)
            same = all(a is b for a, b in zip(now, old))
        if not same:
            return (f"{name} was changed in place after the harness started (its code, defaults or wrapped "
                    "function): a submission may not change Triton's, PyTorch's or the harness's functions")
    return None


# -- Triton's own modules and classes ------------------------------------------------------------

#: (object, its dictionary's items) of Triton's language modules and their classes, taken just before the
#: submission is imported (:func:`snapshot_triton`); None until then.
_TRITON_SNAPSHOT: list[tuple[Any, tuple]] | None = None
_TRITON_CODE: list[tuple[str, Any, tuple]] | None = None


def _triton_objects() -> list[Any]:
    out: list[Any] = []
    for name, mod in sorted(sys.modules.items()):
        if not (name == "triton" or name == "triton.language" or name.startswith("triton.language.")):
            continue
        if not isinstance(mod, types.ModuleType):
            continue
        out.append(mod)
        for v in list(vars(mod).values()):
            if type(v) is type and getattr(v, "__module__", "") == name:
                out.append(v)
    return out + _runtime_classes()


#: Triton's runtime classes whose entries the harness hooks or a launch goes through (rt39b: L1 did not follow
#: ``_KT = type(kernel); _KT.run = f``, which replaced the hooked run of every kernel): (module, class name).
_RUNTIME_CLASSES = (("triton.runtime.jit", "KernelInterface"), ("triton.runtime.jit", "JITCallable"),
                    ("triton.runtime.jit", "JITFunction"), ("triton.runtime.interpreter", "InterpretedFunction"),
                    ("triton.runtime.interpreter", "GridExecutor"), ("triton.runtime.autotuner", "Autotuner"),
                    ("triton.runtime.autotuner", "Heuristics"), ("triton.runtime.autotuner", "Config"),
                    ("triton.compiler.compiler", "CompiledKernel"))


def _runtime_classes() -> list[Any]:
    out: list[Any] = []
    for mod_name, cls_name in _RUNTIME_CLASSES:
        cls = getattr(sys.modules.get(mod_name), cls_name, None)
        if isinstance(cls, type) and cls not in out:
            out.append(cls)
    return out


def snapshot_triton() -> None:
    """Remember the dictionaries of ``triton``, the ``triton.language`` modules and the classes they define
    (``tl.tensor``, ``tl.constexpr``, ...), after the harness's own interpreter patches and before the submission
    is imported (sandbox child). :func:`triton_changed` compares them later."""
    global _TRITON_SNAPSHOT, _TRITON_CODE
    _TRITON_SNAPSHOT = dict_snapshot(_triton_objects())
    _TRITON_CODE = code_snapshot(_TRITON_SNAPSHOT)


def _triton_own(v: Any, T: _Types) -> bool:
    """Whether ``v``, a new value of an entry of Triton's modules or classes, is Triton's or the harness's own
    (the interpreter's language patches add and rebind entries of ``tl.tensor`` and ``tl.core`` per launch), or a
    submodule, or a class's ``__annotations__`` (created when first read)."""
    if isinstance(v, types.ModuleType):
        return True
    if type(v) in (types.WrapperDescriptorType, types.MethodDescriptorType) \
            and getattr(v.__objclass__, "__module__", None) == "builtins":
        return True  # a builtin type's slot (the patches' restore leaves object.__repr__ on tl.tensor)
    if v is builtins.print:
        return True  # the interpreter's tl.static_print during a launch
    if type(v) is functools.partial:  # the interpreter's patches during a launch: partial(_set_attr, name=...)
        return _triton_own(v.func, T) and all(type(a) in T.leaf for a in (*v.args, *v.keywords.values()))
    for f in (v, getattr(v, "fn", None), getattr(v, "fget", None), getattr(v, "__func__", None)):
        code = getattr(f, "__code__", None) if f is not None else None
        if type(code) is types.CodeType:
            path = os.path.abspath(code.co_filename)
            return path.startswith(T.triton_dir) or path.startswith(T.harness_dir)
    return type(v) in T.leaf


def _why(obj: Any) -> str:
    """Why a change of ``obj`` (a snapshotted Triton module or class) is refused."""
    if obj in _runtime_classes():
        return ("Triton's kernel and launch classes, where the harness counts, checks and ghost-replays launches; a "
                "submission may not change them (monkey-patching)")
    return ALLOWED_GLOBALS


def triton_changed() -> str | None:
    """Which of Triton's language modules or classes the submission changed since :func:`snapshot_triton`
    (an entry rebound, added or removed, to something not Triton's or the harness's own), or None. Red team 27:
    L1's monkey-patch rule follows stores through names it can resolve only, so ``for m in (tl,): m.sum = f``
    replaced ``tl.sum`` with a Python function of the submission that every kernel body then ran. Read with
    ``vars``, ``getattr`` of code objects and identity; runs no code of the submission's classes."""
    if _TRITON_SNAPSHOT is None:
        return None
    T = types_()
    for obj, items in _TRITON_SNAPSHOT:
        now = vars(obj)
        name = getattr(obj, "__name__", "?")
        for k, v in items:
            cur = now.get(k, _ABSENT)
            if cur is not v and (cur is _ABSENT or not _triton_own(cur, T)):
                return f"{name}.{k} was changed after the harness started ({_why(obj)})"
        if len(now) != len(items):
            old = {k for k, _ in items}
            for k, v in now.items():
                # an added entry that a kernel body could call (the interpreter's rewriter adds its semantic
                # object to the globals of Triton's own jit functions)
                if k not in old and callable(v) and not _triton_own(v, T):
                    return f"{name}.{k} was added after the harness started ({_why(obj)})"
    return code_changed(_TRITON_CODE)


# -- the harness's own PyTorch (red team 28) -------------------------------------------------------

_HARNESS_SNAPSHOT: list[tuple[Any, tuple]] | None = None
_HARNESS_CODE: list[tuple[str, Any, tuple]] | None = None


def _harness_objects() -> list[Any]:
    """The modules and classes whose entries the sandbox child itself uses after a traced call, outside the dispatch
    trace: ``torch`` and ``torch.Tensor`` (``isinstance``, ``.device``, attribute reads of the results), what
    ``torch.save``/``torch.load`` reach (``torch.serialization``, ``torch._utils``, ``torch.storage`` and its storage
    classes, ``pickle``), the answer's encoder (``json``) and ``torch.cuda`` (synchronize, events)."""
    import json
    import pickle

    import torch

    out: list[Any] = [torch, torch.Tensor, torch._C.TensorBase, json, pickle]
    for name in ("torch.serialization", "torch._utils", "torch.storage", "torch._tensor", "torch.cuda",
                 "json.encoder"):
        mod = sys.modules.get(name)
        if isinstance(mod, types.ModuleType):
            out.append(mod)
    for cls in (torch.UntypedStorage, getattr(torch.storage, "TypedStorage", None), torch.dtype, torch.device,
                getattr(torch.cuda, "Event", None), json.JSONEncoder, pickle.Pickler):
        if isinstance(cls, type):
            out.append(cls)
    return out + _logging_objects()


def snapshot_harness() -> None:
    """Remember the dictionaries of :func:`_harness_objects` before the submission is imported (sandbox child);
    :func:`harness_changed` compares them later."""
    global _HARNESS_SNAPSHOT, _HARNESS_CODE
    _HARNESS_SNAPSHOT = dict_snapshot(_harness_objects())
    _HARNESS_CODE = code_snapshot(_HARNESS_SNAPSHOT)
    snapshot_logging()


def _torch_own(k: str, v: Any, in_class: bool = False) -> bool:
    """Whether ``v``, a new or rebound entry ``k`` of a snapshotted object, is a module (a lazily loaded submodule of
    torch), code of PyTorch or the harness, ``copyreg``'s ``__slotnames__`` cache (a list of names, set on a class the
    first time one of its objects is pickled), a class's ``__annotations__`` (created when first read), or, in a
    module (``in_class`` False), a plain constant (``torch.cuda._initialized``); a function of the submission is none
    of these, nor is a constant put on a class (``torch.Tensor.is_cuda = True`` would shadow the tensors' own)."""
    import torch

    if isinstance(v, types.ModuleType):
        return True
    if k == "__slotnames__" and type(v) is list and all(type(x) is str for x in v):
        return True
    if k == "__annotations__" and type(v) is dict and not v:
        return True
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    harness_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    if type(v) is types.FunctionType and "_torchdynamo_orig_callable" in v.__dict__:
        # dynamo's wrapper of something else (red team 37): torch.compiler.disable(torch.Tensor) rebinds the class's
        # __init__ and adds a __call__, functions of PyTorch's folder that call what they were given
        return False
    for f in (v, getattr(v, "__func__", None), getattr(v, "fget", None)):
        code = getattr(f, "__code__", None) if f is not None else None
        if type(code) is types.CodeType:
            path = os.path.abspath(code.co_filename)
            return path.startswith(torch_dir) or path.startswith(harness_dir)
    return not in_class and type(v) in (int, float, bool, str, type(None), tuple, frozenset, bytes)


def _torch_builtin(v: Any) -> bool:
    """Whether ``v``, a new entry, is a C function of PyTorch (a builtin whose ``__module__`` is ``torch`` or one of
    its modules): PyTorch's own lazy initialisation adds them (the H200/H100 gate at 25eac36: ``torch.cuda._cuda_init``
    defines ``torch.cuda._get_device_properties`` on first use, and every operator failed as ``profile``). Python
    code cannot make such a function, and a new name is not one the harness calls; only added entries are judged by
    this (a rebound entry must still be PyTorch's code by :func:`_torch_own`)."""
    if type(v) is not types.BuiltinFunctionType:
        return False
    mod = getattr(v, "__module__", None)
    return type(mod) is str and (mod == "torch" or mod.startswith("torch."))


def harness_changed() -> str | None:
    """Which entry of the modules and classes the child itself uses (:func:`_harness_objects`) the submission
    rebound, added or removed since :func:`snapshot_harness`, or None. Red team 28: ``for _t in (torch,): _t.save =
    f`` (L1 followed no loop variable) replaced the ``torch.save`` that writes each case's outputs for the verifier,
    after the traced call: ``f`` computed the product with PyTorch into the outputs the kernel had only zero-filled.
    The child checks right after every traced call, before it touches the results, and with every answer. Read with
    ``vars``, ``getattr`` of code objects and identity."""
    if _HARNESS_SNAPSHOT is None:
        return None
    for obj, items in _HARNESS_SNAPSHOT:
        now = vars(obj)
        name = getattr(obj, "__name__", "?")
        for k, v in items:
            cur = now.get(k, _ABSENT)
            if cur is not v and (cur is _ABSENT or not _torch_own(k, cur, isinstance(obj, type))):
                return (f"{name}.{k} was changed after the harness started: a submission may not change PyTorch or the "
                        f"modules the harness uses (monkey-patching)")
        if len(now) != len(items):
            old = {k for k, _ in items}
            for k, v in now.items():
                if k not in old and not _torch_own(k, v, isinstance(obj, type)) and not _torch_builtin(v):
                    return (f"{name}.{k} was added after the harness started: a submission may not change PyTorch or "
                            f"the modules the harness uses (monkey-patching)")
    return code_changed(_HARNESS_CODE) or logging_changed()


# -- the logging tree (red team 35) ----------------------------------------------------------------

#: The classes an object of the logging tree may have (loggers, handlers, filters, formatters, streams, locks): those
#: found there before the submission was imported and those the ``logging`` module defines (:func:`snapshot_logging`);
#: None until then. PyTorch's own classes (a module of torch defines them) are admitted when met.
_LOGGING_TYPES: frozenset[type] | None = None
_LOG_LEAF = (int, float, bool, str, bytes, type(None))


def _logging_module() -> Any:
    return sys.modules.get("logging")


def _logging_objects() -> list[Any]:
    """The ``logging`` module, the classes it defines and its logger manager: their dictionaries are compared like
    PyTorch's (:func:`harness_changed`): ``for c in (logging.Logger,): c.isEnabledFor = f`` runs ``f`` whenever
    anyone logs."""
    logging = _logging_module()
    if logging is None:
        return []
    out: list[Any] = [logging]
    for v in list(vars(logging).values()):
        if type(v) is type and v.__module__ == "logging":
            out.append(v)
    manager = getattr(logging.Logger, "manager", None)
    if manager is not None:
        out.append(manager)
    return out


def _loggers() -> list[Any]:
    """Every logger of the process (the manager's, placeholders left out) and the root."""
    logging = _logging_module()
    if logging is None:
        return []
    out = [logging.root]
    for v in list(logging.Logger.manager.loggerDict.values()):
        if type(v) is not logging.PlaceHolder:
            out.append(v)
    return out


def _tree_types(objs: list[Any], depth: int = 6) -> set[type]:
    """The classes of what :func:`_loggers` hold, ``depth`` levels down (before the submission is imported), breadth
    first (an object is met first where it is shallowest)."""
    import collections

    seen: set[int] = set()
    found: set[type] = set()
    todo = collections.deque((o, 0) for o in objs)
    while todo:
        v, d = todo.popleft()
        if id(v) in seen or d > depth:
            continue
        seen.add(id(v))
        found.add(type(v))
        if type(v) in (list, tuple, set, frozenset):
            todo.extend((x, d + 1) for x in v)
        elif type(v) is dict:
            todo.extend((x, d + 1) for x in v.values())
        else:
            try:
                todo.extend((x, d + 1) for x in vars(v).values())
            except TypeError:
                pass
    return found


def snapshot_logging() -> None:
    """Remember the classes of the logging tree before the submission is imported (sandbox child);
    :func:`logging_changed` judges the tree later."""
    global _LOGGING_TYPES
    logging = _logging_module()
    if logging is None:
        _LOGGING_TYPES = frozenset()
        return
    own = {v for v in vars(logging).values() if type(v) is type and v.__module__ == "logging"}
    _LOGGING_TYPES = frozenset(_tree_types(_loggers()) | own) - {type}


@functools.lru_cache(maxsize=None)
def _torch_dir() -> str:
    import torch

    return os.path.dirname(os.path.abspath(torch.__file__))


@functools.lru_cache(maxsize=None)
def _trusted_dirs() -> tuple[str, ...]:
    """The folders whose functions the logging tree may hold: PyTorch's, the harness's and logging's (computed once)."""

    logging = _logging_module()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    out = [_torch_dir() + os.sep, here]
    if logging is not None:
        out.append(os.path.dirname(os.path.abspath(logging.__file__)) + os.sep)
    return tuple(out)


def _torch_class(cls: type) -> bool:
    """Whether ``cls`` is a class that a module of PyTorch defines (looked up by identity in that module, whose file
    lies in PyTorch's folder): a handler or formatter PyTorch installs after the snapshot (``torch._logging``)."""
    name = type.__dict__["__module__"].__get__(cls) if "__module__" in type.__dict__["__dict__"].__get__(cls) else None
    if type(name) is not str or not (name == "torch" or name.startswith("torch.")):
        return False
    mod = sys.modules.get(name)
    path = getattr(mod, "__file__", None) if isinstance(mod, types.ModuleType) else None
    if type(path) is not str or not os.path.abspath(path).startswith(_torch_dir()):
        return False
    qual = type.__dict__["__qualname__"].__get__(cls)
    return type(qual) is str and vars(mod).get(qual) is cls


def _log_value_bad(v: Any, dirs: tuple[str, ...], seen: set[int], depth: int,
                   loggers: frozenset[int] = frozenset()) -> str | None:
    """Why ``v``, a value the logging tree holds, is not the harness's, PyTorch's or logging's own, or None. Judged
    with ``type()``, identity, ``vars`` and code objects: no code of the submission runs."""
    t = type(v)
    if t in _LOG_LEAF:
        return None
    if id(v) in seen:
        return None
    seen.add(id(v))
    if depth > 6:  # not followed further (logging reads a logger's own attributes and its handlers' and filters')
        ok = t in (list, tuple, set, frozenset, dict) or t in (_LOGGING_TYPES or ()) or _torch_class(t) \
            or isinstance(v, types.ModuleType) or t in (types.FunctionType, types.MethodType, types.BuiltinFunctionType)
        return None if ok else f"an object of the class {type.__repr__(t)}"
    if t in (list, tuple, set, frozenset):
        for x in v:
            bad = _log_value_bad(x, dirs, seen, depth + 1, loggers)
            if bad:
                return bad
        return None
    if t is dict:
        for k, x in list(v.items()):
            bad = _log_value_bad(k, dirs, seen, depth + 1, loggers) or _log_value_bad(x, dirs, seen, depth + 1, loggers)
            if bad:
                return bad
        return None
    if t in (types.FunctionType, types.MethodType):
        f = getattr(v, "__func__", v)
        code = f.__code__
        if not os.path.abspath(code.co_filename).startswith(dirs):
            return f"the function {f.__qualname__} of {code.co_filename}"
        return None if t is types.FunctionType else _log_value_bad(v.__self__, dirs, seen, depth + 1)
    if t is types.BuiltinFunctionType:
        owner = v.__self__
        return None if owner is None or isinstance(owner, types.ModuleType) else \
            _log_value_bad(owner, dirs, seen, depth + 1)
    if isinstance(v, types.ModuleType):
        return None
    if t not in (_LOGGING_TYPES or ()) and not _torch_class(t):
        return f"an object of the class {type.__repr__(t)}"
    try:
        attrs = object.__getattribute__(v, "__dict__")
    except AttributeError:
        return None  # a stream, a lock: no instance dictionary
    if type(attrs) is not dict:
        return f"a {type.__repr__(t)} whose __dict__ is a {type(attrs).__name__}"
    for k, x in list(attrs.items()):
        if type(k) is not str:
            return f"an attribute of a {type.__repr__(t)} named by a {type(k).__name__}"
        if k == "manager":
            if x is not _logging_module().Logger.manager:
                return "a logger's manager replaced"
            continue
        if k == "parent" and id(x) in loggers:
            continue  # a logger of the manager's: judged on its own (a chain of parents is deeper than the limit)
        bad = _log_value_bad(x, dirs, seen, depth + 1, loggers)
        if bad:
            return f"{k}: {bad}"
    return None


def logging_changed() -> str | None:
    """How the submission changed the process's logging tree since :func:`snapshot_logging`, or None (red team 35).
    L1 admits ``logging.getLogger`` and the log calls (false-rejection hunt 35) and refuses the callback attributes it
    sees (``addFilter``, ``handlers``, ...), but a logger is a mutable object reached by name: ``getLogger().parent =
    P()`` (P's ``level`` a property), ``lg.isEnabledFor = f``, a ``_cache`` entry whose ``__bool__`` computes, or
    ``functools.update_wrapper`` writing an attribute by its string name, all passed L1 and ran the submission's code
    whenever PyTorch, Triton or the harness logged, outside the traced calls (dynamo and Inductor log while the
    compiled baseline is made on a GPU). Every logger (its class, its attributes, its handlers and filters, down to
    their attributes) may hold only plain values, the logging module's and PyTorch's own objects and functions of
    PyTorch, logging or the harness."""
    if _LOGGING_TYPES is None:
        return None
    dirs = _trusted_dirs()
    seen: set[int] = set()
    every = _loggers()
    ids = frozenset(id(lg) for lg in every if type(lg) in (_LOGGING_TYPES or ()))
    for lg in every:
        bad = _log_value_bad(lg, dirs, seen, 0, ids)
        if bad:
            name = dict.get(object.__getattribute__(lg, "__dict__"), "name", "?") \
                if type(lg) in (_LOGGING_TYPES or ()) else "?"
            return (f"the logger {name!r} was changed after the harness started ({bad}): a logger may hold only "
                    "logging's and PyTorch's own objects; a submission may log through it, not change it (its code "
                    "would run whenever anyone logs, outside the traced calls)")
    return None
