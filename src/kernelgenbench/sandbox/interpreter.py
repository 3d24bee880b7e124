"""Patches of the Triton CPU interpreter (``TRITON_INTERPRET=1``), installed by the child on the
interpreter platform only.

* ``@triton.autotune`` picks the first config that survives pruning (the interpreter has no device to
  time with; times are not reported there anyway): Triton's own ``Autotuner._bench`` runs, under the harness's
  hook, as on a GPU, and the driver's benchmarker (:func:`rank_configs`) ranks without running; ``libdevice``
  functions that ``tl.math`` also has run as ``tl.math``'s; builtins a kernel reads under its own global names run
  as ``tl``'s (:func:`_builtin_aliases`); ``torch.cuda.device(cpu)`` is a no-op context
  (:func:`install_interpreter_patches`).
* Bounds checks: every load, store and atomic of an interpreted kernel is checked against the memory of
  its launch's tensor arguments before it happens (:func:`install_interpreter_bounds_checks`); during a
  call given pointer arrays (cuBLAS ``*Batched``) a launch may also reach the storages their addresses
  point into (:func:`pointer_targets`).
* Progress counters the verifier reads while it waits for a case (:func:`install_interpreter_progress`).
* The numbers a GPU computes where Triton 3.6's interpreter computes others (TF32 dots, fp8 conversions, bf16
  arithmetic): ``sandbox/interpreter_numerics.py`` (:func:`~.interpreter_numerics.install_gpu_numerics`).
"""
from __future__ import annotations

import os
import types
from contextlib import contextmanager
from typing import Any

import torch

from .interpreter_numerics import install_gpu_numerics

#: Whether :func:`install_interpreter_patches` ran in this process.
_PATCHED = False


def rank_configs(kernel_call: Any, quantiles: Any = None, **kwargs: Any) -> Any:
    """The interpreter's benchmarker (``driver.active.get_benchmarker()``, which Triton 3.6's ``Autotuner.do_bench``
    returns and caches on the tuner): the "time" of a config is its position in the tuner's configs (0.0 for one an
    early prune made), so the first config that survives pruning wins; ``kernel_call`` is not called (nothing is
    timed here). Until session 40 the interpreter replaced ``Autotuner._bench`` itself with this ranking, so the CPU
    never ran the harness's hook of ``_bench`` nor Triton's own, which caches ``do_bench`` on the tuner: the launch
    rule that refused that cached value as monkey-patching passed every CPU test and refused every autotuned kernel
    on an H100 (gate at aadd375). The tuner and config are read from the closure of Triton's own ``kernel_call``
    (a closure of another file, or other types there, ranks 0.0: none of its objects' code runs)."""
    import triton.runtime.autotuner as autotuner

    rank = 0.0
    code = getattr(kernel_call, "__code__", None)
    if type(kernel_call) is types.FunctionType and code.co_filename == autotuner.__file__:
        cells = dict(zip(code.co_freevars, kernel_call.__closure__ or ()))
        tuner = cells["self"].cell_contents if "self" in cells else None
        config = cells["config"].cell_contents if "config" in cells else None
        if type(tuner) is autotuner.Autotuner and type(config) is autotuner.Config and type(tuner.configs) is list:
            same = [i for i, c in enumerate(tuner.configs) if type(c) is autotuner.Config and c == config]
            rank = float(same[0]) if same else 0.0
    return [rank] * len(quantiles) if quantiles is not None else rank


def install_interpreter_patches() -> None:
    """Make ``@triton.autotune`` usable under ``TRITON_INTERPRET=1`` (idempotent).

    Triton 3.6's autotuner benchmarks every config through the active driver's benchmarker, and the
    interpreter has no device to time with. The interpreter's driver stand-in (:func:`_cpu_device_queries`)
    answers ``get_benchmarker()`` with :func:`rank_configs`, a ranking that prefers the first config surviving
    pruning; everything else of autotuning (Triton's ``_bench`` under the harness's hook, the ``do_bench`` it
    caches on the tuner) runs as on a GPU, and the chosen config then runs normally.
    """
    global _PATCHED
    if _PATCHED:
        return
    _PATCHED = True
    _ranked_benchmarks()
    _map_libdevice_to_tl_math()
    _gdc_no_ops()
    _builtin_aliases()
    _constexpr_reflected_operators()
    _map_elementwise()
    _cuda_device_accepts_cpu()
    _cpu_device_queries()
    install_gpu_numerics()
    install_interpreter_bounds_checks()


def _ranked_benchmarks() -> None:
    """``triton.testing.do_bench`` and ``do_bench_cudagraph`` rank as :func:`rank_configs` does: a tuner made with the
    deprecated ``warmup=``/``rep=``/``use_cuda_graph=`` caches a lambda of Triton's that calls them, and on the
    interpreter they asked the driver for CUDA events and raised; everything before them runs as on a GPU."""
    import triton.testing

    for name in ("do_bench", "do_bench_cudagraph"):
        setattr(triton.testing, name, rank_configs)


