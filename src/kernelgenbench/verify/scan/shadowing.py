"""Which refused built-ins a module (or class body) that binds the same name may still reach (rb42).

A read of a name at module level (or in a class body) finds the scope's own binding only once that binding has run;
before it, or when it never runs (``if False: exec = None``), or after ``del``, Python reads the built-in. A
module's ``__loader__``, ``__spec__`` and ``__builtins__`` are globals the import system sets before the file's
first line, so ``__loader__ = __loader__`` reads the real one. L1 took any binding in the scope for the file's own
name and passed every read of it (rb42: loader_exec with ``__loader__ = __loader__`` first, tests/bad/loader_rebound;
``if False: exec = None`` then ``exec(...)``). :func:`builtin_in_reach` says when such a read is judged as the
built-in: unless the scope's first statement that names it is an unconditional binding of it that reads no such
name itself, or an ``if``/``try`` every path of which is one (``def help(x): ...`` before ``help(1)`` stays the
file's own), and no ``del`` or ``except ... as`` unbinds it."""
from __future__ import annotations

import ast

from .policy import ATTR_BUILTINS, EXEC_BUILTINS

#: Built-in names whose built-in meaning L1 refuses or judges by its own rules (calls, class factories): only these
#: are checked for a binding that may not have run, so shadowing a harmless built-in (``max``, ``len``) is unchanged.
SHADOW_SENSITIVE: frozenset[str] = frozenset(EXEC_BUILTINS) | ATTR_BUILTINS | frozenset({
    "__builtins__", "__loader__", "__spec__", "__build_class__", "type"})


def _names(node: ast.AST) -> set[str]:
    """Every name ``node`` reads, binds or unbinds (names, defs, classes, imports, handlers, global declarations)."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(sub.name)
        elif isinstance(sub, ast.alias):
            out.add(sub.asname or sub.name.split(".")[0])
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            out.update(sub.names)
        elif isinstance(sub, (ast.MatchAs, ast.MatchStar)) and sub.name:
            out.add(sub.name)
    return out


def _block_binds_first(body: list[ast.stmt], name: str) -> bool:
    """Whether the first statement of ``body`` that names ``name`` binds it first (:func:`_binds_first`)."""
    first = next((s for s in body if name in _names(s)), None)
    return first is not None and _binds_first(first, name)


def _binds_first(stmt: ast.stmt, name: str) -> bool:
    """Whether the statement binds ``name`` unconditionally and reads no ``name`` before binding it: a def, class,
    import or assignment of the name, an ``if`` both branches of which do so, or a ``try`` whose body and every
    handler do (``try: from x import compile`` / ``except ImportError: compile = None``)."""
    if isinstance(stmt, ast.If):
        return name not in _names(stmt.test) and _block_binds_first(stmt.body, name) \
            and _block_binds_first(stmt.orelse, name)
    if isinstance(stmt, ast.Try):
        return _block_binds_first(stmt.body, name) and all(
            h.name != name and (h.type is None or name not in _names(h.type)) and _block_binds_first(h.body, name)
            for h in stmt.handlers) and not any(name in _names(s) for s in stmt.finalbody)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if stmt.name != name:
            return False
        heads: list[ast.AST] = [*stmt.decorator_list]
        if isinstance(stmt, ast.ClassDef):
            heads += [*stmt.bases, *stmt.keywords]
        else:
            heads += [stmt.args, *([stmt.returns] if stmt.returns else [])]
        return not any(name in _names(h) for h in heads)
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names)
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets) \
            and all(isinstance(t, ast.Name) for t in stmt.targets) and name not in _names(stmt.value)
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name and stmt.value is not None \
            and name not in _names(stmt.value) and name not in _names(stmt.annotation)
    return False


def _unbound(owner: ast.AST) -> set[str]:
    """Names some ``del`` or ``except ... as`` in ``owner`` unbinds (anywhere: a function may declare them global)."""
    out: set[str] = set()
    for sub in ast.walk(owner):
        if isinstance(sub, ast.Delete):
            out.update(t.id for t in sub.targets if isinstance(t, ast.Name))
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
    return out


def builtin_in_reach(scope: object, name: str) -> bool:
    """Whether a read of the sensitive ``name`` in the module or class scope ``scope`` (a ``scope._Scope``, whose
    ``node`` is an ``ast.Module`` or ``ast.ClassDef``) may find the built-in although the scope binds it."""
    if name not in SHADOW_SENSITIVE:
        return False
    reach = getattr(scope, "builtin_reach", None)
    if reach is None:
        owner = scope.node  # type: ignore[attr-defined]
        body = getattr(owner, "body", [])
        unbound = _unbound(owner)
        named = [(s, _names(s)) for s in body]
        reach = set()
        for n in SHADOW_SENSITIVE:
            first = next((s for s, names in named if n in names), None)
            if first is not None and (n in unbound or not _binds_first(first, n)):
                reach.add(n)
        scope.builtin_reach = frozenset(reach)  # type: ignore[attr-defined]
    return name in reach


#: What of a module's ``__spec__`` a submission may read (rb42 false rejection): its module's name, as
#: ``logging.getLogger(__spec__.name)`` does in place of ``__name__``, and its package (both strings).
SPEC_STRING_ATTRS: frozenset[str] = frozenset({"name", "parent"})


def harmless_spec_reads(tree: ast.AST) -> set[int]:
    """Ids of the bare ``__spec__`` names in ``tree`` read only for a string or a bool: ``__spec__.name``,
    ``__spec__.parent``, ``__spec__ is None`` / ``is not None`` (``if __name__ == "__main__" and __spec__ is None``:
    run as a script), and as the test of an ``if``, a conditional expression or ``not`` (``__spec__.name if __spec__
    else __name__``), whose value is never passed on. Every other read stays refused (rt42: ``__spec__.loader`` is
    the module's loader)."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr in SPEC_STRING_ATTRS and isinstance(n.ctx, ast.Load) \
                and isinstance(n.value, ast.Name) and n.value.id == "__spec__":
            out.add(id(n.value))
        elif isinstance(n, (ast.If, ast.IfExp, ast.While)) and isinstance(n.test, ast.Name) \
                and n.test.id == "__spec__" or isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) \
                and isinstance(n.operand, ast.Name) and n.operand.id == "__spec__":
            out.add(id(n.test if not isinstance(n, ast.UnaryOp) else n.operand))
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot)):
            pair = (n.left, n.comparators[0])
            for a, b in (pair, pair[::-1]):
                if isinstance(a, ast.Name) and a.id == "__spec__" and isinstance(b, ast.Constant) and b.value is None:
                    out.add(id(a))
    return out


def builtins_bindings(tree: ast.AST) -> list[ast.AST]:
    """Nodes that bind or unbind the name ``__builtins__`` (rb42): a module's ``__builtins__`` is where the functions
    it defines afterwards look up every built-in name, so ``__builtins__ = dict(max=type)`` makes ``max(...)`` in them
    call ``type`` while L1 judges the built-in ``max``. No kernel has a reason to bind it."""
    out: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == "__builtins__" and not isinstance(n.ctx, ast.Load) \
                or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == "__builtins__" \
                or isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == "__builtins__" \
                or isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name == "__builtins__":
            out.append(n)
    return out
