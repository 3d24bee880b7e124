"""L1 policy: the rules, their allow/deny tables and the texts that say why (what a maintainer edits).

The scan (:mod:`.scanner`) reads these tables and reports with these texts; the package docstring
(``verify/scan/__init__.py``) says what L1 is and what it leaves to the dynamic tiers.

Rules and their sources
-----------------------
``DESIGN.md`` is ``shared/DESIGN.md`` (bullet "L1 static scan"); ``aten.md`` is ``shared/spec/aten.md``;
"brief" is the task description the L1 scan was written to (the lead's design of L1).

=================== ===============================================================================
rule                source and reach
=================== ===============================================================================
syntax              the file must parse (DESIGN.md failure class "syntax")
dispatch-recursion  aten.md §4 item 5: ``torch.<op>``, ``F.<op>``, ``torch.ops.<ns>.<op>``,
                    ``torch.Tensor.<op>``, ``x.<op>()`` / ``x.<op>_()`` for the op(s) in ``own_ops``,
                    plus the row's ``aliases`` (``Operator.aliases`` in ``suite/spec.py``: ``div`` ->
                    ``divide``, ``_to_copy`` -> ``x.to()``/``.float()``, ``clone`` -> ``.contiguous()``, ...).
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
                    :data:`TENSOR_METHODS_ALLOWED` (copies only with ``allow_copies``) or
                    :data:`TENSOR_CONVERSION_METHODS` (judged at run time by L3), called on
                    anything but a provably plain Python value (issue 12 class 6; "Host values" in :mod:`.scope`)
raw-storage         aten.md §4 item 6 (upstream bans .data_ptr/.storage/.untyped_storage); brief
host-compute        DESIGN.md ("host-side computation (numpy)")
foreign-compute     DESIGN.md ("ctypes/cupy"; "compute with PyTorch/vLLM/cuBLAS instead of Triton")
forbidden-import    brief: imports outside :data:`IMPORT_ALLOWED`
file-io, process,   DESIGN.md ("process spawning, file and network access", "threads")
network, threads
dynamic-import      DESIGN.md ("dynamic ... import tricks"); aten.md §4 item 6 (importlib/__import__)
introspection       DESIGN.md ("introspection (gc, inspect, frames)"); red team 31: private members of the
                    allowed standard modules (``typing._eval_type``), ``__annotations__``, a base class L1
                    cannot name (a call's result, ``*bases``, a name bound to a computed value); Triton
                    outside :data:`TRITON_ALLOWED` (the language, decorators, Config, cdiv, device queries)
exec-eval           DESIGN.md ("exec/eval"); aten.md §4 item 6; red team 31: :data:`TYPING_EVALUATORS`
                    (``typing.get_type_hints`` evaluates string annotations, which are scanned as code)
dynamic-attr        DESIGN.md ("dynamic attribute ... tricks")
monkey-patch        DESIGN.md ("monkey-patching of any module or class"); red team 31: a PyTorch or Triton class
                    as a base class (a subclass runs the class's code with the submission's overrides) other
                    than :data:`SUBCLASSABLE_CLASSES` and exceptions; a ``torch.Tensor`` subclass is
                    ``introspection`` (by what the base is, ``torch.nn.Parameter`` included), as is any
                    binding of ``__torch_dispatch__``/``__torch_function__`` (def, assignment, string)
(module-cache)      removed; see "State across calls" below
kernel-body         red-team findings (L2 ghost-replay channels): on the CPU interpreter a kernel body is
                    plain Python that runs in a normal launch and not in a ghost replay's no-op, so
                    anything it does to Python objects tells the two apart. A kernel body must not
                    store into or mutate Python objects, and every call in it must be Triton:
                    ``tl.*``/``triton.language.*`` (libdevice included), ``triton.cdiv``/
                    ``next_power_of_2``, ``math.*``, a @triton.jit function of the submission named
                    directly (bound once), a tl.constexpr parameter, a closure or module-level variable
                    (its value judged at each launch by the launch rule, below), a builtin Triton
                    compiles (:data:`KERNEL_BUILTINS`), or a
                    method whose name Triton's values have and the submission gives none of its own
                    objects (:func:`.scope._user_attr_names`); ``for`` loops over calls, ``with`` of calls,
                    functions handed to ``tl.reduce``/``associative_scan``/``map_elementwise`` are
                    @triton.jit ones or the names a body may call (a ``tl.constexpr`` combine function).
                    Left open (name-based, like tensor-method): a Python object
                    whose method has a Triton name and mutates it (none among containers besides
                    ``sort``, which is rejected), and iterators drained by unpacking, ``*`` or
                    comprehensions. Code that runs *implicitly* in a kernel body (special methods and
                    properties of an object passed as ``tl.constexpr`` or read as a global: ``if P:``,
                    ``D[0]`` on a defaultdict, ``P.attr``) is not judged here (a class may define any
                    special method or property; host code uses them legitimately): the runtime launch
                    rule (``sandbox/launch_args.py``, failure class ``profile``) lets only Triton
                    values reach a kernel, as arguments or as globals, on every platform
                    Red team 31: attribute reads of ``.handle`` and of ``_``-prefixed names in a kernel body
                    (on the interpreter ``x.handle.data`` is the NumPy array behind a block)
streams             DESIGN.md ("extra streams")
timer               DESIGN.md (timings are checked; "timer tampering" failure class): time, timeit,
                    torch.cuda.Event, triton.testing, profilers
=================== ===============================================================================

Each table below names the rule that uses it. Allowlisted calls (allocation, views, metadata,
device queries) follow DESIGN.md: "Allowed: allocation, views, metadata, ``.contiguous()`` where the
spec allows copies". ``print`` is allowed (upstream forbids it; it cannot compute a result).

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
"""
from __future__ import annotations

