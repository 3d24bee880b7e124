"""L1 scope analysis: names bound in a module, class or function, which of them alias imported
objects, and which L1 proves hold plain Python values (the host-type inference).

Host values (no rule)
---------------------
Issue 12 class 6: plain host Python (lists, dicts, tuples, sets, strings, numbers) is not tensor code,
whatever its method names (``shape.sort()``, ``seen.add(d)``, ``name.split(".")`` for ``aten::split``).
A scope-aware inference (:meth:`_ScopeAnalysis.host_level`) proves expressions to be

* *plain Python values*, never a tensor whatever they hold: any list, tuple, dict or set display or
  comprehension; ``list()``/``tuple()``/``dict()``/``set()``/``sorted()`` of anything; ``collections``
  containers; ``+``/``*``/``|`` of two such values; their slices and ``.copy()``/``.keys()``/...;
* *host data*, plain Python values holding only Python numbers, strings, bools and None: literals;
  ``len``/``int``/``float``/``str``/``range``/... of anything; ``x.shape``, ``x.ndim``, ``x.size()``,
  ``x.stride()``, ``x.numel()``, ``x.item()``, ``x.tolist()``; ``torch.finfo(dt).max``, ``math.pi``;
  ``math.*``, ``min``/``max``/``sum``, operators, subscripts and methods of host data; containers
  and comprehensions of host data; and *frozen* host data, the immutable kind (numbers, strings,
  tuples of them, ``x.shape``, ``range``).

A name has the level every binding of it in its scope gives it (assignments, unpacking, ``for`` and
comprehension targets, ``+=``; settled as a greatest fixpoint, so ``n = 0; n += s`` is frozen data),
and is host data only when every value bound to it is frozen: a list bound to a name may be given a
tensor later (``.append(t)``), so the name is a plain Python value and its elements are unknown. A
name with any other binding (a parameter, an import, ``with ... as``), declared ``global``/
``nonlocal`` anywhere in the file, or bound once to a list and once to a tensor, is unknown: it keeps
today's verdict, and what L1 cannot prove the dynamic tiers see at run time. The tensor metadata
reads are trusted by name unless the submission gives its own objects an attribute of that name
(:func:`_user_attr_names`: a class of its own with a ``shape`` property). A method called on a plain
Python value is judged neither as a tensor method nor as the replaced op (it runs Python's method,
or raises AttributeError).
"""
from __future__ import annotations

import ast
import inspect
import threading
from typing import Iterator

from .backend_names import torch_backend_getattr
from .own_attrs import own_container_attr
from .policy import JIT_DECORATORS, is_module_path, missing_path
from .shadowing import builtin_in_reach

#: The verifier's job threads scan submissions concurrently; ast.parse is serialised (the scanner parses string
#: annotations too).
PARSE_LOCK = threading.Lock()

# ---- host values: what L1 proves is plain Python, not a tensor (see "Host values" in the docstring) ----

#: Levels of :meth:`_ScopeAnalysis.host_level`, each implying the ones below it:
#:
#: * ``UNKNOWN``: nothing known (may be a tensor);
#: * ``HOST``: a plain Python value (list, dict, tuple, set, str, number, range, ...): never a tensor,
#:   whatever it holds;
#: * ``HOST_DATA``: a plain Python value that holds only Python numbers, strings, bools and None when
#:   it is made (``[x.size(0), 1]``); a mutable one may be given a tensor later (``.append(t)``), so a
#:   name bound to it is only ``HOST``;
#: * ``FROZEN_DATA``: host data that cannot change (numbers, strings, tuples of them, ``x.shape``,
#:   ``range``): a name bound only to such values keeps the level, and so do its elements.
UNKNOWN, HOST, HOST_DATA, FROZEN_DATA = 0, 1, 2, 3

#: Builtins whose result is a Python number, string, bool or range whatever the argument (a tensor
#: argument is read through ``__int__``/``__float__``/``__index__``/``__format__``: a host read, which
#: the L3 trace counts): frozen host data.
HOST_SCALAR_BUILTINS: frozenset[str] = frozenset(
    {"len", "int", "float", "bool", "complex", "str", "repr", "ascii", "format", "hash", "id", "ord", "chr",
     "hex", "bin", "oct", "isinstance", "issubclass", "callable", "range"})

#: Builtins that build a Python container of their argument's elements: a plain Python value always,
#: host data when every argument is (frozen for ``tuple``/``frozenset`` of frozen data).
HOST_CONTAINER_BUILTINS: frozenset[str] = frozenset({"list", "tuple", "set", "frozenset", "sorted", "dict"})
_FROZEN_CONTAINER_BUILTINS = frozenset({"tuple", "frozenset"})

