"""L1 static scan: reject submissions whose source computes outside Triton or tampers with the harness.

This is the first anti-cheat tier (``shared/DESIGN.md``, bullet "L1 static scan"; upstream's
equivalent is described in ``shared/spec/aten.md`` §4 item 6). It reads the submission's source with
:mod:`ast` and never imports or runs it. It rejects:

* calls that compute with PyTorch instead of Triton: ``torch.X(...)`` outside an allowlist of
  allocation, view, metadata and device-query functions, ``torch.ops.*``, ``torch.nn.functional.*``,
  ``torch.linalg/fft/special.*``, and tensor *methods* judged by name (``x.sum()``, ``x.to(...)``);
* calls of the op the submission replaces (dispatch recursion, ``aten.md`` §4 item 5);
* the compiler stack (``torch.compile``, dynamo, inductor, TorchScript), foreign compute (``ctypes``,
  CuPy, vLLM, C++ extensions), host computation (NumPy and friends);
* ``exec``/``eval``, dynamic attribute access and dynamic imports, introspection, monkey-patching,
  Python side effects and non-Triton calls in kernel bodies, file/network/process/thread access,
  extra streams and timers.

What it cannot see (aliases built at run time, ``a @ b`` and other operators on tensors, indexing that
computes) is left to the dynamic tiers L2 (ghost replay) and L3 (dispatch trace), which see through
them. The scan is deliberately conservative about *names*: a method call is judged by its name alone,
because the receiver's type is unknown statically, unless the receiver is provably a plain Python value
(see "Host values" below: ``s = set(); s.add(v)`` passes, ``t.add(v)`` of a parameter does not).

Rules and their sources
-----------------------
``DESIGN.md`` is ``shared/DESIGN.md`` (bullet "L1 static scan"); ``aten.md`` is ``shared/spec/aten.md``;
"brief" is the task description this module was written to (the lead's design of L1).

=================== ===============================================================================
rule                source and reach
=================== ===============================================================================
syntax              the file must parse (DESIGN.md failure class "syntax")
dispatch-recursion  aten.md §4 item 5: ``torch.<op>``, ``F.<op>``, ``torch.ops.<ns>.<op>``,
                    ``torch.Tensor.<op>``, ``x.<op>()`` / ``x.<op>_()`` for the op(s) in ``own_ops``,
                    plus the composites of :data:`RECURSION_ALIASES` (``_softmax`` -> ``softmax``,
                    ``_to_copy`` -> ``x.to()``/``.float()``, ``fill_`` -> ``torch.zeros``, ...).
                    Wins over torch-compute/tensor-method, and over the allowlists
torch-compute       DESIGN.md ("calls that compute with PyTorch"), aten.md §4 item 6 (upstream's
                    ``torch.X`` whitelist and ``torch.ops.aten.*`` ban): any ``torch.X`` call (or
                    reference to a torch function as a value) not in :data:`TORCH_ALLOWED`, and
                    every ``torch.ops.*``, ``torch.nn.functional.*``, ``linalg``/``fft``/``special``;
                    ``torch.tensor``/``as_tensor`` (and ``x.new_tensor``, rule tensor-method) only
                    of a provably plain Python value (issue 11 item 2.2, :data:`TORCH_FROM_HOST_DATA`)
compile             DESIGN.md ("torch.compile/inductor"): torch.compile, _dynamo, _inductor, jit,
                    compiler, export
tensor-method       DESIGN.md ("tensor methods such as x.sum()"); upstream does not catch these
                    (aten.md §4 item 6): a method whose name is in ``dir(torch.Tensor)`` and not in
                    :data:`TENSOR_METHODS_ALLOWED` (copies only with ``allow_copies``), called on
                    anything but a provably plain Python value (issue 12 class 6; "Host values")
raw-storage         aten.md §4 item 6 (upstream bans .data_ptr/.storage/.untyped_storage); brief
host-compute        DESIGN.md ("host-side computation (numpy)")
foreign-compute     DESIGN.md ("ctypes/cupy"; "compute with PyTorch/vLLM/cuBLAS instead of Triton")
forbidden-import    brief: imports outside :data:`IMPORT_ALLOWED`
file-io, process,   DESIGN.md ("process spawning, file and network access", "threads")
network, threads
dynamic-import      DESIGN.md ("dynamic ... import tricks"); aten.md §4 item 6 (importlib/__import__)
introspection       DESIGN.md ("introspection (gc, inspect, frames)")
exec-eval           DESIGN.md ("exec/eval"); aten.md §4 item 6
dynamic-attr        DESIGN.md ("dynamic attribute ... tricks")
monkey-patch        DESIGN.md ("monkey-patching of any module or class")
(module-cache)      removed; see "State across calls" below
kernel-body         red-team findings (L2 ghost-replay channels): on the CPU interpreter a kernel body is
                    plain Python that runs in a normal launch and not in a ghost replay's no-op, so
                    anything it does to Python objects tells the two apart. A kernel body must not
                    store into or mutate Python objects, and every call in it must be Triton:
                    ``tl.*``/``triton.language.*`` (libdevice included), ``triton.cdiv``/
                    ``next_power_of_2``, ``math.*``, a @triton.jit function of the submission named
                    directly (bound once), a builtin Triton compiles (:data:`KERNEL_BUILTINS`), or a
                    method whose name Triton's values have and the submission gives none of its own
                    objects (:func:`_user_attr_names`); ``for`` loops over calls, ``with`` of calls,
                    functions handed to ``tl.reduce``/``associative_scan``/``map_elementwise`` are
                    @triton.jit ones. Left open (name-based, like tensor-method): a Python object
                    whose method has a Triton name and mutates it (none among containers besides
                    ``sort``, which is rejected), and iterators drained by unpacking, ``*`` or
                    comprehensions. Code that runs *implicitly* in a kernel body (special methods and
                    properties of an object passed as ``tl.constexpr`` or read as a global: ``if P:``,
                    ``D[0]`` on a defaultdict, ``P.attr``) is not judged here (a class may define any
                    special method or property; host code uses them legitimately): the runtime launch
                    rule (``sandbox/launch_args.py``, failure class ``profile``) lets only Triton
                    values reach a kernel, as arguments or as globals, on every platform
streams             DESIGN.md ("extra streams")
timer               DESIGN.md (timings are checked; "timer tampering" failure class): time, timeit,
                    torch.cuda.Event, triton.testing, profilers
=================== ===============================================================================

Each table below names the rule that uses it. Allowlisted calls (allocation, views, metadata,
device queries) follow DESIGN.md: "Allowed: allocation, views, metadata, ``.contiguous()`` where the
spec allows copies". ``print`` is allowed (upstream forbids it; it cannot compute a result).

Scope of the rules
------------------
Bodies of functions decorated with ``@triton.jit``, ``@triton.autotune(...)``,
``@triton.heuristics(...)`` or ``@triton.constexpr_function`` (under any import alias; a constexpr
function's body is Python that runs inside the calling kernel's body on the interpreter, so it is held
to the same rules, plus the pure scalar builtins/methods of :data:`CONSTEXPR_FN_BUILTINS` and
:data:`CONSTEXPR_FN_METHODS`) are compiled by Triton, where ``x.to(tl.float32)``,
``acc.sum(0)`` and the like are Triton operations. Inside them the method-name rules
(``tensor-method`` and the method form of ``dispatch-recursion``) are off and ``kernel-body`` is on.
Every other rule still applies there: a ``torch.*`` call, an import or an ``eval`` never compiles under Triton, so it could only
run under the CPU interpreter or through ``kernel.fn(...)``. Decorator arguments and default values
are ordinary Python and are always scanned.

The body of a module-level ``if __name__ == "__main__":`` block is skipped (it does not run when the
harness imports the submission), unless the source assigns ``__name__`` itself.

Host values (no rule)
---------------------
Issue 12 class 6: plain host Python (lists, dicts, tuples, sets, strings, numbers) is not tensor code,
whatever its method names (``shape.sort()``, ``seen.add(d)``, ``name.split(".")`` for ``aten::split``).
A scope-aware inference (:meth:`_Scanner.host_level`) proves expressions to be

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

State across calls (no rule)
----------------------------
DESIGN.md bans "module-level caches of results" and allows "constant tables of launch settings";
aten.md §4 item 6 follows upstream. What a cache holds (results or configuration) is not decidable
from the source, and where it lives does not matter: a dict held by a module, a closure, a mutable
default argument, ``functools.lru_cache``, a function attribute or a ``global`` rebinding keeps state
across calls equally well. The former ``module-cache`` rule rejected only the first form (and mutable
defaults and ``global``), so the same cache passed in a closure or an ``lru_cache`` (red-team finding:
a module-level dict of launch configurations, the idiom of real Triton code such as autotuners and
workspace caches, was rejected while its closure twin passed). Decision: L1 judges none of them; all
forms get the same verdict (pass). Result caches are left to the dynamic tiers: judged re-runs in L2
(a cache that answers a repeat with stale or garbage values fails as ``wrong_result``), the L3
dispatch trace of the call that fills a cache (its compute must be Triton too), and the timing
harness (being changed to give each timed repetition fresh input values, so that a cache keyed by
values cannot answer there). Stores from a kernel body stay rejected (rule ``kernel-body``); stores into or
``global`` rebinding of imported modules stay ``monkey-patch``.

Data shapes
-----------
:func:`scan_source` returns a list of :class:`Finding` sorted by ``(line, col, rule)``, without
duplicates; an empty list means the source passed. ``line`` is 1-based and ``col`` 0-based, as in
:mod:`ast`. A source that does not parse gives exactly one finding with rule ``"syntax"`` at the
error's position. The scan never raises for bad input; :func:`scan_file` raises ``OSError`` when the
file cannot be read.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import os
import threading
import types
from dataclasses import dataclass
from typing import Iterator

__all__ = ["Finding", "RULES", "RULE_RELEVANCE", "scan_source", "scan_file", "rank_findings", "describe_findings",
           "findings_record"]


#: The verifier's job threads scan submissions concurrently; ast.parse is serialised.
_PARSE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Finding:
    """One rule violation.

    ``line`` (1-based) and ``col`` (0-based) locate the offending node; ``rule`` is a key of
    :data:`RULES`; ``message`` is one sentence that quotes the offending code of that line and ends
    with ``(rule <id>)``, e.g. ``line 12: torch.sum(x) computes with PyTorch; ... (rule torch-compute)``.
    """

    line: int
    col: int
    rule: str
    message: str


#: Rule id -> one-line description (shown in prompts and reports).
RULES: dict[str, str] = {
    "syntax": "the source does not parse as Python",
    "dispatch-recursion": "calls the op it replaces (torch.<op>, F.<op>, torch.ops.<ns>.<op>, x.<op>()), "
    "which dispatches back into the submission",
    "torch-compute": "computes with a PyTorch function or torch.ops instead of a Triton kernel "
    "(only allocation, view, metadata and device-query functions are allowed, and torch.tensor/torch.as_tensor "
    "of Python numbers, lists and tuples)",
    "compile": "uses torch.compile, torch._dynamo, torch._inductor or torch.jit",
    "tensor-method": "calls a tensor method that computes (x.sum(), x.to(), x.float(), ...); only allocation, "
    "view and metadata methods are allowed (methods of a name bound only to plain Python values, such as "
    "`shape = list(x.shape); shape.sort()`, are Python's and not judged)",
    "raw-storage": "reaches behind a tensor to its storage (data_ptr, storage, untyped_storage, set_)",
    "host-compute": "imports a host-side numeric library (numpy, scipy, jax, ...)",
    "foreign-compute": "uses non-Triton GPU or native code (ctypes, cupy, vllm, cuda-python, C++ extensions, ...)",
    "forbidden-import": "imports a module outside the allowlist (torch, triton, math, cmath, typing, "
    "functools, itertools, dataclasses, enum, numbers, collections, __future__, operator, warnings)",
    "file-io": "touches files or the interpreter (open, os, sys, io, pathlib, pickle, ...)",
    "process": "spawns processes or handles signals (subprocess, multiprocessing, concurrent, signal)",
    "network": "opens network connections (socket, http, urllib, requests, asyncio, ...)",
    "threads": "starts threads (threading)",
    "dynamic-import": "imports dynamically or hides names (importlib, builtins, pkgutil, runpy, import *)",
    "introspection": "inspects or rewrites the interpreter (inspect, gc, traceback, types, frames, "
    "__dict__, __class__, __globals__, ...)",
    "exec-eval": "runs code built at run time or reaches the interpreter's namespaces "
    "(exec, eval, compile, __import__, globals, locals, vars, breakpoint, input)",
    "dynamic-attr": "getattr/setattr/delattr/hasattr with an attribute name that is not a string literal",
    "monkey-patch": "assigns or deletes an attribute of a module, of something reached through one, or of "
    "a class defined elsewhere; rebinds an imported name through `global`; registers into torch.library",
    "kernel-body": "a Triton kernel body calls something other than Triton (tl.*, libdevice, @triton.jit "
    "functions, methods of Triton values, range/min/max/len/int/float/isinstance/getattr/hasattr/print) or "
    "changes a Python object",
    "streams": "creates or switches CUDA streams or graphs",
    "timer": "uses timers or profilers (time, timeit, torch.cuda.Event, triton.testing, torch.profiler)",
}

#: Rules from the most to the least relevant to the reader of a rejection (issue 11 item 2.4: every
#: finding is reported, the one that matters first): a syntax error stops everything; calling the
#: replaced op decides the failure class (``dispatch_recursion``); then computing outside Triton (what
#: the submission must rewrite), tampering with the harness or the interpreter, the environment
#: (timers, streams, threads, processes, network, files), and last an import outside the allowlist.
RULE_RELEVANCE: tuple[str, ...] = (
    "syntax", "dispatch-recursion", "torch-compute", "tensor-method", "host-compute", "foreign-compute",
    "compile", "kernel-body", "raw-storage", "monkey-patch", "exec-eval", "dynamic-import", "dynamic-attr",
    "introspection", "timer", "streams", "threads", "process", "network", "file-io", "forbidden-import",
)

#: At most this many findings are listed in a rejection's message (the console, a reflection prompt),
#: and kept in a job record's ``anti_hack.L1.findings`` (which also counts them all).
MESSAGE_FINDINGS_MAX = 20
RECORD_FINDINGS_MAX = 100


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """``findings`` with the most relevant first: by rule (:data:`RULE_RELEVANCE`), then by position."""
    order = {rule: i for i, rule in enumerate(RULE_RELEVANCE)}
    return sorted(findings, key=lambda f: (order.get(f.rule, len(order)), f.line, f.col, f.message))


def _rule_counts(findings: list[Finding]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in rank_findings(findings):
        counts[f.rule] = counts.get(f.rule, 0) + 1
    return counts


def describe_findings(findings: list[Finding], header: str = "L1 static scan",
                      limit: int = MESSAGE_FINDINGS_MAX) -> str:
    """The message of a rejection: every finding (at most ``limit``), one a line, the most relevant
    first (:func:`rank_findings`), each naming its line and rule. One finding reads ``<header>:
    <finding>``; several read ``<header> (N findings, the most relevant first): <first>`` followed by
    the others, and, past ``limit``, a last line counting the rest by rule."""
    ranked = rank_findings(findings)
    if not ranked:
        return f"{header}: no finding"
    if len(ranked) == 1:
        return f"{header}: {ranked[0].message}"
    shown = ranked[:max(limit, 1)]
    lines = [f"{header} ({len(ranked)} findings, the most relevant first): {shown[0].message}"]
    lines += [f.message for f in shown[1:]]
    rest = ranked[len(shown):]
    if rest:
        counts = ", ".join(f"{rule} x{n}" for rule, n in _rule_counts(rest).items())
        lines.append(f"... and {len(rest)} more ({counts}); the job record keeps up to {RECORD_FINDINGS_MAX}")
    return "\n".join(lines)


def findings_record(findings: list[Finding], limit: int = RECORD_FINDINGS_MAX) -> dict[str, object]:
    """The L1 entry of a job record: ``ok``, ``count`` (all findings), ``rules`` (rule -> count, the most
    relevant first) and ``findings`` (the messages of at most ``limit``, the most relevant first)."""
    ranked = rank_findings(findings)
    return {"ok": not ranked, "count": len(ranked), "rules": _rule_counts(ranked),
            "findings": [f.message for f in ranked[:limit]]}


# --------------------------------------------------------------------------------------------------
# Tables. Each names its source: the brief of this module (DESIGN.md "L1 static scan") unless noted.
# --------------------------------------------------------------------------------------------------

#: ``torch.<name>`` callables that only allocate, build views or read metadata (DESIGN.md: "Allowed:
#: allocation, views, metadata"). Random state (manual_seed) and torch.library are deliberately absent.
TORCH_ALLOWED: frozenset[str] = frozenset(
    {
        # allocation
        "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
        "full", "full_like", "arange",
        # metadata, dtype and device utilities
        "Size", "device", "dtype", "finfo", "iinfo", "promote_types", "result_type", "can_cast",
        "broadcast_shapes", "is_tensor", "is_floating_point", "is_complex", "get_default_dtype",
        "is_grad_enabled", "no_grad", "inference_mode", "is_inference_mode_enabled", "get_device",
        "get_default_device", "numel",
        "view_as_real", "view_as_complex",
        # the function forms of the view methods allowed in TENSOR_METHODS_ALLOWED
        "reshape", "permute", "transpose", "t", "unsqueeze", "squeeze", "flatten", "unflatten",
        "narrow", "select", "as_strided", "unbind", "split", "chunk", "broadcast_to", "broadcast_tensors",
        "atleast_1d", "atleast_2d", "atleast_3d", "movedim",
        "moveaxis", "swapaxes", "swapdims", "tensor_split", "diagonal",
        # device queries
        "cuda.current_device", "cuda.device", "cuda.device_of", "cuda.device_count", "cuda.get_device_properties",
        "cuda.get_device_capability", "cuda.get_device_name", "cuda.is_available",
        "cuda.synchronize", "cuda.current_stream",
    }
)

#: ``torch.<name>`` callables that build a tensor from Python data (issue 11 item 2.2): data movement
#: like ``torch.full`` (a fill value, a shape/stride table), allowed when L1 proves the data argument
#: is a plain Python value (:meth:`_Scanner.host_level` at least :data:`HOST`: a number, string, list,
#: tuple, ...), whatever it holds; anything L1 cannot prove stays ``torch-compute``, since from a tensor
#: they copy or convert it with PyTorch (``torch.tensor(x, dtype=...)``). Tensors a Python list holds
#: are read on the host (like ``.item()``) and how much host-built data a call makes is the dynamic
#: tiers' to judge (L3). ``torch.asarray`` (buffers, DLPack) is not among them.
TORCH_FROM_HOST_DATA: frozenset[str] = frozenset({"tensor", "as_tensor"})

#: The method form, ``x.new_tensor(data)`` (x's dtype and device), judged like ``torch.tensor``.
TENSOR_FROM_HOST_DATA_METHODS: frozenset[str] = frozenset({"new_tensor"})

#: ``torch.<name>`` callables that copy; allowed only when the spec allows copies (``allow_copies``).
TORCH_COPY_ALLOWED: frozenset[str] = frozenset({"clone"})

#: Tensor methods that only allocate, build views or read metadata (brief; DESIGN.md "Allowed").
TENSOR_METHODS_ALLOWED: frozenset[str] = frozenset(
    {
        "size", "stride", "dim", "ndimension", "numel", "nelement", "element_size", "storage_offset",
        "is_contiguous", "is_floating_point", "is_complex", "is_signed", "is_conj", "is_neg",
        "is_inference", "is_pinned", "is_shared", "is_same_size", "is_set_to", "has_names",
        "dim_order", "get_device", "item",
        "view", "view_as", "reshape", "reshape_as", "expand", "expand_as", "broadcast_to", "permute",
        "transpose", "transpose_", "t", "t_", "unsqueeze", "unsqueeze_", "squeeze", "squeeze_",
        "flatten", "unflatten", "narrow", "select", "as_strided", "as_strided_", "unbind", "split",
        "split_with_sizes", "tensor_split", "chunk", "movedim", "moveaxis", "swapaxes", "swapdims",
        "unfold", "diagonal",
        "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full",
        "zero_", "fill_", "resize_", "resize_as_", "detach", "detach_", "requires_grad_",
    }
)

#: Tensor methods that copy; allowed only with ``allow_copies`` (DESIGN.md: ".contiguous() where the
#: spec allows copies").
TENSOR_COPY_METHODS: frozenset[str] = frozenset({"contiguous", "clone", "copy_"})

#: Attribute names that reach a tensor's raw storage (brief; upstream forbids the same, aten.md §4.6).
RAW_STORAGE_ATTRS: frozenset[str] = frozenset(
    {"data_ptr", "storage", "untyped_storage", "_typed_storage", "set_", "_cdata"}
)

#: Names that ``dir(torch.Tensor)`` shares with Python's containers and str, and that are much more
#: likely to be the container method (brief: "an explicit set of harmless names").
PY_METHODS_HARMLESS: frozenset[str] = frozenset(
    {
        "index", "count", "format", "get", "keys", "items", "values", "append", "extend", "pop",
        "insert", "update", "setdefault", "join", "startswith", "endswith", "lower", "upper",
        "strip", "replace", "discard", "remove", "clear", "copy", "reverse",
        # object protocol dunders that do not compute on tensors
        "__init__", "__new__", "__init_subclass__", "__repr__", "__str__", "__format__", "__len__",
        "__iter__", "__hash__", "__sizeof__", "__dir__", "__subclasshook__", "__enter__",
        "__exit__", "__bool__", "__int__", "__float__", "__index__",
    }
)

#: Attribute names that reach the interpreter's internals (brief: "introspection").
INTROSPECTION_ATTRS: frozenset[str] = frozenset(
    {
        "__dict__", "__class__", "__globals__", "__builtins__", "__code__", "__closure__",
        "__subclasses__", "__getattribute__", "__mro__", "__bases__", "__base__", "__defaults__",
        "__kwdefaults__", "__setattr__", "__delattr__", "__self__", "__func__", "__wrapped__",
        "__reduce__", "__reduce_ex__", "__import__", "_getframe", "f_back", "f_globals", "f_locals",
        "f_builtins", "f_code", "tb_frame", "tb_next", "gi_frame", "gi_code", "cr_frame", "ag_frame",
        "co_code",
        # an exception's chain and traceback: what a launch raised is replayed in an L2 ghost replay by
        # class and arguments only, so its innards would tell a replay from a launch
        "__traceback__", "__cause__", "__context__",
        # Triton's runtime state behind a kernel (compiled-kernel caches, the interpreter's rewritten
        # bodies, autotuning results): a ghost replay launches nothing, so this state would tell it
        # from a normal run (L2)
        "device_caches", "rewritten_fn", "configs_timings", "bench_time", "best_config", "used_global_vals",
        "kernel_cache",
        # the interpreter's machinery that turns a kernel's source into the function it runs (red-team:
        # a replaced rewriter ran a host function as the kernel body); also what Triton compiles on GPUs
        "rewriter", "rewrite", "rewrite_ast", "_src", "_unsafe_update_src", "_set_src",
    }
)

#: ``warnings.<name>`` a submission may use: issuing warnings. Catching or filtering them
#: (``catch_warnings(record=True)``) would read back what a launch emitted on the interpreter (NumPy's
#: "invalid value" warnings), which tells a real launch from an L2 ghost replay's no-op.
WARNINGS_ALLOWED: frozenset[str] = frozenset({"warnings.warn"})

#: Methods that poll whether device work has finished or how long it took (streams, events): a
#: timing channel that tells a real launch from an L2 ghost replay's no-op.
COMPLETION_POLLS: frozenset[str] = frozenset({"query", "elapsed_time"})

#: Builtins that run code built at run time or expose namespaces (brief: "exec-eval"); ``open`` is
#: file I/O. ``print`` is harmless and allowed.
EXEC_BUILTINS: dict[str, str] = {
    "exec": "exec-eval", "eval": "exec-eval", "compile": "exec-eval", "__import__": "exec-eval",
    "breakpoint": "exec-eval", "input": "exec-eval", "globals": "exec-eval", "locals": "exec-eval",
    "vars": "exec-eval", "open": "file-io",
}
ATTR_BUILTINS: frozenset[str] = frozenset({"getattr", "setattr", "delattr", "hasattr"})

#: Top-level modules a submission may import (brief), in the order messages and prompts list them.
#: ``cmath`` is ``math`` for complex numbers: aten.md tells submissions to implement the JIT-only scalar
#: overloads (``asin.complex``, ``log10.complex``, ...) with ``math``/``cmath`` semantics, and like
#: ``math`` it computes on Python numbers only (a tensor reaches it through ``__complex__``, a host
#: read the L3 trace counts). ``numbers`` and ``operator`` serve the same scalar code (``operator``'s
#: string-named tools stay ``dynamic-attr``: :data:`STRING_ATTR_TOOLS`).
IMPORT_ORDER: tuple[str, ...] = (
    "torch", "triton", "math", "cmath", "typing", "functools", "itertools", "dataclasses", "enum",
    "numbers", "collections", "__future__", "operator", "warnings",
)
IMPORT_ALLOWED: frozenset[str] = frozenset(IMPORT_ORDER)

#: Dotted module prefixes with a specific rule (brief), checked before IMPORT_ALLOWED, longest first.
IMPORT_RULES: dict[str, str] = {
    # submodules of allowed packages that are not allowed
    "torch._dynamo": "compile", "torch._inductor": "compile", "torch.compiler": "compile",
    "torch.jit": "compile", "torch.export": "compile",
    "torch.utils.cpp_extension": "foreign-compute", "torch.cuda.jiterator": "foreign-compute",
    "torch.ops": "torch-compute", "torch._ops": "torch-compute",
    "torch.library": "monkey-patch",
    "torch.multiprocessing": "process", "torch.distributed": "network", "torch.hub": "network",
    "torch.utils.benchmark": "timer", "torch.profiler": "timer", "torch.autograd.profiler": "timer",
    "triton.testing": "timer",
    # the interpreter's execution state (grid of the last launch): it tells a launch from an L2 no-op
    "triton.runtime.interpreter": "introspection",
    # host-side numeric computation
    **dict.fromkeys(
        ["numpy", "scipy", "jax", "jaxlib", "pandas", "sympy", "sklearn", "numexpr", "mpmath",
         "tensorflow", "numba", "statistics", "decimal", "fractions", "array"],
        "host-compute",
    ),
    # foreign compute
    **dict.fromkeys(
        ["ctypes", "_ctypes", "cffi", "cupy", "cupyx", "vllm", "cuda", "pycuda", "nvidia",
         "cutlass", "tilelang", "tensorrt", "apex", "flash_attn", "xformers", "flashinfer",
         "deep_gemm", "sgl_kernel", "flag_gems", "liger_kernel", "triton_kernels", "cublas"],
        "foreign-compute",
    ),
    # file system and interpreter
    **dict.fromkeys(
        ["os", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "fnmatch", "pickle", "marshal",
         "shelve", "sqlite3", "dbm", "mmap", "fileinput", "zipfile", "tarfile", "gzip", "bz2",
         "lzma", "copyreg", "posix", "nt", "site", "sysconfig"],
        "file-io",
    ),
    **dict.fromkeys(["subprocess", "multiprocessing", "concurrent", "signal", "pty", "resource",
                     "_posixsubprocess"], "process"),
    **dict.fromkeys(["socket", "ssl", "http", "urllib", "urllib3", "requests", "httpx", "aiohttp",
                     "asyncio", "ftplib", "smtplib", "xmlrpc", "selectors", "select"], "network"),
    **dict.fromkeys(["threading", "_thread"], "threads"),
    **dict.fromkeys(["importlib", "imp", "pkgutil", "runpy", "builtins", "__builtin__", "zipimport",
                     "__main__"], "dynamic-import"),
    **dict.fromkeys(["inspect", "gc", "traceback", "types", "weakref", "dis", "code", "codeop",
                     "ast", "tracemalloc", "faulthandler", "copy"], "introspection"),
    **dict.fromkeys(["time", "timeit", "cProfile", "profile"], "timer"),
}

#: ``torch.<prefix>`` paths with a specific rule when called or referenced (brief), longest first.
#: Standard-library tools that read attributes or call methods named by strings
#: (``operator.attrgetter("run.__globals__")``, ``operator.methodcaller("tolist")``): like getattr
#: with a computed name, they hide introspection and compute calls from the scan (red-team finding).
STRING_ATTR_TOOLS: frozenset[str] = frozenset({"operator.attrgetter", "operator.methodcaller"})

TORCH_PATH_RULES: dict[str, str] = {
    "torch.compile": "compile", "torch._dynamo": "compile", "torch._inductor": "compile",
    "torch.compiler": "compile", "torch.jit": "compile", "torch.export": "compile",
    "torch.cuda.Stream": "streams", "torch.cuda.stream": "streams", "torch.cuda.streams": "streams",
    "torch.cuda.StreamContext": "streams", "torch.cuda.ExternalStream": "streams",
    "torch.cuda.set_stream": "streams", "torch.cuda.graph": "streams", "torch.cuda.graphs": "streams",
    "torch.cuda.CUDAGraph": "streams", "torch.cuda.make_graphed_callables": "streams",
    "torch.Stream": "streams", "torch.cuda.Event": "timer", "torch.Event": "timer",
    "torch.utils.benchmark": "timer", "torch.profiler": "timer", "torch.autograd.profiler": "timer",
    "torch.utils.cpp_extension": "foreign-compute", "torch.cuda.jiterator": "foreign-compute",
    "torch.library": "monkey-patch",
    "torch.save": "file-io", "torch.load": "file-io", "torch.from_file": "file-io",
    "torch.serialization": "file-io", "torch.hub": "network", "torch.distributed": "network",
    "torch.multiprocessing": "process",
    "triton.testing": "timer",
    "triton.runtime.interpreter": "introspection",
}

#: Decorators of ``@triton.constexpr_function`` bodies: plain Python that runs wherever the kernel body
#: that calls them is compiled (on the interpreter: inside the body, every launch, and not in a ghost
#: replay), so the kernel-body rule applies to them too (no stores into Python objects, calls only to
#: Triton), with pure builtins and str/int methods (:data:`CONSTEXPR_FN_BUILTINS`,
#: :data:`CONSTEXPR_FN_METHODS`) and ``for`` loops over any value added: the values that reach them are
#: constexprs, which the launch rule limits to Triton values (tuples, numbers, strings, dtypes).
CONSTEXPR_FN_DECORATORS: frozenset[str] = frozenset(
    {"triton.constexpr_function", "triton.runtime.jit.constexpr_function",
     "triton.language.constexpr_function", "triton.language.core.constexpr_function"}
)

#: Decorators whose function bodies Triton compiles (brief), and the constexpr-function ones.
JIT_DECORATORS: frozenset[str] = frozenset(
    {
        "triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit",
        "triton.runtime.autotune", "triton.runtime.heuristics", "triton.runtime.jit.jit",
        "triton.runtime.autotuner.autotune", "triton.runtime.autotuner.heuristics",
    }
) | CONSTEXPR_FN_DECORATORS
CONSTEXPR_FN_BUILTINS: frozenset[str] = frozenset(
    {"abs", "round", "pow", "divmod", "bool", "str", "tuple", "sum", "any", "all", "sorted", "reversed",
     "enumerate", "zip", "min", "max"})
CONSTEXPR_FN_METHODS: frozenset[str] = frozenset(
    {"bit_length", "is_integer", "startswith", "endswith", "upper", "lower", "strip", "split", "join",
     "replace", "format", "count", "index", "removeprefix", "removesuffix"})

_TO_FAMILY = frozenset(
    {"to", "float", "half", "double", "bfloat16", "int", "long", "short", "char", "byte", "bool",
     "cpu", "cuda", "type", "type_as"}
)

#: Other names that reach the replaced op through PyTorch's own decompositions: spec aten.md §4 item 5
#: (contiguous, _to_copy/to, item/_local_scalar_dense, copy_, expand, empty_strided, zero_/fill_), the
#: brief (_softmax -> softmax), and composites that call the op (softmax, matmul -> mm/bmm, stack -> cat,
#: argsort -> sort, zeros/full -> zero_/fill_, index_put -> index_put_ -> _index_put_impl_, ...).
#: Curated, not complete: the L3 dispatch trace sees the rest.
RECURSION_ALIASES: dict[str, frozenset[str]] = {
    "_softmax": frozenset({"softmax"}),
    "_log_softmax": frozenset({"log_softmax"}),
    "_to_copy": _TO_FAMILY,
    "to": _TO_FAMILY,
    "_local_scalar_dense": frozenset({"item"}),
    "copy_": frozenset({"clone", "contiguous"}) | _TO_FAMILY,
    "clone": frozenset({"contiguous"}),
    "expand": frozenset({"expand_as", "broadcast_to"}),
    "view": frozenset({"view_as"}),
    "reshape": frozenset({"reshape_as"}),
    "transpose": frozenset({"t", "swapaxes", "swapdims"}),
    "empty_strided": frozenset({"new_empty_strided"}),
    "zero_": frozenset({"zeros", "zeros_like", "new_zeros"}),
    "fill_": frozenset({"zero_", "zeros", "zeros_like", "new_zeros", "ones", "ones_like", "new_ones",
                        "full", "full_like", "new_full"}),
    "zeros": frozenset({"new_zeros"}),
    "mm": frozenset({"matmul", "linear"}),
    "bmm": frozenset({"matmul"}),
    "cat": frozenset({"stack", "hstack", "vstack", "concat", "concatenate"}),
    "sort": frozenset({"argsort", "msort"}),
    "gather": frozenset({"take_along_dim"}),
    "index_put_": frozenset({"index_put"}),
    "_index_put_impl_": frozenset({"index_put", "index_put_"}),
    "masked_fill_": frozenset({"masked_fill"}),
    "pow": frozenset({"square"}),
    "div": frozenset({"divide", "true_divide"}),
    "div_": frozenset({"divide_", "true_divide_"}),
    "sub": frozenset({"subtract", "rsub"}),
    "mul": frozenset({"multiply"}),
    "neg": frozenset({"negative"}),
    "gt": frozenset({"greater"}),
    "le": frozenset({"less_equal"}),
    "acosh": frozenset({"arccosh"}),
    "asin": frozenset({"arcsin"}),
    "rrelu_with_noise": frozenset({"rrelu"}),
    "affine_grid_generator": frozenset({"affine_grid"}),
}

#: Methods that mutate a container in place (rule kernel-body).
MUTATING_METHODS: frozenset[str] = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "add", "pop", "popitem", "clear",
     "remove", "discard", "__setitem__", "__delitem__", "appendleft", "extendleft", "popleft",
     "sort", "reverse", "move_to_end"}
)

#: Why a store or container mutation in a kernel body is rejected (rule kernel-body).
_JIT_SIDE_EFFECT = ("changes a Python object inside a Triton kernel body; a GPU compile rejects that and only "
                    "the CPU interpreter runs it, where it would carry state out of a launch (a channel that "
                    "tells a launch from an L2 ghost replay's no-op)")

#: Why a call in a kernel body that is not Triton is rejected (rule kernel-body).
_KERNEL_CALL_WHY = ("inside a Triton kernel body; a kernel body may call only Triton (tl.*, triton.language.*, "
                    "libdevice, math functions), @triton.jit functions by their name or as tl.constexpr parameters, "
                    "methods of Triton values "
                    "(x.to(...), x.dtype.is_fp16()) and range/min/max/len/int/float/isinstance/getattr/hasattr/"
                    "print: on the CPU interpreter the body is plain Python, so any other callable runs Python "
                    "code in a normal launch and not in an L2 ghost replay's no-op, a channel that tells the "
                    "two apart")

#: Python builtins a kernel body may call: those Triton's code generator accepts in a kernel
#: (``CodeGenerator.builtin_namespace``) less ``list`` (it drains an iterator handed in). ``print``
#: without ``file=`` and ``min``/``max`` of two or more plain arguments (no ``key=``, no ``*``
#: unpacking) are checked further; other builtins (``next``, ``setattr``, ``iter``, ``sum``) could
#: run or advance Python objects handed to the kernel.
KERNEL_BUILTINS: frozenset[str] = frozenset(
    {"range", "len", "float", "int", "isinstance", "getattr", "hasattr", "print", "min", "max"}
)

#: ``triton.<name>`` helpers outside ``triton.language`` that a kernel body may call (pure integer
#: arithmetic on constexprs).
KERNEL_TRITON_HELPERS: frozenset[str] = frozenset({"triton.cdiv", "triton.next_power_of_2"})

#: Triton functions that call a function they are given (the interpreter calls ``combine_fn.fn(...)``):
#: name -> (keyword, position in the function form; the method form ``x.reduce(axis, fn)`` is one less).
KERNEL_CALLABLE_ARGS: dict[str, tuple[str, int]] = {
    "reduce": ("combine_fn", 2), "associative_scan": ("combine_fn", 2), "map_elementwise": ("scalar_fn", 0),
}

# ---- host values: what L1 proves is plain Python, not a tensor (see "Host values" in the docstring) ----

#: Levels of :meth:`_Scanner.host_level`, each implying the ones below it:
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

#: Builtin classes (attribute stores on them are monkey-patching).
_BUILTIN_TYPES = frozenset(
    {"object", "type", "int", "float", "complex", "bool", "str", "bytes", "list", "dict", "set",
     "frozenset", "tuple", "range", "slice", "super", "property", "staticmethod", "classmethod"}
)

_SNIPPET_MAX = 80


@functools.cache
def _tensor_method_names() -> frozenset[str]:
    """``dir(torch.Tensor)``: the names judged as tensor methods (imported lazily, once)."""
    import torch

    return frozenset(dir(torch.Tensor))


@functools.cache
def _triton_method_names() -> frozenset[str]:
    """Public method and attribute names of Triton's values (``tl.tensor``, dtypes, pointer and block
    types, ``tl.constexpr``, tensor descriptors): the methods a kernel body may call on a value."""
    import triton.language.core as core

    names: set[str] = set()
    for cls_name in ("tensor", "dtype", "pointer_type", "block_type", "constexpr", "tensor_descriptor",
                     "tensor_descriptor_base"):
        cls = getattr(core, cls_name, None)
        if cls is not None:
            names.update(n for n in dir(cls) if not n.startswith("_"))
    return frozenset(names)


def _foreign_module(path: str) -> str | None:
    """The first module on dotted ``path`` (``torch.sys.modules``) that lies outside the allowed
    import roots, or None. Allowed modules re-export others (``torch.sys``, ``torch.os``,
    ``dataclasses.sys``, ``triton.runtime.build.subprocess``); reaching one through an attribute is
    an import by another name."""
    import importlib
    import sys as _sys

    parts = path.split(".")
    root = parts[0]
    if root not in IMPORT_ALLOWED or root == "__future__":
        return None
    obj: object | None = _sys.modules.get(root)
    if obj is None:
        try:
            obj = importlib.import_module(root)
        except ImportError:
            return None
    for part in parts[1:]:
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
        if isinstance(obj, types.ModuleType):
            top = obj.__name__.split(".")[0]
            if top not in IMPORT_ALLOWED:
                return obj.__name__
    return None


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


def _is_function_like(obj: object) -> bool:
    return callable(obj) and not isinstance(obj, (type, types.ModuleType))


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
        self.jit_defs: set[str] = set()  # names bound once, by a def whose decorators are all Triton's


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
# The scanner.
# --------------------------------------------------------------------------------------------------


class _Scanner(ast.NodeVisitor):
    def __init__(self, source: str, own_ops: frozenset[str], allow_copies: bool,
                 allow_methods: frozenset[str] = frozenset()):
        self.source = source
        self.allow_methods = frozenset(allow_methods)
        # split like the tokenizer does (not on \f or \v, which str.splitlines also splits on)
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.allow_copies = allow_copies
        self.own: frozenset[str] = frozenset(own_ops)
        names: set[str] = set()
        for op in own_ops:
            names |= {op, op + "_"} | RECURSION_ALIASES.get(op, frozenset())
        self.own_names = frozenset(names)
        self.own_paths: set[str] = set()
        for op in own_ops:
            for prefix in ("linalg_", "special_", "fft_"):
                if op.startswith(prefix):
                    self.own_paths.add(f"torch.{prefix[:-1]}.{op[len(prefix):]}")
        self.findings: set[Finding] = set()
        self.scopes: list[_Scope] = []
        self.jit_depth = 0
        self.constexpr_fn_depth = 0  # inside a @triton.constexpr_function body
        self.jit_called: set[str] = set()  # names of functions handed to triton.jit(...) and the like
        self.kernel_defs: set[tuple[str, int]] = set()  # (name, line) of the defs scanned as kernel bodies
        self.force_jit: dict[str, set[int]] = {}  # name -> lines: defs to scan as kernel bodies regardless
        self.constexpr_called: set[str] = set()  # ... to triton.constexpr_function(...)
        self.rebound: set[str] = set()  # names declared global or nonlocal anywhere (set by run)
        self.user_attrs: set[str] = set()  # attribute names the submission gives its own objects (run)
        self.handled: set[int] = set()  # ids of nodes already judged by a parent
        self.chain_inner: set[int] = set()  # ids of Attribute/Name nodes inside a judged chain
        self._comp_env: list[dict[str, int]] = []  # host levels of the comprehension targets being judged

    # ---- reporting ----------------------------------------------------------------------------

    def snippet(self, node: ast.AST) -> str:
        """The source of ``node`` on its first line, whitespace-collapsed and shortened."""
        text = None
        line, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if line is not None and 0 < line <= len(self.lines):
            # ast columns are UTF-8 byte offsets
            raw = self.lines[line - 1].encode("utf-8")
            stop = node.end_col_offset if end == line else len(raw)  # type: ignore[attr-defined]
            text = raw[node.col_offset:stop].decode("utf-8", "replace")  # type: ignore[attr-defined]
            if end is not None and end > line:
                text += " ..."
        if not text:
            try:
                text = ast.unparse(node)
            except Exception:  # noqa: BLE001
                text = type(node).__name__
        first, *rest = text.strip().splitlines() or [""]
        text = " ".join(first.split())
        if rest:
            text += " ..."
        if len(text) > _SNIPPET_MAX:
            text = text[: _SNIPPET_MAX - 3] + "..."
        return text

    def report(self, node: ast.AST, rule: str, what: str, code: str | None = None) -> None:
        line = getattr(node, "lineno", 1) or 1
        col = getattr(node, "col_offset", 0) or 0
        code = self.snippet(node) if code is None else code
        message = f"line {line}: {code} {what} (rule {rule})"
        self.findings.add(Finding(line, col, rule, message))

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
            for d in defs:
                if binds.get(d.name) == 1 and d.name not in self.rebound and d.decorator_list and all(
                        self.resolve(dec.func if isinstance(dec, ast.Call) else dec) in JIT_DECORATORS
                        for dec in d.decorator_list):
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
        return None

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
            if node.attr in self.user_attrs:
                return UNKNOWN
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

    # ---- entry ---------------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        for n in ast.walk(tree):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                self.rebound.update(n.names)
        self.user_attrs = _user_attr_names(tree)
        self.scopes.append(self.build_scope(tree))
        # functions made kernels by a call, ``triton.jit(f)`` or ``triton.autotune(...)(f)``, not as a
        # decorator: their bodies are kernel bodies too (red-team: f was scanned as host code)
        stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]  # node, parameters around it
        while stack:
            n, around = stack.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = n.args
                around = around | {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x}
            stack.extend((child, around) for child in ast.iter_child_nodes(n))
            if not isinstance(n, ast.Call):
                continue
            target = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "fn"), None)
            # a parameter (a decorator of the submission's own, ``def kernel(fn): return triton.jit(fn)``)
            # names no function of the file: what it makes a kernel is checked when it runs as one
            if not isinstance(target, ast.Name) or target.id in around:
                continue
            path = self.resolve(n.func.func if isinstance(n.func, ast.Call) else n.func)
            if path in JIT_DECORATORS:
                self.jit_called.add(target.id)
                if path in CONSTEXPR_FN_DECORATORS:
                    self.constexpr_called.add(target.id)
        main_guard_ok = not any(
            isinstance(n, ast.Name) and n.id == "__name__" and isinstance(n.ctx, (ast.Store, ast.Del))
            for n in ast.walk(tree)
        )
        for stmt in tree.body:
            if main_guard_ok and _is_main_guard(stmt):
                for sub in stmt.orelse:  # type: ignore[attr-defined]
                    self.visit(sub)
                continue
            self.visit(stmt)
        self.scopes.pop()

    # ---- scopes in the walk --------------------------------------------------------------------

    def _is_jit(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        if node.name in self.jit_called or _def_lines(node) & self.force_jit.get(node.name, set()):
            return True
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if self.resolve(target) in JIT_DECORATORS:
                return True
        return False

    def _is_constexpr_fn(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
        if isinstance(node, ast.Lambda):
            return False
        return node.name in self.constexpr_called or any(
            self.resolve(dec.func if isinstance(dec, ast.Call) else dec) in CONSTEXPR_FN_DECORATORS
            for dec in node.decorator_list)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        # decorators, defaults and annotations are evaluated in the enclosing scope
        if not isinstance(node, ast.Lambda):
            for dec in node.decorator_list:
                self.visit(dec)
            if node.returns is not None:
                self.visit(node.returns)
        a = node.args
        for default in [*a.defaults, *[d for d in a.kw_defaults if d is not None]]:
            self.visit(default)
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation)
        jit = not isinstance(node, ast.Lambda) and self._is_jit(node)
        if jit:  # where its code object starts: the first decorator's line, else the def's
            self.kernel_defs.update((node.name, line) for line in _def_lines(node))
        scope = self.build_scope(node)
        self.scopes.append(scope)
        self.jit_depth += jit
        cfn = jit and self._is_constexpr_fn(node)
        self.constexpr_fn_depth += cfn
        try:
            if isinstance(node, ast.Lambda):
                self.visit(node.body)
            else:
                for stmt in node.body:
                    self.visit(stmt)
        finally:
            self.jit_depth -= jit
            self.constexpr_fn_depth -= cfn
            self.scopes.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function
    visit_Lambda = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for dec in node.decorator_list:
            self.visit(dec)
        for base in node.bases:
            self.visit(base)
        for kw in node.keywords:
            self.visit(kw.value)
        self.scopes.append(self.build_scope(node))
        try:
            for stmt in node.body:
                self.visit(stmt)
        finally:
            self.scopes.pop()

    # ---- imports -------------------------------------------------------------------------------

    def _check_module(self, node: ast.AST, module: str, code: str | None = None) -> bool:
        """Report the import of dotted ``module`` if a rule forbids it; True when reported."""
        if module.startswith("."):
            self.report(node, "forbidden-import", "is a relative import; a submission is a single file "
                        "and may import only torch, triton and a few standard modules", code)
            return True
        parts = module.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            rule = IMPORT_RULES.get(prefix)
            if rule is not None:
                self.report(node, rule, f"imports {module}: {_IMPORT_WHY[rule]}", code)
                return True
        if parts[0] not in IMPORT_ALLOWED:
            self.report(node, "forbidden-import", f"imports {module}, which is outside the allowed imports "
                        f"({', '.join(IMPORT_ORDER)})", code)
            return True
        return False

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        if self._check_module(node, module):
            return
        for alias in node.names:
            if alias.name == "*":
                self.report(node, "dynamic-import", "imports every name of a module, which hides the "
                            "functions the submission calls; import names explicitly")
                continue
            path = f"{module}.{alias.name}"
            if self._check_module(node, path):
                continue
            # ``from torch.cuda import Stream``: a name with its own rule
            self._check_path(node, path, as_call=False, at_import=True)

    # ---- names and attributes ------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            if id(node) not in self.handled and self.is_builtin(node.id):
                if node.id in EXEC_BUILTINS:
                    rule = EXEC_BUILTINS[node.id]
                    self.report(node, rule, _BUILTIN_WHY[node.id])
                elif node.id in ATTR_BUILTINS:
                    self.report(node, "dynamic-attr", f"uses {node.id} indirectly; attribute access must be "
                                "written out (obj.name) or use a string literal")
                elif node.id == "__builtins__":
                    self.report(node, "introspection", "reaches the interpreter's builtins namespace")
            if id(node) not in self.chain_inner and id(node) not in self.handled:
                path = self.resolve(node)
                if path is not None:
                    self._check_path(node, path, as_call=False)
        else:
            self._check_name_store(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check_attr_name(node, node.value, node.attr)
        if isinstance(node.ctx, ast.Load):
            if id(node) not in self.chain_inner and id(node) not in self.handled:
                path = self.resolve(node)
                if path is not None:
                    self._check_path(node, path, as_call=False)
            if isinstance(node.value, (ast.Attribute, ast.Name)):
                self.chain_inner.add(id(node.value))
        else:
            self._check_store_target(node)
            if isinstance(node.value, (ast.Attribute, ast.Name)):
                self.chain_inner.add(id(node.value))
        self.visit(node.value)

    def _check_attr_name(self, node: ast.AST, receiver: ast.AST, attr: str) -> None:
        if attr in INTROSPECTION_ATTRS:
            self.report(node, "introspection", f"reads {attr}, which reaches the interpreter's internals")
        elif attr in RAW_STORAGE_ATTRS and attr not in self.allow_methods \
                and self.resolve(receiver) in (None, "torch.Tensor"):
            self.report(node, "raw-storage", f"touches .{attr}, a tensor's raw storage; data must be read "
                        "and written by Triton kernels through the tensor")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            self._check_store_target(node)
        self.generic_visit(node)

    # ---- calls ---------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        before = len(self.findings)
        self._judge_call(node)
        if self.jit_depth and len(self.findings) == before:
            self._check_kernel_call(node)  # only where no other rule has judged this call already
        self.generic_visit(node)

    def _judge_call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and self.is_builtin(func.id):
            if func.id in EXEC_BUILTINS:
                self.handled.add(id(func))
                self.report(node, EXEC_BUILTINS[func.id], _BUILTIN_WHY[func.id])
            elif func.id in ATTR_BUILTINS:
                self.handled.add(id(func))
                self._check_attr_builtin(node, func.id)
        path = self.resolve(func)
        if path is not None:
            self._mark_chain(func)
            self._check_path(node, path, as_call=True)
        else:
            method = self._method_of(func)
            if method is not None:
                receiver, name = method
                self._check_method(node, receiver, name)

    # ---- kernel bodies: what a @triton.jit body may call ---------------------------------------

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
                if func.id not in KERNEL_BUILTINS and not (
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
                      or self._is_closure_variable(func.id)):
                self.report(node, "kernel-body", f"calls {func.id}, which is not a @triton.jit function "
                            "defined once in the submission, a tl.constexpr parameter or a variable of an "
                            "enclosing function, " + _KERNEL_CALL_WHY)
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
            elif name in self.user_attrs:
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
        if isinstance(arg, ast.Name) and self._is_jit_def(arg.id):
            return
        target = self.resolve(arg)
        if target is not None and target.startswith("triton.language."):
            return
        self.report(node, "kernel-body", f"hands {self.snippet(arg)} to {name} as the function it calls; it must "
                    "be a @triton.jit function named directly, " + _KERNEL_CALL_WHY)

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

    def _method_of(self, func: ast.AST) -> tuple[ast.AST, str] | None:
        if isinstance(func, ast.Attribute):
            return func.value, func.attr
        return self.getattr_literal(func)

    def _check_attr_builtin(self, node: ast.Call, name: str) -> None:
        args = node.args
        if len(args) < 2 or not (isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)):
            self.report(node, "dynamic-attr", f"calls {name} with an attribute name that is not a string "
                        "literal; the scan (and a reader) cannot tell what it reaches")
            return
        obj, attr = args[0], args[1].value
        if name == "getattr":
            self._check_attr_name(node, obj, attr)
            base = self.resolve(obj)
            if base is not None:
                self.chain_inner.add(id(obj))
                if id(node) not in self.chain_inner and id(node) not in self.handled:
                    self._check_path(node, f"{base}.{attr}", as_call=False)
        elif name in ("setattr", "delattr"):
            self._check_attr_name(node, obj, attr)
            self._check_store_base(node, obj)
        else:  # hasattr
            if attr in INTROSPECTION_ATTRS:
                self._check_attr_name(node, obj, attr)

    def _check_method(self, node: ast.Call, receiver: ast.AST | None, name: str) -> None:
        """Judge ``receiver.name(...)`` by the method's name (receiver None: ``torch.Tensor.name(x)``)."""
        if self.jit_depth:
            return  # judged by the kernel-body rule (_check_kernel_call)
        if receiver is not None and (_is_literal(receiver) or self.host_level(receiver) >= HOST):
            # a plain Python value (``shape = list(x.shape); shape.sort()``, ``s = set(); s.add(v)``):
            # its methods are Python's, whatever their names; not a tensor method, not the replaced op
            return
        if name in INTROSPECTION_ATTRS or name in RAW_STORAGE_ATTRS:
            return  # reported by the attribute check
        if name == "record_stream":
            self.report(node, "streams", "ties a tensor to another CUDA stream; kernels must run on the "
                        "current stream")
            return
        if name in COMPLETION_POLLS:
            self.report(node, "timer", f"calls .{name}(), which polls whether (or how long) device work ran: "
                        "a timing channel; kernels are timed by the harness")
            return
        if name in self.own_names and name not in PY_METHODS_HARMLESS:
            self.report(node, "dispatch-recursion", _recursion_why(name, self.own))
            return
        if name in TENSOR_FROM_HOST_DATA_METHODS:
            data = _data_arg(node, 0 if receiver is not None else 1)
            self._check_from_data(node, data, f".{name}()", "tensor-method")
            return
        if name in TENSOR_METHODS_ALLOWED or name in PY_METHODS_HARMLESS or name in self.allow_methods:
            return
        if name in TENSOR_COPY_METHODS and self.allow_copies:
            return
        if name in _tensor_method_names():
            extra = " (this op's spec allows no copies)" if name in TENSOR_COPY_METHODS else ""
            self.report(node, "tensor-method", f"calls the tensor method .{name}(), which computes with "
                        f"PyTorch{extra}; the result must come from a Triton kernel (only allocation, view "
                        "and metadata methods are allowed)")

    def _check_from_data(self, node: ast.Call, data: ast.AST | None, what: str, rule: str) -> None:
        """``torch.tensor(data)``, ``torch.as_tensor(data)``, ``x.new_tensor(data)``: allowed when ``data``
        is provably a plain Python value (:data:`TORCH_FROM_HOST_DATA`), else a finding of ``rule``."""
        if data is not None and self.host_level(data) >= HOST:
            return
        shown = f"`{self.snippet(data)}`" if data is not None else "arguments"
        self.report(node, rule, f"builds a tensor from {shown}, which L1 cannot prove is Python data (a number, "
                    f"list or tuple) rather than a tensor: {what} of a tensor copies or converts it with PyTorch. "
                    "Build it from Python values (literals, x.shape, x.stride(), int()/float() of a scalar, a list or "
                    "tuple of them) or pass the values to the kernel as arguments")

    # ---- dotted paths of imported objects ------------------------------------------------------

    def _check_path(self, node: ast.AST, path: str, *, as_call: bool, at_import: bool = False) -> None:
        """Judge a call of (``as_call``) or a reference to the imported object at ``path``."""
        foreign = _foreign_module(path)
        if foreign is not None:
            self.report(node, "dynamic-import", f"reaches the module {foreign} through {path}; only torch, "
                        "triton and the allowed standard modules may be used, and not through re-exports")
            return
        root = path.split(".")[0]
        if path in STRING_ATTR_TOOLS:
            self.report(node, "dynamic-attr", f"{path} reaches attributes named by strings, which hides what "
                        "is read or called (use the attribute or method directly)")
            return
        if root == "warnings" and path != "warnings" and path not in WARNINGS_ALLOWED:
            self.report(node, "introspection", f"uses {path}: only warnings.warn is allowed (catching or "
                        "filtering warnings reads back what a kernel launch emitted)")
            return
        if root not in ("torch", "triton"):
            return  # other modules are judged at their import
        for i in range(path.count(".") + 1, 0, -1):
            prefix = ".".join(path.split(".")[:i])
            rule = TORCH_PATH_RULES.get(prefix)
            if rule is not None:
                self.report(node, rule, _PATH_WHY[rule].format(path=path))
                return
        if root == "triton" or at_import:
            return
        parts = path.split(".")
        last = parts[-1]
        # the replaced op itself
        is_ops = len(parts) >= 4 and parts[1] == "ops"
        op_name = parts[3] if is_ops else last
        if self.own and len(parts) >= 2 and (op_name in self.own_names or path in self.own_paths):
            # a call, or a reference to a function (``torch.float`` is a dtype, not a call of .float())
            if as_call or is_ops or _is_function_like(_torch_object(path)):
                self.report(node, "dispatch-recursion", _recursion_why(op_name, self.own))
                return
        if parts[1:2] == ["ops"]:
            self.report(node, "torch-compute", f"calls an operator through {'.'.join(parts[:4])}; the result "
                        "must come from a Triton kernel")
            return
        if len(parts) >= 3 and parts[1] == "Tensor":
            if as_call:
                self._check_method(node, None, parts[2])
            return
        rest = ".".join(parts[1:])
        if rest in TORCH_FROM_HOST_DATA and as_call and isinstance(node, ast.Call):
            self._check_from_data(node, _data_arg(node, 0), path, "torch-compute")
            return
        if rest in TORCH_ALLOWED or (self.allow_copies and rest in TORCH_COPY_ALLOWED) or path in self.allow_methods:
            return
        if not as_call:
            obj = _torch_object(path)
            if obj is None or not _is_function_like(obj):
                return  # a module, class, dtype or constant: reading it is fine
        if rest in ("manual_seed", "seed", "random.manual_seed", "cuda.manual_seed", "cuda.manual_seed_all",
                    "set_rng_state", "cuda.set_rng_state", "random.seed"):
            what = "touches the random state, which is not the kernel's to change"
        else:
            what = "computes with PyTorch"
        verb = "" if as_call else " (referenced as a value)"
        self.report(node, "torch-compute", f"{what}{verb}: {path} is not on the allowlist of allocation, view, "
                    "metadata and device-query functions; the result must come from a Triton kernel")

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
        if not isinstance(base, ast.Name):
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
        # not judge (see "State across calls" in the module docstring)

    def _check_name_store(self, node: ast.Name) -> None:
        if id(node) in self.handled or not self.in_function:
            return
        scope = self.current
        if scope.kind != "function" or node.id not in scope.globals:
            return
        if node.id in self.scopes[0].imported:
            self.report(node, "monkey-patch", f"rebinds the imported name {node.id} through `global`")


