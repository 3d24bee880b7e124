"""The branches Triton's GPU front end decides at compile time must be the branches the interpreter takes.

Triton's code generator evaluates a condition that is no tensor (a ``tl.constexpr``, the result of ``isinstance``,
``hasattr``, an ``is`` comparison) while it compiles, and compiles only the side it picks: an ``if``'s branch, a
ternary's side, the operands of ``and``/``or`` up to the one that decides, the iterations of ``tl.static_range``. The
interpreter evaluates the same expressions at run time on its own values, which are not always the values the compiler
saw: it iterates ``range`` with Python ints where the compiler has an induction-variable tensor, and passes an integer
argument equal to 1 as a tensor where the compiler specialises it to the constant 1. A probe such as ``isinstance(j,
int)`` then folds to False on the GPU and answers True on the interpreter (red team 38's ``loop_probe``): the branch
the interpreter ran was never compiled, and it computed the result in Python on the host.

So (:mod:`.gpu_compile` compiles every launched kernel for sm_90 before its body runs on the interpreter):

* while the check compiles (:func:`recording`), each folded decision is recorded per function and source position
  (line from the ``def``, column): the truth of an ``if``/ternary condition or ``and``/``or`` operand, the iterations of
  a ``tl.static_range`` loop and whether its ``else`` clause was visited; a condition that is a tensor there is decided
  at run time on the GPU too (:data:`RUNTIME`: both sides compiled);
* the interpreter's rewrite of the kernel, of every jit helper and of every ``tl.reduce``/``associative_scan`` combine
  function (:func:`instrument`, :class:`_RewrittenCombine`) passes the same expressions through :func:`decision`,
  which compares the interpreter's value with the outcomes the compiler folded at that position; a value the compiler
  never chose there is a launch violation (``profile``), raised before the branch runs.

A jit helper is compiled once per instantiation (its argument types and constexprs), and folds differently in each:
the outcomes are kept per call path (the call sites from the kernel down, :data:`ALIASES` joining a call site whose
instantiation was already compiled to the one that compiled it), and the interpreter, which knows each helper call's
site from its caller's frame (:func:`helper_call`), compares with the outcomes of its own path. A union over
instantiations let a helper ``_h(v)`` fold ``isinstance(v, int)`` to True where it was called with a constant (a host
branch on a constant compiles) and the interpreter take that branch where the compiler had a loop index tensor, the
interpreter a Python int derived from loaded data (``for j in range(q)`` with ``q`` loaded).

Two more ways to run a body the check never compiled (red team 39), with no folded condition involved:

* a callee picked by a value the two see differently: ``_apply((_dev, _host)[isinstance(j, int)], ...)`` indexes its
  tuple at compile time (``_dev``) and at run time (``_host``), and ``_apply`` calls its constexpr ``F``. The compile
  records which jit functions it called at each call path (:data:`CALLEES`); the interpreter's helper call at a
  site of a body the check compiled (:data:`BODIES`) must be one of them (:func:`helper_call`; combine and
  ``tl.map_elementwise`` functions too);
* a ``tl.static_range`` body is compiled once per iteration, with other constants, at the same positions: the
  outcomes of one iteration (``_h(3)``'s host branch on a constant) were accepted in another (``_h(j)``, a loop index
  the interpreter holds as a Python int). Decisions and call sites are keyed by the unrolled iterations running
  there (the code generator's body visits; the interpreter's iterations of the loop :func:`decision` hands back);
* a comprehension over a tuple is unrolled by the code generator too: ``[[host code] for _ in (0,) * isinstance(j,
  int)]`` was unrolled zero times there (its element never compiled) and iterated once on the interpreter. The compile
  records each comprehension's item count (kind ``"comp"``), keys its element's decisions and calls by the item, and
  the interpreter's iterable must have as many items; a comprehension's ``if`` clauses, which the code generator
  ignores (it compiles the element for every item), are refused before they run (``"comp_if"``);
* a ``@triton.constexpr_function`` is called by the code generator while it compiles, with its values, and its
  result folded in; the interpreter calls it at run time with its own: ``_cf(j, bits)`` returned 0.0 to the compiler
  (``j`` a tensor) and a host erfc of the loaded bits on the interpreter. The compile records each call's result
  (kind ``"cfn"``, :func:`_result_key`), and the interpreter's result at that site must be one of them
  (:func:`constexpr_called`).

A cached instantiation's call path is replaced by the one that compiled it at every level of the interpreter's path
(only the last level was: a helper's decisions two calls below a cache hit were never read).

Positions the check did not compile (a check that failed in its own plumbing, ``KGB_GPU_COMPILE_CHECK=0``) are not
judged. Honest kernels are unaffected: a constexpr condition has the same value on both, and a specialised ``n == 1``
is a true scalar tensor on the interpreter and a folded True on the GPU.
"""
from __future__ import annotations

