"""L3 launch check: what a Triton launch may hand to a kernel, and what a kernel body may read.

On the Triton interpreter a kernel body is plain Python, and every Python object a kernel can reach
runs the submission's code inside it: a constexpr argument whose class binds ``__bool__`` (``if T:``
in the body), a ``defaultdict`` (``D[0]`` inserts a key), an object whose ``__getitem__`` receives a
loaded block (the wrapper then computes on the host), a module-level object the body reads. Such
code runs in a normal launch and not in an L2 ghost replay (the body is skipped), so it tells the two
apart, or it computes outside Triton where no trace sees it. Triton's own argument handling calls
methods of the arguments too, outside any trace: the interpreter's argument copy (``_init_args_hst``)
calls ``untyped_storage()`` of anything with a ``data_ptr``, the GPU binder calls ``data_ptr()``, the
autotuner probes ``hasattr(arg, "dtype")``.

The rule, applied at every launch on every platform (``JITFunction.run``, ``InterpretedFunction.run``,
``Autotuner.run``, ``Heuristics.run``), before Triton touches the arguments: every launch argument
(positional, keyword, the kernel's default values; elements of tuples recursively) must be a Triton
value (:func:`bad_value`):

* a tensor whose type is exactly ``torch.Tensor`` or ``torch.nn.Parameter``;
* exactly ``int``, ``float``, ``bool``, ``str`` or ``None``; a NumPy scalar; a ``torch.dtype``; a
  ``triton.language`` dtype; ``torch.Size``;
* ``tl.constexpr`` holding an allowed value;
* a jit function (``@triton.jit``, and the ``@triton.autotune``/``@triton.heuristics`` wrappers around
  one; ``@triton.constexpr_function``) — its own globals are then checked like the kernel's;
* a ``triton.tools.tensor_descriptor.TensorDescriptor`` (its base tensor, int shape/strides/block
  shape, str padding), a ``triton.reinterpret`` wrapper (``TensorWrapper``) of a tensor, and the
  ``MockTensor`` of ``kernel.warmup``;
* a plain ``tuple``, or an instance of a class made by ``collections.namedtuple`` /
  ``typing.NamedTuple`` to which nothing was added;
* a member of an ``enum.IntEnum`` class to which nothing was added (:func:`_intenum_ok`).

Nothing else: no user classes or subclasses of the types above (an ``int`` subclass, a tensor
subclass), no ``dict``/``defaultdict``/``list`` (mutable: a body could write into it), no object with a
``data_ptr``. Triton 3.6 specializes only tensors, ints, floats, bools, None, tuples and tensor
descriptors as runtime arguments; everything else it accepts only as a ``tl.constexpr``.

Module globals and closure cells a kernel body reads (``LOAD_GLOBAL``/``LOAD_NAME`` names of its code
object and nested code objects, ``co_freevars`` against ``__closure__``), for the kernel and every jit
function it reaches through them, transitively, must be allowed values as above, modules, builtins,
jit functions, or functions and classes defined by Triton itself (:func:`bad_global`) — the same
names the GPU code generator accepts (modules, ``JITCallable``, Triton builtins, dtypes, constexprs,
namedtuples), so a kernel that compiles on a GPU is not rejected here.

Which functions may run as kernel bodies: Triton's and the harness's own, and the submission's, each
judged by the kernel-body rule: those L1 scanned as kernel bodies (:data:`KERNEL_BODIES`, set by the
sandbox child from ``verify.scan.kernel_body_defs`` before the submission is imported:
decorated with, or handed by name to, ``triton.jit``/``autotune``/``heuristics``/
``constexpr_function``), and any other function of the submission file that runs as one
(``[triton.jit][0](f)``, a decorator of its own): recorded in :data:`UNSCANNED` and scanned as a
kernel body by the verifier. A function from anywhere else (``exec``) is rejected. On GPUs the source
text Triton compiles (``JITFunction._src``) must also define the imported function
(:func:`source_matches`); on the interpreter the same holds for the source it rewrites
(``launch._install_verified_rewriter``). Together: the body that runs is the body L1 judged.

Nothing here runs the submission's code: types are read with ``type()``, never ``isinstance`` (which
reads ``__class__``), and class dictionaries only of classes whose metaclass is ``type``.

Cost: the argument check is a loop of ``type()`` look-ups (a few hundred ns per argument); the global
check is computed once per kernel and re-validated per launch by identity (a dict ``get`` per global
read). A violation is recorded in the sandbox state (``state.STATE.launch_violations``) before the
launch raises, so a submission that catches the error still fails (the verifier reads the record).
"""
from __future__ import annotations

import builtins
import collections
import dis
import enum
import os
import sys
import types
from typing import Any

import numpy as np
import torch

from . import kernel_guard as _kernel_guard

#: What a launch may pass, for messages.
ALLOWED_ARGS = ("launch arguments must be tensors, numbers, strings, dtypes, constexprs, jit functions or tensor "
                "descriptors")
ALLOWED_GLOBALS = ("a kernel body may read only modules, builtins, jit functions, Triton's own functions and "
                   "classes, and constant values allowed as launch arguments")

_MAX_DEPTH = 8
_ABSENT = object()


