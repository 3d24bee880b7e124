"""L1 rules of kernel bodies' calls: which names a @triton.jit body may call (jit functions, constexpr parameters,
closure and module variables), Triton's own helpers, and the callables handed to tl.reduce/associative_scan."""
from __future__ import annotations

import ast
import builtins

from .policy import (
    _JIT_SIDE_EFFECT,
    _KERNEL_CALL_WHY,
    CONSTEXPR_FN_BUILTINS,
    CONSTEXPR_FN_METHODS,
    KERNEL_BUILTINS,
    KERNEL_CALLABLE_ARGS,
    KERNEL_TRITON_HELPERS,
    MUTATING_METHODS,
    _triton_method_names,
)
from .scope import _name_bindings


def _raisable_builtin(name: str) -> bool:
    """Whether the builtin ``name`` is an exception class a kernel body may raise (tp43): an ``Exception`` subclass
    but the iteration protocol's ``StopIteration``/``StopAsyncIteration`` (a ``for`` loop or ``next(it, d)`` around
    a launch would take them for the end of an iterator, an error handled without a handler)."""
    cls = getattr(builtins, name, None)
    return isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(
        cls, (StopIteration, StopAsyncIteration))


class _KernelRules:
    """KernelRules of :class:`~.scanner._Scanner` (a mixin: it uses the scanner's report, lookup and scope state)."""

    def visit_Raise(self, node: ast.Raise) -> None:
        """(tp43) SGLang's kernels keep optional features behind a constexpr left ``None``: ``if quant_max is not
        None: raise NotImplementedError()``. Triton never compiles the dead branch; a live ``raise`` is a GPU compile
        error ("unsupported AST node type: Raise") and on the interpreter an error escaping the body, which the
        wrapper may not catch and a ghost replay raises again (sandbox/dispatch.py, verify/ghost.py). So building a
        builtin exception there is no call of Python code: allowed when written in the ``raise`` itself, the class
        named directly (not shadowed) and its arguments literals (a message holds no loaded value)."""
        exc = node.exc
        if self.jit_depth and isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) \
                and self.is_builtin(exc.func.id) and _raisable_builtin(exc.func.id) and not exc.keywords \
                and all(isinstance(a, ast.Constant) for a in exc.args):
            self.kernel_raises.add(id(exc))
        self.generic_visit(node)

    def _is_jit_def(self, name: str) -> bool:
        kind, _, scope = self.lookup(name)
        return kind == "local" and scope is not None and name in scope.jit_defs

    def _is_constexpr_param(self, name: str) -> bool:
        """Whether ``name`` is a ``tl.constexpr`` parameter of the function whose body is being scanned
        (a jit function passed to a kernel, ``ACT: tl.constexpr`` called as ``ACT(x)``: the runtime
        launch check, sandbox/launch_args.py, admits only Triton values there, jit functions among them)."""
        kind, _, scope = self.lookup(name)
        if kind != "local" or scope is None or scope.kind != "function":
            return False
        fn = scope.node
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        a = fn.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs:
            if arg.arg == name and arg.annotation is not None:
                return self.resolve(arg.annotation) == "triton.language.constexpr"
        return False

    def _is_closure_variable(self, name: str) -> bool:
        """Whether ``name``, read in the function being scanned, is a variable of an enclosing function (a
        kernel made in a factory, calling ``op(x)`` where ``op`` is the factory's argument): its value is a
        closure cell, which the runtime launch check (sandbox/launch_args.py) admits only when it holds a
        Triton value, jit functions among them; the GPU compiler accepts nothing else either."""
        kind, _, scope = self.lookup(name)
        if kind != "local" or scope is None or scope.kind != "function":
            return False
        inner = next((s for s in reversed(self.scopes) if s.kind == "function"), None)
        return inner is not None and scope is not inner

    def _is_module_variable(self, name: str) -> bool:
        """Whether ``name``, read in a kernel body, is a module-level variable bound by assignment only (never by a
        def or class): ``_rescale, _shifted_exp = _make_helpers()``, jit helpers a factory made (fp31). Like a closure
        variable (:meth:`_is_closure_variable`), its value at each launch is judged by the runtime launch check
        (sandbox/launch_args.py: a module global a kernel body reads must be a Triton value, jit functions among them,
        whose bodies are judged as kernel bodies); a def that is not @triton.jit stays refused here."""
        kind, _, scope = self.lookup(name)
        return kind == "local" and scope is not None and scope.kind == "module" and name not in scope.def_names \
            and name not in scope.imported

    def _may_hold_user_object(self, receiver: ast.AST, depth: int = 0) -> bool:
        """Whether the receiver of a method call in a kernel body may be one of the submission's own objects (fp32:
        ``x.to(tl.float32)`` was refused in every kernel of a file whose parameter holder class defines ``to``). Its
        root name decides: a ``tl.constexpr`` parameter, a name the body does not bind (a global, a closure
        variable) or a local bound by a plain alias of such a name may hold any object the launch passes; a
        parameter without ``tl.constexpr`` (a tensor or scalar argument), a local bound to a call's or an operator's
        result (a Triton value) and an expression's result may not."""
        root = receiver
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if depth > 8 or self._is_constexpr_param(root.id):
            return True
        kind, _, scope = self.lookup(root.id)
        inner = next((s for s in reversed(self.scopes) if s.kind == "function"), None)
        if kind != "local" or scope is None or scope is not inner or not isinstance(
                scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True
        a = scope.node.args
        if any(arg.arg == root.id for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]):
            return False  # not constexpr (above): a tensor or scalar argument
        bindings = _name_bindings(scope.node).get(root.id)
        if not bindings:
            return True
        for bkind, value in bindings:
            if bkind == "aug":
                continue
            if bkind != "value" or value is None or self._may_hold_user_object(value, depth + 1):
                return True
        return False

    def _kernel_path_ok(self, path: str) -> bool:
        return path.startswith("triton.language.") or path in KERNEL_TRITON_HELPERS or path.startswith("math.")

    def _check_kernel_call(self, node: ast.Call) -> None:
        """Rule kernel-body for one call inside a @triton.jit body (and every helper it calls, each
        a @triton.jit body itself); see :data:`_KERNEL_CALL_WHY`."""
        func = node.func
        path = self.resolve(func)
        if path is not None:
            if not self._kernel_path_ok(path):
                self.report(node, "kernel-body", f"calls {path}, which is not part of Triton's language, "
                            + _KERNEL_CALL_WHY)
            elif path.startswith("triton.language."):
                self._check_callable_arg(node, path.rsplit(".", 1)[-1], method=False)
            return
        if isinstance(func, ast.Name):
            if self.is_builtin(func.id):
                if id(node) in self.kernel_raises:
                    pass  # the exception of a ``raise`` (visit_Raise)
                elif func.id not in KERNEL_BUILTINS and not (
                        self.constexpr_fn_depth and func.id in CONSTEXPR_FN_BUILTINS):
                    self.report(node, "kernel-body", f"calls the Python builtin {func.id} " + _KERNEL_CALL_WHY)
                elif func.id == "print" and any(k.arg in ("file", None) for k in node.keywords):
                    self.report(node, "kernel-body", "prints to a file object (print calls its write method) "
                                + _KERNEL_CALL_WHY)
                elif func.id in ("min", "max") and not self.constexpr_fn_depth and (len(node.args) < 2 or node.keywords
                                                    or any(isinstance(a, ast.Starred) for a in node.args)):
                    self.report(node, "kernel-body", f"calls {func.id} over an iterable or with key=, which "
                                "runs or drains a Python object " + _KERNEL_CALL_WHY)
            elif not (self._is_jit_def(func.id) or self._is_constexpr_param(func.id)
                      or self._is_closure_variable(func.id) or self._is_module_variable(func.id)):
                # (tp39) attorch's @triton.jit ``mish``/``silu`` helpers are named like aten::mish's wrapper: the
                # wrapper's def rebinds the name, so the kernel would call the wrapper
                clash = f" ({func.id} is also the name of one of the operator's wrappers, which rebinds it: rename " \
                    "the @triton.jit helper)" if func.id in (getattr(self, "entry_points", None) or ()) else ""
                self.report(node, "kernel-body", f"calls {func.id}, which is not a @triton.jit function "
                            f"of the submission (every binding of the name such a def){clash}, a tl.constexpr "
                            "parameter, a variable of an enclosing function or a module-level variable, "
                            + _KERNEL_CALL_WHY)
            return
        method = self._method_of(func)
        if method is not None:
            _, name = method
            if name in MUTATING_METHODS:
                what = "" if name not in _triton_method_names() else f" (write tl.{name}(x) for Triton's)"
                self.report(node, "kernel-body", _JIT_SIDE_EFFECT + what)
            elif name not in _triton_method_names() and not (
                    self.constexpr_fn_depth and name in CONSTEXPR_FN_METHODS and name not in self.user_attrs):
                self.report(node, "kernel-body", f"calls .{name}(), which is not a method of Triton values, "
                            + _KERNEL_CALL_WHY)
            elif name in self.user_attrs and self._may_hold_user_object(method[0]):
                self.report(node, "kernel-body", f"calls .{name}(), a name the submission gives its own "
                            "objects or classes, " + _KERNEL_CALL_WHY)
            else:
                self._check_callable_arg(node, name, method=True)
            return
        self.report(node, "kernel-body", "calls a computed callable (not a Triton function or a @triton.jit "
                    "function named directly) " + _KERNEL_CALL_WHY)

    def _check_callable_arg(self, node: ast.Call, name: str, *, method: bool) -> None:
        """``tl.reduce(x, 0, fn)`` and the like call ``fn``: it must be a @triton.jit function of the
        submission named directly, or one of Triton's."""
        spec = KERNEL_CALLABLE_ARGS.get(name)
        if spec is None:
            return
        keyword, pos = spec
        pos -= method
        arg = next((k.value for k in node.keywords if k.arg == keyword), None)
        if arg is None and 0 <= pos < len(node.args):
            arg = node.args[pos]
        if arg is None:
            return
        if isinstance(arg, ast.Name) and (self._is_jit_def(arg.id) or self._is_constexpr_param(arg.id)
                                          or self._is_closure_variable(arg.id) or self._is_module_variable(arg.id)):
            return  # the names a body may call (fp31: a generic scan's COMBINE: tl.constexpr); the launch rule
            # admits only Triton values there, jit functions among them
        target = self.resolve(arg)
        if target is not None and target.startswith("triton.language."):
            return
        self.report(node, "kernel-body", f"hands {self.snippet(arg)} to {name} as the function it calls; it must "
                    "be a @triton.jit function named directly, a tl.constexpr parameter, a variable of an enclosing "
                    "function or a module-level variable, " + _KERNEL_CALL_WHY)

    def visit_For(self, node: ast.For) -> None:
        if self.jit_depth and not self.constexpr_fn_depth and not isinstance(node.iter, ast.Call):
            self.report(node.iter, "kernel-body", "is iterated inside a Triton kernel body; a kernel loops over "
                        "range(...), tl.range(...) or tl.static_range(...) only (iterating a Python object "
                        "runs or drains it, a channel out of the launch)")
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        if self.jit_depth:
            for item in node.items:
                if not isinstance(item.context_expr, ast.Call):
                    self.report(item.context_expr, "kernel-body", "is entered as a context manager inside a Triton "
                                "kernel body (its __enter__/__exit__ run Python code); only Triton's context "
                                "managers, called in place, are allowed")
        self.generic_visit(node)

    def _mark_chain(self, func: ast.AST) -> None:
        self.chain_inner.add(id(func))
        literal = self.getattr_literal(func)
        if literal is not None:
            self.handled.add(id(func))
            self.chain_inner.add(id(literal[0]))
