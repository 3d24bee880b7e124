"""L1 rules of class statements and classes made at run time: which bases a submission's class may have (red team 31:
a library class as a base is judged like a use of it), tensor subclasses by what they are, metaclasses and class
factories."""
from __future__ import annotations

import ast
import re

from .backend_names import _module_bindings
from .policy import (
    SUBCLASSABLE_CLASSES,
    TORCH_PATH_RULES,
    is_exception_class,
    library_object,
)
from .scope import (
    _name_bindings,
    _own_nodes,
)
from .signature_names import signature_name_reads
from .stdlib_rules import importlib_spec_tests_only
from .wrap_decorators import closure_decorator, decorator_factory

#: The file's wrapping decorators (:meth:`_ClassRules._file_wrappers`): name -> (may be written bare, the keyword
#: names its call form may pass, or None when it has no call form, how many positional arguments that form may pass).
_Wrappers = dict[str, tuple[bool, "frozenset[str] | None", int]]

#: Why a class made at run time is refused (rule introspection): its bases and namespace are values L1 cannot judge
#: like a class statement's (``type("X", (torch.Tensor,), {k: handler})`` made a tensor subclass with a handler under a
#: computed name).
_METACLASS_WHY = ("defines a metaclass (a subclass of type): its __new__ makes classes from bases it picks at run "
                  "time, which L1 cannot judge like a class statement's (a tensor subclass could be made this way)")
_CLASS_FACTORY_WHY = ("makes a class at run time through {what}, from bases L1 cannot see: L1 judges a class's bases "
                      "in a class statement or a tuple written in the call (a tensor subclass with a dispatch handler "
                      "could be made this way); write a class statement")


#: The classes whose ``backward`` only autograd's backward pass calls (tp38).
AUTOGRAD_FUNCTIONS: frozenset[str] = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
#: Attributes (and names, strings) through which a ``torch.autograd.Function``'s backward can run other than in
#: autograd's backward pass: ``backward``/``vjp`` themselves, the node a forward's ``ctx`` is and an output's
#: ``grad_fn`` holds (its ``apply``/``apply_boxed``/``boxed_grads_call`` run the backward), the graph's other nodes
#: (``next_functions``) and the node's links to the class.
_BACKWARD_REACH = frozenset({"backward", "vjp", "grad_fn", "next_functions", "apply_boxed", "boxed_grads_call",
                             "_forward_cls", "_backward_cls", "_get_user_fn"})

#: PyTorch's decorators of an autograd backward, which wrap it and keep it to themselves (rb38).
BACKWARD_DECORATORS: frozenset[str] = frozenset({
    "torch.autograd.function.once_differentiable", "torch.amp.custom_bwd", "torch.cuda.amp.custom_bwd"})


#: PyTorch's decorators of an autograd forward, which wrap it and keep it to themselves, as ``custom_bwd`` does.
FORWARD_DECORATORS: frozenset[str] = frozenset({"torch.amp.custom_fwd", "torch.cuda.amp.custom_fwd"})
#: What evaluates a function's annotations as names of its module (typing's evaluators are findings of their own).
ANNOTATION_EVALUATORS: frozenset[str] = frozenset({"functools.singledispatch", "functools.singledispatchmethod"})
#: A Python identifier inside a string (a name a string could hand to ``getattr`` or an evaluator).
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _bound_once(tree: ast.AST, kind: type = ast.ClassDef) -> set[str]:
    """Names bound exactly once in the whole file, by a module-level statement of ``kind`` (a class or def)."""
    counts: dict[str, int] = {}
    for n in ast.walk(tree):
        names: list[str] = []
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names = [n.id]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [n.name]
        elif isinstance(n, ast.arg):
            names = [n.arg]
        elif isinstance(n, ast.alias):
            names = [(n.asname or n.name).split(".")[0]]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names = list(n.names) * 2
        elif isinstance(n, ast.ExceptHandler) and n.name or isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            names = [n.name]
        elif isinstance(n, ast.MatchMapping) and n.rest:
            names = [n.rest]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    defined = {c.name for c in getattr(tree, "body", []) if isinstance(c, kind)}
    return {name for name in defined if counts.get(name) == 1}