class LaunchArgumentError(TypeError):
    """A launch handed a kernel something other than a Triton value (raised after the violation is
    recorded; catching it does not undo the record)."""


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


#: The sandbox modules that install hooks (split from the former ``hooks.py``): functions defined there count
#: as the harness's own, like Triton's, where a kernel body reads them as globals.
HOOK_FILES = ("state.py", "host_reads.py", "launch.py", "interpreter.py", "provenance.py", "dispatch.py")


class _Types:
    """Exact types, snapshot when the hooks are installed (before the submission is imported: a class
    it defines later is never among them)."""

    def __init__(self) -> None:
        import triton
        import triton.language as tl
        from triton.runtime import autotuner, jit

        self.tl = tl
        self.triton_dir = os.path.dirname(os.path.abspath(triton.__file__)) + os.sep
        here = os.path.dirname(os.path.abspath(__file__))
        #: this module and the hook modules (the interpreter's libdevice stand-ins are defined there)
        self.harness_files = {os.path.abspath(__file__)} | {os.path.join(here, f) for f in HOOK_FILES}
        #: the harness package (its own kernels, e.g. the L2 flush of sandbox/timed_loop.py)
        self.harness_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
        np_scalars = {t for t in _subclasses(np.generic) if t.__module__ == "numpy"}
        tl_dtypes = {tl.dtype} | {t for t in _subclasses(tl.dtype) if t.__module__.startswith("triton.")}
        #: leaves: values that hold nothing else to check
        self.leaf: frozenset[type] = frozenset(
            {int, float, bool, str, type(None), torch.dtype, torch.Tensor, torch.nn.Parameter, torch.Size}
            | np_scalars | tl_dtypes)
        self.constexpr = tl.constexpr
        jit_types = {jit.JITFunction, autotuner.Autotuner, autotuner.Heuristics}
        jit_types |= {t for t in _subclasses(jit.JITCallable) if t.__module__.startswith("triton.")}
        try:
            from triton.runtime.interpreter import InterpretedFunction

            jit_types.add(InterpretedFunction)
        except ImportError:  # pragma: no cover - older Triton
            pass
        self.jit: frozenset[type] = frozenset(jit_types)
        try:
            from triton.tools.tensor_descriptor import TensorDescriptor

            self.descriptor: type | None = TensorDescriptor
        except ImportError:  # pragma: no cover - older Triton
            self.descriptor = None
        self.wrapper = getattr(jit, "TensorWrapper", None)
        self.mock = getattr(jit, "MockTensor", None)
        ref = collections.namedtuple("_Ref", "a")
        self.nt_ref = ref
        self.nt_keys = frozenset(ref.__dict__) - {"a"} | {"__annotations__", "__orig_bases__"}
        self.tuplegetter = type(ref.__dict__["a"])
        #: namedtuple classes approved: class -> its dict items when approved (re-checked by identity)
        self.nt_ok: dict[type, tuple] = {}
        #: IntEnum classes approved, likewise
        self.enum_ok: dict[type, tuple] = {}
        #: the enum base classes' dictionaries when the hooks were installed (before the submission is imported):
        #: a member's comparison, hash or bool also reads them (red team 27: ``for c in (enum.IntEnum,):
        #: c.__eq__ = f`` passed L1 and ran f in the kernel body)
        self.enum_bases = dict_snapshot((enum.IntEnum, enum.ReprEnum, enum.Enum))
        #: the code objects of the enum module's own functions (what an IntEnum class may hold as functions)
        self.enum_codes = frozenset(
            id(f.__code__) for base in (enum.Enum, enum.ReprEnum, enum.IntEnum) for v in vars(base).values()
            for f in (getattr(v, "__func__", v),) if type(f) is types.FunctionType)


_T: _Types | None = None


def dict_snapshot(objs: Any) -> list[tuple[Any, tuple]]:
    """``(object, its dictionary's items)`` of each distinct object of ``objs``: the state the enum base classes
    (:class:`_Types`) and Triton's modules (:func:`snapshot_triton`) are compared with later, by identity."""
    seen: set[int] = set()
    out = []
    for obj in objs:
        if id(obj) not in seen:
            seen.add(id(obj))
            out.append((obj, tuple(vars(obj).items())))
    return out


def types_() -> _Types:
    global _T
    if _T is None:
        _T = _Types()
    return _T


def install() -> None:
    """Snapshot the allowed types now (call before the submission is imported)."""
    types_()


# -- values -------------------------------------------------------------------------------------


def _still_approved(approved: dict[type, tuple], cls: type) -> bool:
    """Whether ``cls`` was approved before and its dictionary still holds exactly the same objects."""
    d = cls.__dict__
    snap = approved.get(cls)
    return snap is not None and len(snap) == len(d) and all(
        k == k2 and v is v2 for (k, v), (k2, v2) in zip(snap, d.items()))