import ast
import contextlib
import sys
from typing import Any

#: The outcome recorded where the compiler's condition was a tensor: decided at run time on the GPU as well.
RUNTIME = "runtime"
#: (id(Python function), line counted from its def line, column, kind, call path, unrolled iterations) -> (the
#: function, the outcomes folded there). A call path is the kernel's specialisation followed by the call sites
#: ``(id(caller's function), line, column, unrolled iterations)`` from the kernel down; the unrolled iterations are
#: ``(line, column, index)`` of each ``tl.static_range`` loop of that function running there (its body is compiled
#: once per iteration, with other constants: red team 39), outermost first.
#: kind: "if" (an if or ternary condition), "bool" (an and/or operand), "for" (a loop's iterable), "else" (a for loop's
#: else clause entered), "comp" (a comprehension's item count), "cfn" (a constexpr function's result).
DECISIONS: dict[tuple[int, int, int, str, tuple, tuple], tuple[Any, set]] = {}
#: call path -> the call path under which the same helper instantiation was compiled first (a cache hit of the code
#: generator compiles nothing again, so it records nothing under the later path)
ALIASES: dict[tuple, tuple] = {}
#: (id(function), line, column, kind) -> outcomes over every call path: the fallback for a call that no rewritten frame
#: up the stack places (:func:`helper_call`)
UNION: dict[tuple[int, int, int, str], tuple[Any, set]] = {}
#: call path of a jit call (its caller's path and the call site) -> {id(the callee's Python function): it}: the jit
#: functions the GPU front end called there (red team 39: a callee picked by a compile-time subscript differed)
CALLEES: dict[tuple, dict[int, Any]] = {}
#: the call paths whose bodies a GPU check compiled to the end: a kernel's root, each helper instantiation it compiled
BODIES: set[tuple] = set()
#: the interpreter's call path now (its root set by :func:`launching`, a helper call pushed by :func:`helper_call`, with
#: a prefix the compiler aliased replaced by the path that compiled it; None: a call it cannot place)
RUN_PATH: list[tuple | None] = [()]
#: id(code object of a rewritten kernel or helper) -> (the code, its Python function, the line offset of its rewrite);
#: a comprehension's code inside one maps to the same. Keyed by identity: code objects compare equal by content, and
#: two kernels a factory made from one source (closures) have equal code whose calls are other functions' sites
_CODES: dict[int, tuple[Any, Any, int]] = {}
#: id(code object) -> it, for the comprehensions inside rewritten bodies (their frames run in the body's frame's loops)
_NESTED: dict[int, Any] = {}
#: the interpreter's ``tl.static_range`` loops running now: [the rewritten frame, line, column, iteration index]
UNROLL: list[list] = []
_POSITIONS: dict[Any, list] = {}
#: id(function) -> (it, the line offset of its latest rewrite), set by :func:`instrument` for :func:`register`
_BASES: dict[int, tuple[Any, int]] = {}
#: The global name under which a rewritten kernel reaches :func:`decision` (not an identifier: no submission code can
#: name it).
GLOBAL = "folded_decision (kgb)"
BOOLOP = "folded_boolop (kgb)"
NOT = "folded_not (kgb)"
MIN_MAX = "folded_min_max (kgb)"


def _own(code: Any) -> tuple[Any, int] | None:
    """(the Python function, the line offset) of a rewritten body's (or its comprehension's) code object, or None."""
    hit = _CODES.get(id(code))
    return hit[1:] if hit is not None and hit[0] is code else None


def _nested(code: Any) -> bool:
    return _NESTED.get(id(code)) is code


def _record(gen: Any, at: ast.AST, kind: str, outcome: Any, path: tuple, iters: tuple) -> None:
    fn = getattr(getattr(gen, "jit_fn", None), "fn", None)
    if fn is None or not hasattr(at, "lineno"):
        return
    for table, key in ((DECISIONS, (id(fn), at.lineno, at.col_offset, kind, path, iters)),
                       (UNION, (id(fn), at.lineno, at.col_offset, kind))):
        hit = table.get(key)
        if hit is None or hit[0] is not fn:
            hit = table[key] = (fn, set())
        hit[1].add(outcome)


def _truth(cg: Any, value: Any) -> Any:
    if cg._is_triton_tensor(value):
        return RUNTIME
    try:
        return bool(cg._unwrap_if_constexpr(value))
    except Exception:  # noqa: BLE001 - the compiler refuses such a condition itself
        return None


