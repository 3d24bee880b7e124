"""The real-cuBLAS baseline: a ctypes binding of ``libcublas`` for the ``cublas::`` tasks.

Every ``cublas::`` task of KernelGenBench is timed against the routine it is named after. This module
is the one binding layer for all 50 of them (spec ``shared/spec/cublas.md`` §2.7, "Recommended binding
layer"): only the standard library's :mod:`ctypes` plus torch, CuPy at most as a cross-check
(:func:`cupy_cross_check_available`).

What a call does (§2.7):

* one cuBLAS handle per device, created lazily (``cublasCreate_v2``) with the device current;
* the handle's stream is torch's current stream of that device (``cublasSetStream_v2``; the call is
  skipped when the handle is already on that stream);
* **device pointer mode** (``CUBLAS_POINTER_MODE_DEVICE``): alpha/beta are one-element device tensors
  taken from a small pool keyed by ``(device, dtype, value)``, so a timing loop neither allocates nor
  copies (:meth:`Cublas.scalar` creates them; call it, or the routine once, before the timed region);
* default math mode (``CUBLAS_DEFAULT_MATH``: true fp32, no TF32), read back after it is set;
* every ``cublasStatus_t`` is checked: non-zero raises :class:`CublasError` naming the routine.

Arrays follow the BLAS memory model of §2.2: a tensor argument is a BLAS array starting at
``t.data_ptr()`` (storage offset included); its shape and strides carry no meaning. Element (i, j) of a
matrix with leading dimension ``ld`` is at element offset ``i + j*ld``; vector element i with increment
``inc`` is at ``i*inc`` (``inc > 0``) or ``(n-1-i)*|inc|`` (``inc < 0``). Before each call the binding checks
that the storage behind every pointer holds the elements the BLAS parameters address, so a bad case
raises :class:`ValueError` instead of an illegal memory access that would poison the CUDA context.

Flags accept both encodings of §2.3 (:func:`trans_code`, :func:`uplo_code`, :func:`diag_code`,
:func:`side_code`).

Importing this module touches neither CUDA nor libcublas; :func:`load_cublas` and the first routine
call do. Where libcublas cannot be loaded (or no CUDA device is visible) :class:`CublasUnavailable` is
raised.

The routine methods are not written by hand: each routine's declaration (``routines.py``, see
``decl.py``) gives its parameters with their roles, and :func:`make_method` derives the method (flag
conversion, int and extent checks of every array, device scalars, the call, the status check) plus the
spec-named module function (``cublasSaxpy_v2``). The C types come from :data:`SIGNATURES`, which the
declaration's parameter names must match.

The handles are not meant to be used from several threads at once.
"""
from __future__ import annotations

import ctypes
import glob
import importlib
import inspect
import numbers
import os
import site
import struct
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import torch

if TYPE_CHECKING:
    from .decl import Routine

__all__ = [
    "CublasUnavailable", "CublasError", "Cublas", "load_cublas", "get_cublas",
    "cupy_cross_check_available", "trans_code", "uplo_code", "diag_code", "side_code",
    "status_name", "SIGNATURES", "STATUS_NAMES", "BASELINE_FUNCTIONS", "make_method",
]  # plus one module function per declared routine (cublasSaxpy_v2, ...), added below

# ----------------------------------------------------------------------------------------------------
# Constants (cublas_api.h / library_types.h; cublas.md §2.3)
# ----------------------------------------------------------------------------------------------------

CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C = 0, 1, 2
CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER = 0, 1
CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT = 0, 1
CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT = 0, 1
CUBLAS_POINTER_MODE_HOST, CUBLAS_POINTER_MODE_DEVICE = 0, 1
CUBLAS_DEFAULT_MATH = 0
# libraryPropertyType for cublasGetProperty
_MAJOR_VERSION, _MINOR_VERSION, _PATCH_LEVEL = 0, 1, 2

#: cublasStatus_t values and their names.
STATUS_NAMES: dict[int, str] = {
    0: "CUBLAS_STATUS_SUCCESS",
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
    16: "CUBLAS_STATUS_LICENSE_ERROR",
}

_STATUS_HINTS: dict[int, str] = {
    1: "the handle or the CUDA context is not initialised",
    3: "cuBLAS could not allocate device memory",
    7: "a parameter is out of range (a dimension, leading dimension or increment, a flag, a type code)",
    8: "the routine needs a feature this GPU lacks",
    11: "a GPU memory space access failed",
    13: "the kernel failed to launch or run; the CUDA context may now be unusable",
    14: "an internal cuBLAS operation failed",
    15: "this combination of parameters or types is not supported",
}