def _namedtuple_defaults_ok(cls: type, jits: list | None, depth: int) -> bool:
    """The field defaults of a namedtuple class (``__new__.__defaults__``, which a kernel body's ``Cls()`` fills in,
    and ``_field_defaults``) are Triton values (red team 38: a default holding an object of the submission's class
    reached the kernel body as ``Cls().exp(v)``, its ``__call__`` run by the interpreter on loaded values; the GPU's
    compiler ran it too, at compile time, where it returned its argument). Jit functions among them go to ``jits``."""
    d = cls.__dict__
    new = d.get("__new__")
    if type(new) is staticmethod:
        new = new.__func__
    fd = d.get("_field_defaults")
    values = list(new.__defaults__ or ()) if type(new) is types.FunctionType else []
    values += list(fd.values()) if type(fd) is dict else []
    return all(bad_value(v, jits, depth + 1) is None for v in values)


def _namedtuple_ok(cls: type, T: _Types, jits: list | None = None, depth: int = 0) -> bool:
    """``cls`` is a class made by ``collections.namedtuple`` (or ``typing.NamedTuple``) with nothing
    added: no method of its own, every generated method the generator's, Triton values as field defaults."""
    if type(cls) is not type:  # a metaclass of its own could run code on attribute reads
        return False
    d = cls.__dict__
    if _still_approved(T.nt_ok, cls):
        # the defaults each time: __new__.__defaults__ can be rebound without changing the class's dictionary
        return _namedtuple_defaults_ok(cls, jits, depth)
    if cls.__bases__ != (tuple,):
        return False
    fields = d.get("_fields")
    if type(fields) is not tuple or not all(type(f) is str for f in fields):
        return False
    if not set(d) <= T.nt_keys | set(fields):
        return False
    if not all(type(d[f]) is T.tuplegetter for f in fields):
        return False
    ref = T.nt_ref.__dict__
    for name in ("_replace", "__repr__", "_asdict", "__getnewargs__"):
        f = d.get(name)
        if type(f) is not types.FunctionType or f.__code__ is not ref[name].__code__:
            return False
    make = d.get("_make")
    if type(make) is not classmethod or getattr(make.__func__, "__code__", None) is not ref["_make"].__func__.__code__:
        return False
    new = d.get("__new__")
    if type(new) is staticmethod:  # type() wraps a class's __new__ in a staticmethod
        new = new.__func__
    if type(new) is not types.FunctionType or new.__globals__.get("_tuple_new") is not tuple.__new__ \
            or new.__globals__.get("__builtins__") != {}:
        return False
    for name in ("__slots__", "__match_args__", "__orig_bases__"):
        if name in d and type(d[name]) is not tuple:
            return False
    for name in ("_field_defaults", "__annotations__"):
        if name in d and type(d[name]) is not dict:
            return False
    if "__doc__" in d and type(d["__doc__"]) not in (str, type(None)) or type(d.get("__module__")) is not str:
        return False
    if not _namedtuple_defaults_ok(cls, jits, depth):
        return False
    T.nt_ok[cls] = tuple(d.items())
    return True


#: the standard enum metaclass (``EnumType`` from Python 3.11, ``EnumMeta`` before; the same class)
_ENUM_META = getattr(enum, "EnumType", enum.EnumMeta)
#: the enum module's bookkeeping values that cannot be called (builtins and descriptors are checked one by one in
#: _intenum_ok, and the containers' elements too)
_ENUM_PLAIN = (str, bool, int, type(None))
_ENUM_CONTAINERS = (list, dict, tuple)


def _intenum_ok(cls: type, T: _Types) -> bool:
    """``cls`` is an ``enum.IntEnum`` made by the standard ``enum`` module with nothing added: its metaclass is
    ``enum.EnumType``, its only base ``IntEnum``, and its dictionary holds its members and the enum module's own
    bookkeeping (no function, property or descriptor of the submission's: nothing that could run when a kernel
    compares, indexes or branches on a member). Its members are then plain ints to Triton (red team 26: an
    IntEnum mode passed as a constexpr is a common, legal style). Read with ``type()`` and the class dictionary
    only."""
    if type(cls) is not _ENUM_META or cls.__bases__ != (enum.IntEnum,):
        return False
    for base, items in T.enum_bases:
        now = vars(base)
        if len(now) != len(items) or any(now.get(k, _ABSENT) is not v for k, v in items):
            return False  # a base class changed since the hooks were installed
    d = cls.__dict__
    if _still_approved(T.enum_ok, cls):
        return True
    for k, v in d.items():
        t = type(v)
        if t is cls:
            # a member: its instance dictionary holds the enum module's plain values only (a submission object
            # as _name_ would run its code where Triton formats the constexpr, red team 27)
            md = object.__getattribute__(v, "__dict__")
            if any(type(x) not in (str, int, bool, type(None)) and x is not cls for x in md.values()):
                return False
            continue
        if t in _ENUM_PLAIN or v is int:
            continue
        if t in _ENUM_CONTAINERS and k.startswith("__") and k.endswith("__"):
            continue  # __annotations__, __static_attributes__: no enum-module code reads their elements
        if t in _ENUM_CONTAINERS:
            # _member_map_, _value2member_map_, _member_names_, ...: names, values and members only (red team 27:
            # a key of the submission's class in _value2member_map_ runs its __eq__ where the enum module's
            # __new__ looks a value up)
            items = [*v.keys(), *v.values()] if t is dict else list(v)
            if any(type(x) not in _ENUM_PLAIN and type(x) is not cls for x in items):
                return False
            continue
        if t is types.BuiltinFunctionType:
            # int.__new__ (_new_member_); not a bound method of another object (red team 27: __eq__ =
            # generator.send ran the submission's generator at every MODE == x in the kernel body) nor a
            # module's function (exec)
            if v.__self__ is int or v.__self__ is object:
                continue
            return False
        if t in (types.WrapperDescriptorType, types.MethodDescriptorType):
            if v.__objclass__ is int or v.__objclass__ is object:
                continue  # int's and object's own slots (_value_repr_, __format__)
            return False
        if t is staticmethod or t is classmethod:
            # Python >= 3.12 stores the enum module's _generate_next_value_ as a staticmethod in every class
            v = v.__func__
            t = type(v)
        if t is types.FunctionType and id(v.__code__) in T.enum_codes and v.__globals__ is vars(enum) \
                and v.__closure__ is None and v.__code__.co_name == k:
            # the enum module's own function (by code object: its __module__ can be rewritten) under its own
            # name (red team 27: __eq__ = classmethod(enum.Enum.__new__) looked MODE == x up in the class's
            # value map, whose keys the submission may set, running their __eq__ in the kernel body)
            continue
        return False
    T.enum_ok[cls] = tuple(d.items())
    return True