@contextlib.contextmanager
def recording(root: tuple = ()):
    """While the GPU check compiles: record the decisions the code generator folds (:data:`DECISIONS`), under call
    paths that start at ``root`` (the kernel and its specialisation: :func:`launching`)."""
    from triton import language
    from triton.compiler import code_generator as cg

    gen = cg.CodeGenerator
    names = ("visit", "visit_If", "visit_IfExp", "visit_BoolOp", "visit_For", "call_JitFunction",
             "visit_compound_statement", "visit_ListComp", "call_Function")
    orig = {n: gen.__dict__[n] for n in names}
    orig_mangle = cg.mangle_fn
    marks: dict[int, tuple[ast.AST, str, ast.AST]] = {}
    loops: dict[int, dict[str, Any]] = {}
    path: list[tuple] = [root]
    mangled: dict[tuple, str] = {}  # call path -> the instantiation it called (its mangled name)
    compiled: dict[str, tuple] = {}  # mangled name -> the call path that compiled it (in this compile's module)
    calls: dict[tuple, dict[int, Any]] = {}  # call path -> the jit functions called there (kept once the compile ends)
    bodies: set[tuple] = {root}
    active: dict[int, list[list]] = {}  # id(code generator) -> its for loops visited now: [node, body visits, in else]

    def unrolled(gen: Any) -> tuple:
        # (line, column, iteration) of each tl.static_range loop and comprehension this generator is unrolling now,
        # in an iteration (not while their iterable is evaluated), outside a loop's else clause (visited inside each
        # iteration, run by Python after the loop)
        return tuple((e[0].lineno, e[0].col_offset, e[1]) for e in active.get(id(gen), ())
                     if not e[2] and e[1] >= 0 and (isinstance(e[0], ast.ListComp)
                                                    or loops.get(id(e[0]), {}).get("func") is language.static_range))

    def call_Function(self, node, fn, args, kws):
        ret = orig["call_Function"](self, node, fn, args, kws)
        if _constexpr_function(fn):
            # its value is folded in: the interpreter's call there must return the same (:func:`constexpr_called`)
            _record(self, node, "cfn", _result_key(ret, args), path[-1], unrolled(self))
        return ret

    def visit_ListComp(self, node):
        # the code generator unrolls a comprehension over a tuple, visiting its element once per item
        stack = active.setdefault(id(self), [])
        stack.append([node, -1, 0])
        try:
            return orig["visit_ListComp"](self, node)
        finally:
            count = stack.pop()[1] + 1
            _record(self, node, "comp", count, path[-1], unrolled(self))

    def visit_compound_statement(self, stmts):
        for e in active.get(id(self), ()):
            if stmts is getattr(e[0], "body", None):
                e[1] += 1
        return orig["visit_compound_statement"](self, stmts)

    def mangle_fn(*a, **k):
        name = orig_mangle(*a, **k)
        mangled.setdefault(path[-1], name)
        return name

    def call_JitFunction(self, fn, *a, **k):
        cur = self.cur_node
        site = (id(getattr(self.jit_fn, "fn", None)), getattr(cur, "lineno", -1), getattr(cur, "col_offset", -1),
                unrolled(self))
        here = path[-1] + (site,)
        callee = getattr(fn, "fn", None)
        calls.setdefault(here, {})[id(callee)] = callee
        path.append(here)
        try:
            return orig["call_JitFunction"](self, fn, *a, **k)
        finally:
            path.pop()
            name = mangled.get(here)
            if name is not None:
                first = compiled.setdefault(name, here)
                if first != here:
                    ALIASES[here] = first
                else:
                    bodies.add(here)

    def visit(self, node):
        stack = active.get(id(self))
        if stack and isinstance(stack[-1][0], ast.ListComp):
            if node is stack[-1][0].elt:
                stack[-1][1] += 1
            ret = orig["visit"](self, node)
        elif stack and any(node is s for s in stack[-1][0].orelse):
            stack[-1][2] += 1
            try:
                ret = orig["visit"](self, node)
            finally:
                stack[-1][2] -= 1
        else:
            ret = orig["visit"](self, node)
        m = marks.get(id(node))
        if m is not None and m[0] is node:
            if m[1] in ("if", "bool"):
                t = _truth(cg, ret)
                if t is not None:
                    _record(self, m[2], m[1], t, path[-1], unrolled(self))
            else:  # a loop iterator's function, positional or keyword argument
                seen = loops.setdefault(id(m[2]), {"args": [], "kw": {}})
                if m[1] == "func":
                    seen["func"] = ret
                elif m[1] == "arg":
                    seen["args"].append(ret)
                elif isinstance(ret, tuple) and len(ret) == 2:
                    seen["kw"][ret[0]] = ret[1]
        return ret

    def visit_If(self, node):
        marks[id(node.test)] = (node.test, "if", node.test)
        return orig["visit_If"](self, node)

    def visit_IfExp(self, node):
        marks[id(node.test)] = (node.test, "if", node.test)
        return orig["visit_IfExp"](self, node)

    def visit_BoolOp(self, node):
        for v in node.values:
            marks[id(v)] = (v, "bool", v)
        return orig["visit_BoolOp"](self, node)

    def visit_For(self, node):
        it = node.iter
        loops.pop(id(node), None)
        if isinstance(it, ast.Call):
            marks[id(it.func)] = (it.func, "func", node)
            for a in it.args:
                marks[id(a)] = (a, "arg", node)
            for k in it.keywords:
                marks[id(k)] = (k, "kw", node)
        stack = active.setdefault(id(self), [])
        stack.append([node, -1, 0])
        try:
            return orig["visit_For"](self, node)
        finally:
            stack.pop()
            iters = unrolled(self)
            seen = loops.pop(id(node), {})
            outcome: Any = RUNTIME
            if seen.get("func") is language.static_range:
                try:
                    r = language.static_range(*seen["args"], **seen["kw"])
                    outcome = tuple(range(r.start.value, r.end.value, r.step.value))
                except Exception:  # noqa: BLE001 - the compiler refused the loop: nothing ran
                    outcome = None
            if outcome is not None:
                _record(self, node, "for", outcome, path[-1], iters)
            if node.orelse and outcome is not None:
                # a for-else: the code generator visits the else clause inside each unrolled iteration of a
                # tl.static_range loop (a range loop's refuses it), so never where it unrolls none, while Python runs it
                # after every loop that ends without break
                _record(self, node, "else", outcome != RUNTIME and len(outcome) > 0, path[-1], iters)

    patched = {"visit": visit, "visit_If": visit_If, "visit_IfExp": visit_IfExp, "visit_BoolOp": visit_BoolOp,
               "visit_For": visit_For, "call_JitFunction": call_JitFunction,
               "visit_compound_statement": visit_compound_statement, "visit_ListComp": visit_ListComp,
               "call_Function": call_Function}
    for n, f in patched.items():
        setattr(gen, n, f)
    cg.mangle_fn = mangle_fn
    try:
        yield
        # a compile that ended: the call sites of its bodies are judged (:func:`helper_call`)
        for here, fns in calls.items():
            CALLEES.setdefault(here, {}).update(fns)
        BODIES.update(bodies)
    finally:
        for n, f in orig.items():
            setattr(gen, n, f)
        cg.mangle_fn = orig_mangle