#: What :func:`install_interpreter_progress` counts, in this order, as little-endian int64 in the file.
PROGRESS_FIELDS = ("launches", "programs", "scan_steps", "grid")


#: ``"add"``: counts n element steps into the progress file (set by :func:`install_interpreter_progress`)
PROGRESS_STEPS: dict[str, Any] = {}


def install_interpreter_progress(path: str) -> None:
    """Publish the interpreter's progress in a small file the trusted verifier reads while it waits for a
    case (``sandbox/runner.py``): interpreted launches started, programs started (grid points) and steps of
    reductions and scans run element by element with a custom combine function, plus the grid size of the
    latest launch. A case that reaches its timeout while these still advance is slow on the interpreter,
    not stuck: the verifier marks it ``unsupported`` there (``run/job.py``); one stuck inside a program (a
    spin-wait, an endless loop) advances none of them and stays a timeout. Counted in plain Python (a few
    hundred ns per program or combine step); the file is written every 64 updates and at each program."""
    import mmap
    import struct

    from triton.runtime.interpreter import InterpreterBuilder, ReduceScanOpInterface

    if getattr(InterpreterBuilder.set_grid_idx, "_kgb_progress", False):
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    os.ftruncate(fd, 8 * len(PROGRESS_FIELDS))
    mm = mmap.mmap(fd, 8 * len(PROGRESS_FIELDS))
    os.close(fd)
    counts = [0] * len(PROGRESS_FIELDS)

    def publish() -> None:
        struct.pack_into("<4q", mm, 0, *counts)

    orig_dim, orig_idx, orig_tt = (InterpreterBuilder.set_grid_dim, InterpreterBuilder.set_grid_idx,
                                   ReduceScanOpInterface.to_tensor)

    def set_grid_dim(self, nx, ny, nz):
        _orig = orig_dim
        counts[0] += 1
        counts[3] = int(nx) * int(ny) * int(nz)
        publish()
        return _orig(self, nx, ny, nz)

    def set_grid_idx(self, x, y, z):
        _orig = orig_idx
        counts[1] += 1
        publish()
        return _orig(self, x, y, z)

    def to_tensor(self, ret, dtype):
        _orig = orig_tt
        counts[2] += 1
        if counts[2] % 64 == 0:
            publish()
        return _orig(self, ret, dtype)

    def steps(n: int) -> None:  # tl.map_elementwise's calls of its scalar function (_map_elementwise)
        counts[2] += n
        publish()

    PROGRESS_STEPS["add"] = steps
    set_grid_idx._kgb_progress = True  # type: ignore[attr-defined]
    InterpreterBuilder.set_grid_dim = set_grid_dim
    InterpreterBuilder.set_grid_idx = set_grid_idx
    ReduceScanOpInterface.to_tensor = to_tensor
    publish()


class OutOfBoundsAccess(RuntimeError):
    """An interpreted kernel loaded or stored memory outside every tensor argument of its launch (on a GPU:
    an illegal address, or silent corruption of another allocation). Raised before the access happens."""


#: ``(start, end)`` byte ranges of the storages the interpreted launch running now received (its tensor
#: arguments, tuple elements and tensor descriptors' bases), set when Triton copies the arguments to the host
_REGIONS: list[tuple[int, int]] = []
_REGION_KERNEL: list[str] = [""]
#: byte ranges of the storages the pointer arrays of the running candidate call point into (cuBLAS
#: ``*Batched``, suite/spec.py ``bind_pointers``)
_POINTER_TARGETS: list[tuple[int, int]] = []


@contextmanager
def pointer_targets(targets: list[torch.Tensor]):
    """While the block runs (one candidate call given pointer arrays), every launch may also access the whole
    storages of ``targets``, the tensors the call's address tensors point into: the call was handed those
    addresses, and may load them from the given tensor or from its own copy of it, as on a GPU."""
    saved = list(_POINTER_TARGETS)
    for t in targets:
        st = t.untyped_storage()
        _POINTER_TARGETS.append((st.data_ptr(), st.data_ptr() + st.nbytes()))
    try:
        yield
    finally:
        _POINTER_TARGETS[:] = saved


def _storage_regions(args: Any) -> list[tuple[int, int]]:
    """The byte ranges of the storages behind the (host copies of the) launch arguments ``args``."""
    from triton.runtime.interpreter import _unwrap_tensor

    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:  # pragma: no cover - older Triton
        TensorDescriptor = ()  # noqa: N806
    out: list[tuple[int, int]] = []
    stack = list(args)
    while stack:
        a = stack.pop()
        if isinstance(a, tuple):
            stack.extend(a)
        elif TensorDescriptor and isinstance(a, TensorDescriptor):
            stack.append(a.base)
        elif isinstance(a, torch.Tensor) or hasattr(a, "base") and isinstance(a.base, torch.Tensor):
            st = _unwrap_tensor(a).untyped_storage()
            out.append((st.data_ptr(), st.data_ptr() + st.nbytes()))
    return out