import functools
import inspect
import types

from .stdlib_rules import MODULES_JUDGED_AT_USE
from .torch_allowed import TORCH_ALLOWED  # noqa: F401 (re-exported: the scan reads it from policy)

#: Rule id -> one-line description (shown in prompts and reports).
RULES: dict[str, str] = {
    "syntax": "the source does not parse as Python",
    "dispatch-recursion": "calls the op it replaces (torch.<op>, F.<op>, torch.ops.<ns>.<op>, x.<op>()), "
    "which dispatches back into the submission",
    "torch-compute": "computes with a PyTorch function or torch.ops instead of a Triton kernel "
    "(only allocation, view, metadata and device-query functions are allowed, and torch.tensor/torch.as_tensor "
    "of Python numbers, lists and tuples)",
    "compile": "uses torch.compile, torch._dynamo, torch._inductor or torch.jit",
    "tensor-method": "calls a tensor method that computes (x.sum(), x.abs(), x.add_(), ...); only allocation, "
    "view and metadata methods are allowed, and conversions (x.to(), x.float(), ...), whose run-time effect L3 "
    "judges; host reads of whole tensors (x.tolist(), x.numpy()) are findings too, while single scalars may be "
    "read with x.item() (methods of a name bound only to plain Python values, such as "
    "`shape = list(x.shape); shape.sort()`, are Python's and not judged)",
    "raw-storage": "reaches behind a tensor to its storage (data_ptr, storage, untyped_storage, set_)",
    "host-compute": "imports a host-side numeric library (numpy, scipy, jax, ...)",
    "foreign-compute": "uses non-Triton GPU or native code (ctypes, cupy, vllm, cuda-python, C++ extensions, ...)",
    "forbidden-import": "imports a module outside the allowlist (torch, triton, math, cmath, typing, "
    "functools, itertools, dataclasses, enum, numbers, collections, __future__, operator, warnings, os, contextlib, "
    "abc, logging: getLogger and the log calls, packaging: packaging.version)",
    "file-io": "touches files or the interpreter (open, os beyond reading environment variables, sys, io, "
    "pathlib, pickle, ...)",
    "process": "spawns processes or handles signals (subprocess, multiprocessing, concurrent, signal)",
    "network": "opens network connections (socket, http, urllib, requests, asyncio, ...)",
    "threads": "starts threads (threading)",
    "dynamic-import": "imports dynamically or hides names (importlib, builtins, pkgutil, runpy, import *)",
    "introspection": "inspects or rewrites the interpreter (inspect, gc, traceback, types, frames, "
    "__dict__, __class__, __globals__, ...)",
    "exec-eval": "runs code built at run time or reaches the interpreter's namespaces "
    "(exec, eval, compile, __import__, globals, locals, vars, breakpoint, input, typing.get_type_hints; string "
    "annotations are scanned as code)",
    "dynamic-attr": "getattr/setattr/delattr/hasattr with an attribute name that is not a string literal",
    "monkey-patch": "assigns or deletes an attribute of a module, of something reached through one, or of "
    "a class defined elsewhere; rebinds an imported name through `global`; registers into torch.library; subclasses "
    "a PyTorch or Triton class other than torch.nn.Module, torch.autograd.Function and exceptions",
    "kernel-body": "a Triton kernel body calls something other than Triton (tl.*, libdevice, @triton.jit "
    "functions, methods of Triton values, range/min/max/len/int/float/isinstance/getattr/hasattr/print), "
    "changes a Python object or reads an internal of a Triton value (x.handle, _-prefixed names)",
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


# --------------------------------------------------------------------------------------------------
# Tables. Each names its source: the brief of the L1 scan (DESIGN.md "L1 static scan") unless noted.
# --------------------------------------------------------------------------------------------------


#: ``torch.<name>`` callables that build a tensor from Python data (issue 11 item 2.2): data movement
#: like ``torch.full`` (a fill value, a shape/stride table), allowed when L1 proves the data argument
#: is a plain Python value (:meth:`.scope._ScopeAnalysis.host_level` at least :data:`HOST`: a number, string, list,
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
        "flatten", "unflatten", "narrow", "select", "as_strided", "as_strided_", "unbind", "split", "ravel",
        "split_with_sizes", "tensor_split", "chunk", "movedim", "moveaxis", "swapaxes", "swapdims",
        "unfold", "diagonal",
        "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full",
        "zero_", "fill_", "resize_", "resize_as_", "detach", "detach_", "requires_grad_",
    }
)

