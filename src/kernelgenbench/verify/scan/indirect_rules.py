"""L1 rules on what an allowed call does with the values it is given (red team 37), applied over the whole file after
the scanner's pass (:func:`.api.scan_source`):

* format templates: ``str.format``/``format_map`` (and ``torch.cuda.nvtx.range(msg, *args)``, which formats its
  message with its arguments on a GPU) run ``getattr`` on every dotted part of a replacement field, so
  ``"{0.__globals__[torch].sys.modules[...]}".format(f)`` reaches what the scan refuses when written as code
  (dunders, ``torch.sys``, the harness's modules) and returns it as text; a template must be a string literal (or a
  name bound only to literals) whose fields name no attribute (``"{0[1]}"`` and ``"{:>8}"`` are fine);
* ``torch.compiler.disable`` (allowed by false-rejection hunt 37 for the file's own launchers): given a class, dynamo
  rebinds that class's ``__init__`` and ``__call__`` (and an ``nn.Module``'s ``_call_impl``) to wrappers of its own,
  so ``torch.compiler.disable(torch.Tensor)`` or ``(type(x))`` changed PyTorch's classes with code from PyTorch's
  folder, which the child's monkey-patch snapshot admits; it may only decorate, or be given, a function or class the
  file defines (or a lambda, or the parameter of a helper decorator every use of which gives it such), and be used
  as a decorator or a ``with`` item when called without one. ``torch._dynamo.disable``, which it calls with the same
  arguments (flash-attention's and vLLM's helpers write ``@torch._dynamo.disable``), is judged the same way (tp42).
"""
from __future__ import annotations

import ast
import re
import string

from .findings import Finding

_FORMAT_METHODS = frozenset({"format", "format_map"})
_NVTX_RANGE = "torch.cuda.nvtx.range"
_DISABLE = "torch.compiler.disable"
#: Both spellings of dynamo's disable: ``torch.compiler.disable(fn, recursive, reason=)`` only calls the other.
_DISABLE_PATHS = frozenset({_DISABLE, "torch._dynamo.disable"})


def _import_paths(tree: ast.AST) -> dict[str, str]:
    """Names bound by imports anywhere in the file, to the dotted path they stand for."""
    out: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            for a in n.names:
                out[a.asname or a.name] = f"{n.module}.{a.name}"
    return out


def _path(node: ast.AST, imports: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return imports.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _path(node.value, imports)
        return f"{base}.{node.attr}" if base else None
    return None


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}


def _bindings(tree: ast.AST, name: str, parents: dict[int, ast.AST]) -> list[ast.AST] | None:
    """What ``name`` is bound to anywhere in the file: the value of each ``name = value`` (or ``name: T = value``), or
    the ``def``/``class`` statement; None where some binding is of another kind (a parameter, an import, a loop or
    ``with`` target, an augmented assignment, a capture, ``del``) or there is none."""
    out: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            out.append(n)
        elif isinstance(n, ast.arg) and n.arg == name or isinstance(n, (ast.MatchAs, ast.MatchStar)) \
                and n.name == name or isinstance(n, ast.MatchMapping) and n.rest == name:
            return None
        elif isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".")[0]) == name for a in n.names):
            return None
        elif isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            stmt = parents.get(id(n))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is n:
                out.append(stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and stmt.target is n and stmt.value is not None:
                out.append(stmt.value)
            else:
                return None
    return out or None


def _template_why(text: str) -> str | None:
    """Why the format template ``text`` is refused (a field that names an attribute), or None."""
    todo = [text]
    while todo:
        try:
            fields = list(string.Formatter().parse(todo.pop()))
        except ValueError:
            continue  # str.format raises on it too
        for _, field, spec, _ in fields:
            if field is not None and "." in re.sub(r"\[[^\]]*\]", "", field):  # a [key] may hold dots
                return f"its field {{{field}}} reads an attribute"
            if spec:
                todo.append(spec)
    return None


def indirect_findings(tree: ast.AST, source: str) -> list[Finding]:
    """The findings of the two rules of this module (see its docstring) in the parsed file ``tree``."""
    lines = source.splitlines()
    imports = _import_paths(tree)
    parents = _parents(tree)
    out: list[Finding] = []

    def code(node: ast.AST) -> str:
        ln = getattr(node, "lineno", 1)
        return lines[ln - 1].strip() if 0 < ln <= len(lines) else ""

    def report(node: ast.AST, rule: str, why: str) -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        out.append(Finding(line, col, rule, f"line {line}: {code(node)} {why} (rule {rule})"))

    def judge_template(where: ast.AST, tpl: ast.AST | None, what: str) -> None:
        values: list[ast.AST] | None = [tpl] if tpl is not None else None
        if isinstance(tpl, ast.Name):
            values = _bindings(tree, tpl.id, parents)
        if not values or not all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values):
            report(where, "introspection", f"formats with {what} whose template is not a string literal: a "
                   "replacement field ({0.name}) reads attributes by name, so the template must be written out; "
                   "use a literal such as \"{} {}\".format(a, b) or an f-string")
            return
        for v in values:
            why = _template_why(v.value)  # type: ignore[attr-defined]
            if why:
                report(where, "introspection", f"formats with {what}: {why} by name, as getattr with a string "
                       "would (dunders and modules the scan refuses as code); format the value itself "
                       "(\"{}\".format(x.shape) or an f-string)")
                return

    for node in ast.walk(tree):
        parent = parents.get(id(node))
        called = isinstance(parent, ast.Call) and parent.func is node
        if isinstance(node, ast.Attribute) and node.attr in _FORMAT_METHODS:
            if isinstance(node.value, ast.Name) and node.value.id == "str" and "str" not in imports:
                tpl = parent.args[0] if called and parent.args and not isinstance(parent.args[0], ast.Starred) \
                    else None  # type: ignore[union-attr]
                judge_template(node, tpl, f"str.{node.attr}")
            else:
                judge_template(node, node.value, f".{node.attr}")
            continue
        path = _path(node, imports) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if path is None or isinstance(parent, ast.Attribute) and parent.value is node:
            continue
        if path == _NVTX_RANGE:
            if not called:
                report(node, "introspection", f"uses {_NVTX_RANGE} other than by calling it: it formats its "
                       "message with its extra arguments (str.format); call it with a literal message")
            elif len(parent.args) > 1 or parent.keywords:  # type: ignore[union-attr]
                judge_template(node, parent.args[0] if parent.args else None,  # type: ignore[union-attr]
                               f"{_NVTX_RANGE}'s message")
        elif path in _DISABLE_PATHS:
            _judge_disable(node, parent, called, tree, parents, imports, report, path)
    return out