#: the attributes ``torch.amp.custom_fwd`` writes on its first argument (a ``torch.autograd.Function``'s ctx)
CUSTOM_FWD_ATTRS = frozenset({"_dtype", "_fwd_used_autocast"})


def amp_tags_only(attrs: Any) -> bool:
    """Whether a tensor's ``__dict__`` holds only what ``torch.amp.custom_fwd`` writes on its first argument, with
    the types it writes (``_dtype``: a ``torch.dtype``; ``_fwd_used_autocast``: a ``bool``). The decorator put on a
    plain wrapper (PyTorch documents it for an ``autograd.Function``'s forward) tags the caller's tensor with them
    (false-rejection hunt 33). Neither name is a method or attribute of ``torch.Tensor`` that the harness, PyTorch
    or Triton reads, so they shadow nothing; the child clears them when the call ends (``dispatch.plain_result``).
    Judged with ``type()`` only: no code of the submission runs."""
    if type(attrs) is not dict or not attrs:
        return False
    for k, v in attrs.items():
        if type(k) is not str or k not in CUSTOM_FWD_ATTRS:  # a str subclass would hash and compare as it likes
            return False
        if type(v) is not (torch.dtype if k == "_dtype" else bool):
            return False
    return True


def custom_fwd_hint(attrs: Any) -> str:
    """A hint for the attribute violations where a tensor carries only what ``torch.amp.custom_fwd`` writes: the
    decorator put on a plain wrapper (false-rejection hunt 33), whose first argument is the caller's tensor, not the
    ctx of a ``torch.autograd.Function``'s forward. ``""`` otherwise. Reads the names only."""
    keys = list(attrs) if type(attrs) is dict else []
    if not keys or not all(type(k) is str for k in keys):  # a str subclass would hash and compare as it likes
        return ""
    if set(keys) <= CUSTOM_FWD_ATTRS:
        return ("; torch.amp.custom_fwd writes these on its first argument: it decorates a torch.autograd.Function's "
                "forward (first argument ctx), and on a plain wrapper it tags the caller's tensor")
    return ""


def _carries_attrs(v: Any) -> bool:
    """Whether ``v`` is a tensor with instance attributes: the harness calls tensor methods on launch arguments where
    nothing is traced (``note_launch``, the interpreter's argument copies), and an instance attribute shadows the
    method (red team 29c: ``functools.update_wrapper(buf, h, ())`` wrote ``storage_offset``/``untyped_storage`` into
    a tensor's ``__dict__`` past the child's Tensor.__setattr__ guard, and the shadow computed the result there)."""
    t = type(v)
    return (t is torch.Tensor or t is torch.nn.Parameter) and bool(v.__dict__) and not amp_tags_only(v.__dict__)


