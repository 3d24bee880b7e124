"""Module-level names that can only hold a device-backend name (tp39b).

flash-linear-attention picks PyTorch's device module once, at import: ``device = get_available_device()`` (a
``@cache`` function returning ``triton.runtime.driver.active.get_current_target().backend``, or ``'cpu'`` when no
driver answers), ``device = 'cuda'`` on some branches, then ``device_torch_lib = getattr(torch, device)`` and
``device_torch_lib.device(index)`` as its device context. :func:`backend_name` proves that such a name can hold
nothing but a backend's name, so that ``getattr(torch, name)`` is one of PyTorch's device modules (judged as
``torch.cuda``, as ``getattr(torch, d.type)`` already is), never ``torch.add`` or ``torch._C``.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterator

#: the string literals a backend name may be written as: PyTorch's device modules that hold the same device
#: functions as ``torch.cuda`` (``getattr(torch, "hip")`` raises, a crash and no cheat, so Triton's "hip" is harmless)
BACKEND_LITERALS = frozenset({"cuda", "cpu", "xpu"})
#: a ``getattr(torch, name, default)``'s default may be one of these device modules (tp43: bitsandbytes'
#: ``getattr(torch, device_type, torch.cuda)``): the result is a device module either way, judged as ``torch.cuda``
BACKEND_DEFAULTS = frozenset({"torch.cuda", "torch.xpu"})
#: Triton's name of the active driver's backend ("cuda", "hip", ...): a string Triton computes
TRITON_BACKEND_CALL = "triton.runtime.driver.active.get_current_target"
#: PyTorch's current accelerator (2.6+), a ``torch.device`` whose ``.type`` is a backend's name (bitsandbytes:
#: ``device_type = torch.accelerator.current_accelerator().type``; tp43)
ACCELERATOR_CALL = "torch.accelerator.current_accelerator"
#: decorators that only memoize a function of no arguments (its result is one of its returns)
_MEMO_DECORATORS = frozenset({"functools.cache", "functools.lru_cache"})


def _module_bindings(module: ast.Module, name: str, own: Callable[[ast.AST], Iterator[ast.AST]],
                     defs: int = 0) -> list[ast.AST] | None:
    """The values of every module-level binding of ``name`` (``name = value``), or None when some binding is of
    another form (a ``for``/``with`` target, an augmented assignment, an import, a walrus, ``del``, a tuple target,
    an except or match name, a def or class statement beyond ``defs`` of them): those could bind anything."""
    values: list[ast.AST] = []
    approved: set[int] = set()
    for n in own(module):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id == name:
            values.append(n.value)
            approved.add(id(n.targets[0]))
    for n in ast.walk(module):  # a walrus anywhere (a comprehension's binds the enclosing scope) is refused
        if isinstance(n, ast.NamedExpr) and n.target.id == name:
            return None
    for n in own(module):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) and id(n) not in approved:
            return None
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            defs -= 1
            if defs < 0:
                return None
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".")[0]) == name for a in n.names):
            return None
        if isinstance(n, ast.ExceptHandler) and n.name == name \
                or isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name \
                or isinstance(n, ast.MatchMapping) and n.rest == name:
            return None
    return values


def _root(expr: ast.AST) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Call)):
        expr = expr.value if isinstance(expr, ast.Attribute) else expr.func
    return expr.id if isinstance(expr, ast.Name) else None


def _accelerator_type(node: ast.AST, resolve: Callable[[ast.AST], str | None], local: frozenset[str] | None) -> bool:
    """``torch.accelerator.current_accelerator().type``, where its root name is not bound in the function that reads
    it (``local``: the names that function binds; None where the form is not admitted at all)."""
    return local is not None and isinstance(node, ast.Attribute) and node.attr == "type" \
        and isinstance(node.value, ast.Call) and not node.value.args and not node.value.keywords \
        and _root(node) not in local and resolve(node.value.func) == ACCELERATOR_CALL


def backend_name(node: ast.AST, module: ast.Module, resolve: Callable[[ast.AST], str | None],
                 module_name: Callable[[str], bool], own: Callable[[ast.AST], Iterator[ast.AST]],
                 seen: frozenset[str] = frozenset(), local: frozenset[str] | None = None) -> bool:
    """Whether ``node`` can only evaluate to a device backend's name: a literal of :data:`BACKEND_LITERALS`; ``a if
    c else b`` of two such; a call, without arguments, of a module-level function bound once by a ``def`` whose
    decorators only memoize and every ``return`` of which returns such a value or Triton's
    ``get_current_target().backend``; or a module-level name (``module_name(n)``: it denotes the module's own
    binding, never declared global or nonlocal) every binding of which is ``n = <such a value>``. Where ``local`` is
    given (a module-level expression: empty; a function's return: the names the function binds), also
    ``torch.accelerator.current_accelerator().type`` (tp43, bitsandbytes' ``device_type``), which ``resolve`` (the
    module's view) can only vouch for where no local binding shadows its root."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in BACKEND_LITERALS
    if _accelerator_type(node, resolve, local):
        return True
    if isinstance(node, ast.IfExp):
        return all(backend_name(b, module, resolve, module_name, own, seen, local) for b in (node.body, node.orelse))
    if isinstance(node, ast.Name):
        if node.id in seen or not module_name(node.id):
            return False
        values = _module_bindings(module, node.id, own)
        return bool(values) and all(backend_name(v, module, resolve, module_name, own, seen | {node.id}, frozenset())
                                    for v in values)
    if not (isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Name)):
        return False
    name = node.func.id
    if name in seen or not module_name(name):
        return False
    defs = [d for d in own(module) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and d.name == name]
    if len(defs) != 1 or not isinstance(defs[0], ast.FunctionDef) or _module_bindings(module, name, own, 1) != []:
        return False
    fn = defs[0]
    args = fn.args
    if args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg:
        return False
    for dec in fn.decorator_list:
        call = isinstance(dec, ast.Call)
        if resolve(dec.func if call else dec) not in _MEMO_DECORATORS \
                or call and any(not isinstance(a, ast.Constant) for a in [*dec.args, *(k.value for k in dec.keywords)]):
            return False
    body = list(own(fn))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)) for n in body):
        return False
    # a name the function binds is its own, not the module's (``triton = Fake()`` then
    # ``return triton.runtime...backend`` would return any string), so such a return proves nothing
    local = {n.id for n in body if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {getattr(n, "name", None) for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                        ast.ClassDef, ast.ExceptHandler,
                                                                        ast.MatchAs, ast.MatchStar))}
    local |= {a.asname or a.name.split(".")[0] for n in body if isinstance(n, (ast.Import, ast.ImportFrom))
              for a in n.names}

    returns = [n for n in body if isinstance(n, ast.Return)]
    return bool(returns) and all(n.value is not None and (
        isinstance(n.value, ast.Attribute) and n.value.attr == "backend" and isinstance(n.value.value, ast.Call)
        and not n.value.value.args and not n.value.value.keywords and _root(n.value) not in local
        and resolve(n.value.value.func) == TRITON_BACKEND_CALL
        or backend_name(n.value, module, resolve, module_name, own, seen | {name}, frozenset(local)))
        for n in returns)