#: Builtins whose result is made of their arguments (``max(a, b)`` is ``a`` or ``b``; ``max`` of tensors
#: is a tensor): host data when every argument is (a ``key=`` function is not part of the result).
HOST_COMBINING_BUILTINS: frozenset[str] = frozenset(
    {"min", "max", "sum", "abs", "round", "pow", "divmod", "reversed", "enumerate", "zip"})

#: Standard-library container classes: a plain Python value (what it holds is not known).
HOST_FACTORIES: frozenset[str] = frozenset(
    {"collections.defaultdict", "collections.OrderedDict", "collections.Counter", "collections.deque",
     "collections.ChainMap", "collections.UserDict", "collections.UserList", "collections.UserString"})

#: Functions of host data that give host data (``math.prod(shape)``; ``math.floor(t)`` of a tensor is
#: a tensor, so the arguments must be host data): dotted-path prefixes and exact paths.
HOST_DATA_FUNCTION_ROOTS: tuple[str, ...] = ("math.", "cmath.")
HOST_DATA_FUNCTIONS: frozenset[str] = frozenset({"triton.cdiv", "triton.next_power_of_2"})

#: PyTorch functions whose result is a tuple of Python ints whatever the arguments.
TORCH_HOST_DATA_CALLS: frozenset[str] = frozenset({"torch.Size", "torch.broadcast_shapes"})

#: Tensor metadata read as attributes (``x.shape``, ``x.ndim``): Python ints or tuples of them.
HOST_METADATA_ATTRS: frozenset[str] = frozenset({"shape", "ndim", "itemsize", "nbytes"})

#: Tensor metadata and value reads called as methods (``x.size()``, ``x.stride(0)``, ``x.item()``):
#: Python numbers, bools or tuples of them (frozen host data); ``x.tolist()`` gives (nested) lists of
#: them (host data). ``data_ptr`` is an int too (and a ``raw-storage`` finding of its own).
HOST_METADATA_METHODS: frozenset[str] = frozenset(
    {"size", "stride", "dim", "ndimension", "numel", "nelement", "element_size", "storage_offset", "item",
     "tolist", "is_contiguous", "is_floating_point", "is_complex", "is_signed", "get_device", "data_ptr"})

#: Attributes of a Python number that are Python numbers.
_NUMBER_ATTRS = frozenset({"real", "imag", "numerator", "denominator"})

#: Methods of plain Python containers that return a plain Python container (views or a copy) whatever
#: the container holds.
_CONTAINER_VIEW_METHODS = frozenset({"copy", "keys", "values", "items"})

#: Methods of frozen host data (str, tuple, numbers) that return a new list (host data, not frozen).
_LIST_RETURNING_METHODS = frozenset({"split", "rsplit", "splitlines", "copy", "keys", "values", "items"})

#: At most this many evaluations of bindings settle the host levels of one scope (each name's level
#: falls at most three times; past the budget every name of the scope is unknown).
_HOST_FIXPOINT_STEPS = 200_000


# --------------------------------------------------------------------------------------------------
# Scopes: names bound in a module, class or function, and which of them alias imported objects.
# --------------------------------------------------------------------------------------------------

_ScopeNode = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class _Scope:
    """Bindings of one scope. ``aliases`` maps a local name to the dotted path of an imported object
    (``F`` -> ``torch.nn.functional``, ``s`` -> ``torch.sum``); ``imported`` are the names bound by
    import statements; ``host`` the host level (:data:`HOST` or :data:`FROZEN_DATA`) of each name every
    binding of which in this scope L1 proves is a plain Python value (names absent are unknown)."""

    def __init__(self, node: ast.AST, kind: str):
        self.node = node
        self.kind = kind  # "module" | "function" | "class"
        self.locals: set[str] = set()
        self.aliases: dict[str, str] = {}
        self.imported: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.host: dict[str, int] = {}
        self.jit_defs: set[str] = set()  # names bound only by defs whose decorators are all Triton's
        self.def_names: set[str] = set()  # names bound (also) by a def or class statement


def _own_nodes(scope_node: ast.AST) -> Iterator[ast.AST]:
    """Nodes evaluated in ``scope_node``'s own scope: its body, without the bodies of nested
    functions, lambdas and classes (their decorators, defaults, bases and names are included)."""
    if isinstance(scope_node, ast.Lambda):
        stack: list[ast.AST] = [scope_node.body]
    else:
        stack = list(scope_node.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(d for d in node.args.defaults)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
        elif isinstance(node, ast.Lambda):
            stack.extend(node.args.defaults)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
        elif isinstance(node, ast.ClassDef):
            stack.extend(node.decorator_list)
            stack.extend(node.bases)
            stack.extend(k.value for k in node.keywords)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _target_names(target: ast.AST, starred: bool = False) -> Iterator[tuple[str, bool]]:
    """The names an assignment target binds, each with whether it is starred (``a, *rest = ...``)."""
    if isinstance(target, ast.Name):
        yield target.id, starred
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt, starred)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value, True)