def _check_access(ptrs: Any, mask: Any, what: str) -> None:
    """Raise :class:`OutOfBoundsAccess` unless every masked-in element address of ``ptrs`` (a NumPy array of
    addresses of elements of the pointer's dtype) lies, with its whole element, inside one region."""
    import numpy as np

    data = np.asarray(ptrs.data)
    if data.size == 0:
        return
    m = np.broadcast_to(np.asarray(mask.data, dtype=bool), data.shape) if mask is not None else None
    live = data[m] if m is not None else data.reshape(-1)
    if live.size == 0:
        return
    size = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
    lo, hi = int(live.min()), int(live.max()) + size
    if any(start <= lo and hi <= end for start, end in _REGIONS):
        return
    ok = np.zeros(live.shape, dtype=bool)
    for start, end in _REGIONS:
        ok |= (live >= start) & (live + size <= end)
    bad = int((~ok).sum())
    if bad == 0:
        return
    first = int(live[~ok][0])
    near = min(_REGIONS, key=lambda r: min(abs(first - r[0]), abs(first - r[1])), default=None)
    if near is None:
        where = "the first outside every argument's memory"
    elif first >= near[1]:
        past = first - near[1]
        where = ("the first starts right at the end of the nearest argument's memory" if past == 0 else
                 f"the first starts {past} bytes past the end of the nearest argument's memory")
    elif first + size > near[1] and first >= near[0]:
        where = "the first straddles the end of the nearest argument's memory"
    else:
        where = f"the first starts {near[0] - first} bytes before the start of the nearest argument's memory"
    raise OutOfBoundsAccess(f"out-of-bounds memory access: kernel {_REGION_KERNEL[0] or '?'} {what} {bad} element(s) "
                            f"outside every tensor argument of its launch ({where}: its {size}-byte element at "
                            f"offset {first - near[0] if near else '?'} of a {near[1] - near[0] if near else '?'}-"
                            f"byte storage); on a GPU this is an illegal address or a silent write into another "
                            f"allocation")


def install_interpreter_bounds_checks() -> None:
    """Check every load, store and atomic an interpreted kernel makes against the memory of its launch's
    tensor arguments (whole storages, so views may reach the rest of their base tensor) before it happens.

    Triton's interpreter performs loads and stores at raw host addresses: an unmasked access past a
    tensor reads or overwrites the process's heap, which aborts the sandbox later, during another case
    (the record then blamed the wrong case), or silently changes a result. Checked, the access fails in the
    case that makes it, as a device fault would on a GPU (failure class ``cuda_fault``). Masked-off
    elements are not accessed and not checked."""
    from triton.runtime.interpreter import GridExecutor, InterpreterBuilder

    if getattr(InterpreterBuilder.create_masked_store, "_kgb_bounds", False):
        return
    orig_init = GridExecutor._init_args_hst

    def init_args(self, args_dev, kwargs):
        _orig = orig_init
        args_hst, kwargs_hst = _orig(self, args_dev, kwargs)
        _REGIONS[:] = _storage_regions([*args_hst, *kwargs_hst.values()]) + _POINTER_TARGETS
        _REGION_KERNEL[0] = getattr(self.fn, "__name__", "")
        return args_hst, kwargs_hst

    GridExecutor._init_args_hst = init_args

    def checked(name: str, what: str, ptr_at: int, mask_at: int | None) -> None:
        orig = getattr(InterpreterBuilder, name)

        def method(self, *a, **k):
            _orig = orig
            _check_access(a[ptr_at], a[mask_at] if mask_at is not None and mask_at < len(a) else None, what)
            return _orig(self, *a, **k)

        method._kgb_bounds = True  # type: ignore[attr-defined]
        setattr(InterpreterBuilder, name, method)

    checked("create_masked_load", "loads", 0, 1)
    checked("create_masked_store", "stores", 0, 2)
    checked("create_atomic_rmw", "updates atomically", 1, 3)
    checked("create_atomic_cas", "updates atomically", 0, None)


def _map_libdevice_to_tl_math() -> None:
    """Triton 3.6's interpreter implements no ``libdevice`` function (every call fails); the ones
    ``tl.math`` also has (sqrt, exp, log, sin, cos, rsqrt, erf, floor, ceil, fma, ...) are pointed at
    ``tl.math``, which the interpreter runs. Kernels using the others fail on the interpreter with
    class ``platform`` (verify/failures.py), never as the submission's fault."""
    import importlib

    import triton.language as tl

    try:
        cuda = importlib.import_module("triton.language.extra.cuda.libdevice")
    except ImportError:
        cuda = None
    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        for fn in dir(mod):
            if fn.startswith("_") or not callable(getattr(mod, fn)):
                continue
            original = getattr(mod, fn)
            if id(original) in LIBDEVICE_STAND_INS:  # already ours
                continue
            if hasattr(tl.math, fn) and callable(getattr(tl.math, fn)):
                # looked up at call time: the interpreter patches tl.math while a kernel runs
                stand_in = _math_stand_in(fn)
            elif cuda is not None and callable(getattr(cuda, fn, None)) \
                    and not getattr(original, "_kgb_libdevice", False):
                stand_in = _libdevice_stand_in(fn, getattr(cuda, fn))
            else:
                continue
            LIBDEVICE_STAND_INS[id(stand_in)] = (stand_in, original)
            setattr(mod, fn, stand_in)