def status_name(status: int) -> str:
    """The name of a ``cublasStatus_t`` value, e.g. ``7`` -> ``'CUBLAS_STATUS_INVALID_VALUE'``."""
    return STATUS_NAMES.get(status, f"CUBLAS_STATUS_UNKNOWN({status})")


# ----------------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------------

class CublasUnavailable(RuntimeError):
    """libcublas cannot be loaded, lacks a symbol, or no CUDA device is visible to torch."""


class CublasError(RuntimeError):
    """A cuBLAS call returned a status other than ``CUBLAS_STATUS_SUCCESS``.

    Attributes: ``routine`` (the C function name), ``status`` (the int), ``status_name``.
    """

    def __init__(self, routine: str, status: int, detail: str = ""):
        self.routine = routine
        self.status = int(status)
        self.status_name = status_name(self.status)
        hint = _STATUS_HINTS.get(self.status, "")
        msg = f"{routine} returned {self.status_name} ({self.status})"
        if hint:
            msg += f": {hint}"
        if detail:
            msg += f" [{detail}]"
        super().__init__(msg)


def _check_status(routine: str, status: int) -> None:
    if status != 0:
        raise CublasError(routine, status)


# Flag conversion (cublas.md §2.3) lives with the declarations (decl.py): both encodings, ValueError
# naming the flag otherwise.
from .decl import diag_code, side_code, trans_code, uplo_code  # noqa: E402  (re-exported)

# ----------------------------------------------------------------------------------------------------
# C signatures of the 50 routines (cublas_api.h), handle omitted.
# Codes: i = int (int32), l = int64_t / long long, e = enum (int32: flag), t = cudaDataType (int32),
#        p = pointer (device array, device scalar in device pointer mode, or pointer array).
# Only the routines with a method on Cublas have been exercised; the rest are ready for their methods.
# ----------------------------------------------------------------------------------------------------

_GEMM_SB = ("transa:e transb:e m:i n:i k:i alpha:p A:p lda:i strideA:l B:p ldb:i strideB:l "
            "beta:p C:p ldc:i strideC:l batchCount:i")
_GEMM_SB64 = ("transa:e transb:e m:l n:l k:l alpha:p A:p lda:l strideA:l B:p ldb:l strideB:l "
              "beta:p C:p ldc:l strideC:l batchCount:l")
_GEMM_B = "transa:e transb:e m:i n:i k:i alpha:p Aarray:p lda:i Barray:p ldb:i beta:p Carray:p ldc:i batchCount:i"
_GEMV = "trans:e m:i n:i alpha:p A:p lda:i x:p incx:i beta:p y:p incy:i"
_GEMV_B = "trans:e m:i n:i alpha:p Aarray:p lda:i xarray:p incx:i beta:p yarray:p incy:i batchCount:i"
_GEMV_SB = ("trans:e m:i n:i alpha:p A:p lda:i strideA:l x:p incx:i stridex:l beta:p y:p incy:i "
            "stridey:l batchCount:i")
_GER = "m:i n:i alpha:p x:p incx:i y:p incy:i A:p lda:i"
_TRSM_B = "side:e uplo:e trans:e diag:e m:i n:i alpha:p Aarray:p lda:i Barray:p ldb:i batchCount:i"
_COPY = "n:i x:p incx:i y:p incy:i"
_DOT = "n:i x:p incx:i y:p incy:i result:p"
_AXPY = "n:i alpha:p x:p incx:i y:p incy:i"
_GEMM = "transa:e transb:e m:i n:i k:i alpha:p A:p lda:i B:p ldb:i beta:p C:p ldc:i"