def _user_attr_names(tree: ast.AST) -> set[str]:
    """Attribute names the submission gives its own objects: names defined or assigned in class
    bodies, attributes stored (``obj.name = ...``, ``setattr(obj, "name", ...)``) and the string
    arguments of ``namedtuple``/``NamedTuple``/``make_dataclass``/three-argument ``type`` calls
    (field and member names). A method call of one of these names in a kernel body may reach the
    submission's own code, even when Triton has a method of that name (``P.to()`` on a class that
    defines ``to``); and a tensor metadata read of one of them (``o.shape``) may return anything
    (:meth:`_Scanner.host_level` does not trust it)."""
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


def _data_arg(node: ast.Call, pos: int) -> ast.AST | None:
    """The ``data`` argument of a call: positional ``pos`` or keyword ``data``; None when a ``*``
    argument comes first or it is not given."""
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            return None
        if i == pos:
            return arg
    return next((k.value for k in node.keywords if k.arg == "data"), None)


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


def _is_literal(node: ast.AST) -> bool:
    return isinstance(
        node,
        (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
         ast.DictComp, ast.SetComp, ast.GeneratorExp),
    )


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


def _recursion_why(name: str, own: frozenset[str]) -> str:
    ops = ", ".join(sorted(own))
    return (f"calls {name}, which reaches the op this submission replaces ({ops}); under the harness's "
            "registration it dispatches back into the submission (or hands the work to the library)")