def gdc_modules() -> list[Any]:
    """The module objects that hold ``gdc_wait``: ``triton.language.extra.cuda.gdc`` and ``triton.language.extra.cuda``,
    which Triton 3.6 loads twice (``triton.language.extra`` executes its backends with ``module_from_spec``, and the
    package attribute ``cuda`` that ``from triton.language.extra import cuda`` reads is another object than
    ``sys.modules``' entry)."""
    import importlib

    out: list[Any] = []
    for name, attr in (("triton.language.extra.cuda.gdc", None), ("triton.language.extra.cuda", None),
                       ("triton.language.extra", "cuda")):
        try:
            mod = importlib.import_module(name)
        except ImportError:  # pragma: no cover - another Triton
            continue
        mod = getattr(mod, attr, None) if attr else mod
        if mod is not None and all(mod is not m for m in out):
            out.append(mod)
    return out


def _gdc_no_ops() -> None:
    """``tl.extra.cuda.gdc_wait()`` / ``gdc_launch_dependents()`` (programmatic dependent launch, Hopper and later)
    wait for the previous grid's writes and let the next grid start early; Triton documents both as safe where PDL
    is off. The interpreter runs each launch to completion before the next, so both are no-ops there; they were
    builtins of a module the interpreter does not patch and raised ValueError ("Did you forget to add @triton.jit?"),
    ``runtime_error`` (false-rejection hunt 36). Registered like the libdevice stand-ins, so the GPU compile check
    compiles Triton's own functions (gpu_compile.py restores the modules and maps a name bound at import)."""
    stand_ins: dict[str, Any] = {}
    for mod in gdc_modules():
        for fn in ("gdc_wait", "gdc_launch_dependents"):
            original = getattr(mod, fn, None)
            if original is None or id(original) in LIBDEVICE_STAND_INS:
                continue
            if fn not in stand_ins:
                def stand_in(*args: Any, **kwargs: Any) -> None:
                    return None

                stand_in.__name__ = fn
                stand_ins[fn] = stand_in
                LIBDEVICE_STAND_INS[id(stand_in)] = (stand_in, original)
            setattr(mod, fn, stand_ins[fn])


#: id(stand-in) -> (the stand-in, Triton's own libdevice function it replaces), filled by
#: :func:`_map_libdevice_to_tl_math`. A submission that binds a libdevice function by name at import (Liger-Kernel's
#: ``from triton.language.extra.libdevice import rsqrt``, an alias ``_rsqrt = libdevice.rsqrt``) holds the stand-in in
#: its own globals; the GPU compile check (sandbox/gpu_compile.py ``mirror``) compiles Triton's function in its place,
#: as a GPU does (false-rejection hunt 35: "Cannot access global variable rsqrt from within @jit'ed function").
#: Only the harness adds to it: a submission's own function is never taken for a libdevice one.
LIBDEVICE_STAND_INS: dict[int, tuple[Any, Any]] = {}


def libdevice_original(obj: Any) -> Any:
    """Triton's libdevice function that the harness's stand-in ``obj`` replaces, else None (judged by identity)."""
    hit = LIBDEVICE_STAND_INS.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


#: libdevice functions whose result is exact (IEEE rounding to an integral value), computed with NumPy on the
#: interpreter for fp32 and fp64 operands, the types libdevice defines them for (false-rejection hunt 31: int8 and
#: fp8 quantization kernels round with ``libdevice.rint``): name -> NumPy function of the array.
def _np_round_half_away(x: Any) -> Any:
    import numpy as np

    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x).astype(x.dtype), t).astype(x.dtype)


def _exact_libdevice() -> dict[str, Any]:
    import numpy as np

    return {"rint": np.rint, "nearbyint": np.rint, "trunc": np.trunc, "round": _np_round_half_away}


def _libdevice_stand_in(fn: str, extern: Any) -> Any:
    """The interpreter's stand-in for libdevice function ``fn`` that ``tl.math`` lacks. Triton 3.6's interpreter
    runs none: ``triton.language.extra.libdevice``'s placeholders return None, so the kernel failed later, on
    whatever line first used the None (``runtime_error``, the submission's fault; hunt 31). The exact ones
    (:func:`_exact_libdevice`) compute with NumPy on fp32/fp64 tensors; every other call goes to the CUDA
    libdevice function with the interpreter's semantic, which raises Triton's own "extern_elementwise not supported
    in interpreter mode" (NotImplementedError inside the interpreter: an interpreter limit, ``unsupported``)."""
    exact = _exact_libdevice().get(fn)

    def stand_in(*args: Any, **kwargs: Any) -> Any:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter as interp

        if exact is not None and len(args) == 1 and not kwargs.keys() - {"_semantic"}:
            x = args[0]
            h = getattr(x, "handle", None)
            if type(x) is tl.tensor and type(h) is interp.TensorHandle and h.dtype.scalar in (tl.float32, tl.float64):
                data = np.asarray(exact(h.data)).astype(h.data.dtype)
                return tl.tensor(interp.TensorHandle(data, h.dtype.scalar), x.type)
        kwargs["_semantic"] = interp.interpreter_semantic
        return extern(*args, **kwargs)

    stand_in._kgb_libdevice = True  # type: ignore[attr-defined]
    return stand_in