def _shadowed_in(cls: ast.ClassDef) -> set[str]:
    """The names a class statement binds anywhere in it, which shadow the module's in its body (``staticmethod =
    keep`` makes ``@staticmethod`` the file's ``keep``)."""
    shadowed = {n.id for n in ast.walk(cls) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    shadowed |= {n.name for n in ast.walk(cls) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                 ast.ClassDef)) and n is not cls}
    shadowed |= {(a.asname or a.name).split(".")[0] for n in ast.walk(cls)
                 if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return shadowed


def _inert_module_class(path: str, obj: object) -> bool:
    """Whether ``obj`` (at ``path``) is a ``torch.nn`` module class whose subclassing runs none of its code: a
    ``torch.nn.Module`` subclass made by ``type`` itself, no class of its MRO defining ``__init_subclass__``. A class
    statement of the file that nothing can reach (:meth:`_ClassRules._mark_unreachable`: attorch's ``class
    Softmax(nn.Softmax)`` layers) may have it as a base: no instance is ever made, so none of its methods run."""
    import torch

    return path.startswith("torch.nn.") and isinstance(obj, type) and issubclass(obj, torch.nn.Module) \
        and type(obj) is type and all("__init_subclass__" not in vars(k) for k in obj.__mro__[:-1])


def _class_level_reads(cls: ast.ClassDef) -> set[str]:
    """The names the code of a class statement reads where they run as the class is made (rb39): its bases, keywords
    and decorators, every statement of its body, and its methods' decorators, defaults and annotations, but not the
    methods' bodies. There a method's name is the method itself: a default ``kept=_IMPLS.append(compute)``, an
    annotation ``x: _IMPLS.append(compute)`` or a target ``_IMPLS[compute] = 0`` hands out ``compute``."""
    out: set[str] = set()
    todo: list[ast.AST] = [*cls.bases, *cls.keywords, *cls.decorator_list, *cls.body]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = n.args
            todo.extend([*n.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)])
            todo.extend(x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                        if x is not None and x.annotation is not None)
            if n.returns is not None:
                todo.append(n.returns)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        todo.extend(ast.iter_child_nodes(n))
    return out


def names_backward(tree: ast.AST) -> bool:
    """Whether the file could run an autograd Function's backward other than through a backward pass (which neither
    the harness nor a submission may start): any attribute, name, string or class-pattern keyword of
    :data:`_BACKWARD_REACH`
    (``F.backward(ctx, g)``, ``y.backward()``, ``y.grad_fn.apply(g)``, ``getattr(F, "backward")``), or ``apply`` read
    on anything but a class of the file bound nowhere else (``ctx.apply(g)`` runs the backward; ``F.apply(x)``, the
    forward's entry, does not), or a string ``"apply"``."""
    classes = _bound_once(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and (n.attr in _BACKWARD_REACH or n.attr == "apply" and not (
                isinstance(n.value, ast.Name) and n.value.id in classes)) \
                or isinstance(n, ast.Name) and n.id in _BACKWARD_REACH and not isinstance(n.ctx, ast.Store) \
                or isinstance(n, ast.Constant) and isinstance(n.value, str) \
                and n.value.strip() in _BACKWARD_REACH | {"apply"} \
                or isinstance(n, ast.MatchClass) and set(n.kwd_attrs) & (_BACKWARD_REACH | {"apply"}):
            return True  # (rb38: ``case object(backward=run):`` reads the attribute in a class pattern)
    return False


#: Builtin classes whose class pattern matches the subject itself with one positional sub-pattern (``case int(n)``).
_SELF_MATCHING = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str",
                            "tuple"})


def _import_paths(tree: ast.AST, name: str) -> tuple[set[str], int]:
    """The paths the file's imports bind ``name`` to, and how many such import bindings there are."""
    paths: set[str] = set()
    count = 0
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if (a.asname or a.name.split(".")[0]) == name:
                    paths.add(a.name if a.asname else a.name.split(".")[0])
                    count += 1
        elif isinstance(n, ast.ImportFrom):
            module = "." * n.level + (n.module or "")
            for a in n.names:
                if (a.asname or a.name) == name:
                    paths.add(f"{module}.{a.name}" if module else a.name)
                    count += 1
    return paths, count


def _root_name(node: ast.AST) -> str | None:
    """The name an expression such as ``a.b.c(...)`` starts from (``a``), or None."""
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return node.id if isinstance(node, ast.Name) else None


def kept_annotations(tree: ast.AST, wraps_only=lambda dec: False) -> set[int]:
    """ids of the nodes of annotations that the program keeps where a library hands them back as values (rb38): those
    of a class body (the class's ``__annotations__``: ``dataclasses.fields(C)[0].type``, a NamedTuple's fields) and
    those of a decorated function (its decorator is handed the function: ``functools.singledispatch``'s ``register``
    keeps a parameter's annotated class in ``f.registry``). A type-only class there (``DTensor``, Triton's runtime
    classes: policy.py ``TYPE_ONLY_CLASSES``) is a value the file can call, so it is judged as any other read."""
    # under ``from __future__ import annotations`` a class body keeps strings, which dataclasses never evaluate
    # (singledispatch's register does: typing.get_type_hints)
    lazy = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations"
               for a in s.names) for s in getattr(tree, "body", []))
    # (rb39) a function handed to any code as a value, by its name or as an attribute (``register(grab)``,
    # ``triton.jit(Types.grab).params[0]._param.annotation``), or named by a string, has its annotations read back:
    # ``functools.singledispatch``'s register put ``triton.runtime.JITFunction`` in ``f.registry``, a plain def's
    # or a ``@staticmethod``'s alike. Only a call (``grab(x)``, ``Types.grab(x)``) keeps the function to itself.
    callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    handed = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
              and id(n) not in callees}
    handed |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
               and id(n) not in callees}
    handed |= {a for n in ast.walk(tree) if isinstance(n, ast.MatchClass) for a in n.kwd_attrs}  # case C(grab=g)
    handed |= {w for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and id(n) not in docs for w in _WORD.findall(n.value)}
    roots: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef) and not lazy:
            roots.extend(s.annotation for s in n.body if isinstance(s, ast.AnnAssign))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                n.decorator_list and not all(wraps_only(d) for d in n.decorator_list) or n.name in handed):
            a = n.args
            roots.extend(x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                         if x is not None and x.annotation is not None)
            if n.returns is not None:
                roots.append(n.returns)
    return {id(x) for r in roots for x in ast.walk(r)}