def launching(root: tuple | None) -> None:
    """A launch of the interpreter runs its body next: its call paths start at ``root`` (the GPU check's key of the
    kernel and its specialisation, under which the compile recorded them; None: not known, the check did not key this
    launch, so no call of it is placed and none is judged by call path)."""
    RUN_PATH[:] = [root]
    UNROLL.clear()  # loops a failed launch left (their frames are gone)


def _resolved(here: tuple) -> tuple:
    """The call path under which the compiler compiled the helper instantiation that ``here`` called."""
    seen = 0
    while here in ALIASES and seen < 64:
        here, seen = ALIASES[here], seen + 1
    return here


def _iters(frame: Any) -> tuple:
    """(line, column, iteration index) of each ``tl.static_range`` loop the rewritten ``frame`` runs now (a
    comprehension's frame: its body's)."""
    if not UNROLL:
        return ()
    while frame is not None and _nested(frame.f_code):
        frame = frame.f_back
    return tuple((e[1], e[2], e[3]) for e in UNROLL if e[0] is frame)


def _unrolling(frame: Any, line: int, col: int, items: list):
    # the interpreter's iterations of a loop the compiler unrolled, each known to _iters while its body runs (a break
    # or an exception closes the generator, which removes the entry)
    entry = [frame, line, col, -1]
    UNROLL.append(entry)
    try:
        for i in items:
            entry[3] += 1
            yield i
    finally:
        UNROLL.remove(entry)


def _lookup(fid: int, line: int, col: int, kind: str, iters: tuple) -> tuple[Any, set] | None:
    here = RUN_PATH[-1]
    if here is None:
        return UNION.get((fid, line, col, kind))
    return DECISIONS.get((fid, line, col, kind, _resolved(here), iters))