_SIGNATURE_TEXT: dict[str, str] = {
    "cublasCcopy_v2": _COPY,
    "cublasCdotu_v2": _DOT,
    "cublasCgemmStridedBatched": _GEMM_SB,
    "cublasCgemmStridedBatched_64": _GEMM_SB64,
    "cublasCgemm_v2": _GEMM,
    "cublasCgemvBatched_64": ("trans:e m:l n:l alpha:p Aarray:p lda:l xarray:p incx:l beta:p yarray:p "
                              "incy:l batchCount:l"),
    "cublasCgemvStridedBatched": _GEMV_SB,
    "cublasCgemv_v2": _GEMV,
    "cublasCgeru_v2": _GER,
    "cublasCsymm_v2": "side:e uplo:e m:i n:i alpha:p A:p lda:i B:p ldb:i beta:p C:p ldc:i",
    "cublasCsymv_v2": "uplo:e n:i alpha:p A:p lda:i x:p incx:i beta:p y:p incy:i",
    "cublasCsyrkEx": "uplo:e trans:e n:i k:i alpha:p A:p Atype:t lda:i beta:p C:p Ctype:t ldc:i",
    "cublasDasum_v2": "n:i x:p incx:i result:p",
    "cublasDaxpy_v2": _AXPY,
    "cublasDcopy_v2": _COPY,
    "cublasDgemmBatched": _GEMM_B,
    "cublasDgemmStridedBatched": _GEMM_SB,
    "cublasDgemmStridedBatched_64": _GEMM_SB64,
    "cublasDgemvBatched": _GEMV_B,
    "cublasDgemvStridedBatched": _GEMV_SB,
    "cublasDgemv_v2": _GEMV,
    "cublasDsbmv_v2": "uplo:e n:i k:i alpha:p A:p lda:i x:p incx:i beta:p y:p incy:i",
    "cublasDsyr2_v2": "uplo:e n:i alpha:p x:p incx:i y:p incy:i A:p lda:i",
    "cublasDtrsmBatched": _TRSM_B,
    "cublasHgemmBatched": _GEMM_B,
    "cublasHgemmStridedBatched": _GEMM_SB,
    "cublasSaxpy_v2": _AXPY,
    "cublasSdgmm": "mode:e m:i n:i A:p lda:i x:p incx:i C:p ldc:i",
    "cublasSdot_v2": _DOT,
    "cublasSgeam": "transa:e transb:e m:i n:i alpha:p A:p lda:i beta:p B:p ldb:i C:p ldc:i",
    "cublasSgemmBatched_64": ("transa:e transb:e m:l n:l k:l alpha:p Aarray:p lda:l Barray:p ldb:l "
                              "beta:p Carray:p ldc:l batchCount:l"),
    "cublasSgemmEx": ("transa:e transb:e m:i n:i k:i alpha:p A:p Atype:t lda:i B:p Btype:t ldb:i "
                      "beta:p C:p Ctype:t ldc:i"),
    "cublasSgemmStridedBatched": _GEMM_SB,
    "cublasSgemm_v2": _GEMM,
    "cublasSgemvBatched": _GEMV_B,
    "cublasSgemvStridedBatched": _GEMV_SB,
    "cublasSger_v2": _GER,
    "cublasSscal_v2": "n:i alpha:p x:p incx:i",
    "cublasSsyrk_v2": "uplo:e trans:e n:i k:i alpha:p A:p lda:i beta:p C:p ldc:i",
    "cublasStbmv_v2": "uplo:e trans:e diag:e n:i k:i A:p lda:i x:p incx:i",
    "cublasStrsm_v2": "side:e uplo:e trans:e diag:e m:i n:i alpha:p A:p lda:i B:p ldb:i",
    "cublasStrsv_v2": "uplo:e trans:e diag:e n:i A:p lda:i x:p incx:i",
    "cublasZdotc_v2": _DOT,
    "cublasZgemmBatched": _GEMM_B,
    "cublasZgemmStridedBatched": _GEMM_SB,
    "cublasZgemvBatched": _GEMV_B,
    "cublasZgemvStridedBatched": _GEMV_SB,
    "cublasZgerc_v2": _GER,
    "cublasZswap_v2": "n:i x:p incx:i y:p incy:i",
    "cublasZtrsmBatched": _TRSM_B,
}

_CTYPES = {"i": ctypes.c_int32, "l": ctypes.c_int64, "e": ctypes.c_int32, "t": ctypes.c_int32,
           "p": ctypes.c_void_p}
_INT_RANGE = {"i": (-(2 ** 31), 2 ** 31 - 1), "e": (-(2 ** 31), 2 ** 31 - 1),
              "t": (-(2 ** 31), 2 ** 31 - 1), "l": (-(2 ** 63), 2 ** 63 - 1)}


@dataclass(frozen=True)
class Signature:
    """The C parameters of one routine after the handle: names, ctypes codes, int range checks."""

    routine: str
    names: tuple[str, ...]
    codes: str
    #: (position, name, lo, hi) of every integer parameter (ctypes truncates silently otherwise).
    int_checks: tuple[tuple[int, str, int, int], ...]

    @property
    def argtypes(self) -> list:
        return [ctypes.c_void_p] + [_CTYPES[c] for c in self.codes]

    @classmethod
    def parse(cls, routine: str, text: str) -> "Signature":
        names, codes, checks = [], [], []
        for pos, item in enumerate(text.split()):
            name, code = item.split(":")
            if code not in _CTYPES:
                raise ValueError(f"{routine}: unknown parameter code {code!r} for {name}")
            names.append(name)
            codes.append(code)
            if code in _INT_RANGE:
                checks.append((pos, name) + _INT_RANGE[code])
        return cls(routine, tuple(names), "".join(codes), tuple(checks))