#: ``"call"``: sandbox/launch.py's ``device_map`` once its launch hooks are installed (registered there, so that this
#: module does not import launch's).
DEVICE_MAP: dict[str, Any] = {}


def _map_elementwise() -> None:
    """``tl.map_elementwise(scalar_fn, *tensors)`` (Triton 3.5+: a scalar jit function with per-element control flow,
    such as early returns) builds an MLIR region, which Triton 3.6's interpreter cannot (AttributeError:
    'InterpreterBuilder' object has no attribute 'new_block', raised inside Triton and charged to the kernel as
    ``runtime_error``; false-rejection hunt 36). On the interpreter the operands are broadcast by Triton's semantic and
    ``scalar_fn`` runs once per element on 0-d values, as the GPU's region does; its results take the types its
    first element's call returned; each 64 calls count as progress (a large case is slow, not stuck:
    ``unsupported`` at its timeout, as a long custom-combine scan is). ``pack`` other than 1, a scalar function that
    is not a jit function and every compiled (GPU) call go to Triton's own function (which raises on the
    interpreter, as before)."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp

    orig = tl.core.map_elementwise
    if getattr(orig, "_kgb_map", False):
        return

    @tl.core.builtin
    def map_elementwise(scalar_fn, *args, pack=1, _semantic=None, _generator=None):
        if pack != 1 or not isinstance(getattr(_semantic, "builder", None), interp.InterpreterBuilder) \
                or not isinstance(scalar_fn, interp.InterpretedFunction):  # only a jit function runs per element
            return orig(scalar_fn, *args, pack=pack, _semantic=_semantic, _generator=_generator)
        inputs = _semantic.broadcast_tensors(*args)
        shape = np.shape(inputs[0].handle.data)
        positions = list(np.ndindex(*shape))
        arg_lists = [[tl.tensor(interp.TensorHandle(np.asarray(t.handle.data[pos]), t.dtype), t.dtype) for t in inputs]
                     for pos in positions]
        many = DEVICE_MAP.get("call")  # the launch hooks' (sandbox/launch.py), else one device call per element
        all_res: list[Any] = []
        for i in range(0, len(arg_lists), 64):  # 64 elements a step of progress: a slow case, not a stuck one
            chunk = arg_lists[i:i + 64]
            all_res += many(scalar_fn, chunk) if many is not None else [scalar_fn(*a) for a in chunk]
            if "add" in PROGRESS_STEPS:
                PROGRESS_STEPS["add"](len(chunk))
        outs, types, single = None, None, True
        for pos, res in zip(positions, all_res):
            single = not isinstance(res, tuple)
            res = [_semantic.to_tensor(r) if not isinstance(r, tl.tensor) else r for r in ((res,) if single else res)]
            if outs is None:
                types = [r.dtype for r in res]
                outs = [np.empty(shape, dtype=interp._get_np_dtype(t)) for t in types]
            for out, r, t in zip(outs, res, types):
                out[pos] = np.asarray(_semantic.cast(r, t).handle.data)
        block = inputs[0].type
        results = tuple(tl.tensor(interp.TensorHandle(o, t), block.with_element_ty(t) if block.is_block() else t)
                        for o, t in zip(outs, types))
        return results[0] if single else results

    map_elementwise._kgb_map = True  # type: ignore[attr-defined]
    tl.core.map_elementwise = map_elementwise
    tl.map_elementwise = map_elementwise


class LoopIndex(int):
    """A loop index of a kernel body on the interpreter (``for i in range(...)``, ``tl.range(...)``): the Python int
    Triton's interpreter iterates, with the methods of the ``tl.tensor`` a GPU's induction variable is. On a GPU the
    index of a ``range``/``tl.range`` loop is an int32 (int64 where a bound is) tensor, and persistent kernels widen
    it (``tile.to(tl.int64) * BLOCK``); on the interpreter it was an int, which has no ``.to`` ("'int' object has no
    attribute 'to'", runtime_error, false-rejection hunt 35). Arithmetic on it gives plain ints, as before; ``.to``
    and ``.dtype`` go through the tensor Triton's semantic makes of the int (int32, or int64 beyond int32's range).
    ``tl.static_range`` keeps plain ints (its index is a constexpr on a GPU)."""

    __slots__ = ()

    def _tensor(self) -> Any:
        from triton.runtime import interpreter as interp

        return interp.interpreter_semantic.to_tensor(int(self))

    def to(self, dtype: Any, fp_downcast_rounding: Any = None, bitcast: bool = False) -> Any:
        return self._tensor().to(dtype, fp_downcast_rounding=fp_downcast_rounding, bitcast=bitcast)

    @property
    def dtype(self) -> Any:
        return self._tensor().dtype


def _indexed_range(inner: Any) -> Any:
    def indexed(*args: Any, **kwargs: Any) -> Any:
        return (LoopIndex(i) for i in inner(*args, **kwargs))

    indexed._kgb_indexed = True  # type: ignore[attr-defined]
    return indexed


_INDEXED_BUILTIN_RANGE = _indexed_range(range)
_MISSING_GLOBAL = object()


def _constexpr_reflected_operators() -> None:
    """``1 << LOG2_BLOCK``, ``0xFF & MASK``, ``7 % C``: a Python number on the left of a ``tl.constexpr`` (a constexpr
    parameter or global). Triton 3.6's ``constexpr`` has no ``__rlshift__``, ``__rrshift__``, ``__rand__``, ``__ror__``,
    ``__rxor__`` or ``__rmod__``; a GPU never needs them (its code generator makes the literal a constexpr first), but
    the interpreter runs the body as Python, so such a kernel raised TypeError ("unsupported operand type(s) for <<:
    'int' and 'constexpr'") and failed as ``runtime_error`` (false-rejection hunt 36). Each is added as the forward
    operator with its operands swapped, a constexpr result as on a GPU."""
    import operator

    import triton.language as tl

    for name, op in (("mod", operator.mod), ("lshift", operator.lshift), ("rshift", operator.rshift),
                     ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)):
        if f"__r{name}__" in vars(tl.constexpr):
            continue

        reflected = _reflected(op, tl)  # op closed over, not a keyword default a caller could replace (rt39b)
        reflected.__name__ = f"__r{name}__"
        setattr(tl.constexpr, reflected.__name__, reflected)


def _reflected(op: Any, tl: Any) -> Any:
    def reflected(self, other):
        return tl.constexpr(op(tl.core._unwrap_if_constexpr(other), self.value))

    return reflected


def _math_stand_in(fn: str) -> Any:
    """libdevice's ``fn`` as ``tl.math.fn``, looked up at call time (the interpreter patches tl.math while a kernel
    runs); the name is closed over, not a keyword default a kernel could replace (rt39b)."""
    import triton.language as tl

    def stand_in(*a: Any, **k: Any) -> Any:
        return getattr(tl.math, fn)(*a, **k)

    return stand_in


def _builtin_aliases() -> None:
    """A kernel's globals that are Triton builtins under the submission's own names (Unsloth's ``triton_cast =
    tl.cast``, ``from triton.language import cast as _cast``, ``_exp = tl.math.exp``) run with the interpreter's
    semantic, as ``tl.cast`` itself does. Triton 3.6's interpreter patches builtins only as attributes of the
    ``triton.language`` modules (``_patch_lang``), so an alias raised "Did you forget to add @triton.jit?" and the
    submission failed as ``runtime_error`` (false-rejection hunt 32), while a GPU compiles it (the code generator
    admits builtins as globals); a kernel whose module holds only names imported from ``triton.language`` failed
    Triton's assertion "triton.language must be visible from within jit'd function" the same way. Found by type
    and the function's own ``__dict__`` (no code of the submission runs); the globals are put back when the
    launch's patches are."""
    import types

    from triton.runtime import interpreter as interp

    orig = interp._patch_lang
    if getattr(orig, "_kgb_aliases", False):
        return

    import triton.language as tl

    def _patch_lang(fn: Any) -> Any:
        g = getattr(fn, "__globals__", None)
        if type(g) is not dict:
            return orig(fn)
        if not any(type(v) is types.ModuleType and (v is tl or v is tl.core) for v in g.values()):
            # only names imported from triton.language (``from triton.language import load, store``): Triton's
            # patch asserts "triton.language must be visible"; the language is patched all the same (its tensor
            # methods, ``x.to(...)``, included) and the names below
            scope = orig(types.SimpleNamespace(__globals__={"tl": tl}))
        else:
            scope = orig(fn)
        changes: list[tuple[str, Any, Any]] = []
        # loop indices of ``range``/``tl.range`` carry the tensor methods a GPU's induction variable has (LoopIndex)
        for lang in (tl, tl.core):
            cur = vars(lang).get("range")
            if cur is not None and not isinstance(cur, type) and not getattr(cur, "_kgb_indexed", False):
                scope.set_attr(lang, "range", _indexed_range(cur))
        if "range" not in g:
            g["range"] = _INDEXED_BUILTIN_RANGE
            changes.append(("range", _MISSING_GLOBAL, _INDEXED_BUILTIN_RANGE))
        for name, val in list(g.items()):
            if type(val) is types.FunctionType and val.__dict__.get("__triton_builtin__") is True \
                    and str(val.__module__).startswith("triton.language"):
                def call(*args: Any, _member: Any = val, **kwargs: Any) -> Any:
                    kwargs.pop("_semantic", None)
                    return _member(*args, _semantic=interp.interpreter_semantic, **kwargs)
                g[name] = call
                changes.append((name, val, call))
        if changes:
            restore = scope.restore

            def restore_all() -> None:
                for name, val, call in changes:
                    if g.get(name) is call:
                        if val is _MISSING_GLOBAL:
                            del g[name]
                        else:
                            g[name] = val
                restore()

            scope.restore = restore_all
        return scope

    _patch_lang._kgb_aliases = True  # type: ignore[attr-defined]
    interp._patch_lang = _patch_lang