@contextlib.contextmanager
def helper_call(caller: Any, callee: Any = None):
    """While a jit helper called from the frame ``caller`` runs on the interpreter: the call path extended by its call
    site, the position of the call that the nearest rewritten body up the stack is executing (the helper's own call,
    or the ``tl.reduce``/``tl.associative_scan``/``tl.map_elementwise`` call whose combine or scalar function Triton or
    the harness calls: the compiler's call site of those is that call too); None where no rewritten body is found.

    ``callee`` (the helper's Python function) must be a jit function the GPU front end called at that site, where the
    check compiled the calling body: a callee picked by a value the two see differently (``(_dev, _host)[isinstance(j,
    int)]`` handed to a helper that calls it: red team 39) would run a body the check never compiled. A prefix of the
    path that the compiler aliased (a cached instantiation) is replaced by the path that compiled it, so that the
    decisions and callees of helpers further down are read where they were recorded."""
    here = None
    own = None
    for _ in range(64):
        if caller is None:
            break
        own = _own(caller.f_code)
        if own is not None:
            break
        caller = caller.f_back
    if own is not None and RUN_PATH[-1] is not None:
        code = caller.f_code
        positions = _POSITIONS.get(code)
        if positions is None:
            positions = _POSITIONS[code] = list(code.co_positions())
        i = caller.f_lasti // 2
        if 0 <= i < len(positions) and positions[i][0] is not None:
            parent = _resolved(RUN_PATH[-1])
            line = positions[i][0] - own[1]
            here = parent + ((id(own[0]), line, positions[i][2], _iters(caller)),)
            if callee is not None and parent in BODIES:
                called = CALLEES.get(here) or {}
                if called.get(id(callee)) is not callee:
                    names = ", ".join(sorted(getattr(f, "__name__", "?") for f in called.values())) or "none"
                    _violation(own[0], line, f"calls the jit function {getattr(callee, '__name__', '?')} where the "
                               f"GPU front end compiled a call of {names} (so that body was never compiled there)")
    RUN_PATH.append(here)
    try:
        yield
    finally:
        RUN_PATH.pop()


def register(out: Any, fn: Any) -> None:
    """The interpreter's rewrite ``out`` of ``fn`` (made from the module :func:`instrument` instrumented): its frames
    are call sites :func:`helper_call` can place."""
    hit = _BASES.get(id(fn))
    if hit is not None and hit[0] is fn:
        _CODES[id(out.__code__)] = (out.__code__, fn, hit[1])
        todo = list(out.__code__.co_consts)
        while todo:  # comprehensions: their frames run the body's calls (Python 3.11 gives each its own)
            c = todo.pop()
            if type(c) is type(out.__code__):
                _CODES[id(c)] = (c, fn, hit[1])
                _NESTED[id(c)] = c
                todo.extend(c.co_consts)


def decision(fid: int, line: int, col: int, kind: str, value: Any) -> Any:
    """The interpreter's value of a condition (or a loop's iterable) at a position the GPU check compiled: returned as
    it is when the compiler chose the same there (or decided it at run time); else a launch violation."""
    if kind == "comp_if":
        hit = UNION.get((fid, line, col, "comp"))
        if hit is not None and id(hit[0]) == fid:
            _violation(hit[0], line, "evaluates a comprehension's if clause, which Triton's GPU front end ignores (it "
                       "compiles the element for every item: a GPU neither runs nor filters by it)")
        return value
    frame = sys._getframe(1)
    hit = _lookup(fid, line, col, kind, _iters(frame))
    if hit is None or id(hit[0]) != fid:
        return value
    if RUNTIME in hit[1]:
        return _runtime_operand(value) if kind == "bool" and hit[1] == {RUNTIME} else value
    if kind == "comp":
        items = list(value)
        if len(items) not in hit[1]:
            _violation(hit[0], line, f"iterates a comprehension {len(items)} time(s) where the GPU front end unrolled "
                       f"it {min(hit[1])} time(s)")
        while frame is not None and _nested(frame.f_code):
            frame = frame.f_back
        return _unrolling(frame, line, col, items)
    if kind == "for":
        items = list(value)
        try:
            got: Any = tuple(int(i) for i in items)
        except Exception:  # noqa: BLE001 - not integers: not what the compiler unrolled
            got = None
        if got in hit[1]:
            while frame is not None and _nested(frame.f_code):
                frame = frame.f_back
            return _unrolling(frame, line, col, items)
        _violation(hit[0], line, f"iterates {got if got is not None else 'other values'} where the GPU front end "
                   f"unrolled {sorted(hit[1], key=len)[0]}")
    truth = bool(value)
    if kind == "else" and truth not in hit[1]:
        _violation(hit[0], line, "enters a for loop's else clause, which the GPU front end never compiled (its "
                   "tl.static_range unrolled no iteration)")
    if truth not in hit[1]:
        _violation(hit[0], line, f"finds a condition {truth} where the GPU front end folded it to {not truth} at "
                   "compile time (so that branch was never compiled for a GPU)")
    return value