def _own_callable(arg: ast.AST, tree: ast.AST, parents: dict[int, ast.AST], imports: dict[str, str],
                  seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``arg`` is a lambda or a name bound only to the file's own ``def``/``class`` statements, lambdas, or
    ``torch.compiler.disable`` of such (``neg = torch.compiler.disable(neg)``)."""
    if isinstance(arg, ast.Lambda):
        return True
    if isinstance(arg, ast.Call) and _path(arg.func, imports) in _DISABLE_PATHS:
        fns = [*arg.args[:1], *(k.value for k in arg.keywords if k.arg == "fn")]
        return len(fns) == 1 and _own_callable(fns[0], tree, parents, imports, seen)
    if not isinstance(arg, ast.Name):
        return False
    if arg.id in seen:
        return True  # its other bindings decide
    values = _bindings(tree, arg.id, parents)
    if values is None:
        return _decorator_param(arg, tree, parents, imports, seen)
    return bool(values) and all(
        isinstance(v, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        or _own_callable(v, tree, parents, imports, seen | {arg.id}) for v in values)  # type: ignore[union-attr]


def _decorator_param(arg: ast.Name, tree: ast.AST, parents: dict[int, ast.AST], imports: dict[str, str],
                     seen: frozenset[str]) -> bool:
    """A helper decorator's parameter (``def no_compile(fn): return torch.compiler.disable(fn)``): ``arg`` is a
    positional parameter of the ``def`` that encloses it, never rebound there, that ``def`` is bound once, and every
    use of its name in the file hands that position the file's own callable (a bare decorator of the file's
    ``def``/``class`` for the first parameter, or a call with one at that position)."""
    g = parents.get(id(arg))
    while g is not None and not isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        g = parents.get(id(g))
    if not isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef)) or g.name in seen \
            or isinstance(parents.get(id(g)), ast.ClassDef):  # a method is reached through attributes too
        return False
    own = [*g.args.posonlyargs, *g.args.args]
    names = [p.arg for p in own]
    if arg.id not in names:
        return False
    i = names.index(arg.id)
    for n in ast.walk(g):
        if isinstance(n, ast.Name) and n.id == arg.id and not isinstance(n.ctx, ast.Load) \
                or isinstance(n, ast.arg) and n.arg == arg.id and n is not own[i] \
                or isinstance(n, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler)) and n.name == arg.id \
                or isinstance(n, ast.MatchMapping) and n.rest == arg.id \
                or isinstance(n, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)) and arg.id in (
                    n.names if isinstance(n, (ast.Global, ast.Nonlocal))
                    else [a.asname or a.name.split(".")[0] for a in n.names]):
            return False
    if _bindings(tree, g.name, parents) != [g]:
        return False
    for use in ast.walk(tree):
        if not (isinstance(use, ast.Name) and use.id == g.name):
            continue
        p = parents.get(id(use))
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and use in p.decorator_list:
            if i == 0:
                continue
        elif isinstance(p, ast.Call) and p.func is use and len(p.args) > i \
                and not any(isinstance(a, ast.Starred) for a in p.args[:i + 1]) \
                and _own_callable(p.args[i], tree, parents, imports, seen | {g.name}):
            continue
        return False
    return True


def _judge_disable(node: ast.AST, parent: ast.AST | None, called: bool, tree: ast.AST,
                   parents: dict[int, ast.AST], imports: dict[str, str], report,  # noqa: ANN001 - the caller's closure
                   path: str = _DISABLE) -> None:
    why = ("given anything but a function or class of the file, torch.compiler.disable rebinds a class's __init__ "
           "and __call__ (torch.compiler.disable(torch.Tensor) changes PyTorch's tensors); decorate the file's own "
           "launcher with it")
    decorates = isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
        and node in parent.decorator_list  # type: ignore[union-attr]
    if decorates:
        return
    if not called:
        report(node, "monkey-patch", f"uses {path} other than as a decorator or a call: {why}")
        return
    call: ast.Call = parent  # type: ignore[assignment]
    fns = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "fn")]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        report(node, "monkey-patch", f"calls {path} with unpacked arguments: {why}")
    elif fns:
        if not all(_own_callable(a, tree, parents, imports) for a in fns):
            report(node, "monkey-patch", f"applies {path} to {ast.unparse(fns[0])}: {why}")
    else:  # torch.compiler.disable(recursive=...): a decorator factory, or dynamo's context manager
        outer = parents.get(id(call))
        if not (isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and call in outer.decorator_list or isinstance(outer, ast.withitem)):
            report(node, "monkey-patch", f"keeps {path}(...) as a value: what it is later given is not seen; "
                   f"{why}")
