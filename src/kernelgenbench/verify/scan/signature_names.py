"""``inspect.signature`` read for its parameter names only (tp39b).

flash-linear-attention's ``input_guard`` decorator maps a wrapper's positional arguments to names with
``sig = inspect.signature(fn)``, ``param_names = list(sig.parameters.keys())``, ``fn`` the decorated function of the
file, to skip ``.contiguous()`` for the parameters it names. The names of a callable's parameters are metadata, the
same strings its ``def`` spells out; the rest of a ``Signature`` is not: a ``Parameter``'s ``default`` and
``annotation`` are objects (a harness function's default could be anything), ``bind`` runs the binding protocol.
:func:`signature_name_reads` finds the reads of ``inspect`` that keep the names alone.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator

#: builtins that turn a ``parameters`` mapping (or its ``keys()`` view) into its names or their count
_NAME_COLLECTORS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "len"})


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _names_only(params: ast.AST, parent: dict[int, ast.AST], builtin: Callable[[str], bool]) -> bool:
    """Whether ``params`` (a ``<signature>.parameters`` node) is read for its names only: ``C(params)`` or
    ``C(params.keys())`` with ``C`` one of :data:`_NAME_COLLECTORS`, or ``"name" in params``."""
    node = params
    up = parent.get(id(node))
    if isinstance(up, ast.Attribute) and up.attr == "keys":
        call = parent.get(id(up))
        if not (isinstance(call, ast.Call) and call.func is up and not call.args and not call.keywords):
            return False
        node, up = call, parent.get(id(call))
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in _NAME_COLLECTORS \
            and builtin(up.func.id) and up.args == [node] and not up.keywords:
        return True
    return node is params and isinstance(up, ast.Compare) and len(up.ops) == 1 \
        and isinstance(up.ops[0], (ast.In, ast.NotIn)) and up.comparators[0] is params \
        and isinstance(up.left, ast.Constant) and isinstance(up.left.value, str)


def signature_name_reads(tree: ast.Module, builtin: Callable[[str], bool],
                         own: Callable[[ast.AST], Iterator[ast.AST]]) -> set[int]:
    """ids of the ``inspect`` name nodes of ``inspect.signature(p)`` calls, ``p`` a parameter of the function the
    call is in (not rebound there), whose result is read for its parameter names only (:func:`_names_only`):
    directly (``list(inspect.signature(fn).parameters)``) or through a local bound once there
    (``sig = inspect.signature(fn)``) every read of which, in the function and in the functions it holds, is so."""
    parent = _parents(tree)
    allowed: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = fn.args
        params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
        mine = list(own(fn))
        stores: dict[str, int] = {}
        for n in mine:
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                for name in n.names:
                    stores[name] = stores.get(name, 0) + 2
        for call in mine:
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "signature" and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "inspect" and len(call.args) == 1 and not call.keywords
                    and isinstance(call.args[0], ast.Name) and call.args[0].id in params
                    and not stores.get(call.args[0].id)):
                continue
            up = parent.get(id(call))
            if isinstance(up, ast.Attribute) and up.attr == "parameters":
                ok = _names_only(up, parent, builtin)
            elif isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name) \
                    and up.targets[0].id not in params and stores.get(up.targets[0].id) == 1:
                var = up.targets[0].id
                reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == var
                         and n is not up.targets[0]]
                ok = bool(reads) and all(
                    isinstance(n.ctx, ast.Load) and isinstance(parent.get(id(n)), ast.Attribute)
                    and parent[id(n)].attr == "parameters"  # type: ignore[attr-defined]
                    and _names_only(parent[id(n)], parent, builtin) for n in reads)
            else:
                ok = False
            if ok:
                allowed.add(id(call.func.value))
    return allowed