def _runtime_operand(value: Any) -> Any:
    """An ``and``/``or`` operand the GPU front end found a tensor (decided at run time) but the interpreter holds as a
    Python bool or number (a loop index ``i`` of ``range``, an int on the interpreter, makes ``i < 1`` a bool): made the
    scalar tensor a GPU has, so :func:`boolop` neither short-circuits on it nor drops it (rb43: ``(i < 1) and
    (tl.atomic_add(p, 1.0) > 0)`` ran the atomic on the first iteration only, where a GPU runs it on every one)."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    if isinstance(value, tl.tensor) or not isinstance(value, (int, float)):  # bool, LoopIndex: ints
        return value
    return interp.interpreter_semantic.to_tensor(value)


def boolop(is_and: bool, *operands: Any) -> Any:
    """``a and b`` / ``a or b`` of a rewritten kernel body, each operand a thunk, evaluated as Triton's code generator
    evaluates it (``CodeGenerator.visit_BoolOp``), not as Python does (tp43): operands in order; one that is no
    tensor (a constexpr, a Python value) ends the expression when it decides it (falsy for ``and``, truthy for ``or``)
    and is dropped otherwise; the tensors are combined elementwise with ``logical_and``/``logical_or``. Python's
    ``and`` took one tensor whole (its truth is ``all()``), so FlagGems' ``mask = rows < M and cols < N`` kept only
    one comparison and loaded out of bounds on the interpreter, a mask every GPU computes elementwise."""
    import triton.language as tl

    tensors: list = []
    value: Any = None
    for thunk in operands:
        value = thunk()
        if not isinstance(value, tl.tensor):
            if bool(value) is not is_and:
                return value
            continue
        tensors.append(value)
    if not tensors:
        return value
    while len(tensors) >= 2:
        rhs = tensors.pop()
        lhs = tensors.pop()
        tensors.append(lhs.logical_and(rhs) if is_and else lhs.logical_or(rhs))
    return tensors[0]


_NESTED[id(boolop.__code__)] = boolop.__code__  # its frames sit between a body and its operands' (``_iters``)


def min_max(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``min(a, b)``/``max(a, b)`` called in a rewritten kernel body (tp43). Triton's code generator takes Python's
    ``min``/``max`` for ``tl.core.builtin_min``/``builtin_max``: of tensors, ``tl.minimum``/``tl.maximum`` elementwise
    (``max(x, 0.0)`` is a ReLU); Python's compares with ``<`` and keeps one tensor whole (its truth is ``all()``).
    ``fn`` is what the name holds where the body runs: Python's builtin is evaluated as the code generator does, any
    other callable (the file's own ``min``) is called as it is."""
    import builtins

    import triton.language as tl

    if fn not in (builtins.min, builtins.max) or not any(isinstance(a, tl.tensor) for a in args):
        return fn(*args, **kwargs)
    pick = tl.minimum if fn is builtins.min else tl.maximum
    value = args[0]
    for arg in args[1:]:
        value = pick(value, arg, **kwargs)
    return value


def unary_not(value: Any) -> Any:
    """``not x`` of a rewritten kernel body as Triton's code generator evaluates it (tp43): a tensor's ``__not__``,
    elementwise (``visit_UnaryOp``), not Python's ``not`` of its truth (``all()``), one bool for a whole block."""
    import triton.language as tl

    return value.__not__() if isinstance(value, tl.tensor) else not value


def _violation(fn: Any, line: int, what: str) -> None:
    from . import launch_args
    from .state import STATE

    msg = (f"kernel {getattr(fn, '__name__', '?')}, line {line} of its def: the interpreter {what}; a value the "
           "interpreter sees differently from Triton's compiler (a Python int loop index, a specialised argument) "
           "may not steer the kernel into code the GPU check did not compile")
    STATE.note_violation(msg)
    raise launch_args.LaunchArgumentError(msg)