#: routine name -> :class:`Signature` (all 50 routines of cublas.md §1).
SIGNATURES: dict[str, Signature] = {r: Signature.parse(r, t) for r, t in _SIGNATURE_TEXT.items()}

# Handle-management entry points: name -> argtypes (restype is always cublasStatus_t = int).
_MANAGEMENT: dict[str, list] = {
    "cublasCreate_v2": [ctypes.POINTER(ctypes.c_void_p)],
    "cublasDestroy_v2": [ctypes.c_void_p],
    "cublasSetStream_v2": [ctypes.c_void_p, ctypes.c_void_p],
    "cublasGetStream_v2": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)],
    "cublasSetPointerMode_v2": [ctypes.c_void_p, ctypes.c_int],
    "cublasGetPointerMode_v2": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)],
    "cublasSetMathMode": [ctypes.c_void_p, ctypes.c_int],   # no _v2 variant exists
    "cublasGetMathMode": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)],
    "cublasGetVersion_v2": [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)],
    "cublasGetProperty": [ctypes.c_int, ctypes.POINTER(ctypes.c_int)],
}


# ----------------------------------------------------------------------------------------------------
# Loading libcublas
# ----------------------------------------------------------------------------------------------------

#: Environment variable naming a libcublas file to try before everything else.
LIB_ENV = "KGB_LIBCUBLAS"
#: Sonames tried first, newest first (the dynamic loader reuses the copy torch already loaded).
SONAMES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so")


def _version_key(path: str) -> tuple[int, ...]:
    """(13, 1, 0, 3) for ``.../libcublas.so.13.1.0.3``; () for a bare ``libcublas.so``."""
    suffix = os.path.basename(path).partition(".so")[2].lstrip(".")
    return tuple(int(p) for p in suffix.split(".") if p.isdigit())


def _site_roots() -> list[str]:
    roots: list[str] = []
    try:
        roots.append(str(Path(torch.__file__).resolve().parent.parent))   # torch's site-packages
    except Exception:  # pragma: no cover - torch without __file__
        pass
    try:
        roots.extend(site.getsitepackages())
    except Exception:  # pragma: no cover - virtualenv without getsitepackages
        pass
    try:
        roots.append(site.getusersitepackages())
    except Exception:  # pragma: no cover
        pass
    roots.extend(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    out: list[str] = []
    for r in roots:
        if r and r not in out:
            out.append(r)
    return out


def _candidate_libraries() -> list[str]:
    """Everything :func:`load_cublas` tries, in order: $KGB_LIBCUBLAS, :data:`SONAMES`, then files under
    ``<site-packages>/nvidia/*/lib/`` (torch's first) and ``/usr/local/cuda*/lib64/`` (newest first)."""
    cands: list[str] = []
    env = os.environ.get(LIB_ENV)
    if env:
        cands.append(env)
    cands.extend(SONAMES)
    patterns = [os.path.join(r, "nvidia", "*", "lib", "libcublas.so*") for r in _site_roots()]
    patterns += ["/usr/local/cuda*/lib64/libcublas.so*",
                 "/usr/local/cuda*/targets/*/lib/libcublas.so*"]
    seen: set[str] = set()
    for pat in patterns:
        files = [f for f in glob.glob(pat) if os.path.basename(f).startswith("libcublas.so")]
        for f in sorted(files, key=_version_key, reverse=True):
            real = os.path.realpath(f)
            if real in seen:
                continue
            seen.add(real)
            cands.append(f)
    return cands


def load_cublas(candidates: Iterable[str] | None = None) -> ctypes.CDLL:
    """Load libcublas and return the :class:`ctypes.CDLL`.

    Tries, in order, ``$KGB_LIBCUBLAS``, the sonames ``libcublas.so.13``, ``libcublas.so.12``,
    ``libcublas.so``, then ``libcublas.so.*`` files globbed under torch's and the other site-packages'
    ``nvidia/*/lib`` and under ``/usr/local/cuda*/lib64`` (``candidates`` replaces that list). A library
    that loads but does not export ``cublasCreate_v2`` is skipped. Touches no GPU.

    Raises :class:`CublasUnavailable` listing every candidate and why it failed.
    """
    tried: list[str] = []
    for cand in (list(candidates) if candidates is not None else _candidate_libraries()):
        try:
            lib = ctypes.CDLL(cand)
        except OSError as exc:
            tried.append(f"{cand}: {exc}")
            continue
        if not hasattr(lib, "cublasCreate_v2"):
            tried.append(f"{cand}: loaded but does not export cublasCreate_v2")
            continue
        return lib
    listing = "\n  ".join(tried) if tried else "(no candidates)"
    raise CublasUnavailable(
        "cannot load libcublas (the real-cuBLAS baseline of the cublas:: tasks, cublas.md §2.7); tried:\n  "
        f"{listing}\nInstall the CUDA toolkit or the nvidia cuBLAS wheel, or set {LIB_ENV} to the "
        "libcublas.so.N file.")


# ----------------------------------------------------------------------------------------------------
# Small helpers shared by the routine methods
# ----------------------------------------------------------------------------------------------------

from .decl import mat_extent as _mat_extent  # noqa: E402
from .decl import vec_extent as _vec_extent  # noqa: E402


def _available(t: torch.Tensor) -> int:
    """Elements of t's storage from t's data pointer to the end of the storage."""
    return t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()


def _scalar_key(value: Any) -> tuple:
    # struct keeps -0.0 apart from 0.0 and makes NaN a usable dict key.
    if isinstance(value, complex):
        return ("c", struct.pack("<dd", value.real, value.imag))
    return ("r", struct.pack("<d", float(value)))


def _device_index(device: Any) -> int:
    if device is None:
        return torch.cuda.current_device()
    if isinstance(device, int):
        return device
    d = torch.device(device)
    if d.type != "cuda":
        raise ValueError(f"scalar device must be a CUDA device, got {d}")
    return torch.cuda.current_device() if d.index is None else d.index


_raw_stream_fn: Callable[[int], int] | None = None


def _current_raw_stream(device: int) -> int:
    """cudaStream_t of torch's current stream on ``device`` (fast path when torch exposes it)."""
    global _raw_stream_fn
    if _raw_stream_fn is None:
        fn = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _raw_stream_fn = fn if fn is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)
    return _raw_stream_fn(device)