def _cpu_device_queries() -> None:
    """Triton's tutorials (and code modelled on them) ask the active driver for the device at import:
    ``DEVICE = triton.runtime.driver.active.get_active_torch_device()``, or ``get_current_target().backend`` to tell
    CUDA from HIP. The CPU interpreter has no driver, so that raised "0 active drivers" and the submission failed as
    ``import_error`` (red team 26, rms_tutorial_device). Here the active driver is a stand-in that answers those
    device queries for the CPU (``cpu``, device 0, stream 0) and the target an sm_90 GPU reports (backend ``"cuda"``,
    arch 90, the GPU the device properties below describe); anything else it is asked goes to Triton's own driver
    lookup, which raises as before (inside Triton: an interpreter limit, verify/failures.py)."""
    import sys

    import triton.runtime.driver  # noqa: F401  (loads the module into sys.modules)
    from triton.backends.compiler import GPUTarget

    driver_mod = sys.modules["triton.runtime.driver"]  # the module: triton.runtime.driver is its DriverConfig
    config = driver_mod.driver
    if getattr(config._active, "_kgb_cpu", False):
        return

    class CPUDeviceUtils:
        """``driver.active.utils``: the device properties an sm_90 GPU reports (Triton's fused-softmax tutorial sizes
        its persistent grid from them at import); every other utility goes to Triton's own driver lookup."""

        def get_device_properties(self, device=None):
            return dict(SM90_DRIVER_PROPERTIES)

        def __getattr__(self, name):
            return getattr(driver_mod._create_driver().utils, name)

    class CPUDeviceQueries:
        _kgb_cpu = True
        utils = CPUDeviceUtils()

        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0  # the handle torch.cuda.current_stream().cuda_stream answers here (CPUStandInStream); fp37

        def get_benchmarker(self):
            return rank_configs  # one function: the value Autotuner.do_bench caches is the property's own

        def get_current_target(self):
            # the sm_90 GPU the device properties describe and the compile check compiles for (tp38: Triton's matmul
            # tutorial picks its autotune configs with get_current_target().backend == "cuda"; "cpu" here sent it to
            # the HIP configs, whose waves_per_eu no NVIDIA launch accepts, and Triton's own target_info.is_cuda()
            # folded differently here than in the sm_90 compile)
            return GPUTarget("cuda", 90, 32)

        def __getattr__(self, name):
            return getattr(driver_mod._create_driver(), name)

    config.set_active(CPUDeviceQueries())


