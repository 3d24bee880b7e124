"""Writing into another module's namespace by its name (red team 44).

Python's ``enum`` looks a class's module up by the string in its ``__module__``: ``enum.global_enum(E)`` runs
``sys.modules[E.__module__].__dict__.update(E.__members__)``, and ``Enum._convert_(name, module, filter)`` reads
*and* rewrites the globals of the module named by ``module``. A class body may bind ``__module__`` to any string, so
``class _K(enum.Enum): __module__ = "kernelgenbench.sandbox.dispatch"`` with a member named ``_op_key`` whose
``__call__`` returned an allowed op's key made every ATen op of a call count as an allocation, and a member named
``host_read`` left host reads unlogged (tests/bad/global_enum: erfc computed with ATen operators, a ghost replay told
apart by a flag a kernel writes; aten::erfc 9/9 passed at 175b6c3, L1 clean). The harness's own modules are not
snapshotted; Triton's and PyTorch's are, but L1 is where a store by module name must stop.

Refused (rule monkey-patch), by name wherever it appears (an attribute, a bare or imported name, a string):
``global_enum`` and ``_convert_`` (no kernel library uses either); and binding a class's or function's ``__module__``
(a class-body or any other assignment of the name, an attribute store, a keyword or a string spelling it but as
a read (``getattr``/``hasattr``'s name, a subscript read, ``in``/``==``, ``.get``): ``setattr``, a namespace's key or
item; a ``module=`` keyword of
``collections.namedtuple`` or of an Enum's functional API): the string is how ``enum`` and ``dataclasses`` (which
runs a dataclass's generated methods with that module's globals) find a namespace. Reading ``__module__`` stays
fine, and so does binding it to the file's own ``__name__`` (which the file may not rebind: classes take it as their
``__module__``)."""
from __future__ import annotations

import ast

from .findings import Finding

#: names that write into a module named by a string: enum's exporters
MODULE_WRITERS = frozenset({"global_enum", "_convert_"})

#: callees whose ``module=`` keyword sets the ``__module__`` of the class they make (last name of the callee)
_MODULE_KEYWORD_CALLEES = frozenset({"namedtuple", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})

_WRITER_WHY = ("names {name}, which writes into the globals of the module a class's __module__ (or a string) names "
               "(enum.global_enum, Enum._convert_): another module's namespace, the harness's included")
_BIND_WHY = ("binds __module__{how}: the module name enum and dataclasses use to find a namespace to write into or "
             "to run generated code in; a class's module is the file's own")


def _callee_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def module_rebindings(tree: ast.AST, source: str) -> list[Finding]:
    """Findings (rule monkey-patch) for every use of :data:`MODULE_WRITERS` and every binding of ``__module__`` in
    ``tree`` (the module docstring says which)."""
    lines = source.splitlines()
    out: list[Finding] = []

    def report(node: ast.AST, why: str) -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        out.append(Finding(line, col, "monkey-patch", f"line {line}: {code} {why} (rule monkey-patch)"))

    docstrings = {id(b[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  for b in [n.body] if b and isinstance(b[0], ast.Expr) and isinstance(b[0].value, ast.Constant)}
    # strings that name __module__ to read it: getattr/hasattr's name, and the names functools.wraps/update_wrapper
    # copy from the wrapped function (``assigned=("__module__", "__name__")``: judged like setattr's by the scanner)
    reads: set[int] = set()
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        callee = _callee_name(n.func)
        if callee in ("getattr", "hasattr") and len(n.args) >= 2:
            reads.add(id(n.args[1]))
        elif callee in ("wraps", "update_wrapper"):
            at = 1 if callee == "wraps" else 2
            names = [kw.value for kw in n.keywords if kw.arg == "assigned"] + n.args[at:at + 1]
            reads.update(id(c) for a in names for c in ast.walk(a) if isinstance(c, ast.Constant))
        elif callee == "get" and n.args:
            reads.add(id(n.args[0]))  # ns.get("__module__"): a lookup
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
            reads.add(id(n.slice))  # d["__module__"] read
        elif isinstance(n, ast.Compare):
            reads.update(id(x) for x in (n.left, *n.comparators))  # "__module__" in d, == "__module__"
    # ``x.__module__ = __name__`` (the file's own module name) names no other module
    own_name = {id(t) for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                and n.value.id == "__name__" for t in n.targets}
    for node in ast.walk(tree):
        named: str | None = None
        if isinstance(node, ast.Name):
            named = node.id
            if named == "__module__" and not isinstance(node.ctx, ast.Load) and id(node) not in own_name:
                report(node, _BIND_WHY.format(how=""))
                continue
            if named == "__name__" and not isinstance(node.ctx, ast.Load):
                # the module's own name: every class made afterwards takes it as its __module__
                report(node, _BIND_WHY.format(how=" through the module's __name__, which classes take as theirs"))
                continue
        elif isinstance(node, ast.Attribute):
            named = node.attr
            if named == "__module__" and not isinstance(node.ctx, ast.Load) and id(node) not in own_name:
                report(node, _BIND_WHY.format(how=" as an attribute"))
                continue
        elif isinstance(node, ast.alias):
            named = node.name.split(".")[-1]
            if node.asname == "__module__":
                report(node, _BIND_WHY.format(how=" by an import"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "__module__":
            report(node, _BIND_WHY.format(how=" by a definition"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            named = node.value
            if named == "__module__" and id(node) not in reads:
                # a namespace key or item (type(name, bases, {"__module__": m}), ns["__module__"] = m), setattr's name
                report(node, _BIND_WHY.format(how=" through a string naming it"))
                continue
        elif isinstance(node, ast.Call):
            callee = _callee_name(node.func)
            for kw in node.keywords:
                if kw.arg == "__module__" or kw.arg == "module" and callee in _MODULE_KEYWORD_CALLEES:
                    report(kw.value, _BIND_WHY.format(how=f" through {callee}'s {kw.arg}= keyword"))
        if named in MODULE_WRITERS:
            report(node, _WRITER_WHY.format(name=named))
    return out