_IMPORT_WHY = {
    "compile": "the PyTorch compiler stack generates kernels the submission did not write",
    "foreign-compute": "it computes with non-Triton GPU or native code",
    "torch-compute": "it calls registered operators instead of Triton kernels",
    "monkey-patch": "it registers into or overrides the PyTorch dispatcher",
    "process": "submissions must not spawn processes",
    "network": "submissions must not use the network",
    "timer": "submissions must not time or profile themselves",
    "host-compute": "host-side numeric computation; the result must come from a Triton kernel",
    "file-io": "submissions must not touch files or the interpreter",
    "threads": "submissions must not start threads",
    "dynamic-import": "submissions must not import dynamically",
    "introspection": "submissions must not inspect or rewrite the interpreter",
}

_PATH_WHY = {
    "compile": "uses the PyTorch compiler stack ({path}), which generates kernels the submission did not write",
    "streams": "uses {path}; kernels must run on the current CUDA stream, without extra streams or graphs",
    "timer": "uses {path}; submissions must not time or profile themselves",
    "foreign-compute": "uses {path}, which compiles non-Triton code",
    "monkey-patch": "uses {path}, which registers into or overrides the PyTorch dispatcher",
    "file-io": "uses {path}, which reads or writes files",
    "network": "uses {path}, which reaches the network",
    "process": "uses {path}, which spawns processes",
    "introspection": "uses {path}, Triton's runtime internals; a submission launches kernels and does not "
                     "inspect how they ran",
}