class _Handle:
    __slots__ = ("ptr", "device", "stream")

    def __init__(self, ptr: int, device: int):
        self.ptr = ptr
        self.device = device
        self.stream: int | None = None   # the stream last set on this handle


_REAL_SCALAR_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


# ----------------------------------------------------------------------------------------------------
# The binding
# ----------------------------------------------------------------------------------------------------

class Cublas:
    """cuBLAS through ctypes: one handle per device, torch's stream, device pointer mode, no TF32.

    ``Cublas()`` loads libcublas (:func:`load_cublas`; raises :class:`CublasUnavailable`) but touches no
    GPU; the handle of a device is created by the first call on it. ``lib`` injects an already loaded
    library (or a stand-in, for tests). Use :func:`get_cublas` for the process-wide instance.
    """

    def __init__(self, lib: Any = None):
        self.lib = lib if lib is not None else load_cublas()
        self.path = getattr(self.lib, "_name", None)
        self._fns: dict[str, Any] = {}
        self._handles: dict[int, _Handle] = {}
        self._scalars: dict[tuple, torch.Tensor] = {}
        self._lock = threading.RLock()

    # ---- symbols ------------------------------------------------------------------------------------

    def _bind(self, name: str) -> Any:
        """The ctypes function for ``name`` with argtypes/restype set (cached per instance)."""
        fn = self._fns.get(name)
        if fn is not None:
            return fn
        if name in SIGNATURES:
            argtypes = SIGNATURES[name].argtypes
        elif name in _MANAGEMENT:
            argtypes = _MANAGEMENT[name]
        else:
            raise KeyError(f"no C signature recorded for {name}")
        try:
            fn = self.lib[name]          # a fresh function object: argtypes stay private to us
        except (AttributeError, TypeError):
            fn = getattr(self.lib, name, None)
        if fn is None:
            raise CublasUnavailable(f"{name} is not exported by {self.path or self.lib}")
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int
        self._fns[name] = fn
        return fn

    def _mgmt(self, name: str, *args: Any) -> None:
        _check_status(name, self._bind(name)(*args))

    # ---- handles ------------------------------------------------------------------------------------

    def _handle(self, device: int) -> _Handle:
        h = self._handles.get(device)
        return h if h is not None else self._create_handle(device)

    def _create_handle(self, device: int) -> _Handle:
        with self._lock:
            h = self._handles.get(device)
            if h is not None:
                return h
            if not torch.cuda.is_available():
                raise CublasUnavailable("no CUDA device is visible to torch; the cuBLAS baseline needs one")
            torch.cuda.init()                 # share torch's primary context
            with torch.cuda.device(device):
                ptr = ctypes.c_void_p()
                self._mgmt("cublasCreate_v2", ctypes.byref(ptr))
                h = _Handle(ptr.value, device)
                try:
                    self._mgmt("cublasSetPointerMode_v2", h.ptr, CUBLAS_POINTER_MODE_DEVICE)
                    self._mgmt("cublasSetMathMode", h.ptr, CUBLAS_DEFAULT_MATH)
                    mode = ctypes.c_int(-1)
                    self._mgmt("cublasGetPointerMode_v2", h.ptr, ctypes.byref(mode))
                    if mode.value != CUBLAS_POINTER_MODE_DEVICE:
                        raise CublasUnavailable(f"handle setup: pointer mode reads back {mode.value}, "
                                                f"expected {CUBLAS_POINTER_MODE_DEVICE}")
                    self._mgmt("cublasGetMathMode", h.ptr, ctypes.byref(mode))
                    if mode.value != CUBLAS_DEFAULT_MATH:
                        raise CublasUnavailable(f"handle setup: math mode reads back {mode.value}, "
                                                f"expected {CUBLAS_DEFAULT_MATH} (no TF32)")
                except BaseException:
                    self._bind("cublasDestroy_v2")(h.ptr)
                    raise
            self._handles[device] = h
            return h

    def close(self) -> None:
        """Destroy every handle and drop the scalar pool (a later call creates fresh handles)."""
        with self._lock:
            handles, self._handles = self._handles, {}
            self._scalars.clear()
            for h in handles.values():
                with torch.cuda.device(h.device):
                    torch.cuda.synchronize()
                    self._mgmt("cublasDestroy_v2", h.ptr)

    # ---- generic call -------------------------------------------------------------------------------

    def _call(self, routine: str, device: int, *args: Any) -> None:
        """Run ``routine(handle, *args)`` on ``device`` in torch's current stream; raise on bad status.

        ``args`` follow :data:`SIGNATURES` ``[routine]`` (handle omitted): ints already converted by the
        caller, pointers as ints. Integer arguments are range-checked here (ctypes would truncate).
        """
        sig = SIGNATURES[routine]
        if len(args) != len(sig.names):
            raise TypeError(f"{routine} takes {len(sig.names)} arguments after the handle "
                            f"({' '.join(sig.names)}), got {len(args)}")
        for pos, name, lo, hi in sig.int_checks:
            v = args[pos]
            if not lo <= v <= hi:
                raise ValueError(f"{routine}: {name}={v} does not fit the C parameter type")
        fn = self._fns.get(routine)
        if fn is None:
            fn = self._bind(routine)
        h = self._handles.get(device)
        if h is None:
            h = self._create_handle(device)
        if torch.cuda.current_device() != device:
            with torch.cuda.device(device):
                self._launch(routine, fn, h, args)
        else:
            self._launch(routine, fn, h, args)

    def _launch(self, routine: str, fn: Any, h: _Handle, args: tuple) -> None:
        stream = _current_raw_stream(h.device)
        if stream != h.stream:
            self._mgmt("cublasSetStream_v2", h.ptr, stream)
            h.stream = stream
        status = fn(h.ptr, *args)
        if status != 0:
            raise CublasError(routine, status)

    # ---- argument checks ----------------------------------------------------------------------------

    @staticmethod
    def _device_of(routine: str, name: str, t: Any) -> int:
        """The CUDA device index of tensor ``t`` (the output argument), else ValueError."""
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{routine}: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.device.type != "cuda":
            raise ValueError(f"{routine}: {name} must be a CUDA tensor, got device {t.device}")
        return t.device.index if t.device.index is not None else torch.cuda.current_device()

    @staticmethod
    def _tensor(routine: str, name: str, t: Any, dtype: torch.dtype, device: int) -> None:
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{routine}: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype != dtype:
            raise ValueError(f"{routine}: {name} must have dtype {dtype}, got {t.dtype}")
        if t.device.type != "cuda" or t.device.index != device:
            raise ValueError(f"{routine}: {name} must be on cuda:{device}, got {t.device}")

    @staticmethod
    def _extent(routine: str, name: str, t: torch.Tensor, need: int, what: Any) -> None:
        """ValueError unless t's storage holds ``need`` elements from its data pointer.

        ``what`` describes the array: a string, or a callable building it (only on failure)."""
        have = _available(t)
        if need > have:
            desc = what() if callable(what) else what
            raise ValueError(f"{routine}: {name} has {have} elements from its data pointer, but {desc} "
                             f"spans {need}")

    def _vec(self, routine: str, name: str, t: Any, n: int, inc: int, dtype: torch.dtype,
             device: int) -> int:
        """Check a BLAS vector argument (dtype, device, storage extent); return its data pointer."""
        self._tensor(routine, name, t, dtype, device)
        self._extent(routine, name, t, _vec_extent(n, inc), lambda: f"a vector of n={n}, inc={inc}")
        return t.data_ptr()

    def _mat(self, routine: str, name: str, t: Any, rows: int, cols: int, ld: int,
             dtype: torch.dtype, device: int) -> int:
        """Check a column-major BLAS matrix argument; return its data pointer."""
        self._tensor(routine, name, t, dtype, device)
        self._extent(routine, name, t, _mat_extent(rows, cols, ld),
                     lambda: f"a {rows}x{cols} matrix with ld={ld}")
        return t.data_ptr()

    # ---- device scalars -----------------------------------------------------------------------------

    def scalar(self, dtype: torch.dtype, value: Any, device: Any = None) -> torch.Tensor:
        """The cached one-element device tensor holding ``value`` rounded to ``dtype`` (§2.4).

        Created on first use (an allocation and a synchronous host-to-device copy: do it outside timed
        regions), then returned as is. Keyed by (device, dtype, exact value): -0.0 and 0.0 differ. The
        tensor is shared: never write to it.
        """
        dev = _device_index(device)
        key = (dev, dtype, _scalar_key(value))
        t = self._scalars.get(key)
        if t is None:
            with self._lock:
                t = self._scalars.get(key)
                if t is None:
                    t = torch.tensor([value], dtype=dtype, device=torch.device("cuda", dev))
                    self._scalars[key] = t
        return t

    def _scalar_ptr(self, routine: str, name: str, value: Any, dtype: torch.dtype, device: int) -> int:
        """Device address of scalar ``value`` (a Python number, or a device tensor of ``dtype``)."""
        if type(value) is float and dtype in _REAL_SCALAR_DTYPES:                         # fast path
            return self.scalar(dtype, value, device).data_ptr()
        if isinstance(value, torch.Tensor):
            self._tensor(routine, name, value, dtype, device)
            if value.numel() < 1:
                raise ValueError(f"{routine}: {name} tensor is empty")
            return value.data_ptr()
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            raise ValueError(f"{routine}: {name} must be a number or a device tensor, got {value!r}")
        if dtype in _REAL_SCALAR_DTYPES:
            if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
                if value.imag != 0:
                    raise ValueError(f"{routine}: {name} must be real, got {value!r}")
                value = value.real
            value = float(value)
        else:
            value = complex(value)
        return self.scalar(dtype, value, device).data_ptr()

    # ---- information --------------------------------------------------------------------------------

    def library_version(self) -> int:
        """cuBLAS version as major*10000 + minor*100 + patch (130100 for cuBLAS 13.1.0); no GPU needed."""
        parts = []
        for prop in (_MAJOR_VERSION, _MINOR_VERSION, _PATCH_LEVEL):
            v = ctypes.c_int(0)
            self._mgmt("cublasGetProperty", prop, ctypes.byref(v))
            parts.append(v.value)
        return parts[0] * 10000 + parts[1] * 100 + parts[2]

    def info(self, device: Any = None) -> dict:
        """Provenance of the baseline for run records: library path, version, handle modes."""
        dev = _device_index(device)
        h = self._handle(dev)
        out: dict[str, Any] = {"library": self.path, "version": self.library_version(), "device": dev}
        with torch.cuda.device(dev):
            v = ctypes.c_int(0)
            self._mgmt("cublasGetPointerMode_v2", h.ptr, ctypes.byref(v))
            out["pointer_mode"] = v.value
            self._mgmt("cublasGetMathMode", h.ptr, ctypes.byref(v))
            out["math_mode"] = v.value
        out["env"] = {k: os.environ[k] for k in ("NVIDIA_TF32_OVERRIDE", "CUBLAS_WORKSPACE_CONFIG",
                                                 "CUBLAS_EMULATE_SINGLE_PRECISION",
                                                 "CUBLAS_EMULATION_STRATEGY") if k in os.environ}
        return out


