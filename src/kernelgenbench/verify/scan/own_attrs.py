"""Attributes of the file's own launcher objects that can only hold a plain Python container (tp43).

A launcher class keeps its bookkeeping on ``self``: ``self.seen = set()`` in ``__init__``, then ``self.seen.add(key)``
when a kernel is first compiled for a key, or ``self.blocks = [64, 128]`` and ``self.blocks.sort()``. L1 proves a
*name* plain Python from its bindings (scope.py ``host_level``); an attribute it could not prove, so ``.add`` and
``.sort`` were judged as the tensor methods of those names (rule tensor-method). :func:`own_container_attr` proves
``self.<attr>`` a container when nothing in the file can make it anything else:

* ``self`` is the first parameter of an undecorated method of a plain class of the file (no bases but ``object``, no
  decorators, no keywords, no ``__getattr__``/``__getattribute__``/``__setattr__``/``__delattr__``: rb43, a
  ``__getattr__`` answered the attribute where its only store was never run) and the method never rebinds it;
* the class is read only as the callee that makes an instance (or ``isinstance``'s class), and no ``type(x)`` of the
  file hands an instance's class on (rb43: ``Launcher.note(slice(None, t))`` made a slice ``self``, whose ``.stop``
  is ``t``), so ``self`` is an instance;
* every store of ``.<attr>`` on any receiver, anywhere in the file, is the single target of an assignment of an
  empty or constant container (``set()``, ``[]``, ``{}``, ``list()``, ``[64, 128]``, ``{"a": 1}``); no ``del``, no
  augmented or tuple assignment, no loop or ``with`` target, and no class-body binding or method of that name;
* the name is no attribute of ``torch.Tensor`` or ``torch.nn.Module`` (an object of PyTorch's handed in as ``self``
  through an unbound call would answer with its own), and no string or call keyword in the file spells it
  (``setattr``, ``register_buffer("seen", t)``, ``__slots__``, ``Holder(seen=t)`` whose ``__init__`` registers its
  keywords by name).
"""
from __future__ import annotations

import ast
import functools
from typing import Any, Callable

#: builtins that make an empty container when called without arguments
_EMPTY_FACTORIES = frozenset({"set", "list", "dict", "tuple", "frozenset"})


@functools.lru_cache(maxsize=1)
def _pytorch_attr_names() -> frozenset[str]:
    import torch

    return frozenset(dir(torch.Tensor)) | frozenset(dir(torch.nn.Module))


def _plain_container(value: ast.AST | None, is_builtin: Callable[[str], bool]) -> bool:
    if isinstance(value, (ast.List, ast.Set, ast.Tuple)):
        return all(isinstance(e, ast.Constant) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in value.keys) \
            and all(isinstance(v, ast.Constant) for v in value.values)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY_FACTORIES \
        and is_builtin(value.func.id) and not value.args and not value.keywords


def _stores_are_plain(module: ast.Module, attr: str, is_builtin: Callable[[str], bool]) -> bool:
    """Whether every binding of ``.attr`` in the file is a plain container assignment (module docstring)."""
    plain_targets: set[int] = set()
    for n in ast.walk(module):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Attribute) and targets[0].attr == attr \
                    and _plain_container(n.value, is_builtin):
                plain_targets.add(id(targets[0]))
    for n in ast.walk(module):
        if isinstance(n, ast.Attribute) and n.attr == attr and not isinstance(n.ctx, ast.Load) \
                and id(n) not in plain_targets:
            return False
        if isinstance(n, ast.ClassDef):
            for st in n.body:
                named = [t for t in ast.walk(st) if isinstance(t, ast.Name) and t.id == attr
                         and not isinstance(t.ctx, ast.Load)]
                if named or isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and st.name == attr:
                    return False
        if isinstance(n, ast.Constant) and n.value == attr or isinstance(n, ast.keyword) and n.arg == attr:
            return False
    return True