def torch_backend_getattr(scan: Any, node: ast.AST, own: Callable[[ast.AST], Iterator[ast.AST]]) -> bool:
    """``getattr(torch, d.type[, None])`` with ``d`` a ``torch.device`` (tp38: Liger-Kernel's ``device_context``
    picks ``torch.cuda``/``torch.xpu`` this way and enters ``backend.device(d)``). A device's type is one of
    PyTorch's backend names, and the modules of those that ``torch`` has (cpu, cuda, xpu, mps, mtia) hold the same
    device functions, so the scanner's ``resolve`` reads the result as ``torch.cuda`` and its attributes are judged as
    ``torch.cuda``'s. ``d`` is proven a device only as ``torch.device(...)`` itself, or a name whose last binding
    before the statement, in a statement of the same body, is ``d = torch.device(...)``. Also ``getattr(torch,
    name)`` with ``name`` a module-level name that can only hold a backend's name (tp39b, FLA's
    ``device_torch_lib``: :func:`backend_name`). ``scan`` is the scanner and ``own`` its ``_own_nodes``
    (verify/scan/scope.py calls this; moved here by tp43 for room)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and scan.is_builtin("getattr") and 2 <= len(node.args) <= 3 and not node.keywords
            and all(isinstance(d, ast.Constant) and d.value is None or scan.resolve(d) in BACKEND_DEFAULTS
                    for d in node.args[2:])  # rb38: None only; tp43: or a device module (bitsandbytes)
            and scan.resolve(node.args[0]) == "torch"):
        return False
    if not (isinstance(node.args[1], ast.Attribute) and node.args[1].attr == "type"):
        # tp39b: FLA's ``device_torch_lib = getattr(torch, device)``, ``device`` a backend's name
        # (backend_names.py); a literal is an attribute path of its own (getattr_literal)
        return bool(scan.scopes) and not isinstance(node.args[1], ast.Constant) and backend_name(
            node.args[1], scan.scopes[0].node, scan._resolve_in_module, scan._module_name, own,
            local=frozenset() if scan.current is scan.scopes[0] else None)
    dev = node.args[1].value
    if isinstance(dev, ast.Call):  # tp43: or the current accelerator (a device), read where it is called
        return scan.resolve(dev.func) == "torch.device" or not dev.args and not dev.keywords \
            and scan.resolve(dev.func) == ACCELERATOR_CALL
    if not isinstance(dev, ast.Name) or dev.id in scan.rebound or not scan.scopes:
        return False
    body = getattr(scan.current.node, "body", None)
    if not isinstance(body, list):
        return False
    at = next((i for i, st in enumerate(body) if any(n is node for n in ast.walk(st))), None)
    if at is None:
        return False

    def binds(st: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == dev.id and not isinstance(n.ctx, ast.Load)
                   or isinstance(n, (ast.arg, ast.ExceptHandler, ast.MatchAs, ast.MatchStar))
                   and dev.id in (getattr(n, "arg", None), getattr(n, "name", None))
                   for n in ast.walk(st))

    for st in reversed(body[:at]):
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and st.targets[0].id == dev.id:
            return not binds(body[at]) and isinstance(st.value, ast.Call) \
                and scan.resolve(st.value.func) == "torch.device"
        if binds(st):
            return False
    return False