class _Instrument(ast.NodeTransformer):
    def __init__(self, fid: int, base: int) -> None:
        self.fid, self.base = fid, base

    def _wrap(self, expr: ast.expr, at: ast.AST, kind: str) -> ast.expr:
        call = ast.Call(func=ast.Name(id=GLOBAL, ctx=ast.Load()),
                        args=[ast.Constant(self.fid), ast.Constant(at.lineno - self.base), ast.Constant(at.col_offset),
                              ast.Constant(kind), expr], keywords=[])
        return ast.copy_location(call, expr)

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        node.test = self._wrap(node.test, node.test, "if")
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        node.test = self._wrap(node.test, node.test, "if")
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        no_args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                defaults=[])
        thunks = [ast.copy_location(ast.Lambda(args=no_args, body=self._wrap(v, v, "bool")), v) for v in node.values]
        call = ast.Call(func=ast.Name(id=BOOLOP, ctx=ast.Load()),
                        args=[ast.Constant(isinstance(node.op, ast.And)), *thunks], keywords=[])
        return ast.copy_location(call, node)  # evaluated as Triton's code generator does (:func:`boolop`)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max")):
            return node
        call = ast.Call(func=ast.Name(id=MIN_MAX, ctx=ast.Load()), args=[node.func, *node.args], keywords=node.keywords)
        return ast.copy_location(call, node)  # elementwise on tensors, as Triton's code generator (:func:`min_max`)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        call = ast.Call(func=ast.Name(id=NOT, ctx=ast.Load()), args=[node.operand], keywords=[])
        return ast.copy_location(call, node)  # elementwise on a tensor, as Triton's code generator (:func:`unary_not`)

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        self.generic_visit(node)
        first = node.generators[0]
        first.iter = self._wrap(first.iter, node, "comp")  # evaluated in the enclosing frame, once
        for gen in node.generators:
            # Triton's code generator ignores a comprehension's if clauses (it compiles the element for every item):
            # the interpreter may not run code the GPU check never compiled, nor filter what a GPU does not (judged
            # before the clause runs)
            gen.ifs = [ast.copy_location(ast.BoolOp(op=ast.And(), values=[
                self._wrap(ast.Constant(True), node, "comp_if"), c]), c) for c in gen.ifs]
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.iter = self._wrap(node.iter, node, "for")
        if node.orelse:  # entering the else clause is a decision too: the compiler may never have visited it
            enter = ast.Expr(self._wrap(ast.Constant(True), node, "else"))
            node.orelse = [ast.copy_location(enter, node.orelse[0]), *node.orelse]
        return node


def instrument(module: ast.Module, fn: Any) -> ast.Module:
    """The interpreter's transformed kernel ``module`` (one ``def``, its lines shifted to the file's) with every
    condition, and/or operand and loop iterable passed through :func:`decision`; the function's globals get it. Lines
    are counted from the ``def`` line, as the compiler counts them in the source it parses (read from the tree, not
    from Triton's search of the file for a line that starts with ``def``)."""
    fn.__globals__.setdefault(GLOBAL, decision)
    fn.__globals__.setdefault(BOOLOP, boolop)
    fn.__globals__.setdefault(NOT, unary_not)
    fn.__globals__.setdefault(MIN_MAX, min_max)
    _BASES[id(fn)] = (fn, module.body[0].lineno - 1)
    out = _Instrument(id(fn), module.body[0].lineno - 1).visit(module)
    ast.fix_missing_locations(out)
    return out


def _constexpr_function(fn: Any) -> bool:
    from triton.runtime import jit

    kinds = tuple(k for k in (getattr(jit, "ConstexprFunction", None), getattr(jit, "BoundConstexprFunction", None))
                  if k is not None)
    return bool(kinds) and isinstance(fn, kinds)


def _result_key(v: Any, args: Any, depth: int = 0) -> Any:
    """A comparable form of a constexpr function's result, the same for the compiler's and the interpreter's values: a
    number, string, dtype or function by its value, a tuple by its items, a tensor by the argument it is (the compiler
    can return no other tensor: a tensor op needs the code generator). Never raises: an exception here, inside the
    code generator's call, would be a failure of the check's plumbing, a note past which the body runs unchecked."""
    try:
        return _key_of(v, args, depth)
    except Exception:  # noqa: BLE001 - a value whose attributes raise: known by its type, on both sides
        return ("error", type(v).__qualname__)


def _key_of(v: Any, args: Any, depth: int) -> Any:
    from triton.language import core

    if type(v) is core.constexpr:
        v = v.value
    if isinstance(v, core.tensor):
        return ("arg", next((i for i, a in enumerate(args) if a is v), None))
    if isinstance(v, (tuple, list, core.tuple)) and depth < 8:
        items = v.values if isinstance(v, core.tuple) else v
        return ("tuple", tuple(_key_of(x, args, depth + 1) for x in items))
    if type(v) in (bool, int, str, type(None)):
        return (type(v).__name__, v)
    if type(v) is float:
        return ("float", v.hex())
    if isinstance(v, core.dtype):
        return ("dtype", str(v))
    if type(v) is complex:
        return ("complex", (v.real.hex(), v.imag.hex()))
    if hasattr(v, "fn") and callable(v):  # a jit function: the compiler's mirror, the interpreter's own
        return ("fn", id(v.fn))
    try:  # any other value by its type and repr (a complex's real part would carry a host result past its type)
        return ("other", f"{type(v).__qualname__} {repr(v)[:200]}")
    except Exception:  # noqa: BLE001 - a repr that raises: the type alone
        return ("other", type(v).__qualname__)