#: Tensor methods that copy; allowed only with ``allow_copies`` (DESIGN.md: ".contiguous() where the
#: spec allows copies").
TENSOR_COPY_METHODS: frozenset[str] = frozenset({"contiguous", "clone", "copy_"})

#: Tensor methods that convert to a dtype or device, or return the tensor itself when it already has them
#: (``b.to(a.device).to(torch.int32)`` on an int32 tensor of a's device: a defensive idiom of wrappers written
#: for several callers; red team 2026-12-05, tests/good/same_dtype_to). Not judged statically: whether one
#: converts depends on the values a call gets, and a real conversion reaches the run-time trace as
#: ``aten::_to_copy`` (dtype conversion), which L3 fails (``verify/profile.py``), a device copy as a copy.
#: ``x.to()`` stays a finding of rule dispatch-recursion for ``aten::_to_copy`` itself (its aliases).
TENSOR_CONVERSION_METHODS: frozenset[str] = frozenset(
    {"to", "type", "type_as", "float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte",
     "bool", "cpu", "cuda"})

#: Tensor methods that read a whole tensor's data to the host (README "What a submission may do": a wrapper
#: reads single scalars, ``.item()``; a host copy of tensor data is where arithmetic would escape the Triton
#: kernels). Still rule tensor-method findings (the scalar-read operators' rule allows ``.tolist()``), with
#: a text that says what they are: ``{name: what the method does}``.
TENSOR_HOST_READ_METHODS: dict[str, str] = {
    "tolist": "reads every element of the tensor to the host as Python numbers",
    "numpy": "reads the tensor to the host as a NumPy array",
}

#: Attribute names that reach a tensor's raw storage (brief; upstream forbids the same, aten.md §4.6).
RAW_STORAGE_ATTRS: frozenset[str] = frozenset(
    {"data_ptr", "storage", "untyped_storage", "_typed_storage", "set_", "_cdata",
     # the raw device pointer in a dict (red team 30), and the capsule that hands the storage to another library
     "__cuda_array_interface__", "__dlpack__"}
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
        # a coroutine's and an async generator's code object (red team 43: ``coro.cr_code.replace(co_names=...)`` made a
        # function of ``type(f)`` that ran exec of a bytes literal, code L1 never scanned)
        "cr_code", "ag_code",
        # object.__getstate__ (Python 3.11) returns an object's __dict__, a module's globals (red team 43:
        # ``tl.__getstate__()["__builtins__"]["exec"]``, ``math.__getstate__()["__loader__"]``)
        "__getstate__",
        # a Triton kernel's ``get_capture_scope()`` hands out its module's globals (tp39: by a computed name it
        # reached a function no code of the file names, which L1 leaves unscanned)
        "get_capture_scope",
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
        # a function's or class's annotations: what typing.get_type_hints / functools.singledispatch evaluate (red
        # team 31); written at run time they would hold source L1 never scanned; read back they would hand out the
        # classes L1 admits in annotations only (torch._C._DisableTorchDispatch, triton.runtime.Autotuner; fp31)
        "__annotations__",
        # a module's import machinery (red team 42): its loader compiles and runs source L1 never scanned
        # (`source_to_code`, `load_module`), reads and writes files; `math.__loader__` loads any builtin module
        "__loader__", "__spec__",
        # builtins.__build_class__, what a class statement calls: bases and metaclass as values, past the class rules
        "__build_class__",
    }
)