_BUILTIN_WHY = {
    "exec": "runs code built at run time",
    "eval": "runs code built at run time",
    "compile": "compiles code built at run time",
    "__import__": "imports a module dynamically",
    "breakpoint": "enters the debugger",
    "input": "reads from standard input",
    "globals": "reaches the module's namespace dynamically",
    "locals": "reaches a namespace dynamically",
    "vars": "reaches a namespace dynamically",
    "open": "opens a file; submissions must not touch files",
}


def scan_source(
    source: str,
    *,
    filename: str = "<submission>",
    own_ops: frozenset[str] = frozenset(),
    allow_copies: bool = True,
    allow_methods: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Scan the Python ``source`` of one submission and return its findings.

    ``own_ops`` are the bare names of the ops the submission replaces (``{"add"}`` for ``aten::add``,
    ``{"_softmax"}``, ``{"rms_norm"}`` for ``vllm::rms_norm``, empty for cuBLAS); calls that reach
    them are ``dispatch-recursion``. ``allow_copies`` is False when the op's spec forbids copies:
    then ``.contiguous()``, ``.clone()``, ``.copy_()`` and ``torch.clone`` are ``tensor-method`` /
    ``torch-compute`` findings. ``allow_methods`` are tensor methods the op's rule allows beyond
    :data:`TENSOR_METHODS_ALLOWED` (``NothingToCompute.methods``: ``set_`` for views, ``tolist`` for
    scalar reads), and ``torch`` functions named there as ``"torch.<name>"`` (``torch.randint`` for
    random operators, to draw a seed); calling the op itself stays ``dispatch-recursion``. ``filename`` only labels
    syntax errors.

    Returns a list of :class:`Finding` sorted by (line, col, rule); empty means clean. A source that
    does not parse gives a single ``syntax`` finding at the error's position (col 0-based).
    """
    try:
        with _PARSE_LOCK:  # CPython 3.11's parser is not safe across threads (SystemError: AST constructor
            tree = ast.parse(source, filename=filename)  # recursion depth mismatch, seen with 2 job slots)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = max((exc.offset or 1) - 1, 0)
        text = (exc.text or "").strip()
        code = f" {text}" if text else ""
        return [Finding(line, col, "syntax", f"line {line}:{code} does not parse: {exc.msg} in {filename} "
                        "(rule syntax)")]
    except (ValueError, RecursionError, MemoryError) as exc:
        return [Finding(1, 0, "syntax", f"line 1: {filename} does not parse: {exc} (rule syntax)")]
    scanner = _Scanner(source, frozenset(own_ops), allow_copies, frozenset(allow_methods))
    try:
        scanner.run(tree)
    except RecursionError:
        return [Finding(1, 0, "syntax", f"line 1: {filename} is nested too deeply to scan (rule syntax)")]
    findings = [*scanner.findings, *_dispatch_escapes(tree, source)]
    return sorted(findings, key=lambda f: (f.line, f.col, f.rule, f.message))


def _def_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The lines a function's code object may start at (``co_firstlineno``): the def's, or its first
    decorator's."""
    return {node.lineno, min([node.lineno] + [d.lineno for d in node.decorator_list])}


def scan_kernel_body(source: str, name: str, line: int, *, own_ops: frozenset[str] = frozenset(),
                     allow_copies: bool = True, allow_methods: frozenset[str] = frozenset()) -> list[Finding] | None:
    """Findings of the function ``name`` whose code starts at ``line`` of ``source``, scanned as a
    Triton kernel body (kernel-body rule on), for a function the submission turned into a kernel in a
    way the file-level scan does not follow (a decorator of its own that calls ``triton.jit``, a jit
    call in a comprehension, ``triton.jit(C.method)``). Returns None when no such definition exists."""
    try:
        with _PARSE_LOCK:
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == name and line in _def_lines(n)), None)
    if node is None:
        return None
    scanner = _Scanner(source, frozenset(own_ops), allow_copies, frozenset(allow_methods))
    scanner.force_jit = {name: {line}}
    try:
        scanner.run(tree)
    except RecursionError:
        return None
    first, last = min(_def_lines(node)), node.end_lineno or node.lineno
    return sorted((f for f in scanner.findings if first <= f.line <= last),
                  key=lambda f: (f.line, f.col, f.rule, f.message))