#: What the CPU interpreter answers for device property queries (false-rejection hunt 35): an H100 SXM's figures, the
#: sm_90 target the interpreter also compiles every launched kernel for (sandbox/gpu_compile.py). Triton's driver
#: (``driver.active.utils.get_device_properties(i)``) reports these keys; code modelled on Triton's tutorials reads them
#: at import to size a persistent grid (``multiprocessor_count``) or an occupancy (registers, shared memory).
SM90_DRIVER_PROPERTIES: dict[str, int] = {
    "max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132, "warpSize": 32,
    "sm_clock_rate": 1980000, "mem_clock_rate": 2619000, "mem_bus_width": 5120,
}


class CPUStandInDeviceProperties:
    """What ``torch.cuda.get_device_properties`` answers on the CPU interpreter for a CPU device (or where PyTorch has
    no CUDA): the attributes of PyTorch's ``_CudaDeviceProperties`` that wrappers read, with an sm_90 GPU's figures
    (:data:`SM90_DRIVER_PROPERTIES`). Plain data: ints and strings."""

    name = "kgb interpreter (sm_90 stand-in)"
    major, minor = 9, 0
    multi_processor_count = SM90_DRIVER_PROPERTIES["multiprocessor_count"]
    total_memory = 80 * 1024 ** 3
    L2_cache_size = 50 * 1024 ** 2
    warp_size = 32
    max_threads_per_multi_processor = 2048
    regs_per_multiprocessor = 65536
    shared_memory_per_block = 49152
    shared_memory_per_block_optin = SM90_DRIVER_PROPERTIES["max_shared_mem"]
    shared_memory_per_multiprocessor = 233472
    is_integrated = 0
    is_multi_gpu_board = 0
    gcnArchName = "NVIDIA"

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"multi_processor_count={self.multi_processor_count})")