# ----------------------------------------------------------------------------------------------------
# Process-wide instance and spec-named functions
# ----------------------------------------------------------------------------------------------------

_INSTANCE: Cublas | None = None
_INSTANCE_LOCK = threading.Lock()


def get_cublas() -> Cublas:
    """The process-wide :class:`Cublas`, created (and libcublas loaded) on first use.

    Raises CublasUnavailable when libcublas cannot be loaded (it is tried again on the next call).
    """
    global _INSTANCE
    inst = _INSTANCE
    if inst is None:
        with _INSTANCE_LOCK:
            if _INSTANCE is None:
                _INSTANCE = Cublas()
            inst = _INSTANCE
    return inst


# ----------------------------------------------------------------------------------------------------
# Routine methods, derived from the declarations (decl.py; one per routine, in the level modules)
# ----------------------------------------------------------------------------------------------------

def make_method(r: "Routine") -> Callable[..., Any]:
    """The :class:`Cublas` method of routine declaration ``r`` (cublas.md §2.7).

    With the spec's parameters (handle dropped), it converts flags (both encodings) and ints, checks the
    output's device, then every array in the declaration (outputs first: dtype, device, and that the
    storage from its data pointer holds the elements the BLAS parameters address; pointer arrays: int64
    tensors of batchCount entries), fetches the scalars as cached device tensors (device pointer mode)
    and calls the C routine on torch's current stream, checking the status. Returns the declared output
    argument itself.
    """
    sig = SIGNATURES[r.name]
    if sig.names != r.params:
        raise ValueError(f"{r.name}: declaration parameters {r.params} differ from the C signature {sig.names}")
    arrays = [(i, a) for i, a in enumerate(r.args) if a.is_array]
    arrays.sort(key=lambda ia: not ia[1].out)                  # outputs first
    scalars = [(i, a) for i, a in enumerate(r.args) if a.role == "scalar"]
    first_out = next(i for i, a in arrays)
    ret = r.position(r.returns)
    name, dtype, sdtype, nargs = r.name, r.dtype, r.scalar_dtype, len(r.args)

    def method(self: "Cublas", *args: Any) -> Any:
        if len(args) != nargs:
            raise TypeError(f"{name} takes {nargs} arguments ({' '.join(r.params)}), got {len(args)}")
        d = r.values(list(args))
        dev = self._device_of(name, r.args[first_out].name, args[first_out])
        cargs = list(args)
        for k, v in d.items():
            cargs[r.position(k)] = v
        for i, a in arrays:
            t = args[i]
            if a.role == "ptrs":
                self._tensor(name, a.name, t, torch.int64, dev)
            else:
                self._tensor(name, a.name, t, dtype, dev)
            need = r.extent(a, d)
            self._extent(name, a.name, t, need, lambda a=a: _describe(a, d))
            cargs[i] = t.data_ptr()
        for i, a in scalars:
            cargs[i] = self._scalar_ptr(name, a.name, args[i], sdtype, dev)
        self._call(name, dev, *cargs)
        return args[ret]

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in r.params]
    method.__signature__ = inspect.Signature(params)           # type: ignore[attr-defined]
    method.__name__ = method.__qualname__ = r.method
    method.__doc__ = (
        f"{r.summary}\n\n"
        + "\n".join(f"{a.name}: {r.arg_doc(a)}" for a in r.args)
        + f"\n\nReturns {r.returns} (the argument itself).\n"
        "Raises ValueError (flag, dtype, device, non-int or out-of-range parameter, storage too small),\n"
        "CublasError (status), CublasUnavailable.\n"
        f"Source: cublas.md ``### cublas::{r.name}``; cuBLAS ``{r.name}``.\n")
    return method