class _ClassRules:
    """ClassRules of :class:`~.scanner._Scanner` (a mixin: it uses the scanner's report, lookup and scope state)."""

    def prepare_class_rules(self, tree: ast.Module) -> None:
        """Per-file state of these rules, set before the walk (in the module's scope)."""
        #: ids of function nodes whose body is not scanned (tp38: Liger-Kernel's norm modules keep the backward pass
        #: beside the forward, and it sums the per-program weight gradients with ``_dW.sum(dim=0)``): the
        #: ``backward`` of a module-level ``torch.autograd.Function`` subclass in a file that cannot reach it, and the
        #: plain module-level helpers only such bodies call. Only autograd's backward pass runs a backward, and
        #: neither the harness nor a call may start one (``.backward()``, ``torch.autograd.grad`` are findings);
        #: every other route ends the exemption (:func:`names_backward`). Decorators, defaults and annotations run
        #: when the class or function is made and are scanned; a helper named like an entry point of the operator
        #: (``entry_points``, its wrappers, which the harness calls by name) is never exempt, nor any helper when
        #: they are not known.
        self.dead_bodies: set[int] = set()
        #: ids of class statements nothing in the file can reach (:meth:`_mark_unreachable`): a ``torch.nn`` module
        #: class as their base is not a finding (no instance is ever made, and making the class runs no code of it)
        self.dead_classes: set[int] = set()
        self._module_tree = tree
        wrappers = self._file_wrappers(tree)
        for cls in [] if names_backward(tree) else tree.body:
            # rb38: a class decorator or keyword (a metaclass) is handed the class or its namespace when it is made
            if isinstance(cls, ast.ClassDef) and not cls.decorator_list and not cls.keywords \
                    and any(self._resolves_in(b, AUTOGRAD_FUNCTIONS) for b in cls.bases):
                shadowed = _shadowed_in(cls)
                self.dead_bodies.update(id(f) for f in cls.body
                                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                                        and f.name == "backward"
                                        and all(self._keeps_backward_dead(d, wrappers)
                                                and _root_name(d) not in shadowed for d in f.decorator_list))
        # (tp39) annotations of a function whose decorators only wrap it are not kept: kernl annotates an autograd
        # forward's parameter ``implementation: JITFunction`` under ``@staticmethod @custom_fwd(...)``
        in_classes = {name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for name in _shadowed_in(c)}
        self.kept_annotations = kept_annotations(tree, lambda d: self._annotation_blind(d, in_classes))
        #: whether ``import inspect`` serves only feature checks of a library callable (:meth:`_inspect_checks_only`)
        self.inspect_checks_only = self._inspect_checks_only(tree)
        #: whether ``import importlib`` serves only to test that a package is installed (stdlib_rules.py, tp44)
        self.importlib_spec_tests_only = importlib_spec_tests_only(tree, self.binding_counts)
        entry_points = getattr(self, "entry_points", None)
        if entry_points is None:
            return
        self._mark_unreachable(tree, entry_points, wrappers)

    def _inspect_checks_only(self, tree: ast.Module) -> bool:
        """Whether the file's ``import inspect`` (rule introspection) serves only to test a parameter of a PyTorch or
        Triton callable (tp39: FLA's ``"cache_results" in inspect.signature(triton.autotune).parameters`` picks
        autotune's keyword arguments by Triton version): the module imported once as ``import inspect``, and every
        read of it ``"name" in inspect.signature(P).parameters`` (or ``not in``) with ``P`` a path of torch or triton
        the scan judges as any reference. The test's result is a bool; nothing of the signature is kept."""
        imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name).split(".")[0] == "inspect" or a.name.split(".")[0] == "inspect" for a in n.names)
            or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "inspect"]
        if len(imports) != 1 or not isinstance(imports[0], ast.Import) or len(imports[0].names) != 1 \
                or imports[0].names[0].name != "inspect" or imports[0].names[0].asname \
                or imports[0] not in tree.body or self.binding_counts.get("inspect") != 1:
            return False
        allowed: set[int] = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(n.left, ast.Constant) and isinstance(n.left.value, str):
                params = n.comparators[0]
                call = params.value if isinstance(params, ast.Attribute) and params.attr == "parameters" else None
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                        and call.func.attr == "signature" and isinstance(call.func.value, ast.Name) \
                        and len(call.args) == 1 and not call.keywords \
                        and str(self.resolve(call.args[0])).split(".")[0] in ("torch", "triton"):
                    allowed.add(id(call.func.value))
        # (tp39b) FLA's input_guard: ``sig = inspect.signature(fn)`` of the decorated function, its names only
        allowed |= signature_name_reads(tree, lambda b: not self.binding_counts.get(b), _own_nodes)
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "inspect"]
        # a string holding the name may be code too: singledispatch's register evaluates string annotations
        # ("inspect.stack()" handed out frames), which the scan reads as code but L1 judges inspect at its import only
        # (a string statement, a docstring, is never evaluated)
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        strings = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                      and "inspect" in _WORD.findall(n.value) for n in ast.walk(tree))
        return bool(uses) and not strings and all(id(n) in allowed for n in uses)

    def _mark_unreachable(self, tree: ast.Module, entry_points: frozenset[str], wrappers: _Wrappers) -> None:
        """Add to ``dead_bodies`` (and ``dead_classes``) the module-level code nothing in the file can run (tp39:
        mamba's, flash-attention's and FLA's kernel modules keep ``layer_norm_ref``/``rms_norm_ref``, their PyTorch
        references, beside the kernels; attorch's keep ``class Softmax(nn.Softmax)`` layers beside the autograd
        Functions a wrapper calls). A module-level ``def`` without decorators, or a class statement without
        decorators or keywords, bound once in the file and not named like an entry point (the harness calls those
        by name), is unreachable when every read of its name lies in a body already unreachable (to a fixed point):
        a module's namespace is reached by name only (``globals()``, ``vars()``, ``__dict__``, ``sys.modules``,
        ``__subclasses__``, ``typing.get_type_hints`` are findings of their own), and the name in any string or as
        any attribute (``x.layer_norm_ref``) keeps it reachable. A function's body is then not scanned; a class's
        methods' bodies are not, when their decorators only wrap (``staticmethod``, ``classmethod``, ``property``,
        PyTorch's autograd decorators, one of the file's closure-returning wrappers): any other decorator is handed
        the method and could keep it. Decorators, defaults, annotations, bases and class-level statements run when
        the file is imported and are scanned."""
        # functools.singledispatch's register evaluates annotations in the module's namespace: a name bound to a
        # computed string ("Soft" + "max") handed out a class no code of the file names
        if any(isinstance(n, (ast.Name, ast.Attribute)) and self.resolve(n) in ANNOTATION_EVALUATORS
               for n in ast.walk(tree)):
            return
        once = _bound_once(tree, ast.FunctionDef) | _bound_once(tree, ast.ClassDef)
        # a string statement (a docstring) is never evaluated nor looked up: its value is dropped, or kept as
        # ``__doc__``, a dunder read that is a finding of its own; nor is a message (of ``warnings.warn``, an assert,
        # a raised exception), whose names (attorch's "In-place ReLU currently not supported") are prose
        prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assert) and n.msg is not None or isinstance(n, ast.Raise) and n.exc is not None:
                sinks = [n.msg if isinstance(n, ast.Assert) else n.exc]
            elif isinstance(n, ast.Call) and self.resolve(n.func) == "warnings.warn":
                sinks = n.args
            else:
                continue
            prose.update(id(c) for sink in sinks for c in ast.walk(sink) if isinstance(c, ast.Constant))
        words = {w for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in prose for w in _WORD.findall(n.value)}
        # an attribute of a library object (attorch's ``class Softmax(nn.Softmax)``) is not the file's name
        words |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and self.resolve(n) is None}
        words |= {a for n in ast.walk(tree) if isinstance(n, ast.MatchClass) for a in n.kwd_attrs}
        candidates = [f for f in tree.body if (isinstance(f, ast.FunctionDef) and not f.decorator_list
                                               or isinstance(f, ast.ClassDef) and self._made_inertly(f))
                      and f.name in once and f.name not in entry_points and f.name not in words
                      # a module's __getattr__/__dir__ (PEP 562) runs when a missing attribute is read, by any code
                      and not (f.name.startswith("__") and f.name.endswith("__"))]
        changed = True
        while changed:
            inside = {id(n) for f in ast.walk(tree) if id(f) in self.dead_bodies for s in f.body for n in ast.walk(s)}
            changed = False
            for f in candidates:
                if id(f) in self.dead_bodies or id(f) in self.dead_classes:
                    continue
                if all(id(n) in inside for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == f.name):
                    changed = True
                    if isinstance(f, ast.FunctionDef):
                        self.dead_bodies.add(id(f))
                        continue
                    self.dead_classes.add(id(f))
                    shadowed = _shadowed_in(f)
                    # (rb39) a method whose name the class's own code reads is handed to that code as it is made
                    handed = _class_level_reads(f)
                    self.dead_bodies.update(
                        id(m) for m in f.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                        # a class's own hooks run without an instance: ABCMeta's subclass check of a base walks
                        # its subclasses and calls their __subclasshook__ (only __init__ needs an instance)
                        and (m.name == "__init__" or not (m.name.startswith("__") and m.name.endswith("__")))
                        and m.name not in handed and all(self._only_wraps(d, wrappers) and _root_name(d) not in shadowed
                                                         for d in m.decorator_list))

    def _made_inertly(self, cls: ast.ClassDef) -> bool:
        """Whether making the class (at import) hands it to no code (:meth:`_mark_unreachable`): no decorators or
        keywords; bases that are PyTorch, Triton or builtin classes made by ``type``, ``abc.ABCMeta`` or autograd's
        ``FunctionMeta`` with no ``__init_subclass__`` but object's (a base of the file's own could register every
        subclass); a body of methods, docstrings and constants only (a class attribute's ``__set_name__`` is handed
        the class: ``x = Keeper()``)."""
        import abc

        import torch

        if cls.decorator_list or cls.keywords:
            return False
        for base in cls.bases:
            path = self._sole_resolve(base)
            obj = library_object(path) if path and path.split(".")[0] in ("torch", "triton") else \
                {"object": object, "Exception": Exception}.get(path or "") if isinstance(base, ast.Name) \
                and self.is_builtin(base.id) else None
            if not isinstance(obj, type) or type(obj) not in (type, abc.ABCMeta, torch.autograd.function.FunctionMeta) \
                    or any("__init_subclass__" in vars(k) for k in obj.__mro__[:-1]):
                return False
        return all(isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass))
                   or isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)
                   or isinstance(st, (ast.Assign, ast.AnnAssign))
                   and (st.value is None or isinstance(st.value, ast.Constant)) for st in cls.body)

    def _annotation_blind(self, dec: ast.expr, shadowed: set[str]) -> bool:
        """Whether the decorator ``dec`` cannot hand the function's annotations back as values (kept_annotations,
        rb38: ``functools.singledispatch``'s ``register`` keeps an annotated class in ``f.registry``): the builtin
        ``staticmethod``/``classmethod``/``property`` and PyTorch's autograd decorators (``custom_fwd``,
        ``custom_bwd``, ``once_differentiable``, with any arguments), under names no class body rebinds."""
        if _root_name(dec) in shadowed:
            return False
        if isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod", "property"):
            return self.is_builtin(dec.id)
        return self.resolve(dec.func if isinstance(dec, ast.Call) else dec) in BACKWARD_DECORATORS | FORWARD_DECORATORS

    def _only_wraps(self, dec: ast.expr, wrappers: _Wrappers) -> bool:
        """Whether a method's decorator ``dec`` only wraps the method for its class (:meth:`_mark_unreachable`):
        the builtin ``staticmethod``/``classmethod``/``property``, PyTorch's autograd decorators
        (:data:`BACKWARD_DECORATORS`, ``custom_fwd``) or one of the file's closure-returning wrappers."""
        if isinstance(dec, ast.Name) and dec.id in ("classmethod", "property") and self.is_builtin(dec.id):
            return True
        if self._keeps_backward_dead(dec, wrappers):
            return True
        if isinstance(dec, ast.Name) and self._decorator_alias(dec.id, FORWARD_DECORATORS):
            return True
        target = dec.func if isinstance(dec, ast.Call) else dec
        return self._resolves_in(target, FORWARD_DECORATORS) and (not isinstance(dec, ast.Call) or all(
            isinstance(a, ast.Constant) for a in [*dec.args, *(k.value for k in dec.keywords)]))

    def _import_resolutions(self, node: ast.AST) -> set[str]:
        """The paths ``node`` (a name or its attributes) may denote when the name it starts from is bound by imports
        only, never global or nonlocal; empty otherwise (rb41: :meth:`resolve` read ``from torch.amp import
        custom_bwd`` as PyTorch's decorator although a ``def custom_bwd(f): _KEPT.append(f)`` of the file, on a
        branch always taken, bound it again; so ``class torch:`` over ``import torch``, and ``wraps`` over ``from
        functools import wraps``: each kept the backward an allowance left unscanned). A version fallback importing
        the name from two modules (``try: from torch.amp import custom_bwd`` / ``except ImportError: from
        torch.cuda.amp import custom_bwd``) gives both paths."""
        suffix: list[str] = []
        root = node
        while isinstance(root, ast.Attribute):
            suffix.insert(0, root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root.id in self.rebound:
            return set()
        paths, count = _import_paths(self._module_tree, root.id)
        if count != self.binding_counts.get(root.id, 0):
            return set()
        return {".".join([p, *suffix]) for p in paths}

    def _sole_resolve(self, node: ast.AST) -> str | None:
        """The one path :meth:`_import_resolutions` gives ``node``, or None (an allowance's ``resolve``)."""
        paths = self._import_resolutions(node)
        return next(iter(paths)) if len(paths) == 1 else None

    def _resolves_in(self, node: ast.AST, allowed: frozenset[str]) -> bool:
        """Whether every path ``node`` may denote (:meth:`_import_resolutions`, at least one) is in ``allowed``."""
        paths = self._import_resolutions(node)
        return bool(paths) and paths <= allowed

    def _decorator_alias(self, name: str, allowed: frozenset[str]) -> bool:
        """Whether the module-level ``name`` can only hold one of PyTorch's autograd decorators ``allowed`` (rt41:
        unsloth binds ``torch_amp_custom_bwd = torch.cuda.amp.custom_bwd`` or ``torch.amp.custom_bwd(device_type=
        "cuda")`` by PyTorch's version, then decorates its Functions' methods with ``@torch_amp_custom_bwd``): the
        module's own binding (never global or nonlocal), every binding of it ``name = P`` or ``name = P(<literals>)``
        with ``P`` one of ``allowed`` as the module reads it (no loop, walrus, import, def or other binding)."""
        tree = getattr(self, "_module_tree", None)
        if tree is None or not self._module_name(name):
            return False
        values = _module_bindings(tree, name, _own_nodes)
        return bool(values) and all(
            self._resolve_in_module(v.func if isinstance(v, ast.Call) else v) in allowed
            and self._resolves_in(v.func if isinstance(v, ast.Call) else v, allowed)
            and (not isinstance(v, ast.Call) or all(isinstance(a, ast.Constant)
                                                    for a in [*v.args, *(k.value for k in v.keywords)]))
            for v in values)

    def _keeps_backward_dead(self, dec: ast.expr, wrappers: _Wrappers) -> bool:
        """Whether the decorator ``dec`` of a backward cannot hand the function to anything but the class (rb38: a
        decorator of the file that kept the function, ``_KEPT.append(fn)``, let the wrapper call the unscanned body):
        ``staticmethod``, PyTorch's backward decorators (:data:`BACKWARD_DECORATORS`, also called with literal
        arguments) and a decorator of the file that only wraps it (``wrappers``, :meth:`_file_wrappers`): written
        bare, or a factory of such decorators called with its options (rt41: FLA's
        ``@input_guard(no_guard_contiguous=True)``; a positional argument of a factory taking ``fn=None`` would be
        wrapped and handed the function, and so would an unpacked ``**kwargs`` naming ``fn``)."""
        if isinstance(dec, ast.Name) and (dec.id == "staticmethod" and self.is_builtin("staticmethod")
                                          or dec.id in wrappers and wrappers[dec.id][0]
                                          and self.lookup(dec.id)[0] != "alias"
                                          or self._decorator_alias(dec.id, BACKWARD_DECORATORS)):
            return True
        if isinstance(dec, ast.Call):
            func = dec.func
            if isinstance(func, ast.Name) and func.id in wrappers and wrappers[func.id][1] is not None \
                    and self.lookup(func.id)[0] != "alias" and len(dec.args) <= wrappers[func.id][2] \
                    and not any(isinstance(x, ast.Starred) for x in dec.args) \
                    and all(k.arg in wrappers[func.id][1] for k in dec.keywords):
                return True
            return self._resolves_in(dec.func, BACKWARD_DECORATORS) and all(
                isinstance(a, ast.Constant) for a in [*dec.args, *(k.value for k in dec.keywords)])
        return self._resolves_in(dec, BACKWARD_DECORATORS)

    def _file_wrappers(self, tree: ast.Module) -> _Wrappers:
        """The module-level decorators of the file, bound once, that only wrap the function they are given
        (verify/scan/wrap_decorators.py): Liger-Kernel's ``ensure_contiguous`` shape (bare only) and FLA's
        ``input_guard`` factory shape (bare when it takes ``fn=None``, called with its keyword-only names)."""
        once = _bound_once(tree, ast.FunctionDef)
        out: _Wrappers = {}
        for f in tree.body:
            if not isinstance(f, ast.FunctionDef) or f.name not in once:
                continue
            if closure_decorator(f, self._sole_resolve):
                out[f.name] = (True, None, 0)
            else:
                factory = decorator_factory(f, self._sole_resolve)
                if factory is not None:
                    out[f.name] = factory
        return out

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        """``case C(name=p)`` reads ``subject.name`` (rb38: ``case object(__globals__=g)`` and ``case
        object(backward=run)`` passed as no attribute node): each keyword's name is judged as an attribute read."""
        for attr in node.kwd_attrs:
            self._check_attr_name(node, node.cls, attr)
        cls = node.cls
        if node.patterns and not (isinstance(cls, ast.Name) and cls.id in _SELF_MATCHING and self.is_builtin(cls.id)
                                  and len(node.patterns) == 1):
            # ``case C(run)`` reads the attributes C.__match_args__ names, for any subject C's __subclasshook__ accepts
            # (rb38: ``__match_args__ = ("back" + "ward",)`` ran an unscanned backward, ``"__globals__"`` read globals)
            self.report(node, "dynamic-attr", "matches a class pattern with positional "
                        "sub-patterns, which read the attributes the class's __match_args__ names (computed or "
                        "inherited, the scan cannot tell which); write keyword patterns, case C(name=p)")
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for dec in node.decorator_list:
            self.visit(dec)
        for base in node.bases:
            self.visit(base)
            self._check_base(base, unreachable=id(node) in self.dead_classes)
            if self._is_metaclass(base):
                self.report(base, "introspection", _METACLASS_WHY)
        for kw in node.keywords:
            self.visit(kw.value)
            self._check_base(kw.value)
        self.scopes.append(self.build_scope(node))
        try:
            for stmt in node.body:
                self.visit(stmt)
        finally:
            self.scopes.pop()

    # ---- base classes (red team 31) ---------------------------------------------------------------

    #: Why a library class may not be a base (rule monkey-patch).
    _BASE_WHY = ("subclasses {path}: a subclass runs the library class's code with the submission's overrides, and "
                 "calling it is calling that class (a C guard turned the L3 trace off, an importer imported any "
                 "module, a dispatch mode ran inside the harness's launches: red team 31); of PyTorch and Triton only "
                 "torch.nn.Module, torch.autograd.Function and exception classes may be subclassed")

    def _check_base(self, base: ast.AST, unreachable: bool = False) -> None:
        """A base class (or metaclass) of a class statement, judged like a use of that class (red team 31): a
        ``torch.Tensor`` subclass by what the class is (``torch.nn.Parameter`` included), any other PyTorch or Triton
        class unless :data:`SUBCLASSABLE_CLASSES` or an exception (or, for a class nothing in the file can
        reach, ``unreachable``, a ``torch.nn`` module class: :func:`_inert_module_class`); a base the scan cannot
        name (a call's result other than an imported factory such as ``collections.namedtuple``, ``*bases``, a name
        bound to such a value or a parameter) is refused, since it may be any of them
        (``type(torch.nn.Parameter(...))``)."""
        expr = base.value if isinstance(base, ast.Subscript) else base  # Generic[T]
        if isinstance(expr, ast.Starred) or (isinstance(expr, ast.Call) and not self._factory_call(expr)):
            self.report(base, "introspection", "derives a class from a base computed at run time (a call's result or "
                        "an unpacked value); L1 cannot tell which class it subclasses (type(x) may be a tensor "
                        "subclass or a PyTorch guard); name the base class directly")
            return
        if isinstance(expr, ast.Name) and self.resolve(expr) is None and not self._base_name_ok(expr.id):
            self.report(base, "introspection", f"derives a class from {expr.id}, a name bound to a value computed at "
                        "run time (or a parameter); L1 cannot tell which class it subclasses; name the base class "
                        "directly")
            return
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return
        path = self.resolve(expr)
        if path is None and isinstance(expr, ast.Attribute):
            self.report(base, "introspection", "derives a class from an attribute of a value the scan does not follow "
                        "(a class attribute, an object's field); L1 cannot tell which class it subclasses; name the "
                        "base class directly")
            return
        if path is None:
            last = expr.id if isinstance(expr, ast.Name) else expr.attr
            if last in ("Tensor", "_TensorBase", "TensorBase"):
                self._report_tensor_subclass(base, last)
            return
        root = path.split(".")[0]
        if root not in ("torch", "triton"):
            return  # a standard module's class: judged by that module's rules when visited
        parts = path.split(".")
        if any(".".join(parts[:i]) in TORCH_PATH_RULES for i in range(1, len(parts) + 1)):
            return  # reported with the path's own rule when visited (torch.overrides.TorchFunctionMode, ...)
        import torch

        obj = library_object(path)
        if isinstance(obj, type) and issubclass(obj, torch.Tensor):
            self._report_tensor_subclass(base, path)
            return
        if is_exception_class(obj) or any(obj is not None and obj is library_object(c) for c in SUBCLASSABLE_CLASSES):
            return
        if unreachable and _inert_module_class(path, obj):
            return
        self.report(base, "monkey-patch", self._BASE_WHY.format(path=path))

    def _check_factory_bases(self, call: ast.Call, bases: ast.AST | None, what: str) -> None:
        """The bases of a class made by a call (``type(name, bases, ns)``, ``dataclasses.make_dataclass(bases=...)``, an
        enum's ``type=`` mixin), judged like a class statement's (:meth:`_check_base`) when they are a tuple or list
        display; bases L1 cannot see (a variable, ``*`` or ``**`` unpacking) are refused (red team 31 follow-up:
        ``type("X", (torch.Tensor,), {k: handler})`` made a tensor subclass with a handler under a computed name). The
        namespace is not judged (special methods are fine: test_classes_may_define_special_methods_and_properties)."""
        if not isinstance(bases, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in bases.elts):
            self.report(call, "introspection", _CLASS_FACTORY_WHY.format(what=what))
            return
        for elt in bases.elts:
            if not hasattr(elt, "lineno"):
                ast.copy_location(elt, call)
            self._check_base(elt)
            if self._is_metaclass(elt):
                self.report(elt, "introspection", _METACLASS_WHY)

    def _is_metaclass(self, base: ast.AST) -> bool:
        """Whether a base class is ``type`` or an imported subclass of it (``enum.EnumMeta``): the class statement then
        defines a metaclass, whose ``__new__`` builds classes from bases it chooses at run time."""
        if isinstance(base, ast.Name) and base.id == "type" and self.is_builtin("type"):
            return True
        path = self.resolve(base)
        obj = library_object(path) if path is not None else None
        return isinstance(obj, type) and issubclass(obj, type)

    def _report_tensor_subclass(self, base: ast.AST, path: str) -> None:
        self.report(base, "introspection", f"subclasses torch.Tensor (through {path}): a tensor subclass's handlers "
                    "run PyTorch code outside the dispatch trace")

    def _factory_call(self, call: ast.Call) -> bool:
        """Whether a base written as a call is a class factory of an allowed standard module
        (``collections.namedtuple(...)``, ``typing.NamedTuple(...)``), judged by that module's rules."""
        path = self.resolve(call.func)
        return path is not None and path.split(".")[0] not in ("torch", "triton")

    def _base_name_ok(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a base class written as a plain name that is no import alias is a class the scan can follow: every
        binding of it a ``class``/``def``/import, an assignment of an allowed factory's call or of a class statement's
        name, or the name is a builtin (``object``, ``Exception``, ``int``)."""
        kind, _, scope = self.lookup(name)
        if kind == "builtin":
            return True
        if scope is None:
            return False
        if scope.kind == "function" and isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = scope.node.args
            if name in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x}:
                return False
        for kind_, value in _name_bindings(scope.node).get(name, []):
            if kind_ == "opaque":
                continue
            if kind_ != "value" or value is None:
                return False
            if isinstance(value, ast.Call) and (self._factory_call(value) or (
                    isinstance(value.func, ast.Name) and value.func.id == "type" and self.is_builtin("type")
                    and len(value.args) == 3)):
                continue  # a factory's class, or type(name, bases, ns) whose bases are judged at that call
            if isinstance(value, ast.Name) and value.id not in seen | {name} \
                    and self._base_name_ok(value.id, seen | {name}):
                continue
            return False
        return True

    # ---- imports -------------------------------------------------------------------------------


def _logging_names(tree: ast.Module) -> set[str]:
    """Module-level names bound by an import of ``logging`` or of a name from it (``import logging as lg``,
    ``from logging import Logger``)."""
    names: set[str] = set()
    for n in tree.body:
        if isinstance(n, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in n.names if a.name.split(".")[0] == "logging")
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or "").split(".")[0] == "logging":
            names.update(a.asname or a.name for a in n.names)
    return names


def _names_bound_by(n: ast.AST) -> set[str]:
    """Names a node binds other than through an ``ast.Name`` target or a parameter (red team 37: ``case _ as self:``
    bound a logger to the receiver the own-attribute exemption trusted): ``match`` captures, ``except ... as``,
    imports."""
    if isinstance(n, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler)):
        return {n.name} if n.name else set()
    if isinstance(n, ast.MatchMapping):
        return {n.rest} if n.rest else set()
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in n.names}
    return set()


def own_instance_receivers(tree: ast.Module) -> set[int]:
    """The ``self`` (or ``cls``) names of methods of the submission's own plain classes, by node id: the first
    parameter of a function written directly in the body of a class statement without a metaclass keyword (at
    module level or in a function), whose bases are ``object`` or such module-level classes of the same file
    (nothing from ``logging``), when the
    function is no ``staticmethod`` and never rebinds that name (no assignment, ``for``/``with`` target, nested
    parameter, ``global``/``nonlocal`` of it, ``match`` capture, ``except ... as`` or import of it). ``self._cache``,
    ``self.handle`` or ``self.filters`` on such a receiver is the submission's own attribute, not a logger's
    (false-rejection hunt 37: a launcher class's ``self._cache`` dict in a file that logs). A method called unbound
    with a logger as ``self`` is still caught at run time, where the child judges every logger of the process after
    the import and each call."""
    bindings = _name_bindings(tree)
    rebound = {name for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    # module-level classes bound once (a name rebound later, ``A = logging.Logger``, may be another class by then)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)
               and len(bindings.get(n.name, ())) == 1 and n.name not in rebound}
    logging_names = _logging_names(tree)
    plain: dict[str, bool] = {}

    def is_plain(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name in plain:
            return plain[name]
        node = classes[name]
        ok = not node.keywords and name not in seen
        for base in node.bases:
            if not ok:
                break
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            ok = isinstance(base, ast.Name) and base.id in classes and base.id not in logging_names \
                and is_plain(base.id, seen | {name})
        plain[name] = ok
        return ok

    def plain_node(node: ast.ClassDef) -> bool:
        if node.name in classes and classes[node.name] is node:
            return node.name not in logging_names and is_plain(node.name)
        return not node.keywords and all(  # a class made in a function body: bases object or plain module classes
            isinstance(b, ast.Name) and (b.id == "object" or b.id in classes and b.id not in logging_names
                                         and is_plain(b.id)) for b in node.bases)

    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or not plain_node(node):
            continue
        for fn in node.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
                continue
            params = [*fn.args.posonlyargs, *fn.args.args]
            if not params:
                continue
            first = params[0].arg
            rebound = any(
                isinstance(n, ast.Name) and n.id == first and not isinstance(n.ctx, ast.Load)
                or isinstance(n, ast.arg) and n.arg == first and n is not params[0]
                or isinstance(n, (ast.Global, ast.Nonlocal)) and first in n.names
                or first in _names_bound_by(n)
                for n in ast.walk(fn))
            if rebound:
                continue
            out.update(id(n) for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == first)
    return out