def bad_value(v: Any, jits: list | None = None, depth: int = 0) -> tuple[str, Any] | None:
    """Check one launch argument (or a constant a kernel body reads).

    Returns None when ``v`` is a Triton value (module docstring), else ``(path, obj)``: the offending
    object and where it sits inside ``v`` (``""``, ``"[1]"``, ``".base"``, ``".value"``). Jit functions
    found are appended to ``jits`` (their globals must be checked too). Runs no code of ``v``'s class.
    """
    T = types_()
    t = type(v)
    if t in T.leaf:
        return ("", v) if _carries_attrs(v) else None
    if depth > _MAX_DEPTH:
        return "", v
    if type(t) is _ENUM_META and _intenum_ok(t, T):
        return None
    if t is T.constexpr:
        bad = bad_value(v.value, jits, depth + 1)
        return None if bad is None else (".value" + bad[0], bad[1])
    if t is tuple or (issubclass(t, tuple) and _namedtuple_ok(t, T, jits, depth)):
        for i, e in enumerate(tuple.__iter__(v)):
            if type(e) in T.leaf and not _carries_attrs(e):
                continue
            bad = bad_value(e, jits, depth + 1)
            if bad is not None:
                return f"[{i}]" + bad[0], bad[1]
        return None
    if t in T.jit:
        if jits is not None:
            jits.append(v)
        return None
    if t is T.descriptor:
        base = getattr(v, "base", _ABSENT)
        bad = bad_value(base, jits, depth + 1)
        if bad is not None or type(base) not in (torch.Tensor, torch.nn.Parameter, T.wrapper):
            return (".base" + bad[0], bad[1]) if bad is not None else (".base", base)
        for name in ("shape", "strides", "block_shape"):
            seq = getattr(v, name, _ABSENT)
            if type(seq) not in (list, tuple, torch.Size):
                return "." + name, seq
            for i, e in enumerate(list.__iter__(seq) if type(seq) is list else tuple.__iter__(seq)):
                if type(e) is not int and (type(e) is not T.constexpr or type(e.value) is not int):
                    return f".{name}[{i}]", e
        if type(getattr(v, "padding", None)) is not str:
            return ".padding", getattr(v, "padding", None)
        return None
    if t is T.wrapper:
        if type(v.base) not in (torch.Tensor, torch.nn.Parameter) or _carries_attrs(v.base):
            return ".base", v.base
        bad = bad_value(v.dtype, jits, depth + 1)
        return None if bad is None else (".dtype" + bad[0], bad[1])
    if t is T.mock:
        bad = bad_value(v.dtype, jits, depth + 1)
        if bad is None and type(v.shape) in (list, tuple) and all(type(s) is int for s in v.shape):
            return None
        return ".dtype", v.dtype
    return "", v


def _qualname(t: type) -> str:
    try:
        return str(type.__dict__["__qualname__"].__get__(t))
    except Exception:  # noqa: BLE001 - cannot happen for a class; cosmetic only
        return "object"


def _module(t: type) -> str:
    try:
        return str(type.__dict__["__module__"].__get__(t))
    except Exception:  # noqa: BLE001
        return ""


def describe(obj: Any) -> str:
    """``a _Tally``, ``a defaultdict``, ``a _MyInt (a subclass of int)``, ``the class _P`` (runs no code
    of the object's class)."""
    t = type(obj)
    if issubclass(t, type):
        return f"the class {_qualname(obj)}"
    name = _qualname(t)
    what = f"a {name}"
    base = next((b for b in (bool, int, float, str, tuple, list, dict, torch.Tensor) if issubclass(t, b)), None)
    if base is not None and t is not base and _module(t) != "builtins":
        what += f" (a subclass of {'torch.' if base is torch.Tensor else ''}{base.__name__})"
    return what


# -- globals ------------------------------------------------------------------------------------


def _triton_defined(v: Any, T: _Types) -> bool:
    """A function or class that Triton (or this harness's interpreter patches) defines."""
    t = type(v)
    if t is types.FunctionType:
        f = v.__code__.co_filename
        return f.startswith(T.triton_dir) or f in T.harness_files
    if issubclass(t, type):  # read through type's own descriptors: no metaclass code runs
        mod = _module(v)
        name = type.__dict__["__name__"].__get__(v)
        if mod == "builtins":
            return getattr(builtins, name, None) is v
        if mod == "triton" or mod.startswith("triton."):
            m = sys.modules.get(mod)
            return m is not None and m.__dict__.get(name) is v
    return False


def bad_global(v: Any, jits: list) -> tuple[str, Any] | None:
    """Check a module global or closure cell a kernel body reads: :func:`bad_value` values, modules,
    builtin functions of a module, functions and classes defined by Triton, namedtuple classes."""
    T = types_()
    t = type(v)
    if t is types.ModuleType:
        return None
    if t is types.BuiltinFunctionType and type(v.__self__) is types.ModuleType:
        return None
    if _triton_defined(v, T):
        return None
    if issubclass(t, type) and issubclass(v, tuple) and v is not tuple and _namedtuple_ok(v, T, jits):
        return None
    return bad_value(v, jits)


def _code_names(code: types.CodeType) -> set[str]:
    """Global names a code object (and the code objects nested in it) loads."""
    names: set[str] = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(ins.argval)
    for c in code.co_consts:
        if type(c) is types.CodeType:
            names |= _code_names(c)
    return names


_NAMES: dict[types.CodeType, tuple[str, ...]] = {}

#: kernel (jit object) -> (its entries, the message of a violation or None). An entry is
#: ``(kind, container, key, value, recheck)``: kind 0 ``container.get(key)``, 1 a closure cell's
#: contents, 2 ``getattr(container, key)``; recheck: the value must be checked again (it can change
#: without being rebound: a constexpr's value, a namedtuple class).
_CACHE: dict[int, tuple[Any, list[tuple]]] = {}
_CACHE_MAX = 4096

#: values whose verdict cannot change while they stay bound (identity re-validation suffices)
_STABLE = (types.ModuleType, types.BuiltinFunctionType, types.FunctionType)


def _stable(v: Any, T: _Types) -> bool:
    t = type(v)
    return t in T.leaf or t in _STABLE or t in T.jit or issubclass(t, type) and not issubclass(v, tuple)