#: Attributes refused on any receiver in a file that imports ``logging``: a filter or handler added to a logger (its
#: own or the harness's or PyTorch's, reached by name through ``getLogger``) runs the submission's code whenever that
#: logger emits, outside the traced calls; ``handlers``/``filters`` are the lists those methods fill, ``manager``
#: reaches every logger of the process. Red team 35: ``findCaller(True, n)`` returns the caller's whole stack as text
#: (the harness's files, functions and lines: a timed call's stack differs from a judged one's), the frame
#: introspection that ``sys._getframe``/``inspect``/``traceback`` are refused for; ``_cache`` is the level cache a key
#: of the submission's would sit in, ``_log`` the private emitter.
LOGGING_CALLBACK_ATTRS: frozenset[str] = frozenset({
    "addFilter", "removeFilter", "addHandler", "removeHandler", "filters", "handlers", "manager",
    "setLoggerClass", "setLogRecordFactory", "makeRecord", "callHandlers", "handle",
    "findCaller", "_cache", "_log",
})

#: Methods that poll whether device work has finished or how long it took (streams, events): a
#: timing channel that tells a real launch from an L2 ghost replay's no-op.
COMPLETION_POLLS: frozenset[str] = frozenset({"query", "elapsed_time"})

#: Builtins that run code built at run time or expose namespaces (brief: "exec-eval"); ``open`` is
#: file I/O. ``print`` is harmless and allowed.
EXEC_BUILTINS: dict[str, str] = {
    "exec": "exec-eval", "eval": "exec-eval", "compile": "exec-eval", "__import__": "exec-eval",
    "breakpoint": "exec-eval", "input": "exec-eval", "globals": "exec-eval", "locals": "exec-eval",
    "vars": "exec-eval", "open": "file-io", "help": "dynamic-import", "license": "file-io",
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
    "numbers", "collections", "__future__", "operator", "warnings", "os", "contextlib", "abc", "logging",
    "packaging",
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
    # (fp35) logging's configuration builds objects named by strings and listens on a socket; its handlers write files
    "logging.config": "dynamic-import", "logging.handlers": "file-io",
    # the interpreter's execution state (grid of the last launch): it tells a launch from an L2 no-op
    "triton.runtime.interpreter": "introspection",
    "triton.knobs": "monkey-patch",
    "triton.runtime.build": "foreign-compute", "triton.runtime.cache": "file-io", "triton.backends": "foreign-compute",
    "torch.overrides": "monkey-patch", "torch.utils._python_dispatch": "monkey-patch",
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
        ["os.path", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "fnmatch", "pickle", "marshal",
         "shelve", "sqlite3", "dbm", "mmap", "fileinput", "zipfile", "tarfile", "gzip", "bz2",
         "lzma", "copyreg", "posix", "nt", "site", "sysconfig"],
        "file-io",
    ),
    **dict.fromkeys(["subprocess", "multiprocessing", "concurrent", "signal", "pty", "resource",
                     "_posixsubprocess"], "process"),
    **dict.fromkeys(["socket", "ssl", "http", "urllib", "urllib3", "requests", "httpx", "aiohttp",
                     "asyncio", "ftplib", "smtplib", "xmlrpc", "selectors", "select"], "network"),
    **dict.fromkeys(["threading", "_thread"], "threads"),
    "importlib.metadata": "file-io",
    **dict.fromkeys(["importlib", "imp", "pkgutil", "runpy", "builtins", "__builtin__", "zipimport",
                     "__main__"], "dynamic-import"),
    **dict.fromkeys(["inspect", "gc", "traceback", "types", "weakref", "dis", "code", "codeop",
                     "ast", "tracemalloc", "faulthandler", "copy"], "introspection"),
    **dict.fromkeys(["time", "timeit", "cProfile", "profile"], "timer"),
}