def _shown(key: Any) -> str:
    """A :func:`_result_key` as the value it stands for."""
    kind, v = key
    if kind == "float":
        return repr(float.fromhex(v))
    if kind == "tuple":
        return "(" + ", ".join(_shown(k) for k in v) + ")"
    if kind == "arg":
        return f"its argument {v}" if v is not None else "a tensor it computed"
    if kind == "complex":
        return repr(complex(float.fromhex(v[0]), float.fromhex(v[1])))
    if kind in ("dtype", "other", "error"):
        return str(v)
    return "a jit function" if kind == "fn" else repr(v)


def constexpr_called(fn: Any, args: tuple, result: Any, caller: Any) -> None:
    """A ``@triton.constexpr_function`` called from the rewritten body running in frame ``caller`` returned
    ``result``: the GPU front end called it while it compiled, with its own values (a loop index is a tensor there),
    and folded its result in; the interpreter calls it at run time with its values, and must get the same result
    (red team 39: ``_cf(j, bits)`` returned 0.0 to the compiler and a host erfc of the loaded bits here)."""
    own = _own(caller.f_code)
    if own is None:
        return  # called from Python (another constexpr function, host code): not a call site of a body
    code = caller.f_code
    positions = _POSITIONS.get(code)
    if positions is None:
        positions = _POSITIONS[code] = list(code.co_positions())
    i = caller.f_lasti // 2
    if not (0 <= i < len(positions)) or positions[i][0] is None:
        return
    line = positions[i][0] - own[1]
    hit = _lookup(id(own[0]), line, positions[i][2], "cfn", _iters(caller))
    if hit is None or hit[0] is not own[0]:
        return
    got = _result_key(result, list(args))
    if got not in hit[1]:
        _violation(own[0], line, f"gets {_shown(got)} from the constexpr function {getattr(fn, '__name__', '?')} "
                   f"where the GPU front end folded in {' or '.join(sorted(_shown(k) for k in hit[1]))}")


def checked_constexpr_functions() -> None:
    """Make each call of a ``@triton.constexpr_function`` on the interpreter compare its result with the value the GPU
    front end folded in at that call site (:func:`constexpr_called`)."""
    from triton.runtime import jit

    cls = getattr(jit, "ConstexprFunction", None)
    if cls is None or getattr(cls.__call__, "_kgb_hooked", False):  # pragma: no cover - another Triton
        return
    orig = cls.__call__

    def call(self, *args, **kwargs):  # orig closed over, not a keyword default a caller could replace (rt39b)
        res = orig(self, *args, **kwargs)
        constexpr_called(getattr(self, "fn", self), args, res, sys._getframe(1))
        return res

    call._kgb_hooked = True  # type: ignore[attr-defined]
    cls.__call__ = call


class _RewrittenCombine:
    """A combine function as Triton's interpreter holds it for ``tl.reduce``/``tl.associative_scan``: its ``fn(...)``
    runs the verified, instrumented rewrite (Triton called the function's own code, past the folded decisions: red
    team 38 ran a host branch the compiler had folded away); compared equal to the jit function it stands for, so
    Triton's NumPy fast paths for its own combines still apply."""

    __slots__ = ("kernel", "rewrite")

    def __init__(self, kernel: Any, rewrite: Any) -> None:
        self.kernel = kernel
        self.rewrite = rewrite  # launch._rewritten, handed in (launch imports this module, not the other way)

    def fn(self, *args: Any) -> Any:
        with helper_call(sys._getframe(1), self.kernel.__dict__.get("fn")):
            return self.rewrite(self.kernel)(*args)

    def __eq__(self, other: Any) -> bool:
        return self.kernel is other or (type(other) is _RewrittenCombine and other.kernel is self.kernel)

    def __hash__(self) -> int:
        return hash(id(self.kernel))


def rewritten_combine_functions(rewrite: Any) -> None:
    """Make Triton's interpreter run each combine function of ``tl.reduce``/``tl.associative_scan`` as the verified,
    instrumented rewrite (:class:`_RewrittenCombine`), its calls placed on the call path of the reduce's call.
    ``rewrite``: kernel -> its rewritten function (``launch._rewritten``)."""
    from triton.runtime import interpreter as interp_mod

    base = getattr(interp_mod, "ReduceScanOpInterface", None)
    if base is None or getattr(base.__init__, "_kgb_hooked", False):  # pragma: no cover - another Triton
        return
    orig = base.__init__

    def init(self, axis, combine_fn, *a, **k):
        orig(self, axis, combine_fn, *a, **k)
        if type(combine_fn) is interp_mod.InterpretedFunction:
            self.combine_fn = _RewrittenCombine(combine_fn, rewrite)

    init._kgb_hooked = True  # type: ignore[attr-defined]
    base.__init__ = init
