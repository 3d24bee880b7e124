"""Decorators of the file that only wrap the function they are given (tp38, rt41).

An autograd Function's ``backward`` that nothing in the file can run is not scanned (class_rules ``dead_bodies``),
and neither are the methods of a class nothing can reach, when their decorators cannot hand the function to other
code as the class is made. Liger-Kernel's ``ensure_contiguous`` (``def d(fn): @wraps(fn) def w(...): ... fn(...);
return w``) was the one such decorator of a file L1 knew. flash-linear-attention's ``input_guard`` is the other
common shape: a factory called bare (``@input_guard``) or with keywords (``@input_guard(no_guard_contiguous=True)``),
``def input_guard(fn=None, *, no_guard_contiguous=False)``, holding ``def decorator(fn)`` that reads
``inspect.signature(fn)`` before it returns its closure, and ending ``if fn is not None: return decorator(fn)``,
``return decorator``.

What must hold for the function ``f`` a decorator is given: it is read only as the function of a call inside the
returned closure (run when autograd runs the backward), as the argument of ``functools.wraps`` on that closure, of
``inspect.signature`` (parameter names; what else of the signature is read is the inspect rule's), of the factory's
own inner decorator or in ``f is None``/``f is not None``; nothing rebinds it, nothing names the closure but its
``return``, no ``global``/``nonlocal`` and no local binding of the names ``wraps``/``signature`` are reached through.
A factory's call form passes keywords only (a positional argument would be wrapped, and the backward handed to it).
"""

from __future__ import annotations

import ast
from typing import Callable

Resolve = Callable[[ast.AST], "str | None"]


def _docless(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


def _bound_in(fn: ast.AST) -> set[str]:
    """Every name bound anywhere inside ``fn`` (its parameters, stores, defs, imports, handlers)."""
    out: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def closure_decorator(fn: ast.FunctionDef, resolve: Resolve, enclosing: frozenset[str] = frozenset()) -> bool:
    """Whether ``def fn(f)`` only returns a closure calling ``f``: a docstring, assignments to plain names (reading
    ``f`` only as ``inspect.signature(f)``: FLA's ``sig = inspect.signature(fn)``), one undecorated or
    ``@functools.wraps(f)`` ``def w(...)`` and ``return w``. ``enclosing``: the names a factory around ``fn`` binds
    (none of them may be the root of ``wraps``/``signature`` there: an option ``functools=Keeper()``)."""
    a = fn.args
    if fn.decorator_list or len(a.args) != 1 or a.posonlyargs or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
        return False
    param = a.args[0].arg
    body = _docless(fn.body)
    if len(body) < 2 or not isinstance(body[-2], ast.FunctionDef) or not isinstance(body[-1], ast.Return) \
            or not (isinstance(body[-1].value, ast.Name) and body[-1].value.id == body[-2].name):
        return False
    inner, prelude = body[-2], body[:-2]
    if not all(isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets) for s in prelude):
        return False
    allowed: set[int] = set()
    roots: set[str | None] = set()
    for d in inner.decorator_list:
        if not (isinstance(d, ast.Call) and resolve(d.func) == "functools.wraps" and not d.keywords
                and len(d.args) == 1 and isinstance(d.args[0], ast.Name) and d.args[0].id == param):
            return False
        allowed.add(id(d.args[0]))
        roots.add(_root(d.func))
    for stmt in prelude:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call) and resolve(n.func) == "inspect.signature" and not n.keywords \
                    and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id == param:
                allowed.add(id(n.args[0]))
                roots.add(_root(n.func))
    for stmt in inner.body:
        allowed.update(id(n.func) for n in ast.walk(stmt)
                       if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == param)
    if roots & (_bound_in(fn) | enclosing):
        return False  # a local ``functools = Keeper()`` would make ``@functools.wraps(f)`` hand ``f`` out
    inner_uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == inner.name]
    return len(inner_uses) == 1 and all(
        id(n) in allowed for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id == param or isinstance(n, (ast.Nonlocal, ast.Global))
        or isinstance(n, ast.arg) and n.arg == param and n is not a.args[0])


def decorator_factory(fn: ast.FunctionDef, resolve: Resolve) -> tuple[bool, frozenset[str], int] | None:
    """A module-level factory of one :func:`closure_decorator`: ``def fn([f=None,] [options], *, [options])`` whose body
    is a docstring, one nested ``def d(g)`` that is one, and returns of ``d`` or ``d(f)`` (bare or under ``if f is
    [not] None``, also as ``d if f is None else d(f)``), ``f`` read nowhere else (``f`` is the first parameter, default
    None, when the returns apply ``d`` to it). Returns (whether ``@fn`` may be written bare: only with ``f``, else the
    function would be bound to an option; the option names its call form may pass by keyword; how many positional
    arguments it may pass: none with ``f``, which a positional argument would be), or None."""
    a = fn.args
    if fn.decorator_list or a.posonlyargs or a.vararg or a.kwarg:
        return None
    body = _docless(fn.body)
    # rt41: an option named ``functools`` (or ``inspect``) is what the inner decorator's ``functools.wraps(f)`` reads
    if not body or not isinstance(body[0], ast.FunctionDef) \
            or not closure_decorator(body[0], resolve, frozenset(_bound_in(fn))):
        return None
    inner = body[0].name
    applies = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == inner
                  for s in body[1:] for n in ast.walk(s))
    param = a.args[0].arg if applies and a.args else None
    if applies and not (param is not None and len(a.defaults) == len(a.args)
                        and isinstance(a.defaults[0], ast.Constant) and a.defaults[0].value is None):
        return None
    options = {k.arg for k in [*a.args, *a.kwonlyargs]} - {param}
    if inner in options or inner == param:
        return None

    def none_test(t: ast.expr) -> bool:
        return param is not None and isinstance(t, ast.Compare) and len(t.ops) == 1 \
            and isinstance(t.ops[0], (ast.Is, ast.IsNot)) and isinstance(t.left, ast.Name) and t.left.id == param \
            and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value is None

    def value(v: ast.expr | None) -> bool:
        if isinstance(v, ast.Name):
            return v.id == inner
        if isinstance(v, ast.Call):
            return isinstance(v.func, ast.Name) and v.func.id == inner and not v.keywords and len(v.args) == 1 \
                and isinstance(v.args[0], ast.Name) and v.args[0].id == param and param is not None
        return isinstance(v, ast.IfExp) and none_test(v.test) and value(v.body) and value(v.orelse)

    def tail(stmts: list[ast.stmt]) -> bool:
        return bool(stmts) and all(isinstance(s, ast.Return) and value(s.value)
                                   or isinstance(s, ast.If) and none_test(s.test) and tail(s.body)
                                   and (not s.orelse or tail(s.orelse)) for s in stmts)

    if not tail(body[1:]):
        return None
    if param is not None and param != body[0].args.args[0].arg and any(
            isinstance(n, ast.Name) and n.id == param for n in ast.walk(body[0])):
        return None  # the outer ``f`` (the backward, written bare) read where the inner decorator runs or keeps it
    return param is not None, frozenset(options), 0 if param is not None else len(a.args)