#: Paths under a forbidden prefix that are allowed: ``torch.library.wrap_triton`` wraps a Triton kernel for
#: torch.compile tracing and registers nothing; called eagerly it launches the kernel it wraps (red team 26).
#: Allowed as ``torch.library.wrap_triton(...)`` and ``from torch.library import wrap_triton``.
TORCH_PATH_ALLOWED: frozenset[str] = frozenset({"torch.library.wrap_triton", "torch.compiler.is_compiling",
                                                "torch.compiler.is_dynamo_compiling",
                                                # (fp37) a decorator that keeps torch.compile from tracing a function:
                                                # eagerly it only calls the function (it compiles nothing)
                                                "torch.compiler.disable",
                                                # (tp42) what torch.compiler.disable calls, written so by
                                                # flash-attention's and vLLM's helpers: judged as it is
                                                # (indirect_rules: the file's own function or class only)
                                                "torch._dynamo.disable",
                                                # (tp43) the older spelling of torch.compiler.is_compiling, a flag,
                                                # and its export twin
                                                "torch._dynamo.is_compiling", "torch.compiler.is_exporting",
                                                # (fp32) TorchScript's read-only flags (``if torch.jit.is_scripting():``
                                                # in wrappers written for several callers), like the compiler's above
                                                "torch.jit.is_scripting", "torch.jit.is_tracing",
                                                # (tp39) seeds of a kernel's dropout: mamba's and flash-attention's
                                                # layer norms draw torch.randint(2**32, (M,)) when dropout_p > 0.
                                                # Executed, L3 counts the draws (aten::random_draw), which only random
                                                # operators may make (their allow_trace, RANDOM_DRAW_BUDGET)
                                                "torch.randint"})

#: ``torch.<prefix>`` paths with a specific rule when called or referenced (brief), longest first.
#: Standard-library tools that read attributes or call methods named by strings
#: (``operator.attrgetter("run.__globals__")``, ``operator.methodcaller("tolist")``): like getattr
#: with a computed name, they hide introspection and compute calls from the scan (red-team finding).
STRING_ATTR_TOOLS: frozenset[str] = frozenset({"operator.attrgetter", "operator.methodcaller"})

#: Triton's runtime classes (TORCH_PATH_RULES refuses them): read as a type only, in an annotation or an
#: isinstance/issubclass check or comparison (``kernel: triton.JITFunction``), they reach nothing and are allowed
#: (fp30: a typed launch helper failed L1); imported by name, called, subclassed or read otherwise they are refused.
TRITON_RUNTIME_CLASSES: frozenset[str] = frozenset({
    "triton.runtime.autotuner.Autotuner", "triton.runtime.Autotuner",
    "triton.runtime.autotuner.Heuristics", "triton.runtime.Heuristics",
    "triton.runtime.jit.JITFunction", "triton.runtime.JITFunction", "triton.JITFunction"})

#: Library classes read as types only, like :data:`TRITON_RUNTIME_CLASSES`, also when imported by name (tp38):
#: Liger-Kernel's norms import ``DTensor`` (in ``try``/``except``) to test ``isinstance(X, DTensor)`` before gathering
#: a tensor-parallel input; no tensor the harness passes is one, and making one (``DTensor.from_local``,
#: ``distribute_tensor``) stays refused with the rest of torch.distributed (rule network).
TYPE_ONLY_CLASSES: frozenset[str] = TRITON_RUNTIME_CLASSES | {"torch.distributed.tensor.DTensor"}

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
    # (fp35) logging's configuration builds objects named by strings and listens on a socket; its handlers write files
    "logging.config": "dynamic-import", "logging.handlers": "file-io",
    "triton.runtime.interpreter": "introspection",
    # Triton's process-wide settings and launch hooks (knobs.runtime.launch_enter_hook.add(f) runs f on every launch,
    # inside Triton's benchmarking and the ghost replay's empty launches: red team 30) and its runtime classes (a
    # submission makes kernels with triton.jit/autotune/heuristics; calling Autotuner._bench itself or building a
    # JITFunction by hand reaches the machinery the harness hooks)
    "triton.knobs": "monkey-patch",
    # Triton's build helpers and caches (red team 31: compile_module_from_src ran the C compiler on the submission's
    # source and imported the extension; _load_module_from_path imports any file; the cache manager writes files)
    "triton.runtime.build": "foreign-compute", "triton.runtime.cache": "file-io", "triton.backends": "foreign-compute",
    # PyTorch's mode stacks: a mode's handler runs on every torch call, the harness's own outside the trace included
    # (red team 30b); the child also refuses any mode left pushed (sandbox/drive.py foreign_modes)
    "torch.overrides": "monkey-patch", "torch.utils._python_dispatch": "monkey-patch",
    **dict.fromkeys(TRITON_RUNTIME_CLASSES, "introspection"),
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