def _cpu_query(dev: Any) -> bool:
    """A device property query on the interpreter that PyTorch cannot answer: a CPU device, or any device (None, an
    index) where this PyTorch has no CUDA."""
    if isinstance(dev, torch.device) and dev.type == "cpu" or dev == "cpu":
        return True
    return not torch.cuda.is_available()


def _cuda_device_accepts_cpu() -> None:
    """``with torch.cuda.device(x.device):`` is a common launch idiom; on the interpreter x is a CPU
    tensor, so a CPU device (or index) makes the context a no-op instead of an error. The device property queries
    (``torch.cuda.get_device_properties(x.device).multi_processor_count``, ``get_device_capability()``,
    ``get_device_name()``) answer for a CPU device, or wherever PyTorch has no CUDA, with an sm_90 GPU's figures
    (:class:`CPUStandInDeviceProperties`): on a GPU they are the wrapper's metadata reads, and on the interpreter they
    raised at import ("Torch not compiled with CUDA enabled", false-rejection hunt 35)."""
    import contextlib
    import functools

    orig = torch.cuda.device

    class device(orig):  # type: ignore[misc, valid-type]
        def __new__(cls, dev):  # noqa: D401 - a context manager factory
            # ``torch.cuda.device(x.device.index)`` (mamba's and flash-attention's launchers, tp39): a CPU tensor's
            # index is None, and PyTorch documents None and a negative index as a no-op, which PyTorch without CUDA
            # broke (``None < 0`` in _exchange_device)
            if isinstance(dev, torch.device) and dev.type == "cpu" or dev == "cpu" or dev is None \
                    or type(dev) is int and dev < 0:
                return contextlib.nullcontext()
            return orig(dev)

    torch.cuda.device = device  # type: ignore[misc]
    if getattr(torch.cuda.get_device_properties, "_kgb_cpu", False):
        return
    props, capability, dev_name = (torch.cuda.get_device_properties, torch.cuda.get_device_capability,
                                   torch.cuda.get_device_name)

    @functools.wraps(props)
    def get_device_properties(device=None):
        return CPUStandInDeviceProperties() if _cpu_query(device) else props(device)

    @functools.wraps(capability)
    def get_device_capability(device=None):
        return (9, 0) if _cpu_query(device) else capability(device)

    @functools.wraps(dev_name)
    def get_device_name(device=None):
        return CPUStandInDeviceProperties.name if _cpu_query(device) else dev_name(device)

    for fn in (get_device_properties, get_device_capability, get_device_name):
        fn._kgb_cpu = True  # type: ignore[attr-defined]
    torch.cuda.get_device_properties = get_device_properties  # type: ignore[assignment]
    torch.cuda.get_device_capability = get_device_capability  # type: ignore[assignment]
    torch.cuda.get_device_name = get_device_name  # type: ignore[assignment]
    _cuda_runtime_calls_accept_cpu()


class CPUStandInStream:
    """``torch.cuda.current_stream()`` on the interpreter: the CPU runs each launch to completion, so the stream has
    nothing to wait for (``synchronize``, ``wait_stream`` return at once) and its handle is 0."""
    cuda_stream = 0
    device = torch.device("cpu")

    def synchronize(self) -> None:
        return None

    def wait_stream(self, stream: Any) -> None:
        return None


def _cuda_runtime_calls_accept_cpu() -> None:
    """The CUDA runtime calls L1 admits in a wrapper (``torch.cuda.synchronize()`` after a launch,
    ``torch.cuda.current_stream()``, ``current_device()``, ``set_device(x.device)``, ``is_current_stream_capturing()``)
    raised "Torch not compiled with CUDA enabled" on the interpreter, so an honest wrapper written for a GPU failed as
    ``runtime_error`` (false-rejection hunt 36). For a CPU device, or wherever PyTorch has no CUDA, they answer as a
    GPU with nothing in flight would: no wait, :class:`CPUStandInStream`, device 0, no switch, not capturing."""
    import functools

    if getattr(torch.cuda.synchronize, "_kgb_cpu", False):
        return
    sync, stream, cur, set_dev, capturing = (torch.cuda.synchronize, torch.cuda.current_stream,
                                             torch.cuda.current_device, torch.cuda.set_device,
                                             torch.cuda.is_current_stream_capturing)

    @functools.wraps(sync)
    def synchronize(device=None):
        return None if _cpu_query(device) else sync(device)

    @functools.wraps(stream)
    def current_stream(device=None):
        return CPUStandInStream() if _cpu_query(device) else stream(device)

    @functools.wraps(cur)
    def current_device():
        return 0 if _cpu_query(None) else cur()

    @functools.wraps(set_dev)
    def set_device(device):
        return None if _cpu_query(device) else set_dev(device)

    @functools.wraps(capturing)
    def is_current_stream_capturing():
        return False if _cpu_query(None) else capturing()

    for fn in (synchronize, current_stream, current_device, set_device, is_current_stream_capturing):
        fn._kgb_cpu = True  # type: ignore[attr-defined]
        setattr(torch.cuda, fn.__name__, fn)
    from .interpreter_cuda import install_cuda_stand_ins

    install_cuda_stand_ins()