def _name_bindings(scope_node: ast.AST) -> dict[str, list[tuple[str, ast.AST | None]]]:
    """Every binding of a name in ``scope_node``'s own scope, as ``(kind, node)``:

    * ``("value", expr)``: ``name = expr``, ``name: T = expr``, ``(name := expr)``;
    * ``("elem", expr)``: an element of ``expr`` (``a, b = expr``, ``for name in expr``, comprehension
      targets, which this scan also counts with the enclosing scope, where a call inside the
      comprehension is judged: more bindings, never fewer);
    * ``("star", expr)``: a starred target (``a, *name = expr``): a list of elements of ``expr``;
    * ``("aug", stmt)``: ``name op= value``;
    * ``("opaque", None)``: anything else (parameters are added by the caller; imports, ``def``,
      ``class``, ``with ... as``, ``except ... as``, ``match`` captures, ``del``).
    """
    out: dict[str, list[tuple[str, ast.AST | None]]] = {}
    classified: set[int] = set()

    def bind(target: ast.AST, kind: str, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            out.setdefault(target.id, []).append((kind, value))
            classified.add(id(target))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                if isinstance(elt, ast.Starred):
                    bind(elt.value, "star", value)
                else:
                    bind(elt, "elem", value)
        elif isinstance(target, ast.Starred):
            bind(target.value, "star", value)

    names: list[ast.Name] = []
    for sub in _own_nodes(scope_node):
        if isinstance(sub, ast.Assign):
            for t in sub.targets:
                bind(t, "value", sub.value)
        elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
            bind(sub.target, "value", sub.value)
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            out.setdefault(sub.target.id, []).append(("aug", sub))
            classified.add(id(sub.target))
        elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
            bind(sub.target, "elem", sub.iter)
        elif isinstance(sub, ast.NamedExpr):
            bind(sub.target, "value", sub.value)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.append(sub)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(sub.name, []).append(("opaque", None))
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            for a in sub.names:
                out.setdefault(a.asname or a.name.split(".")[0], []).append(("opaque", None))
        elif isinstance(sub, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and sub.name:
            out.setdefault(sub.name, []).append(("opaque", None))
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            out.setdefault(sub.rest, []).append(("opaque", None))
    for n in names:  # stores not classified above (``with ... as name``, ``del name``)
        if id(n) not in classified:
            out.setdefault(n.id, []).append(("opaque", None))
    return out


# --------------------------------------------------------------------------------------------------
# Scope analysis during one scan: the scope chain, name resolution and host levels.
# --------------------------------------------------------------------------------------------------


class _ScopeAnalysis:
    """Scopes and name resolution during one scan (mixed into :class:`.scanner._Scanner`): a stack of
    :class:`_Scope` (module first), the imported objects names denote (:meth:`lookup`, :meth:`resolve`),
    and the host levels of expressions (:meth:`host_level`)."""

    def __init__(self) -> None:
        self.scopes: list[_Scope] = []
        self.rebound: set[str] = set()  # names declared global or nonlocal anywhere (set by run)
        self.user_attrs: set[str] = set()  # attribute names the submission gives its own objects (run)
        self._comp_env: list[dict[str, int]] = []  # host levels of the comprehension targets being judged

    # ---- scopes --------------------------------------------------------------------------------

    def build_scope(self, node: ast.AST) -> _Scope:
        kind = "module" if isinstance(node, ast.Module) else "class" if isinstance(node, ast.ClassDef) else "function"
        scope = _Scope(node, kind)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    scope.locals.add(arg.arg)
        params = set(scope.locals)
        assigns: list[tuple[str, ast.AST]] = []
        stores: dict[str, int] = {}
        binds: dict[str, int] = {}  # how often each name is bound in this scope, by any construct
        defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for sub in _own_nodes(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                stores[sub.id] = stores.get(sub.id, 0) + 1
            bound_here: list[str] = []
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                bound_here.append(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound_here.append(sub.name)
                if not isinstance(sub, ast.ClassDef):
                    defs.append(sub)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                bound_here.extend(a.asname or a.name.split(".")[0] for a in sub.names)
            elif isinstance(sub, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and sub.name:
                bound_here.append(sub.name)
            elif isinstance(sub, ast.MatchMapping) and sub.rest:
                bound_here.append(sub.rest)
            for name in bound_here:
                binds[name] = binds.get(name, 0) + 1
            if isinstance(sub, ast.Global):
                scope.globals.update(sub.names)
            elif isinstance(sub, ast.Nonlocal):
                scope.nonlocals.update(sub.names)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.locals.add(sub.name)
                scope.def_names.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                scope.locals.add(sub.id)
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                scope.locals.add(sub.name)
            elif isinstance(sub, (ast.MatchAs, ast.MatchStar)) and sub.name:
                scope.locals.add(sub.name)
            elif isinstance(sub, ast.MatchMapping) and sub.rest:
                scope.locals.add(sub.rest)
            elif isinstance(sub, ast.Import):
                for alias in sub.names:
                    if alias.asname:
                        scope.aliases[alias.asname] = alias.name
                        bound = alias.asname
                    else:
                        bound = alias.name.split(".")[0]
                        scope.aliases[bound] = bound
                    scope.locals.add(bound)
                    scope.imported.add(bound)
            elif isinstance(sub, ast.ImportFrom):
                module = "." * sub.level + (sub.module or "")
                for alias in sub.names:
                    if alias.name == "*":
                        continue
                    bound = alias.asname or alias.name
                    scope.aliases[bound] = f"{module}.{alias.name}" if module else alias.name
                    scope.locals.add(bound)
                    scope.imported.add(bound)
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
                assigns.append((sub.targets[0].id, sub.value))
            elif isinstance(sub, ast.AnnAssign) and sub.value is not None and isinstance(sub.target, ast.Name):
                assigns.append((sub.target.id, sub.value))
        scope.locals -= scope.globals | scope.nonlocals
        # Aliases by assignment (``s = torch.sum``), resolved through the scope chain; a few rounds
        # settle chains such as ``F = torch.nn.functional; g = F.gelu``. A name that is also a
        # parameter or is bound to something else in the same scope is not an alias (``out =
        # torch.float32`` then ``out = torch.empty(...)``); the assignment itself is still judged as
        # a reference to the object.
        counts: dict[str, int] = {}
        for name, _ in assigns:
            counts[name] = counts.get(name, 0) + 1
        candidates = [
            (name, value) for name, value in assigns
            if name not in scope.imported and name not in scope.globals and name not in params
            and stores.get(name, 0) == counts[name]
        ]
        self.scopes.append(scope)
        try:
            for _ in range(3):
                changed = False
                for name, value in candidates:
                    path = self.resolve(value)
                    if path is not None and scope.aliases.get(name) != path:
                        scope.aliases[name] = path
                        changed = True
                if not changed:
                    break
            for name, value in candidates:
                if name in scope.aliases and self.resolve(value) is None:
                    del scope.aliases[name]  # also bound to a non-alias value
            self._settle_host_levels(node, scope, params)
            # a name every binding of which is such a def (tp39: FLA's ``if os.environ.get('FLA_USE_FAST_OPS') ==
            # '1':`` defines its ``exp``/``log`` helpers one way, ``else:`` another) is a jit function wherever read
            jit = [d for d in defs if d.decorator_list and all(
                self.resolve(dec.func if isinstance(dec, ast.Call) else dec) in JIT_DECORATORS
                for dec in d.decorator_list)]
            for d in jit:
                if binds.get(d.name) == sum(j.name == d.name for j in jit) and d.name not in self.rebound:
                    scope.jit_defs.add(d.name)
        finally:
            self.scopes.pop()
        return scope

    def lookup(self, name: str) -> tuple[str, str | None, _Scope | None]:
        """Where ``name`` is bound from the current scope: ("alias", path, scope), ("local", None,
        scope) or ("builtin", None, None)."""
        chain = list(reversed(self.scopes))
        i = 0
        while i < len(chain):
            scope = chain[i]
            if scope.kind == "class" and i > 0:
                i += 1
                continue
            if name in scope.globals and scope.kind == "function":
                chain = [self.scopes[0]]
                i = 0
                continue
            if scope.kind != "function" and builtin_in_reach(scope, name):
                return "builtin", None, None  # (rb42) its binding may not have run when it is read
            if name in scope.aliases:
                return "alias", scope.aliases[name], scope
            if name in scope.locals:
                return "local", None, scope
            i += 1
        return "builtin", None, None

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted path of an imported object that ``node`` denotes, or None."""
        if isinstance(node, ast.Name):
            kind, path, _ = self.lookup(node.id)
            return path if kind == "alias" else None
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else f"{base}.{node.attr}"
        literal = self.getattr_literal(node)
        if literal is not None:
            base = self.resolve(literal[0])
            return None if base is None else f"{base}.{literal[1]}"
        if self.torch_backend_getattr(node):
            return "torch.cuda"  # one of torch's device-backend modules, judged as torch.cuda (tp38)
        return None

    def triton_language_fallback(self, name: str) -> bool:
        """Whether every binding of ``name`` in the current scope is an import or a plain assignment of a Triton
        language module (``triton.language`` or below) and nothing else binds it (no ``global``/``nonlocal``): the
        version fallback ``try: from triton.language.extra import libdevice`` / ``except ImportError: libdevice =
        tl.math`` (or the same under ``if``/``else``), whose second binding stops the name from being one alias.
        Whichever module the name holds at run time, ``name.x`` is judged alike: a Triton language attribute, a store
        into a Triton module a finding. A name bound to one PyTorch module, or to anything else, is not a fallback."""
        if name in self.rebound or not self.scopes:
            return False
        scope = self.scopes[-1]
        if scope.kind == "class":
            return False

        def tl_path(path: str | None) -> bool:
            return path is not None and (path == "triton.language" or path.startswith("triton.language."))

        seen = 0
        for sub in _own_nodes(scope.node):
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                module = "" if isinstance(sub, ast.Import) else "." * sub.level + (sub.module or "")
                for a in sub.names:
                    if isinstance(sub, ast.Import):
                        bound, path = a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]
                    else:
                        bound, path = a.asname or a.name, f"{module}.{a.name}" if module else a.name
                    if bound == name:
                        if not tl_path(path):
                            return False
                        seen += 1
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name) \
                    and sub.targets[0].id == name:
                path = self.resolve(sub.value)  # tp43: or a Triton version's module this one lacks (tl.libdevice)
                if not (tl_path(path) and (is_module_path(path) or missing_path(path))):
                    return False
                seen += 1
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler,
                                  ast.MatchAs, ast.MatchStar)) and sub.name == name:
                return False
            elif isinstance(sub, ast.MatchMapping) and sub.rest == name:
                return False
        # every other store of the name (``for``, ``with ... as``, a tuple target, ``:=``, ``del``) disqualifies it
        stores = sum(1 for sub in _own_nodes(scope.node)
                     if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, (ast.Store, ast.Del)))
        assigns = sum(1 for sub in _own_nodes(scope.node)
                      if isinstance(sub, ast.Assign) and len(sub.targets) == 1
                      and isinstance(sub.targets[0], ast.Name) and sub.targets[0].id == name)
        return seen >= 2 and stores == assigns

    def is_builtin(self, name: str) -> bool:
        return self.lookup(name)[0] == "builtin"

    # ---- host values ---------------------------------------------------------------------------

    def _settle_host_levels(self, node: ast.AST, scope: _Scope, params: set[str]) -> None:
        """Fill ``scope.host``: the greatest host level every binding of a name in this scope has,
        assuming the levels being settled (``n = 0`` then ``n += s`` is frozen data). A name with a
        binding L1 cannot follow (a parameter, an import, ``with ... as``), declared ``global`` or
        ``nonlocal`` anywhere in the file, or an alias of an imported object, is unknown. A name is at
        most :data:`HOST` unless every value bound to it is :data:`FROZEN_DATA` (a list bound to it may
        be given a tensor later). Every name starts at the top level and falls until its bindings
        agree; a fall re-judges the names whose bindings read it (a worklist). Past
        :data:`_HOST_FIXPOINT_STEPS` evaluations every name of the scope is unknown."""
        bindings = _name_bindings(node)
        for p in params:
            bindings.setdefault(p, []).append(("opaque", None))
        scope.host = {n: FROZEN_DATA for n, bs in bindings.items()
                      if n in scope.locals and n not in self.rebound and n not in scope.aliases
                      and all(kind != "opaque" for kind, _ in bs)}
        readers: dict[str, set[str]] = {}  # name -> the names whose bindings read it
        for name in scope.host:
            for _, value in bindings[name]:
                for sub in ast.walk(value):  # type: ignore[arg-type]
                    if isinstance(sub, ast.Name) and sub.id in scope.host:
                        readers.setdefault(sub.id, set()).add(name)
        work = list(scope.host)
        pending = set(work)
        for _ in range(_HOST_FIXPOINT_STEPS):
            if not work:
                return
            name = work.pop()
            pending.discard(name)
            if name not in scope.host:
                continue
            level = min(self._binding_level(name, kind, value) for kind, value in bindings[name])
            if level < scope.host[name]:
                if level == UNKNOWN:
                    del scope.host[name]
                else:
                    scope.host[name] = level
                for reader in readers.get(name, ()):
                    if reader in scope.host and reader not in pending:
                        work.append(reader)
                        pending.add(reader)
        scope.host.clear()

    def _binding_level(self, name: str, kind: str, value: ast.AST | None) -> int:
        """The level one binding gives a name: :data:`FROZEN_DATA`, :data:`HOST` or :data:`UNKNOWN`."""
        if kind == "value":
            level = self.host_level(value)  # type: ignore[arg-type]
        elif kind == "elem":
            level = _element_level(self.host_level(value))  # type: ignore[arg-type]
        elif kind == "star":  # a new list of elements
            return HOST
        elif kind == "aug":
            stmt: ast.AugAssign = value  # type: ignore[assignment]
            level = min(self._name_level(name), self.host_level(stmt.value))
        else:
            return UNKNOWN
        return level if level in (FROZEN_DATA, UNKNOWN) else HOST

    def _name_level(self, name: str) -> int:
        for env in reversed(self._comp_env):  # a comprehension's own targets, while it is judged
            if name in env:
                return env[name]
        kind, _, scope = self.lookup(name)
        if kind == "local" and scope is not None:
            return scope.host.get(name, UNKNOWN)
        return UNKNOWN

    def host_level(self, node: ast.AST) -> int:
        """What L1 proves about the value of expression ``node`` in the current scope, one of
        :data:`UNKNOWN` < :data:`HOST` (a plain Python value: never a tensor) < :data:`HOST_DATA` (one
        that holds only Python numbers, strings, bools and None) < :data:`FROZEN_DATA` (host data that
        cannot change). Builtins and the tensor metadata reads of :data:`HOST_METADATA_ATTRS` and
        :data:`HOST_METADATA_METHODS` are trusted to return what they return for tensors, unless the
        submission gives its own objects an attribute of that name (:func:`_user_attr_names`)."""
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            return FROZEN_DATA
        if isinstance(node, ast.Tuple):
            return _container_level([self.host_level(e) for e in node.elts], frozen=True)
        if isinstance(node, (ast.List, ast.Set)):
            return _container_level([self.host_level(e) for e in node.elts])
        if isinstance(node, ast.Dict):
            parts = [k for k in node.keys if k is not None] + list(node.values)
            return _container_level([self.host_level(e) for e in parts])
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension_level(node)
        if isinstance(node, ast.Name):
            return self._name_level(node.id)
        if isinstance(node, (ast.Starred, ast.NamedExpr)):
            return self.host_level(node.value)
        if isinstance(node, ast.Attribute):
            path = self.resolve(node)
            if path is not None:
                return FROZEN_DATA if _is_number_constant(path) else UNKNOWN
            if node.attr in self.user_attrs:  # tp43: a launcher's own container (``self.seen = set()``) is one
                return HOST if own_container_attr(self, node) else UNKNOWN
            if node.attr in HOST_METADATA_ATTRS:
                return FROZEN_DATA
            if isinstance(node.value, ast.Call) and self.resolve(node.value.func) in ("torch.finfo", "torch.iinfo"):
                return FROZEN_DATA
            if node.attr in _NUMBER_ATTRS and self.host_level(node.value) >= HOST_DATA:
                return FROZEN_DATA
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self.host_level(node.value)
            if base >= HOST_DATA:
                return base
            return HOST if base == HOST and isinstance(node.slice, ast.Slice) else UNKNOWN
        if isinstance(node, ast.BinOp):
            # host data of host data; a plain Python value of two (list + list, "%s" % t); unknown when
            # either side may be a tensor (its operator computes)
            return min(self.host_level(node.left), self.host_level(node.right))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return FROZEN_DATA
            level = self.host_level(node.operand)
            return level if level >= HOST_DATA else UNKNOWN
        if isinstance(node, ast.BoolOp):  # ``a or b`` is a or b
            return min(self.host_level(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return min(self.host_level(node.body), self.host_level(node.orelse))
        if isinstance(node, ast.Compare):
            # is / in always give a bool; ==, < of tensors give a tensor (and tuples compare elements)
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return FROZEN_DATA
            operands = [node.left, *node.comparators]
            return FROZEN_DATA if all(self.host_level(o) >= HOST_DATA for o in operands) else UNKNOWN
        if isinstance(node, ast.Call):
            return self._call_level(node)
        return UNKNOWN

    def _comprehension_level(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> int:
        """A comprehension is a plain Python value (list, set, dict or generator); host data when its
        elements are, judged with its own targets bound to the elements of their iterables (its
        scope: ``[x.stride(d) for d in range(n)]`` is host data whatever ``d`` is outside)."""
        env: dict[str, int] = {}
        self._comp_env.append(env)
        try:
            for gen in node.generators:
                it = _element_level(self.host_level(gen.iter))
                for name, starred in _target_names(gen.target):
                    env[name] = HOST if starred else it
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            level = min(self.host_level(p) for p in parts)
            frozen = isinstance(node, ast.GeneratorExp)  # yields its elements; nothing can be added
            return _container_level([level], frozen=frozen)
        finally:
            self._comp_env.pop()

    def _call_level(self, node: ast.Call) -> int:
        func = node.func
        args = min((self.host_level(a) for a in node.args), default=FROZEN_DATA)
        kws = min((self.host_level(k.value) for k in node.keywords if k.arg != "key"), default=FROZEN_DATA)
        if isinstance(func, ast.Name) and self.is_builtin(func.id):
            name = func.id
            if name in HOST_SCALAR_BUILTINS:
                return FROZEN_DATA
            if name in HOST_CONTAINER_BUILTINS:  # a new container of the argument's elements
                return _container_level([min(args, kws) if name == "dict" else args],
                                        frozen=name in _FROZEN_CONTAINER_BUILTINS)
            if name in HOST_COMBINING_BUILTINS:
                level = min(args, kws)
                return level if level >= HOST_DATA else UNKNOWN
            return UNKNOWN
        path = self.resolve(func)
        if path is not None:
            if path in HOST_FACTORIES:
                return HOST
            if path in TORCH_HOST_DATA_CALLS:
                return FROZEN_DATA
            if path in HOST_DATA_FUNCTIONS or path.startswith(HOST_DATA_FUNCTION_ROOTS):
                return FROZEN_DATA if min(args, kws) >= HOST_DATA else UNKNOWN
            return UNKNOWN
        method = self._method_of(func)
        if method is None:
            return UNKNOWN
        receiver, name = method
        if name in self.user_attrs:
            return UNKNOWN
        if name in HOST_METADATA_METHODS:
            return HOST_DATA if name == "tolist" else FROZEN_DATA
        base = self.host_level(receiver)
        level = min(base, args, kws)
        if level >= HOST_DATA:  # "a.b".split("."), shape.index(1), d.get(k, 0)
            return HOST_DATA if name in _LIST_RETURNING_METHODS else level
        if base >= HOST and name in _CONTAINER_VIEW_METHODS:
            return HOST
        return UNKNOWN

    def torch_backend_getattr(self, node: ast.AST) -> bool:
        """``getattr(torch, d.type[, None])`` read as a device backend's module
        (:func:`.backend_names.torch_backend_getattr`, where the rule lives)."""
        return torch_backend_getattr(self, node, _own_nodes)

    def _resolve_in_module(self, node: ast.AST) -> str | None:
        """:meth:`resolve` as the module's own scope reads ``node`` (a function's local alias does not count)."""
        saved, self.scopes = self.scopes, self.scopes[:1]
        try:
            return self.resolve(node)
        finally:
            self.scopes = saved

    def _module_name(self, name: str) -> bool:
        """Whether ``name``, read here, denotes a binding of the module's own scope (no global/nonlocal anywhere)."""
        return name not in self.rebound and self.lookup(name)[2] is self.scopes[0]

    def getattr_literal(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """``getattr(obj, "name")`` (builtin getattr, literal name) -> (obj, "name")."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and self.is_builtin("getattr")
        ):
            return node.args[0], node.args[1].value
        return None

    @property
    def in_function(self) -> bool:
        return any(s.kind == "function" for s in self.scopes)

    @property
    def current(self) -> _Scope:
        return self.scopes[-1]

    def _method_of(self, func: ast.AST) -> tuple[ast.AST, str] | None:
        if isinstance(func, ast.Attribute):
            return func.value, func.attr
        return self.getattr_literal(func)


def _user_attr_names(tree: ast.AST) -> set[str]:
    """Attribute names the submission gives its own objects: names defined or assigned in class
    bodies, attributes stored (``obj.name = ...``, ``setattr(obj, "name", ...)``) and the string
    arguments of ``namedtuple``/``NamedTuple``/``make_dataclass``/three-argument ``type`` calls
    (field and member names). A method call of one of these names in a kernel body may reach the
    submission's own code, even when Triton has a method of that name (``P.to()`` on a class that
    defines ``to``); and a tensor metadata read of one of them (``o.shape``) may return anything
    (:meth:`_ScopeAnalysis.host_level` does not trust it)."""
    names: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            for stmt in n.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(stmt.name)
                elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for t in targets:
                        names.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.attr)
        elif isinstance(n, ast.Call):
            f = n.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if fname in ("setattr", "namedtuple", "NamedTuple", "make_dataclass") or (
                    fname == "type" and len(n.args) == 3):  # classes made by a call: their names and fields
                for c in ast.walk(n):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        names.update(c.value.replace(",", " ").split())
    return names


def _element_level(level: int) -> int:
    """The level of an element of a value of ``level``: frozen data holds frozen data; the elements of
    (mutable) host data hold no tensor but may be lists (plain Python values); of anything else,
    unknown."""
    return FROZEN_DATA if level == FROZEN_DATA else HOST if level == HOST_DATA else UNKNOWN


def _container_level(parts: list[int], *, frozen: bool = False) -> int:
    """A new container of elements of levels ``parts``: host data when every element is (frozen data
    for an immutable container of frozen data), else a plain Python value."""
    level = min(parts, default=FROZEN_DATA)
    if level == FROZEN_DATA:
        return FROZEN_DATA if frozen else HOST_DATA
    return HOST_DATA if level == HOST_DATA else HOST


def _torch_object(path: str) -> object | None:
    """The object at dotted ``path`` (``torch.a.b``) read without triggering lazy imports, or None."""
    import torch

    obj: object = torch
    for part in path.split(".")[1:]:
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
    return obj


def _is_number_constant(path: str) -> bool:
    """Whether the imported object at ``path`` is a Python number (``math.pi``, ``cmath.inf``,
    ``torch.pi``)."""
    import sys as _sys

    root, _, rest = path.partition(".")
    if not rest or root not in ("math", "cmath", "torch"):
        return False
    if root == "torch":
        obj = _torch_object(path)
    else:
        obj = _sys.modules.get(root) or __import__(root)
        for part in rest.split("."):
            obj = inspect.getattr_static(obj, part, None)
    return type(obj) in (int, float, complex, bool)


def _type_positions(tree: ast.AST, bases: bool = True) -> set[int]:
    """Ids of the nodes where a class is used as a type, never called: isinstance/issubclass's second argument,
    annotations, except clauses, base classes and keywords of a class statement, operands of comparisons (``type(x)
    is torch.Tensor``), each with everything inside (tuples of classes, ``Optional[...]``). ``bases=False`` leaves
    out base classes and class keywords (a subclass runs the class's code with the submission's overrides).
    isinstance/issubclass count only where the file binds neither name anywhere: a ``def isinstance(x, cls): return
    cls`` of the submission's would hand out any class it is given (fp31)."""
    checks = {"isinstance", "issubclass"} - _bound_anywhere(tree)
    roots: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in checks \
                and len(n.args) == 2:
            roots.append(n.args[1])
        elif isinstance(n, ast.arg) and n.annotation is not None:
            roots.append(n.annotation)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            roots.append(n.returns)
        elif isinstance(n, ast.AnnAssign):
            roots.append(n.annotation)
        elif isinstance(n, ast.ExceptHandler) and n.type is not None:
            roots.append(n.type)
        elif isinstance(n, ast.ClassDef) and bases:
            roots.extend(n.bases)
            roots.extend(k.value for k in n.keywords)
        elif isinstance(n, ast.Compare):
            operands = [n.left, *n.comparators]
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
                roots.extend(operands)  # identity: no operand's code runs
            else:
                # ==, !=, in, <: an operand's __eq__ (or __contains__, or its metaclass's) receives the others, so a
                # class there is a type position only beside literals (fp31: Grab() == torch._C._DisableTorchDispatch
                # handed the class to the submission's __eq__; write `type(x) is C`)
                roots.extend(op for op in operands if all(_inert_operand(o) for o in operands if o is not op))
    out: set[int] = set()
    for r in roots:
        if isinstance(r, ast.Call):  # type(x) is torch.Tensor: the call itself is judged as any call
            continue
        out.update(id(x) for x in ast.walk(r) if not isinstance(x, ast.Call))
    return out


def _is_main_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    has_name = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    has_main = any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
    return has_name and has_main


def _bound_anywhere(tree: ast.AST) -> set[str]:
    """Every name the file binds in any scope: assignments and other stores, defs, classes, imports, parameters."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in n.names)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
    return out


def _inert_operand(node: ast.AST) -> bool:
    """An operand of a comparison that runs none of the submission's code when compared with a class: a literal. Not
    ``type(x)``: a metaclass of the submission's would receive the other operand in its ``__eq__``."""
    return isinstance(node, ast.Constant)


def _own_op_namespaces(tree: ast.AST) -> set[str]:
    """Operator namespaces the file names in ``"ns::op"`` strings (``torch.library.custom_op("mine::f", ...)``), other
    than ATen's: ``torch.ops.mine.f`` is the submission's own operator, not the one it replaces (it stays refused as
    torch-compute, and its registration as monkey-patch)."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.count("::") == 1:
            ns = n.value.split("::")[0]
            if ns.isidentifier() and ns != "aten":
                out.add(ns)
    return out