#: Builtin classes (attribute stores on them are monkey-patching).
_BUILTIN_TYPES = frozenset(
    {"object", "type", "int", "float", "complex", "bool", "str", "bytes", "list", "dict", "set",
     "frozenset", "tuple", "range", "slice", "super", "property", "staticmethod", "classmethod"}
)


# --------------------------------------------------------------------------------------------------
# Names read from the installed torch and triton (rules tensor-method, kernel-body, dynamic-import).
# --------------------------------------------------------------------------------------------------


@functools.cache
def _tensor_method_names() -> frozenset[str]:
    """``dir(torch.Tensor)``: the names judged as tensor methods (imported lazily, once), less the ``is_*`` flags that
    are properties (``is_cuda``, ``is_xpu``, ...): called on a tensor they raise (a bool is not callable), so a call
    of one is some other object's method (tp38: a platform object's ``current_platform.is_xpu()`` in vLLM)."""
    import inspect
    import types

    import torch

    flags = {n for n in dir(torch.Tensor) if n.startswith("is_") and isinstance(
        inspect.getattr_static(torch.Tensor, n), (property, types.GetSetDescriptorType, types.MemberDescriptorType))}
    return frozenset(dir(torch.Tensor)) - flags


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


#: PyTorch classes a submission may read as values anywhere (in a tuple of accepted types, a dtype table, a default):
#: calling them builds metadata or wraps a tensor, nothing that computes or turns a check off.
SAFE_TORCH_CLASSES: frozenset[str] = frozenset({
    "torch.Tensor", "torch.dtype", "torch.device", "torch.Size", "torch.Generator", "torch.layout",
    "torch.memory_format", "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.finfo", "torch.iinfo",
    "torch.SymInt", "torch.SymFloat", "torch.SymBool", "torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError",
})


#: Library classes a submission may subclass (red team 31). A class used as a base runs its code with the submission's
#: overrides, so a base is judged like a use of the class, and more strictly: of ``torch``/``triton`` only these (and
#: exception classes) may be bases. Any other (``torch.package.importer._SysImporter``: arbitrary imports;
#: ``torch._C._DisableTorchDispatch`` and the other C guards: the L3 trace off; a TorchDispatchMode from
#: ``torch.autograd.graph``; ``triton.Config``, whose methods Triton calls while it benchmarks) is rule monkey-patch,
#: and a ``torch.Tensor`` subclass (``torch.nn.Parameter``, ``torch.nn.Buffer``, ...) rule introspection.
#: Standard-library bases (``enum.IntEnum``, ``typing.NamedTuple``, ...) are judged by their module's own rules.
SUBCLASSABLE_CLASSES: frozenset[str] = frozenset({"torch.nn.Module", "torch.autograd.Function",
                                                  # (fp32) FlagGems' LibEntry: ``kernel[grid](...)`` syntax for a
                                                  # launcher; the class's code is __getitem__ -> self.run (the
                                                  # subclass's own, scanned) and warmup; the launch rule admits only
                                                  # Triton's own kernel types as kernel values (exact types)
                                                  "triton.runtime.jit.KernelInterface"})