def _collect(obj: Any, entries: list[tuple], seen: set[int], T: _Types) -> tuple[str, Any, str] | None:
    """Walk a jit object (autotune/heuristics wrappers down to the Python function), its globals and
    closure cells, its defaults, and every jit function reached, recording entries. Returns the first
    violation ``(where, obj, kernel name)`` or None."""
    while type(obj) in T.jit:
        if id(obj) in seen:
            return None
        seen.add(id(obj))
        inner = obj.__dict__.get("fn", _ABSENT) if hasattr(obj, "__dict__") else _ABSENT
        entries.append((2, obj, "fn", inner, False))
        src = obj.__dict__.get("_src") if hasattr(obj, "__dict__") else None
        if KERNEL_BODIES is not None and type(src) is str and type(inner) is types.FunctionType:
            ok = _SRC_OK.get(id(obj))
            if ok is None or ok[0] is not obj or ok[1] is not src:
                if not source_matches(src, inner):
                    return ("its source as Triton compiles it does not define the function Python imported "
                            "(a second 'def' line before it), so a GPU would run another body than L1 "
                            "scanned"), inner, inner.__name__
                _SRC_OK[id(obj)] = (obj, src)
            entries.append((2, obj, "_src", src, False))
        obj = inner
    fn = obj
    if type(fn) is not types.FunctionType:
        return None
    if id(fn) in seen:
        return None
    seen.add(id(fn))
    name = fn.__name__
    code = fn.__code__
    where = _unscanned_body(code, T)
    if where is not None:
        return where, fn, name
    entries.append((2, fn, "__code__", code, False))
    names = _NAMES.get(code)
    if names is None:
        names = _NAMES[code] = tuple(sorted(_code_names(code)))
    g = fn.__globals__
    b = fn.__builtins__
    jits: list = []
    for n in names:
        if n in g:
            v = g[n]
            entries.append((0, g, n, v, not _stable(v, T)))
            bad = bad_global(v, jits)
            if bad is not None:
                return f"global {n}{bad[0]}", bad[1], name
        else:
            v = b.get(n, _ABSENT) if type(b) is dict else getattr(b, n, _ABSENT)
            if v is _ABSENT:
                continue
            entries.append((0 if type(b) is dict else 2, b, n, v, False))
            if getattr(builtins, n, _ABSENT) is not v:
                bad = bad_global(v, jits)
                if bad is not None:
                    return f"builtin {n}{bad[0]}", bad[1], name
    cells = fn.__closure__ or ()
    for n, cell in zip(code.co_freevars, cells):
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            v = _ABSENT
        entries.append((1, cell, n, v, v is not _ABSENT and not _stable(v, T)))
        if v is not _ABSENT:
            bad = bad_global(v, jits)
            if bad is not None:
                return f"closure variable {n}{bad[0]}", bad[1], name
    for attr in ("__defaults__", "__kwdefaults__"):
        d = getattr(fn, attr)
        entries.append((2, fn, attr, d, d is not None))
        if d is None:
            continue
        items = enumerate(d) if attr == "__defaults__" else d.items()
        argnames = code.co_varnames[:code.co_argcount]
        for k, v in items:
            bad = bad_value(v, jits)
            if bad is not None:
                label = argnames[len(argnames) - len(d) + k] if attr == "__defaults__" else k
                return f"default of argument {label}{bad[0]}", bad[1], name
    for j in jits:
        found = _collect(j, entries, seen, T)
        if found is not None:
            return found
    return None


def _recheck(entries: list[tuple]) -> bool:
    """Whether every entry still holds its value (and rechecked values still pass)."""
    for kind, c, k, v, again in entries:
        if kind == 0:
            cur = c.get(k, _ABSENT)
        elif kind == 1:
            try:
                cur = c.cell_contents
            except ValueError:
                cur = _ABSENT
        else:
            cur = getattr(c, k, _ABSENT)
        if cur is not v:
            return False
        if again:
            if k in ("__defaults__", "__kwdefaults__"):
                if any(bad_value(x) is not None for x in (v if type(v) is tuple else v.values())):
                    return False
            elif bad_global(v, []) is not None:
                return False
    return True


_CODE_FLAGS = 0x1 | 0x2 | 0x4 | 0x8 | 0x20 | 0x80 | 0x100 | 0x200


def code_matches(a: Any, b: Any) -> bool:
    """Whether code objects ``a`` and ``b`` hold the same program: bytecode, names, constants (nested
    code objects recursively), argument layout; line numbers and qualified names are not compared."""
    if type(a) is not type(b):
        return False
    if not isinstance(a, type(code_matches.__code__)):
        return repr(a) == repr(b)
    # flags of the code itself (optimized, newlocals, varargs, varkeywords, generator, coroutine, ...),
    # not CO_NESTED or the __future__ flags the module compiled with
    if (a.co_code, a.co_names, a.co_varnames, a.co_freevars, a.co_cellvars, a.co_argcount,
            a.co_posonlyargcount, a.co_kwonlyargcount, a.co_flags & _CODE_FLAGS, a.co_name) != (
            b.co_code, b.co_names, b.co_varnames, b.co_freevars, b.co_cellvars, b.co_argcount,
            b.co_posonlyargcount, b.co_kwonlyargcount, b.co_flags & _CODE_FLAGS, b.co_name):
        return False
    return len(a.co_consts) == len(b.co_consts) and all(
        code_matches(x, y) for x, y in zip(a.co_consts, b.co_consts))