def _only_instantiated(module: ast.Module, cls: str, is_builtin: Callable[[str], bool]) -> bool:
    """Whether the class named ``cls`` is read nowhere in the file but as the callee that makes an instance (or
    ``isinstance``'s second argument, a comparison's operand, an annotation), and no builtin ``type(x)`` hands back
    an instance's class other than to be compared: then a method's first parameter can only be an instance. rb43:
    ``Launcher.note(slice(None, t), ...)`` called the method unbound with a slice as ``self`` (``self.stop`` is
    ``t``); ``type(obj).note(...)`` and a subclass with another base (``class B(Launcher, StopIteration)``:
    ``B(t).value`` is ``t``) do the same."""
    allowed: set[int] = set()
    for n in ast.walk(module):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            if n.func.id == cls:
                allowed.add(id(n.func))
            elif n.func.id == "isinstance" and is_builtin("isinstance") and len(n.args) == 2:
                allowed.add(id(n.args[1]))
        if isinstance(n, ast.Compare):
            allowed.update(id(o) for o in (n.left, *n.comparators))
        if isinstance(n, ast.Attribute) and n.attr in ("__name__", "__qualname__"):
            allowed.add(id(n.value))  # type(x).__name__ in a message: a string
        # an annotation (``def launch(l: Launcher) -> Launcher``) keeps the class where only introspection reads it
        notes = [a.annotation for a in ast.walk(n) if isinstance(a, ast.arg)] if isinstance(n, ast.arguments) else \
            [n.returns] if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
            [n.annotation] if isinstance(n, ast.AnnAssign) else []
        allowed.update(id(x) for a in notes if a is not None for x in ast.walk(a))
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and n.id == cls and isinstance(n.ctx, ast.Load) and id(n) not in allowed:
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "type" and is_builtin("type") \
                and len(n.args) == 1 and id(n) not in allowed:
            return False
    return True


#: methods of a class that answer or redirect its instances' attribute reads and stores (rb43: ``__getattr__``
#: answered ``self.stop`` with a tensor where the only store ``self.stop = []`` sat in a method never called)
_ATTR_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__"})


def _hooks_attributes(cls: ast.ClassDef) -> bool:
    """Whether the class body binds a method of :data:`_ATTR_HOOKS` (a ``def`` or any other binding of the name)."""
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and st.name in _ATTR_HOOKS:
            return True
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                isinstance(t, ast.Name) and t.id in _ATTR_HOOKS and not isinstance(t.ctx, ast.Load)
                for t in ast.walk(st)):
            return True
    return False


def own_container_attr(scan: Any, node: ast.Attribute) -> bool:
    """Whether ``node`` (``self.attr``, read in the function being scanned) can only hold a plain Python container of
    the file's making (module docstring). ``scan`` is the scanner: its ``scopes``, ``is_builtin``."""
    receiver, attr = node.value, node.attr
    if attr.startswith("__") or attr in _pytorch_attr_names():
        return False
    return own_instance(scan, receiver) and _stores_are_plain(scan.scopes[0].node, attr, scan.is_builtin)


def own_instance(scan: Any, receiver: ast.AST) -> bool:
    """Whether ``receiver``, read in the function being scanned, can only be an instance of a plain class of the file:
    the first two conditions of the module docstring (``self`` of an undecorated method of a plain class without
    attribute hooks, never rebound, and the class read only where it makes instances). ``scan`` is the scanner."""
    if not isinstance(receiver, ast.Name):
        return False
    scopes = scan.scopes
    if len(scopes) < 3 or scopes[-1].kind != "function" or scopes[-2].kind != "class":
        return False
    fn, cls = scopes[-1].node, scopes[-2].node
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list or not isinstance(cls, ast.ClassDef) \
            or fn not in cls.body or cls.decorator_list or cls.keywords or _hooks_attributes(cls) \
            or any(not (isinstance(b, ast.Name) and b.id == "object" and scan.is_builtin("object")) for b in cls.bases):
        return False
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not params or params[0].arg != receiver.id:
        return False
    if any(isinstance(n, ast.Name) and n.id == receiver.id and not isinstance(n.ctx, ast.Load)
           or isinstance(n, (ast.Global, ast.Nonlocal)) and receiver.id in n.names for n in ast.walk(fn)):
        return False
    return _only_instantiated(scopes[0].node, cls.name, scan.is_builtin)
