"""L1 rules of values and stores: library classes and objects used as values, writes through attributes and subscripts
(monkey-patching), and module-level names rebound."""
from __future__ import annotations

import ast

from .policy import (
    _BUILTIN_TYPES,
    _JIT_SIDE_EFFECT,
    SAFE_TORCH_CLASSES,
    TORCH_ALLOWED,
    is_module_path,
)


def none_compared(tree: ast.AST) -> set[int]:
    """ids of the operands of ``x is None`` / ``x is not None`` (tp38: Liger-Kernel's ``backend is not None`` after
    ``backend = getattr(torch, device.type, None)``): an identity test with None reaches nothing of the object."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot)):
            left, right = n.left, n.comparators[0]
            for a, b in ((left, right), (right, left)):
                if isinstance(b, ast.Constant) and b.value is None:
                    out.add(id(a))
    return out

def _class_reach(n: ast.AST, names: set[str]) -> bool:
    """Whether expression ``n`` may hold a class reached through an object: a one-argument ``type(x)`` call,
    ``inspect.getmro(...)``, or a name of ``names`` (already such a value)."""
    for m in ast.walk(n):
        if isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "type" and len(m.args) == 1:
            return True
        if isinstance(m, ast.Call) and isinstance(m.func, ast.Attribute) and m.func.attr == "getmro":
            return True
        if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Load) and m.id in names:
            return True
    return False


def _bound_names(target: ast.AST) -> list[str]:
    return [m.id for m in ast.walk(target) if isinstance(m, ast.Name)]


#: Attribute names of Triton's kernel objects (JITFunction, InterpretedFunction, Autotuner, Heuristics: their classes'
#: entries and what their ``__init__`` sets), read by Triton and by the harness's launch hooks; an instance attribute
#: of that name on a kernel of the file shadows the class's (rt39b: ``kernel.run = f`` took every launch of the kernel
#: past the harness's hooked run, uncounted and unchecked). Other names stay the file's own (``kernel.my_cache = {}``).
KERNEL_ATTRS = frozenset({
    "_bench", "_call_hook", "_do_bench", "_do_compile", "_fn_name", "_get_src", "_hash_lock", "_pack_args", "_repr",
    "_set_src", "_src", "_unsafe_update_src", "add_pre_run_hook", "arg_names", "base_fn", "cache", "cache_key",
    "cache_results", "check_disk_cache", "configs", "configs_top_k", "constexprs", "create_binder", "debug",
    "device_caches", "do_bench", "do_not_specialize", "do_not_specialize_on_alignment", "early_config_prune", "fn",
    "get_capture_scope", "hash", "is_gluon", "kernel", "keys", "kwargs", "launch_metadata", "module", "noinline",
    "num_reps", "num_warmups", "params", "parse", "perf_model", "post_hook", "pre_hook", "pre_run_hooks", "preload",
    "prune_configs", "raw_src", "repr", "reset_to_zero", "restore_value", "rewrite", "rewriter", "rewritten_fn", "run",
    "signature", "src", "starting_line_number", "type", "use_cuda_graph", "used_global_vals", "user_defined_post_hook",
    "user_defined_pre_hook", "values", "version", "warmup"})
_KERNEL_MAKERS = frozenset({"jit", "autotune", "heuristics"})
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                       "sort", "reverse", "__setitem__", "__delitem__", "add", "discard", "__iadd__"})
#: Expressions whose value may be one of the names they contain (not a call's result, an attribute or arithmetic).
_PASSING = (ast.Name, ast.Subscript, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.IfExp, ast.BoolOp, ast.NamedExpr,
            ast.Starred)


def _maker(n: ast.AST) -> bool:
    """Whether ``n`` (a decorator, or the callee of an assigned call) names triton.jit/autotune/heuristics."""
    while isinstance(n, ast.Call):
        n = n.func
    return (isinstance(n, ast.Attribute) and n.attr in _KERNEL_MAKERS) or (isinstance(n, ast.Name)
                                                                            and n.id in _KERNEL_MAKERS)


def _holds(n: ast.AST, names: set[str]) -> bool:
    """Whether ``n`` may evaluate to an object a name of ``names`` holds (through containers, not calls)."""
    if isinstance(n, ast.Name):
        return n.id in names
    if isinstance(n, _PASSING):
        return any(_holds(c, names) for c in ast.iter_child_nodes(n) if not isinstance(c, ast.expr_context))
    return False


def store_aliases(tree: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """:func:`class_aliases` and the names that may hold a Triton kernel of the file: a def decorated with
    triton.jit/autotune/heuristics, a name assigned such a call's result, and names bound from those
    (``_r = _k``, ``for k in (_k,)``)."""
    kernels: set[str] = set()
    pairs: list[tuple[list[str], ast.AST]] = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(_maker(d) for d in n.decorator_list):
            kernels.add(n.name)
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and _maker(n.value.func):
            kernels.update(x for t in n.targets for x in _bound_names(t))
        elif isinstance(n, ast.Assign):
            pairs.append(([x for t in n.targets for x in _bound_names(t)], n.value))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs.append((_bound_names(n.target), n.iter))
        elif isinstance(n, (ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
            pairs.append((_bound_names(n.target), n.value))
    grew = True
    while grew:
        grew = False
        for targets, value in pairs:
            if not set(targets) <= kernels and _holds(value, kernels):
                kernels |= set(targets)
                grew = True
    return class_aliases(tree), frozenset(kernels)


def class_aliases(tree: ast.AST) -> frozenset[str]:
    """Names the file binds (anywhere, by assignment, a loop, ``with ... as``, a walrus or a comprehension) to a value
    that may hold a class reached through an object (:func:`_class_reach`), directly or through another such name,
    a container or a subscript (``_KT = type(kernel)``, ``for c in (type(k),)``, ``_x = [type(k)][0]``). A store
    through such a name changes that class as ``type(kernel).run = f`` does (red team rt39b: ``_KT = type(_k);
    _KT.run = f`` replaced the run of Triton's kernel class, where the harness counts and checks launches).
    Matched by name across the file (a file that reuses the name for its own object has that store refused too)."""
    pairs: list[tuple[list[str], ast.AST]] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            pairs.append(([x for t in n.targets for x in _bound_names(t)], n.value))
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
            pairs.append((_bound_names(n.target), n.value))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs.append((_bound_names(n.target), n.iter))
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            pairs.append((_bound_names(n.optional_vars), n.context_expr))
    names: set[str] = set()
    grew = True
    while grew:
        grew = False
        for targets, value in pairs:
            if not set(targets) <= names and _class_reach(value, names):
                names |= set(targets)
                grew = True
    return frozenset(names)


def _first_attr(node: ast.AST, base: ast.Name) -> str | None:
    """The attribute a store (target ``node``, or a setattr/delattr/update_wrapper call) reaches first from ``base``."""
    if isinstance(node, ast.Call):
        obj = node.args[0] if node.args else None
        if obj is base and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            return node.args[1].value if type(node.args[1].value) is str else None
        node = obj
    attr = None
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            attr = node.attr
        node = node.value
    return attr if node is base else None


class _ValueRules:
    """ValueRules of :class:`~.scanner._Scanner` (a mixin: it uses the scanner's report, lookup and scope state)."""

    def _class_value_ok(self, node: ast.AST, path: str) -> bool:
        """Whether a PyTorch class read as a value at ``node`` is used where the scan follows it: in a type position
        (:attr:`type_positions`: isinstance/issubclass, annotations, except clauses, base classes, comparisons),
        as the value of a plain alias assignment outside a class body (its calls are judged by path; in a class body
        the alias is an attribute, ``H.Q()``, which the scan does not resolve), or a class whose call is allowed
        anyway (:data:`TORCH_ALLOWED`, :data:`SAFE_TORCH_CLASSES`)."""
        if id(node) in self.type_positions:
            return True
        rest = path.split(".", 1)[1] if "." in path else ""
        if rest in TORCH_ALLOWED or path in SAFE_TORCH_CLASSES or path in self.allow_methods:
            return True
        bound = self.module_binds.get(id(node))
        return bound is not None and self.lookup(bound)[:2] == ("alias", path) and self.current.kind != "class"

    def _object_value_ok(self, node: ast.AST) -> bool:
        """Whether a PyTorch object (an instance, not a plain value) read at ``node`` is used where the scan follows
        it: as an attribute's base (``torch.backends.cuda.matmul.allow_tf32``), getattr/hasattr's first argument, a
        type position, or the value of a plain alias outside a class body (its uses are judged by path)."""
        nid = id(node)
        if nid in self.module_bases or nid in self.type_positions:
            return True
        probe = self.module_probes.get(nid)
        if probe is not None and isinstance(probe.func, ast.Name) and self.is_builtin(probe.func.id):
            return True
        bound = self.module_binds.get(nid)
        path = self.resolve(node)
        return bound is not None and self.lookup(bound)[:2] == ("alias", path) and self.current.kind != "class"

    def _check_module_value(self, node: ast.AST) -> None:
        """A module may be used only where the scan follows it: as an attribute's base (``torch.x``), as
        getattr/hasattr's first argument, or as the value of a plain assignment that makes a name its alias
        (``libdevice = tl.extra.cuda.libdevice``). Anywhere else (a container, a call's argument, a loop's iterable,
        a default, a return value, a conditional) it reaches names the scan never resolves: red team 28, ``for _t in
        (torch,): _t.save = f`` ran the submission's code on every case's outputs after the traced call, and
        ``_t.serialization.sys.modules[...]`` reached the harness's own state (the ghost flag, the trace switch)."""
        nid = id(node)
        if nid in self.module_bases:
            return
        path = self.resolve(node)
        if path is None or not is_module_path(path):
            return
        probe = self.module_probes.get(nid)
        if probe is not None and isinstance(probe.func, ast.Name) and self.is_builtin(probe.func.id):
            return
        if nid in self.none_checks:
            return
        bound = self.module_binds.get(nid)
        if bound is not None and self.lookup(bound)[:2] == ("alias", path) and self.current.kind != "class":
            return  # (in a class body the alias is an attribute, ``H.m``, which the scan does not resolve)
        if bound is not None and self.triton_language_fallback(bound):
            return
        hint = ("; for a Triton version fallback bind the name in statements instead: try: from "
                "triton.language.extra import libdevice / except ImportError: libdevice = tl.math (or if/else)"
                if path.startswith("triton.language.") else "")
        self.report(node, "dynamic-import", f"uses the module {path} as a value; a module may only be read through its "
                    "attributes (module.name, getattr/hasattr with a literal) or bound to a name by import or a plain "
                    "assignment, where the scan follows it (in a container, an argument, a loop variable or a "
                    f"conditional it reaches names the scan never sees){hint}")

    # ---- stores: monkey-patching and module caches ---------------------------------------------

    def _base_of(self, target: ast.AST) -> ast.AST:
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
        return target

    def _check_store_target(self, target: ast.Attribute | ast.Subscript) -> None:
        if id(target) in self.handled:
            return
        self.handled.add(id(target))
        if self.jit_depth:
            self.report(target, "kernel-body", _JIT_SIDE_EFFECT)
            return
        self._check_store_base(target, self._base_of(target))

    def _check_store_base(self, node: ast.AST, base: ast.AST) -> None:
        """A store into ``base`` (through attributes, subscripts or setattr/delattr); ``node`` is the
        store target (or the setattr call) that the finding points at."""
        owner_node = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else base
        base = self._base_of(base)
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "type":
            self.report(node, "monkey-patch", "changes a class through type(...); classes defined elsewhere "
                        "must not be modified")
            return
        if isinstance(base, ast.Name) and base.id in self.kernel_aliases:
            attr = _first_attr(node, base)
            if attr is not None and (attr in KERNEL_ATTRS or attr.startswith("__")):
                self.report(node, "monkey-patch", f"sets .{attr} of the Triton kernel {base.id}: an instance attribute "
                            "of that name replaces what Triton's kernel class (and the harness's launch hooks) reads; "
                            "a kernel's own attributes must have names Triton does not use")
                return
        if isinstance(base, ast.Name) and base.id in self.class_aliases:
            self.report(node, "monkey-patch", f"changes {base.id}, which holds a class reached through type(...) (or "
                        "inspect.getmro); classes defined elsewhere must not be modified")
            return
        if not isinstance(base, ast.Name):
            if self._reaches_foreign_object(base):
                self.report(node, "monkey-patch", "changes an object reached through an expression (a container "
                            "display, a builtin's or an imported function's result, a conditional); modules and "
                            "classes defined elsewhere must not be modified that way either")
            return
        if base.id in _BUILTIN_TYPES and self.is_builtin(base.id):
            self.report(node, "monkey-patch", f"changes the builtin class {base.id}")
            return
        kind, path, _ = self.lookup(base.id)
        if kind == "alias":
            owner = self.resolve(owner_node) if owner_node is not None else None
            self.report(node, "monkey-patch", f"changes {owner or path}, which belongs to another module; modules "
                        "and classes defined elsewhere must not be modified")
        # a store into the submission's own module-level objects is state across calls, which L1 does
        # not judge (see "State across calls" in the docstring of :mod:`.policy`)

    def _check_kernel_mutation(self, node: ast.Call) -> None:
        """A mutating method called on a Triton attribute of a kernel of the file (``kernel.params.clear()``,
        ``tuner.configs.append(c)``, ``kernel.pre_run_hooks.append(f)``): the container Triton and the harness's
        launch hooks read, changed in place, as a store to it would be (rt39b). Triton's own
        ``kernel.add_pre_run_hook(f)`` is a call of the kernel's method, judged elsewhere."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _MUTATORS and isinstance(func.value, ast.Attribute)):
            return
        owner = func.value
        if isinstance(owner.value, ast.Name) and owner.value.id in self.kernel_aliases and owner.attr in KERNEL_ATTRS:
            self.report(node, "monkey-patch", f"changes .{owner.attr} of the Triton kernel {owner.value.id} in place "
                        f"(.{func.attr}()): Triton and the harness's launch hooks read it; a kernel's own attributes "
                        "must have names Triton does not use")

    def _reaches_foreign_object(self, base: ast.AST) -> bool:
        """Whether a store's base expression (not a plain name) may be an object defined elsewhere: a container
        display or comprehension (``[enum.IntEnum][0].__eq__ = f``: red team 27, which passed L1 and the launch
        rule), ``and``/``or``, a conditional or walrus expression, or the result of a builtin (``next(iter(...))``),
        of an imported function (``copy.copy(cls)``) or of a call of a call. A method's result
        (``out.view(-1)[:n] = ...``) and a call of the submission's own function or class stay allowed."""
        if isinstance(base, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp, ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Starred, ast.Await,
                             ast.Lambda)):
            return True
        if isinstance(base, ast.Call):
            func = base.func
            if isinstance(func, ast.Name):
                return self.lookup(func.id)[0] != "local"
            if isinstance(func, ast.Attribute):
                return self.resolve(func) is not None
            return True
        return False

    def _check_name_store(self, node: ast.Name) -> None:
        if id(node) in self.handled or not self.in_function:
            return
        scope = self.current
        if scope.kind != "function" or node.id not in scope.globals:
            return
        if node.id in self.scopes[0].imported:
            self.report(node, "monkey-patch", f"rebinds the imported name {node.id} through `global`")

    def _check_wrapper_names(self, node: ast.Call, path: str) -> None:
        """``functools.update_wrapper(w, f, assigned, updated)`` and ``functools.wraps(f, assigned, updated)`` set and
        update attributes of ``w`` by name: names given in the call are judged as ``setattr``'s literal names (red team
        37: ``("__code__",)`` gave a kernel's own function a host body's code; red team 35: Triton's ``tl.maximum``;
        29c: ``updated=("__dict__",)`` shadowed a tensor's methods); names L1 cannot read are dynamic attributes. The
        defaults (not written in the call: ``@functools.wraps(fn)``) pass."""
        first = 2 if path == "functools.update_wrapper" else 1
        if first == 2 and node.args:  # update_wrapper(w, f) writes w's attributes: a store into w (rt39b)
            self._check_store_base(node, node.args[0])
        given = node.args[first:first + 2] + [k.value for k in node.keywords if k.arg in ("assigned", "updated", None)]
        for v in given:
            if isinstance(v, ast.Attribute) and self.resolve(v) in ("functools.WRAPPER_ASSIGNMENTS",
                                                                   "functools.WRAPPER_UPDATES"):
                continue
            names = v.elts if isinstance(v, (ast.Tuple, ast.List)) else None
            if names is None or not all(isinstance(e, ast.Constant) and type(e.value) is str for e in names):
                self.report(node, "dynamic-attr", f"calls {path} with attribute names that are not a literal tuple of "
                            "strings: it sets and updates attributes by those names, like setattr")
                continue
            for e in names:
                self._check_attr_name(node, node, e.value)
