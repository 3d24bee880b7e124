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

# -- Triton's own modules and classes ------------------------------------------------------------

#: (object, its dictionary's items) of Triton's language modules and their classes, taken just before the
#: submission is imported (:func:`snapshot_triton`); None until then.
_TRITON_SNAPSHOT: list[tuple[Any, tuple]] | None = None


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
    return out


def snapshot_triton() -> None:
    """Remember the dictionaries of ``triton``, the ``triton.language`` modules and the classes they define
    (``tl.tensor``, ``tl.constexpr``, ...), after the harness's own interpreter patches and before the submission
    is imported (sandbox child). :func:`triton_changed` compares them later."""
    global _TRITON_SNAPSHOT
    _TRITON_SNAPSHOT = dict_snapshot(_triton_objects())


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
                return f"{name}.{k} was changed after the harness started ({ALLOWED_GLOBALS})"
        if len(now) != len(items):
            old = {k for k, _ in items}
            for k, v in now.items():
                # an added entry that a kernel body could call (the interpreter's rewriter adds its semantic
                # object to the globals of Triton's own jit functions)
                if k not in old and callable(v) and not _triton_own(v, T):
                    return f"{name}.{k} was added after the harness started ({ALLOWED_GLOBALS})"
    return None


# -- the harness's own PyTorch (red team 28) -------------------------------------------------------

_HARNESS_SNAPSHOT: list[tuple[Any, tuple]] | None = None


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
    return out


def snapshot_harness() -> None:
    """Remember the dictionaries of :func:`_harness_objects` before the submission is imported (sandbox child);
    :func:`harness_changed` compares them later."""
    global _HARNESS_SNAPSHOT
    _HARNESS_SNAPSHOT = dict_snapshot(_harness_objects())


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
    return None