def _describe(a: Any, d: dict) -> str:
    if a.role == "vec":
        s = f"a vector of n={a.shape(d)}, inc={d[a.step]}"
    elif a.role == "mat":
        rows, cols = a.shape(d)
        s = f"a {rows}x{cols} matrix with ld={d[a.step]}"
    elif a.role == "ptrs":
        return f"a pointer array of {a.count}={d[a.count]}"
    else:
        return "a one-element result"
    if a.count:
        s += f", {a.count}={d[a.count]} batches {d[a.stride]} apart"
    return s


def _module_function(r: "Routine") -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        return getattr(get_cublas(), r.method)(*args)
    fn.__signature__ = inspect.Signature(                      # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in r.params])
    fn.__name__ = fn.__qualname__ = r.name
    fn.__module__ = __name__
    fn.__doc__ = f"Baseline of ``cublas::{r.name}`` with the spec's interface: :meth:`Cublas.{r.method}`."
    return fn


from .routines import ROUTINES  # noqa: E402

#: routine name -> baseline function with the spec's interface (every declared routine).
BASELINE_FUNCTIONS: dict[str, Callable[..., Any]] = {}
for _r in ROUTINES.values():
    _m = make_method(_r)
    setattr(Cublas, _r.method, _m)
    setattr(Cublas, _r.name, _m)                               # the spec's name as an alias
    globals()[_r.name] = BASELINE_FUNCTIONS[_r.name] = _module_function(_r)
del _r, _m


def cupy_cross_check_available() -> bool:
    """Whether ``cupy_backends.cuda.libs.cublas`` imports (CuPy is only ever a cross-check, §2.7)."""
    try:
        importlib.import_module("cupy_backends.cuda.libs.cublas")
    except Exception:
        return False
    return True