def module_import_names(fn: Any) -> list[str]:
    """Names bound by ``import`` statements in the module scope of the file that defines ``fn``."""
    import ast
    import linecache

    try:
        tree = ast.parse("".join(linecache.getlines(fn.__code__.co_filename)))
    except (SyntaxError, ValueError):
        return []
    names: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return sorted(n for n in names if n.isidentifier())


#: The name of the enclosing function :func:`scoped_module` wraps a nested kernel's definition in (not an
#: identifier a submission can spell, so it cannot collide with one of its names).
SCOPE_NAME = "kgb enclosing scope"


def scoped_module(body: list[Any], fn: types.FunctionType, prelude: bool = True) -> Any:
    """An ``ast.Module`` that defines ``body`` (one ``def`` of ``fn``, parsed or transformed) in a scope
    like the one ``fn`` was defined in, so that it compiles to comparable bytecode:

    * with ``prelude``, the names the file's module scope binds by ``import`` are bound by imports
      first (CPython compiles ``m.f(...)`` differently when ``m`` is such a name);
    * when ``fn`` has free variables (a kernel made inside a factory function, closing over its
      arguments or a local import), the ``def`` sits inside an enclosing function (named
      :data:`SCOPE_NAME`) that binds exactly those names, so the body reads them as closure cells
      (``LOAD_DEREF``) as the imported function does, and every other name as a global.

    The enclosing function is built from parsed text (not AST constructors), so the module is valid on
    every Python version the harness runs on.
    """
    import ast

    stmts: list[Any] = []
    if prelude:
        stmts += ast.parse("".join(f"import sys as {n}\n" for n in module_import_names(fn))).body
    free = fn.__code__.co_freevars
    if free:
        outer = ast.parse(f"def _outer():\n    {', '.join(free)}{',' if len(free) == 1 else ''} = "
                          f"{', '.join(['None'] * len(free))}{',' if len(free) == 1 else ''}\n").body[0]
        outer.name = SCOPE_NAME
        outer.body = [*outer.body, *body]
        stmts.append(outer)
    else:
        stmts += list(body)
    module = ast.Module(body=stmts, type_ignores=[])
    ast.fix_missing_locations(module)
    return module


def scoped_code(code: types.CodeType, fn: types.FunctionType) -> types.CodeType | None:
    """The code object of ``fn``'s definition inside ``code``, the compiled :func:`scoped_module`:
    None unless exactly one definition of that name is there."""
    consts = code.co_consts
    if fn.__code__.co_freevars:
        outer = [c for c in consts if type(c) is types.CodeType and c.co_name == SCOPE_NAME]
        if len(outer) != 1:
            return None
        consts = outer[0].co_consts
    mine = [c for c in consts if type(c) is types.CodeType and c.co_name == fn.__name__]
    return mine[0] if len(mine) == 1 else None


def closure_for(code: types.CodeType, fn: types.FunctionType) -> tuple | None:
    """The closure cells a function built from ``code`` (a :func:`scoped_code` of ``fn``, possibly
    transformed) needs: ``fn``'s own cells, matched by name, so the new function reads the very cells
    the imported one reads. None when ``code`` has no free variables."""
    if not code.co_freevars:
        return None
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    return tuple(cells[n] if n in cells else types.CellType() for n in code.co_freevars)