#: ``triton.<path>`` a submission may use outside ``triton.language`` (G, red team 31: ``triton.runtime.build`` compiled
#: and imported C code, ``triton.runtime.cache`` writes files): the decorators, ``triton.Config``, the integer helpers,
#: device queries and the host tensor descriptor. Every other path under ``triton`` is a finding (Triton's runtime,
#: compiler, build, cache and backend internals), except exception classes (caught or raised) and classes in a type
#: check or an annotation. Importing or binding by a plain assignment a module on the way to one of these
#: (``from triton.runtime import driver``) is allowed; its other attributes are judged at their use.
TRITON_ALLOWED: frozenset[str] = frozenset({
    "triton.jit", "triton.autotune", "triton.heuristics", "triton.Config", "triton.cdiv", "triton.next_power_of_2",
    "triton.constexpr_function", "triton.__version__", "triton.runtime.Config", "triton.runtime.autotuner.Config",
    "triton.runtime.driver.active.get_active_torch_device", "triton.runtime.driver.active.get_current_device",
    "triton.runtime.driver.active.get_current_target", "triton.runtime.driver.active.utils.get_device_properties",
    "triton.runtime.driver.active.get_current_stream",
    # the scratch allocator device-side tensor descriptors need (tl.make_tensor_descriptor); Triton calls it inside a
    # launch, where the launch window traces the submission's code (sandbox/window.py); and the dtype view of a
    # tensor handed to a kernel (fp8 storage read as tl.float8e4nv)
    "triton.set_allocator", "triton.reinterpret",
    # (fp32) the base class of launchers (FlagGems' LibEntry), see SUBCLASSABLE_CLASSES
    "triton.KernelInterface", "triton.runtime.KernelInterface", "triton.runtime.jit.KernelInterface",
})
#: ``triton.<prefix>``: everything under these is allowed (the language, libdevice, the host tensor descriptor).
TRITON_ALLOWED_PREFIXES: tuple[str, ...] = ("triton.language", "triton.tools.tensor_descriptor.TensorDescriptor")

#: ``typing`` forms whose subscripts hold values, not type expressions (fp32): the strings of ``Literal["a", "b"]`` and
#: the metadata after ``Annotated``'s first argument are never evaluated, so they are not scanned as code the way
#: string annotations are (``Literal["input"]`` is not a read of ``input``).
ANNOTATION_VALUE_FORMS: frozenset[str] = frozenset({"typing.Literal", "typing.Annotated", "typing_extensions.Literal",
                                                    "typing_extensions.Annotated"})

#: Attributes of Triton values a kernel body may not read (D, red team 31): ``x.handle`` is the backend's value (on the
#: interpreter a NumPy array in ``.handle.data``, whose methods share names with ``tl.tensor``'s: NumPy computed a scan
#: inside a "kernel"); non-public (``_``-prefixed) names are not Triton's language either.
KERNEL_ATTRS_REFUSED: frozenset[str] = frozenset({"handle"})


def library_object(path: str) -> object | None:
    """The object at dotted ``path`` of an allowed module (``torch.nn.Module``, ``triton.Config``), read with
    ``inspect.getattr_static`` from the loaded root without importing anything new; None when not found."""
    import sys as _sys

    parts = path.split(".")
    if parts[0] not in IMPORT_ALLOWED or parts[0] == "__future__":
        return None
    obj: object | None = _sys.modules.get(parts[0])
    if obj is None:
        try:
            obj = __import__(parts[0])
        except ImportError:
            return None
    for part in parts[1:]:
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
    return obj


def triton_path_allowed(path: str) -> bool:
    """Whether ``triton.<...>`` ``path`` is on :data:`TRITON_ALLOWED` (or under :data:`TRITON_ALLOWED_PREFIXES`), or is
    one of the decorators of :data:`JIT_DECORATORS`."""
    return path in TRITON_ALLOWED or path in JIT_DECORATORS or any(
        path == p or path.startswith(p + ".") for p in TRITON_ALLOWED_PREFIXES)


def triton_path_on_the_way(path: str) -> bool:
    """Whether ``path`` is a module or object on the way to an allowed Triton path (``triton.runtime.driver``)."""
    return any(a.startswith(path + ".") for a in (*TRITON_ALLOWED, *JIT_DECORATORS, *TRITON_ALLOWED_PREFIXES))


def is_exception_class(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, BaseException)


def is_module_path(path: str) -> bool:
    """Whether the imported object at dotted ``path`` (``torch``, ``triton.language``, ``torch.serialization``) is a
    module: an attribute of a module (``inspect.getattr_static`` from the root module), the path's own entry in
    ``sys.modules``, or a submodule not loaded yet (``importlib.util.find_spec`` of it: lazily loaded submodules such
    as ``torch.onnx`` are modules at run time too). A root outside :data:`IMPORT_ALLOWED` and an object not found
    give False."""
    import importlib.util
    import sys as _sys

    parts = path.split(".")
    if parts[0] not in IMPORT_ALLOWED | MODULES_JUDGED_AT_USE or parts[0] == "__future__":
        return False
    if isinstance(_sys.modules.get(path), types.ModuleType):
        return True
    obj: object | None = _sys.modules.get(parts[0])
    if obj is None:
        try:
            obj = __import__(parts[0])
        except ImportError:
            return False
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            if not isinstance(obj, types.ModuleType):
                return False
            try:
                return i == len(parts) - 1 and importlib.util.find_spec(".".join(parts[: i + 1])) is not None
            except (ImportError, ValueError, AttributeError):
                return False
    return isinstance(obj, types.ModuleType)