def kernel_body_defs(source: str) -> frozenset[tuple[str, int]]:
    """``(name, line)`` of every function definition in ``source`` this scan holds to the kernel-body
    rule (decorated with, or handed by name to, ``triton.jit``/``autotune``/``heuristics``/
    ``constexpr_function``), with ``line`` both the ``def`` line and the first decorator's line (where
    CPython starts the function's code object, ``co_firstlineno``). The sandbox child computes it
    before importing the submission; the launch rule then runs no other function of the submission as
    a kernel body (sandbox/launch_args.py). Empty when the source does not parse."""
    try:
        with _PARSE_LOCK:
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    scanner = _Scanner(source, frozenset(), True, frozenset())
    try:
        scanner.run(tree)
    except RecursionError:
        return frozenset()
    return frozenset(scanner.kernel_defs)


#: Methods that make a class a PyTorch dispatch or function handler.
_HANDLER_METHODS = frozenset({"__torch_dispatch__", "__torch_function__"})


def _dispatch_escapes(tree: ast.AST, source: str) -> list[Finding]:
    """Constructs that run PyTorch code where neither this scan nor the L3 dispatch trace looks
    (found by red-teaming):

    * a ``torch.Tensor`` subclass or a class defining ``__torch_dispatch__``/``__torch_function__``:
      a subclass's handler runs with the sandbox's dispatch mode popped, so what it computes is
      never traced;
    * ``<decorated function>.fn``: the plain Python body behind ``@triton.jit``/``@triton.autotune``;
      kernel bodies are scanned as Triton code (tensor methods there are ``tl`` operations), so
      calling the body as Python would run PyTorch unseen;
    * ``<decorated function>.cache``: an autotuner's table of tuned configurations, filled by
      benchmarking launches that an L2 ghost replay turns into no-ops, so reading it could tell a
      replay from a normal run.
    """
    lines = source.splitlines()

    def code(node: ast.AST) -> str:
        ln = getattr(node, "lineno", 1)
        return lines[ln - 1].strip() if 0 < ln <= len(lines) else ""

    out: list[Finding] = []
    decorated = {n.name for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.decorator_list}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            tensor_base = any(b.split(".")[-1] in ("Tensor", "_TensorBase", "TensorBase") for b in bases)
            handlers = [f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and f.name in _HANDLER_METHODS]
            if tensor_base or handlers:
                what = "subclasses torch.Tensor" if tensor_base else f"defines {handlers[0]}"
                out.append(Finding(node.lineno, node.col_offset, "introspection",
                                   f"line {node.lineno}: {code(node)} {what}: a tensor subclass or dispatch "
                                   "handler runs PyTorch code outside the dispatch trace (rule introspection)"))
        elif isinstance(node, ast.Attribute) and node.attr == "fn" and isinstance(node.value, ast.Name) \
                and node.value.id in decorated:
            out.append(Finding(node.lineno, node.col_offset, "introspection",
                               f"line {node.lineno}: {code(node)} reaches {node.value.id}.fn, the plain Python "
                               "body behind a Triton decorator; kernels must be launched, not called as Python "
                               "(rule introspection)"))
        elif isinstance(node, ast.Attribute) and node.attr == "cache" and isinstance(node.value, ast.Name) \
                and node.value.id in decorated:
            out.append(Finding(node.lineno, node.col_offset, "introspection",
                               f"line {node.lineno}: {code(node)} reads {node.value.id}.cache, Triton's runtime "
                               "state behind a kernel (autotuning results); a submission launches kernels and "
                               "does not inspect them (rule introspection)"))
    return out


def scan_file(
    path: str | os.PathLike,
    *,
    own_ops: frozenset[str] = frozenset(),
    allow_copies: bool = True,
    allow_methods: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Scan the submission file at ``path`` (see :func:`scan_source`).

    The bytes are decoded as Python source (PEP 263 coding cookie, UTF-8 by default); undecodable
    bytes give a single ``syntax`` finding. Raises ``OSError`` if the file cannot be read.
    """
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        source = importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return [Finding(1, 0, "syntax", f"line 1: {os.fspath(path)} cannot be decoded as Python source: {exc} "
                        "(rule syntax)")]
    return scan_source(source, filename=os.fspath(path), own_ops=own_ops, allow_copies=allow_copies,
                       allow_methods=allow_methods)