def source_matches(src: str, fn: types.FunctionType) -> bool:
    """Whether the source text ``src`` that Triton will compile for ``fn`` (a GPU ``JITFunction``'s
    ``_src``: from the first line of its source that starts with ``def name(``, a line inside a
    decorator's string included) defines the code object Python built for ``fn`` at import, the one
    L1 scanned. ``src`` is compiled in a scope like ``fn``'s (:func:`scoped_module`): a kernel made in a
    factory and closing over its variables compares as the nested function it is."""
    import ast

    try:
        tree = ast.parse(src)
        code = compile(scoped_module(tree.body, fn), fn.__code__.co_filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return False
    mine = scoped_code(code, fn)
    return mine is not None and code_matches(mine, fn.__code__)


_SRC_OK: dict[int, tuple[Any, str]] = {}


#: ``(name, first line)`` of the submission's functions that ran as kernel bodies although the
#: file-level scan did not hold them to the kernel-body rule (made kernels in a way it does not follow:
#: a decorator of the submission's own that calls ``triton.jit``, a jit call in a comprehension): the
#: child reports them with every answer and the verifier scans each as a kernel body
#: (``verify.scan.scan_kernel_body``); never cleared.
UNSCANNED: list[tuple[str, int]] = []

#: Set by the sandbox child before it imports the submission: ``(file, defs)``, the submission's
#: absolute path and the ``(name, line)`` of its function definitions that L1 holds to the kernel-body
#: rule (``verify.scan.kernel_body_defs``). None (tests, tools): not enforced.
KERNEL_BODIES: tuple[str, frozenset[tuple[str, int]]] | None = None


def name_submission(submission: str) -> None:
    """Set :data:`KERNEL_BODIES` for the submission file ``submission``: its absolute path and the kernel bodies L1
    scanned in it, the file decoded as Python decodes it (coding cookie, BOM); a file that cannot be read or decoded
    names its path with no kernel bodies (its import fails on its own). The sandbox child calls this before the
    submission is imported; ``kgb repro`` and ``bench/compile_check.py`` do the same, so that what answers only the
    submission's own frames (the interpreter's CUDA stand-ins, the host-read budget) answers there as in a job."""
    import importlib.util

    from ..verify.scan import kernel_body_defs

    global KERNEL_BODIES
    path = os.path.abspath(submission)
    try:
        with open(path, "rb") as f:
            source = importlib.util.decode_source(f.read())
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        source = ""
    KERNEL_BODIES = (path, kernel_body_defs(source))


def _unscanned_body(code: types.CodeType, T: _Types) -> str | None:
    """Where the function of ``code``, about to run as a kernel or jit function, was not scanned as a
    kernel body: None for the submission's scanned definitions and for Triton's and the harness's own
    functions, else a description (red-team: ``triton.jit(f)`` on a function L1 read as host code; any
    other way of turning a function into a kernel is closed the same way)."""
    if KERNEL_BODIES is None:
        return None
    f = os.path.abspath(code.co_filename)
    if f.startswith(T.triton_dir) or f.startswith(T.harness_dir):
        return None
    path, defs = KERNEL_BODIES
    key = (code.co_name, code.co_firstlineno)
    if f == path:
        if key not in defs and key not in UNSCANNED and len(UNSCANNED) < 16:
            UNSCANNED.append(key)  # the verifier scans it as a kernel body (verify/session.py)
        return None if key in defs or key in UNSCANNED else "its body could not be recorded for a scan"
    return (f"its body (defined at {code.co_filename}:{code.co_firstlineno}) is not a function of the submission "
            f"file, so L1 never scanned it: only the submission's functions run as kernels")


def check_globals(kernel: Any) -> str | None:
    """The globals, closure cells and defaults ``kernel`` (a jit object) and the jit functions it
    reaches read: None when allowed, else the violation's message."""
    T = types_()
    hit = _CACHE.get(id(kernel))
    if hit is not None and hit[0] is kernel and _recheck(hit[1]):
        return None
    entries: list[tuple] = []
    found = _collect(kernel, entries, set(), T)
    if found is not None:
        where, obj, name = found
        if where.startswith("its "):
            return f"kernel {name}: {where}"
        return f"kernel {name}: {where} is {describe(obj)} ({ALLOWED_GLOBALS})"
    if len(_CACHE) >= _CACHE_MAX:  # kernels made per call (a factory without a cache): start again
        _CACHE.clear()
        _NAMES.clear()
    _CACHE[id(kernel)] = (kernel, entries)
    return None


def kernel_name(kernel: Any) -> str:
    T = types_()
    obj = kernel
    for _ in range(8):
        if type(obj) not in T.jit:
            break
        obj = obj.__dict__.get("fn", None)
    return obj.__name__ if type(obj) is types.FunctionType else type(kernel).__name__


_RESERVED = frozenset({"grid", "warmup"})


def check_launch(kernel: Any, args: tuple, kwargs: dict) -> str | None:
    """Check one launch of ``kernel`` (a jit, autotune or heuristics object) with ``args`` and
    ``kwargs`` (``grid``/``warmup`` excluded), and the globals its body reads. Returns None when the
    launch is allowed, else the violation's message (naming the kernel, the argument and its type)."""
    T = types_()
    leaf = T.leaf
    jits: list = []
    bad = None
    where = ""
    odd = next((k for k in kwargs if type(k) is not str), None)  # read with type() only: no method of it runs
    if odd is not None:  # rt40: Triton hashes the names inside its untraced autotune benchmarking (its __hash__)
        return f"kernel {kernel_name(kernel)}: a keyword's name is a {type(odd).__name__}, not a plain string"
    for i, v in enumerate(args):
        if type(v) in leaf and not _carries_attrs(v):
            continue
        bad = bad_value(v, jits)
        if bad is not None:
            names = getattr(kernel, "arg_names", None) or ()
            where = names[i] if i < len(names) else f"#{i}"
            break
    if bad is None:
        for k, v in kwargs.items():
            if (type(v) in leaf and not _carries_attrs(v)) or k in _RESERVED:
                continue
            bad = bad_value(v, jits)
            if bad is not None:
                where = k
                break
    if bad is not None and _carries_attrs(bad[1]):
        names = ", ".join(repr(k) for k in list(bad[1].__dict__)[:3])
        return (f"kernel {kernel_name(kernel)}: argument {where}{bad[0]} is a tensor that carries Python attributes "
                f"({names}): the harness calls tensor methods on launch arguments outside the traced call, and an "
                f"instance attribute would replace them{custom_fwd_hint(bad[1].__dict__)}")
    if bad is not None:
        return (f"kernel {kernel_name(kernel)}: argument {where}{bad[0]} is {describe(bad[1])} "
                f"({ALLOWED_ARGS})")
    msg = _kernel_guard.shadowed_entry(kernel, kernel_name) or _kernel_guard.foreign_options(kernel, kernel_name) \
        or check_globals(kernel)
    if msg is not None:
        return msg
    for j in jits:
        msg = check_globals(j)
        if msg is not None:
            return msg
    return None