def missing_path(path: str) -> bool:
    """Whether dotted ``path`` names nothing in the installed package (tp43): an attribute another version had, such as
    Triton 2.0's ``tl.libdevice`` module that xformers binds under ``if hasattr(tl, "libdevice")``. Evaluating it raises
    AttributeError, so a binding of it never binds. A module with a ``__getattr__`` of its own, a submodule not loaded
    yet and an attribute of a non-module (a class may compute its attributes) are not missing."""
    import importlib.util
    import sys as _sys

    parts = path.split(".")
    if parts[0] not in IMPORT_ALLOWED or parts[0] == "__future__":
        return False
    try:
        obj: object = _sys.modules.get(parts[0]) or __import__(parts[0])
    except ImportError:
        return False
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            if not isinstance(obj, types.ModuleType) or "__getattr__" in vars(obj):
                return False
            try:
                return importlib.util.find_spec(".".join(parts[: i + 1])) is None
            except (ImportError, ValueError, AttributeError):
                return False
    return False


# --------------------------------------------------------------------------------------------------
# Why: the texts of findings.
# --------------------------------------------------------------------------------------------------


def _recursion_why(name: str, own: frozenset[str]) -> str:
    ops = ", ".join(sorted(own))
    return (f"calls {name}, which reaches the op this submission replaces ({ops}): PyTorch or a library would do the "
            "work instead of the submission's Triton kernels (for an ATen operator, under the harness's registration "
            "the call dispatches back into the submission)")


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

#: Texts for paths whose rule's own text (:data:`_PATH_WHY`) would name the wrong thing, by the prefix matched.
_PATH_WHY_BY_PREFIX = {
    "triton.knobs": "uses {path}, Triton's process-wide settings and launch hooks (a hook would run on every launch, "
                    "Triton's benchmarking and the L2 ghost replay's empty launches included); read TRITON_INTERPRET "
                    "with os.environ.get instead",
    # (fp37) say what is refused and what to write instead: custom_op/triton_op wrapping, version gates
    "torch.library": "uses {path}: an operator registered with the PyTorch dispatcher (torch.library.custom_op, "
                     "triton_op, Library) runs its kernel inside the dispatcher, below the harness's own registration "
                     "and dispatch trace, so a submission may not register one; call the launching function directly "
                     "(torch.library.wrap_triton, which registers nothing, is allowed)",
    # (tp39) FLA's input_guard maps arguments to names with inspect.signature(fn); its autotune keywords test
    # "cache_results" in inspect.signature(triton.autotune).parameters, which passes
    "inspect": "uses {path}: inspect reads frames, sources and any object's internals; only a feature test of a "
               "torch or triton callable passes (\"cache_results\" in inspect.signature(triton.autotune).parameters, "
               "every use of inspect in that form); map a wrapper's arguments by writing its parameters out",
    "importlib.metadata": "uses {path}, which reads the installed packages' metadata files; gate on "
                          "triton.__version__ or torch.__version__ (with packaging.version) instead",
    # (tp38) Liger-Kernel's compare_version("triton", operator.ge, "3.0.0") imports the package by name with
    # importlib.import_module to read its __version__: say what the rule refuses and the gate that passes
    # (tp39) xformers' libdevice_find("rsqrt") tries Triton's libdevice modules with importlib.util.find_spec
    "importlib": "uses {path}, which imports modules by a name computed at run time (any module, past the import "
                 "rules); a submission imports torch and triton by name (a libdevice function from its module: "
                 "from triton.language.extra.libdevice import rsqrt), and a version gate compares "
                 "triton.__version__ or torch.__version__ with packaging.version",
    "sys": "uses {path}, the interpreter's own state (sys.modules, frames, hooks) that submissions must not reach; "
           "gate on torch.__version__/triton.__version__ (with packaging.version) instead of sys.version_info",
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
                     "inspect how they ran (its classes pass as types only: in an isinstance check, or annotating a "
                     "function the file only calls, which singledispatch or Triton never read back)",
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
    "help": "imports any module named by a string (pydoc; red team 42) and reads standard input",
    "license": "reads files and standard input",
}

