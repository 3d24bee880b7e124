"""One declaration per cuBLAS routine (cublas.md §2): the C signature with argument roles.

A :class:`Routine` lists the routine's parameters in the spec's order (the C order, handle dropped) and
gives each a role: a flag (§2.3), a size, leading dimension, increment, batch stride or batch count, a
cudaDataType code, a scalar (passed by device pointer, §2.4), a BLAS vector (length and increment), a
column-major matrix (rows, columns, leading dimension, and for strided batches a stride and a count),
a pointer array of a batched routine, or a one-element ``result``. Outputs are marked. Everything else
is derived from it:

* the ctypes binding into libcublas (:func:`kernelgenbench.suite.cublas.blas.make_method`: flag codes,
  int range checks, dtype/device/extent checks of every array, device scalars, status checked);
* the trusted reference's operand views (:class:`Ref`: fp64/complex128 gathers of vectors and strided
  column-major views of matrices from the *input buffers*, the rounded scalars) and the expected
  whole storage of each output with its written-region mask (other triangle, padding rows, vector gaps
  and everything past the logical output stay bit-identical, §2.5);
* the generic case builder (:func:`build_call`: minimal buffers from the BLAS parameters, padding via
  ``pad``, NaN in the operands the routine must not read, §2.5/§2.11);
* the interface shown by ``kgb show``, ``kgb init`` and the prompt (:meth:`Routine.interface`) and the
  row itself (:func:`kernelgenbench.suite.cublas.rows.routine_operator`).

The declarations of all routines are in routines.py; the level modules (level1, level2, level3, batched,
extensions) hold each routine's row: grids, math, cost and timing gate.

This module imports neither libcublas nor CUDA.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable

import torch

from ..spec import Call, Expected, Interface, Tolerance, rounding_rule
from ..tensors import poison_, storage_view

# ----------------------------------------------------------------------------------------------------
# Flags (cublas.md §2.3): both encodings, ValueError naming the flag otherwise
# ----------------------------------------------------------------------------------------------------

_TRANS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 2, "c": 2, 2: 2}
_UPLO = {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_DIAG = {"N": 0, "n": 0, 0: 0, "U": 1, "u": 1, 1: 1}
_SIDE = {"L": 0, "l": 0, 0: 0, "R": 1, "r": 1, 1: 1}
FLAG_TABLES = {"trans": _TRANS, "uplo": _UPLO, "diag": _DIAG, "side": _SIDE}

FLAG_EXPECTED = {
    "trans": "'N'/'n'/0, 'T'/'t'/1 or 'C'/'c'/2",
    "uplo": "'L'/'l'/0 (lower) or 'U'/'u'/1 (upper)",
    "diag": "'N'/'n'/0 (non-unit) or 'U'/'u'/1 (unit)",
    "side": "'L'/'l'/0 (left) or 'R'/'r'/1 (right)",
}


def flag_code(kind: str, x: Any, name: str | None = None, routine: str | None = None) -> int:
    """The cuBLAS enum value of flag ``x`` of ``kind`` (trans, uplo, diag, side), either encoding.

    Raises ValueError naming the flag (and the routine) for anything else; bools and floats are refused.
    """
    table = FLAG_TABLES[kind]
    tx = type(x)
    if tx is str or tx is int:                       # fast path (bool is not int here)
        code = table.get(x)
        if code is not None:
            return code
    if isinstance(x, str) or (isinstance(x, numbers.Integral) and not isinstance(x, bool)):
        code = table.get(x if isinstance(x, str) else int(x))
        if code is not None:
            return code
    where = f"{routine}: " if routine else ""
    raise ValueError(f"{where}invalid {name or kind} flag {x!r}; expected {FLAG_EXPECTED[kind]}")


def trans_code(x: Any, name: str = "trans", routine: str | None = None) -> int:
    """cublasOperation_t of a trans flag: 'N'/'n'/0 -> 0, 'T'/'t'/1 -> 1, 'C'/'c'/2 -> 2.

    For real routines cuBLAS treats C as T (§2.3). Raises ValueError naming ``name`` (and ``routine``).
    """
    return flag_code("trans", x, name, routine)


def uplo_code(x: Any, name: str = "uplo", routine: str | None = None) -> int:
    """cublasFillMode_t: 0/'L'/'l' -> 0 (CUBLAS_FILL_MODE_LOWER), 1/'U'/'u' -> 1 (UPPER). ValueError otherwise."""
    return flag_code("uplo", x, name, routine)


def diag_code(x: Any, name: str = "diag", routine: str | None = None) -> int:
    """cublasDiagType_t: 0/'N'/'n' -> 0 (NON_UNIT), 1/'U'/'u' -> 1 (UNIT). ValueError otherwise."""
    return flag_code("diag", x, name, routine)


def side_code(x: Any, name: str = "side", routine: str | None = None) -> int:
    """cublasSideMode_t: 0/'L'/'l' -> 0 (LEFT), 1/'R'/'r' -> 1 (RIGHT). ValueError otherwise."""
    return flag_code("side", x, name, routine)


# ----------------------------------------------------------------------------------------------------
# Precisions (cublas.md §2.2, §2.4)
# ----------------------------------------------------------------------------------------------------

#: prefix -> (storage dtype, scalar dtype, reference dtype, element size in bytes)
PRECISIONS: dict[str, tuple[torch.dtype, torch.dtype, torch.dtype, int]] = {
    "S": (torch.float32, torch.float32, torch.float64, 4),
    "D": (torch.float64, torch.float64, torch.float64, 8),
    "H": (torch.float16, torch.float16, torch.float64, 2),
    "C": (torch.complex64, torch.complex64, torch.complex128, 8),
    "Z": (torch.complex128, torch.complex128, torch.complex128, 16),
}

_TYPE_TEXT = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
              torch.complex64: "complex64 (interleaved float32 re/im pairs: pass torch.view_as_real(t) to a kernel)",
              torch.complex128: "complex128 (interleaved float64 re/im pairs: pass torch.view_as_real(t) to a kernel)"}


def round_scalar(value: Any, dtype: torch.dtype) -> float | complex:
    """``value`` converted to the routine's scalar type and back to a Python number (§2.4)."""
    if dtype.is_complex:
        return complex(torch.tensor(complex(value), dtype=dtype).item())
    if isinstance(value, complex):
        value = value.real
    return float(torch.tensor(float(value), dtype=dtype))


# ----------------------------------------------------------------------------------------------------
# Argument roles
# ----------------------------------------------------------------------------------------------------

#: Shape of an array from the converted ints and flag codes of a call.
Dims = Callable[[dict[str, int]], Any]


def op_len(flag: str, if_n: str, otherwise: str) -> "Shape":
    """A vector of length ``if_n`` when ``flag`` is N, ``otherwise`` else (gemv's x and y)."""
    return Shape(lambda d: d[if_n] if d[flag] == 0 else d[otherwise], f"{if_n} for {flag} = N, {otherwise} otherwise")


def band_dims(k: str, n: str) -> "Shape":
    """Band storage: (k+1) x n rows of the band per column (lda >= k+1)."""
    return Shape(lambda d: (d[k] + 1, d[n]), f"({k}+1) x {n} band storage")


class Shape:
    """A :data:`Dims` with its text for the interface (``m x k``, ``m x k for N, k x m otherwise``)."""

    def __init__(self, fn: Callable[[dict[str, int]], Any], text: str):
        self.fn, self.text = fn, text

    def __call__(self, d: dict[str, int]) -> Any:
        return self.fn(d)


def dims(*names: str) -> Shape:
    """``dims("m", "n")``: an m x n matrix (or a vector of length ``names[0]`` when one name)."""
    if len(names) == 1:
        return Shape(lambda d: d[names[0]], names[0])
    return Shape(lambda d: tuple(d[n] for n in names), " x ".join(names))


def op_dims(flag: str, rows: str, cols: str) -> Shape:
    """A matrix stored ``rows x cols`` when ``flag`` is N, ``cols x rows`` otherwise (op(A) is rows x cols)."""
    return Shape(lambda d: (d[rows], d[cols]) if d[flag] == 0 else (d[cols], d[rows]),
                 f"{rows} x {cols} for {flag} = N, {cols} x {rows} otherwise")


@dataclass(frozen=True)
class Arg:
    """One parameter of a routine (after the handle).

    Attributes:
        name: the spec's parameter name.
        role: ``flag``, ``int`` (size, ld, inc, stride, count), ``type`` (cudaDataType code), ``scalar``,
            ``vec``, ``mat``, ``result``, ``ptrs`` (pointer array of a ``*Batched`` routine).
        kind: the flag kind (trans, uplo, diag, side) or the int's meaning (size, ld, inc, stride, count).
        shape: vec: its length; mat/ptrs: (rows, cols) of the stored matrix (a :data:`Dims`).
        step: vec: the increment's parameter; mat: the leading dimension's parameter.
        stride: strided batches: the batch stride's parameter.
        count: batches: the batch count's parameter.
        out: the routine writes it (in place).
        tri: mat: only this triangle is referenced/written (``"uplo"``: the one the uplo flag names).
        doc: extra text for the interface.
    """

    name: str
    role: str
    kind: str = ""
    shape: Dims | None = None
    step: str | None = None
    stride: str | None = None
    count: str | None = None
    out: bool = False
    tri: str | None = None
    doc: str = ""

    @property
    def is_array(self) -> bool:
        return self.role in ("vec", "mat", "result", "ptrs")


def flag(name: str, kind: str | None = None) -> Arg:
    """A flag parameter; ``kind`` defaults to the name stripped of a trailing a/b (transa -> trans)."""
    k = kind or ("trans" if name.startswith("trans") else name)
    return Arg(name, "flag", k)


def size(name: str, kind: str = "size", doc: str = "") -> Arg:
    """An integer parameter: size, ld, inc, stride or count."""
    return Arg(name, "int", kind, doc=doc)


def ld(name: str) -> Arg:
    return Arg(name, "int", "ld")


def inc(name: str) -> Arg:
    return Arg(name, "int", "inc")


def stride(name: str) -> Arg:
    return Arg(name, "int", "stride")


def count(name: str) -> Arg:
    return Arg(name, "int", "count")


def typecode(name: str) -> Arg:
    return Arg(name, "type")


def scalar(name: str) -> Arg:
    return Arg(name, "scalar")


def vec(name: str, n: str | Dims, step: str, out: bool = False, stride: str | None = None,
        count: str | None = None) -> Arg:
    return Arg(name, "vec", shape=dims(n) if isinstance(n, str) else n, step=step, out=out, stride=stride,
               count=count)


def mat(name: str, shape: Dims, step: str, out: bool = False, stride: str | None = None, count: str | None = None,
        tri: str | None = None, doc: str = "") -> Arg:
    return Arg(name, "mat", shape=shape, step=step, out=out, stride=stride, count=count, tri=tri, doc=doc)


def ptrs(name: str, of: str, shape: str | Dims, step: str, count: str, out: bool = False) -> Arg:
    """A pointer array of a ``*Batched`` routine (§2.2): ``count`` device addresses of ``of`` arrays (``"mat"``:
    column-major ``shape`` with leading dimension ``step``; ``"vec"``: length ``shape``, increment ``step``).

    In a case (:func:`build_call`) the position holds the tensor the arrays live in and
    :attr:`~kernelgenbench.suite.spec.Call.pointers` their offsets; the callee receives the address tensor
    (:func:`~kernelgenbench.suite.spec.bind_pointers`)."""
    if of not in ("mat", "vec"):
        raise ValueError(f"pointer array {name}: of must be 'mat' or 'vec', not {of!r}")
    return Arg(name, "ptrs", of, shape=dims(shape) if isinstance(shape, str) else shape, step=step, count=count,
               out=out)


def result(name: str = "result") -> Arg:
    return Arg(name, "result", out=True)


# ----------------------------------------------------------------------------------------------------
# Extents (§2.2)
# ----------------------------------------------------------------------------------------------------

def vec_extent(n: int, inc: int) -> int:
    """Elements a BLAS vector of length n, increment inc spans from its base (§2.2)."""
    return 0 if n <= 0 else 1 + (n - 1) * abs(inc)


def mat_extent(rows: int, cols: int, ld: int) -> int:
    """Elements a column-major rows x cols matrix with leading dimension ld spans from its base (§2.2)."""
    return 0 if rows <= 0 or cols <= 0 else (cols - 1) * max(ld, rows) + rows


def vec_offsets(n: int, inc: int, device: torch.device) -> torch.Tensor:
    """Storage offsets of the n elements of a BLAS vector with increment ``inc`` (§2.2)."""
    i = torch.arange(n, device=device, dtype=torch.int64)
    return i * inc if inc > 0 else (n - 1 - i) * (-inc)


def mat_view(t: torch.Tensor, rows: int, cols: int, ld: int) -> torch.Tensor:
    """The column-major ``rows x cols`` matrix with leading dimension ``ld`` at ``t``'s base."""
    return t.as_strided((rows, cols), (1, ld), t.storage_offset())


def fill_padding_(t: torch.Tensor, rows: int, ld: int, value: float) -> None:
    """Fill the padding rows ``rows..ld-1`` of every column of the column-major matrix at ``t``'s base, as
    far as ``t`` extends (the last column's padding usually lies past a minimal buffer)."""
    if ld <= rows:
        return
    flat = t.reshape(-1) if t.is_contiguous() else None
    if flat is None:
        raise ValueError("fill_padding_ needs a contiguous buffer")
    o = torch.arange(flat.numel(), device=t.device)
    flat[(o % ld) >= rows] = value


def tri_mask(rows: int, cols: int, lower: bool, device: torch.device) -> torch.Tensor:
    """Bool (rows, cols): the lower (i >= j) or upper (i <= j) triangle, diagonal included."""
    i = torch.arange(rows, device=device)[:, None]
    j = torch.arange(cols, device=device)[None, :]
    return i >= j if lower else i <= j


# ----------------------------------------------------------------------------------------------------
# The declaration
# ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Routine:
    """One cuBLAS routine: precision prefix and parameters with roles (module docstring).

    Attributes:
        name: the C symbol and the submission's function name (``cublasSaxpy_v2``).
        prec: S, D, H, C or Z (storage and scalar types; §2.2, §2.4).
        args: the parameters in the spec's order.
        returns: the parameter the function returns (the output argument itself, §2.1).
        method: the :class:`~kernelgenbench.suite.cublas.blas.Cublas` method name (``saxpy``).
        summary: one line of semantics for the binding's docstring.
        scalar_prec: the scalars' precision where it differs (the Ex routines).
        not_read: the quick-return rules of §2.5 as ``(scalar, operands)`` pairs: when ``scalar == 0`` the
            routine never reads ``operands`` (``("alpha", ("A", "B"))``: gemm's A and B at alpha == 0; an
            output named there is overwritten without being read, trsm's B). Their smoke and held-out tiers
            hold a case with that scalar 0 and those operands NaN (:func:`quick_cases`).
    """

    name: str
    prec: str
    args: tuple[Arg, ...]
    returns: str
    method: str
    summary: str
    scalar_prec: str | None = None
    not_read: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        names = [a.name for a in self.args]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate parameter names")
        if self.returns not in names:
            raise ValueError(f"{self.name}: returns {self.returns!r} is not a parameter")
        for a in self.args:
            for ref in (a.step, a.stride, a.count):
                if ref is not None and ref not in names:
                    raise ValueError(f"{self.name}: {a.name} refers to unknown parameter {ref}")
        for scalar_name, operands in self.not_read:
            if scalar_name not in names or any(o not in names for o in operands):
                raise ValueError(f"{self.name}: not_read rule {scalar_name} -> {operands} names an unknown "
                                 f"parameter")

    # -- types --------------------------------------------------------------------------------------
    @property
    def dtype(self) -> torch.dtype:
        """The storage dtype of every array (§2.2)."""
        return PRECISIONS[self.prec][0]

    @property
    def scalar_dtype(self) -> torch.dtype:
        return PRECISIONS[self.scalar_prec or self.prec][1]

    @property
    def ref_dtype(self) -> torch.dtype:
        """float64 or complex128: the reference's dtype (§2.6)."""
        return PRECISIONS[self.prec][2]

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args)

    def arg(self, name: str) -> Arg:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no parameter {name}")

    def position(self, name: str) -> int:
        return self.params.index(name)

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if a.out)

    # -- values ------------------------------------------------------------------------------------
    def values(self, args: list[Any]) -> dict[str, Any]:
        """Flag codes and ints of a call by parameter name (scalars and arrays left out).

        Raises ValueError naming the routine and the parameter for a bad flag or a non-int.
        """
        d: dict[str, Any] = {}
        for a, v in zip(self.args, args):
            if a.role == "flag":
                d[a.name] = flag_code(a.kind, v, a.name, self.name)
            elif a.role in ("int", "type"):
                d[a.name] = as_int(self.name, a.name, v)
        return d

    def extent(self, a: Arg, d: dict[str, int]) -> int:
        """Elements array ``a`` spans from its base pointer for the call's values ``d``."""
        if a.role == "result":
            return 1
        if a.role == "ptrs":
            return d[a.count]
        batches = d[a.count] if a.count else 1
        if batches <= 0:
            return 0
        one = vec_extent(a.shape(d), d[a.step]) if a.role == "vec" else mat_extent(*a.shape(d), d[a.step])
        return one + (batches - 1) * abs(d[a.stride]) if a.stride else one

    # -- interface ---------------------------------------------------------------------------------
    def arg_doc(self, a: Arg) -> str:
        """The interface text of one parameter (``kgb show``, prompts)."""
        t = _TYPE_TEXT[self.dtype]
        w = "written; " if a.out else ""
        if a.role == "flag":
            return FLAG_EXPECTED[a.kind]
        if a.role == "type":
            return "int, a cudaDataType code (§2.3)"
        if a.role == "int":
            return {"inc": "int, may be negative (backwards layout)", "ld": "int (leading dimension >= rows)",
                    "stride": "int, elements between batches", "count": "int, number of batches"}.get(a.kind, "int") \
                + (f"; {a.doc}" if a.doc else "")
        if a.role == "scalar":
            return f"Python {'complex or float' if self.scalar_dtype.is_complex else 'float'} " \
                   f"(rounded to {_TYPE_TEXT[self.scalar_dtype].split(' ')[0]})"
        if a.role == "result":
            return f"written; one-element {t.split(' ')[0]} device tensor (may hold garbage: overwrite it)"
        if a.role == "vec":
            s = f"{w}{t} BLAS vector of length {_shape_text(a)} (raw storage, increment {a.step})"
        elif a.role == "mat":
            s = f"{w}{t} column-major matrix, {_shape_text(a)} (raw storage, leading dimension {a.step})"
            if a.tri:
                s += ", only the uplo triangle " + ("is written" if a.out else "is read")
        else:
            what = (f"column-major matrices {_shape_text(a)} (leading dimension {a.step})" if a.kind == "mat" else
                    f"BLAS vectors of length {_shape_text(a)} (increment {a.step})")
            real = {torch.complex64: "float32", torch.complex128: "float64"}.get(self.dtype)
            et = (f"{str(self.dtype).split('.')[-1]} (interleaved {real} re/im pairs: element k at real words 2k, "
                  f"2k+1)" if real else t)
            s = (f"{w}1-D int64 device tensor of {a.count} device addresses (one per batch) of {et} {what}; load "
                 f"entry b in the kernel and cast it with .to(tl.pointer_type(tl.{real or t})); "
                 + ("the arrays are written in place, the addresses never" if a.out
                    else "read only; entries may repeat"))
        if a.stride:
            s += f"; batch b at b*{a.stride}"
        return s + (f"; {a.doc}" if a.doc else "")

    def interface(self, args_doc: dict[str, str] | None = None) -> Interface:
        """The submission's interface: the spec's parameters, outputs written in place, the return."""
        doc = {a.name: self.arg_doc(a) for a in self.args}
        doc.update(args_doc or {})
        return Interface(function=self.name, params=self.params, written=self.outputs, returns=self.returns,
                         args_doc=doc)


def _shape_text(a: Arg) -> str:
    return getattr(a.shape, "text", "(see the semantics)")


def as_int(routine: str, name: str, v: Any) -> int:
    """``v`` as a Python int; ValueError naming the routine and parameter for floats, bools, others."""
    if type(v) is int:
        return v
    if isinstance(v, bool):
        raise ValueError(f"{routine}: {name} must be an int, got {v!r}")
    import operator

    try:
        return operator.index(v)
    except TypeError:
        raise ValueError(f"{routine}: {name} must be an int, got {type(v).__name__} {v!r}") from None


# ----------------------------------------------------------------------------------------------------
# Trusted side: operand views and expected outputs
# ----------------------------------------------------------------------------------------------------

class Ref:
    """The reference's view of one call (§2.6), from the clone of the inputs the verifier gives it.

    ``ref.v`` holds the flag codes and ints; :meth:`scalar` the rounded scalars; :meth:`vec` /
    :meth:`mat` the fp64/complex128 operands (gathered vectors, (rows, cols) or (batch, rows, cols)
    matrices); :meth:`out` records an output's logical values; :meth:`expected` returns the
    :class:`Expected` list (each output's whole storage with its written-region mask, plus the return
    alias).
    """

    def __init__(self, routine: Routine, call: Call):
        self.r = routine
        self.args = call.args
        #: pointer-array positions -> the batches' element offsets in the tensor there (Call.pointers)
        self.pointers = call.pointers
        #: names the math uses -> the routine's parameter names (:meth:`renamed`)
        self.names: dict[str, str] = {}
        self.v = routine.values(call.args)
        self._out: list[Expected] = []
        #: where the call's tensors live: the reference computes there (a GPU job's tensors are on the GPU)
        self.device = next((a.device for a in call.args if isinstance(a, torch.Tensor)), torch.device("cpu"))

    def rounding(self, values: torch.Tensor, terms: torch.Tensor, text: str
                 ) -> tuple[Tolerance, torch.Tensor | None]:
        """The tolerance of an elementwise fp32 result (README "Tolerance and precision policy", the rounding
        bound; red team 32 R2): for fp32 routines :func:`~kernelgenbench.suite.tolerance.rounding_rule` with
        ``terms`` (fp64, shaped like ``values``: the roundings of an honest fp32 computation, weighted by the
        magnitudes they scale), instead of the spec's absolute ``atol = 1e-4``, which let fp16-rounded results of
        magnitude << 1 pass; other precisions: the spec's :class:`Tolerance`."""
        if self.r.dtype != torch.float32:
            return Tolerance(), None
        return rounding_rule(values.to(torch.float32), terms.to(torch.float64).abs(), text)

    def renamed(self, **names: str) -> "Ref":
        """This view with the math's names mapped to parameter names (``A="Aarray"``): one reference serves
        the strided and the pointer-array batched routines."""
        self.names.update(names)
        return self

    def arg(self, name: str) -> Arg:
        """The declaration of operand ``name`` (after :meth:`renamed`)."""
        return self.r.arg(self.names.get(name, name))

    def get(self, name: str) -> Any:
        return self.args[self.r.position(self.names.get(name, name))]

    def scalar(self, name: str) -> float | complex:
        return round_scalar(self.get(name), self.r.scalar_dtype)

    def _offsets(self, a: Arg, t: torch.Tensor) -> torch.Tensor:
        d = self.v
        if a.role == "result":
            return torch.tensor([t.storage_offset()], device=t.device)
        if a.role == "ptrs":
            base = torch.tensor(self.pointers[self.r.position(a.name)], dtype=torch.int64, device=t.device)
            if a.kind == "vec":
                return t.storage_offset() + base[:, None] + vec_offsets(a.shape(d), d[a.step], t.device)[None, :]
            rows, cols = a.shape(d)
            i = torch.arange(rows, device=t.device)[:, None]
            j = torch.arange(cols, device=t.device)[None, :]
            return t.storage_offset() + base[:, None, None] + (i + j * d[a.step])[None]
        if a.role == "vec":
            o = vec_offsets(a.shape(d), d[a.step], t.device)
            if a.count:
                b = torch.arange(d[a.count], device=t.device)[:, None] * d[a.stride]
                o = b + o[None, :]
            return t.storage_offset() + o
        rows, cols = a.shape(d)
        i = torch.arange(rows, device=t.device)[:, None]
        j = torch.arange(cols, device=t.device)[None, :]
        o = i + j * d[a.step]
        if a.count:
            o = torch.arange(d[a.count], device=t.device)[:, None, None] * d[a.stride] + o[None]
        return t.storage_offset() + o

    def operand(self, name: str) -> torch.Tensor:
        """The operand ``name`` in the reference dtype: vector (n,) or (batch, n); matrix (rows, cols) or
        (batch, rows, cols); result (1,)."""
        a = self.arg(name)
        t = self.get(name)
        return storage_view(t)[self._offsets(a, t)].to(self.r.ref_dtype)

    vec = mat = operand

    def out(self, name: str, values: torch.Tensor, tol: Tolerance, *, region: torch.Tensor | None = None,
            atol_extra: torch.Tensor | None = None) -> None:
        """Record output ``name``: ``values`` shaped like :meth:`operand` (cast to the storage dtype);
        ``region`` (same shape, bool) limits what is written (a triangle); elsewhere the storage must stay
        bit-identical. ``atol_extra``: elementwise allowance shaped like ``values``."""
        a = self.arg(name)
        t = self.get(name)
        flat = storage_view(t)
        exp = flat.clone()
        off = self._offsets(a, t)
        vals = values.to(self.r.dtype)
        if region is not None:
            region = region.expand(off.shape)
            off, vals = off[region], vals.expand(region.shape)[region]
            if atol_extra is not None:
                atol_extra = atol_extra.expand(region.shape)[region]
        off = off.reshape(-1)
        exp[off] = vals.reshape(-1)
        mask = torch.zeros(flat.numel(), dtype=torch.bool, device=t.device)
        mask[off] = True
        extra = None
        if atol_extra is not None:
            full = torch.zeros(flat.numel(), dtype=torch.float64, device=t.device)
            full[off] = atol_extra.reshape(-1).double()
            extra = full[mask]
        self._out.append(Expected(f"arg.{self.r.position(a.name)}", exp, tol, mask, atol_extra=extra,
                                  index_of=self._index_of(a, t)))

    def _index_of(self, a: Arg, t: torch.Tensor) -> Callable[[int], tuple[int, ...] | None]:
        """:attr:`Expected.index_of` of output ``a``: the BLAS index of the element at a storage offset,
        ``(i,)`` for a vector, ``(row, column)`` for a matrix, the batch first where there is one; the
        offsets are recomputed only when a message needs them."""
        def index_of(pos: int) -> tuple[int, ...] | None:
            hit = torch.nonzero(self._offsets(a, t) == pos)
            return tuple(int(x) for x in hit[0]) if hit.numel() else None
        return index_of

    def unchanged(self, name: str) -> None:
        """Output ``name`` stays bit-identical (a quick return)."""
        t = self.get(name)
        exp = storage_view(t).clone()
        self._out.append(Expected(f"arg.{self.r.position(self.arg(name).name)}", exp, Tolerance(exact=True),
                                  torch.zeros(exp.numel(), dtype=torch.bool, device=t.device)))

    def expected(self) -> list[Expected]:
        ret = f"arg.{self.r.position(self.r.returns)}"
        return self._out + [Expected("return", None, Tolerance(), alias=ret)]


# ----------------------------------------------------------------------------------------------------
# Case builder
# ----------------------------------------------------------------------------------------------------

def randn(shape: Any, dtype: torch.dtype, gen: torch.Generator, device: torch.device,
          complex_parts: str = "unit") -> torch.Tensor:
    """``torch.randn`` of ``dtype``; complex: ``unit`` = each part variance 1 (``randn + 1j*randn``),
    ``half`` = torch's complex randn (each part variance 1/2) (§2.8)."""
    if dtype.is_complex and complex_parts == "unit":
        real = torch.float32 if dtype == torch.complex64 else torch.float64
        pair = torch.randn(*(shape if isinstance(shape, tuple) else (shape,)), 2, generator=gen, device=device,
                           dtype=real)
        return torch.view_as_complex(pair)
    return torch.randn(shape, generator=gen, device=device, dtype=dtype)


#: Elements of untouched memory before the first and after the last array of a pointer-array tensor (build_call), at
#: least (one array's length where that is more: red team 27): a kernel that stores outside its arrays (one vector
#: past y_b, or before it with a negative increment, or a whole array off) writes into them and fails the untouched
#: check instead of landing, unseen, in another allocation on a GPU.
PTR_GUARD = 64


def build_call(routine: Routine, p: dict[str, Any], device: torch.device, gen: torch.Generator,
               *, fill: Callable[[str, torch.Tensor], None] | None = None) -> Call:
    """The arguments of one case from its parameters, in declaration order.

    Ints and flags come from ``p`` by name; a missing leading dimension is the stored rows plus
    ``p["pad"]`` (0 by default); a missing stride is the batch's extent plus ``p["gap"]``. Every array
    gets the fewest elements its BLAS parameters address (``p["slack"]`` more), drawn with ``randn`` in
    declaration order (complex parts per ``p["cparts"]``). ``result`` arrays are zeros, or NaN with
    ``p["nan_result"]``. ``p["poison"]`` fills the memory of outputs outside their logical region
    (vector gaps, padding rows) with the poison NaN, which must survive bit for bit. ``fill(name, t)``
    then adjusts arrays (NaN in operands that must not be read, triangular data, ...).

    Pointer arrays (``ptrs``, §2.2): the batches' arrays lie in one tensor in a random order, each slot
    ``p["gap"]`` elements after the previous one's extent, between guard bands of :data:`PTR_GUARD` elements (or
    one array's length, if more) at both ends of the tensor (the gaps and guards are memory an output must leave
    untouched: a store just before or past an array lands in memory the verifier compares, on a GPU too, where
    nothing faults); names in
    ``p["shared"]`` (inputs only) get one array that every entry points to. The position holds that tensor
    and ``Call.pointers`` the offsets; ``fill`` sees the tensor.
    """
    d: dict[str, Any] = {}
    call_args: list[Any] = [None] * len(routine.args)
    for i, a in enumerate(routine.args):
        if a.role in ("flag", "int", "type", "scalar") and a.name in p:
            call_args[i] = p[a.name]
    codes = {}
    for i, a in enumerate(routine.args):
        if a.role == "flag":
            codes[a.name] = flag_code(a.kind, call_args[i], a.name, routine.name)
        elif a.role in ("int", "type") and call_args[i] is not None:
            codes[a.name] = int(call_args[i])
    d.update(codes)
    for a in routine.args:                                       # derived leading dimensions and strides
        if a.role == "mat" and d.get(a.step) is None:
            d[a.step] = max(1, a.shape(d)[0] + p.get("pad", 0))
            call_args[routine.position(a.step)] = d[a.step]
    for a in routine.args:
        if a.stride and d.get(a.stride) is None:
            one = vec_extent(a.shape(d), d[a.step]) if a.role == "vec" else mat_extent(*a.shape(d), d[a.step])
            d[a.stride] = one + p.get("gap", 0)
            call_args[routine.position(a.stride)] = d[a.stride]
    for a in routine.args:                                       # derived leading dimensions of pointer arrays
        if a.role == "ptrs" and a.kind == "mat" and d.get(a.step) is None:
            d[a.step] = max(1, a.shape(d)[0] + p.get("pad", 0))
            call_args[routine.position(a.step)] = d[a.step]
    missing = [a.name for a, v in zip(routine.args, call_args) if v is None and not a.is_array]
    if missing:
        raise ValueError(f"cublas::{routine.name}: case {p} lacks parameter(s) {', '.join(missing)}")
    pointers: dict[int, tuple[int, ...]] = {}
    for i, a in enumerate(routine.args):
        if a.role == "ptrs":
            one = vec_extent(a.shape(d), d[a.step]) if a.kind == "vec" else mat_extent(*a.shape(d), d[a.step])
            shared = a.name in p.get("shared", ())
            if shared and a.out:
                raise ValueError(f"cublas::{routine.name}: output pointer array {a.name} cannot be shared "
                                 f"(output arrays are distinct, §2.2)")
            span = one + p.get("gap", 0)
            nb = max(0, d[a.count])
            guard = max(PTR_GUARD, one)  # at least one array's length: a store one array too far is seen
            n = guard + (one if shared else span * nb) + guard + p.get("slack", 0)
            t = randn(max(1, n), routine.dtype, gen, device, p.get("cparts", "unit"))
            # batch b's array is slot order[b] of the tensor: a random order, so no kernel can take the
            # arrays for a strided batch from the first address
            order = torch.randperm(nb, generator=gen, device=device).tolist() if nb > 1 and not shared else range(nb)
            pointers[i] = tuple(guard + (0 if shared else order[b] * span) for b in range(nb))
            if a.out and p.get("poison"):
                keep = storage_view(t).clone()
                poison_(t)
                ref = Ref(routine, Call(call_args[:i] + [t] + call_args[i + 1:], pointers=pointers))
                ref.v = d
                off = ref._offsets(a, t).reshape(-1)
                t.view(-1)[off] = keep[off]
            call_args[i] = t
            continue
        if not a.is_array:
            continue
        if a.role == "result":
            t = torch.zeros(1, dtype=routine.dtype, device=device)
            if p.get("nan_result"):
                t.fill_(float("nan"))
        else:
            t = randn(routine.extent(a, d) + p.get("slack", 0), routine.dtype, gen, device, p.get("cparts", "unit"))
            if a.out and p.get("poison"):
                keep = storage_view(t).clone()
                poison_(t)
                ref = Ref(routine, Call(call_args[:i] + [t] + call_args[i + 1:]))
                ref.v = d
                off = ref._offsets(a, t).reshape(-1)
                t.view(-1)[off] = keep[off]
        call_args[i] = t
    if fill is not None:
        for i, a in enumerate(routine.args):
            if a.is_array:
                fill(a.name, call_args[i])
    for name in p.get("nan", ()):
        call_args[routine.position(name)].fill_(float("nan"))
    return Call(call_args, written=tuple(routine.position(n) for n in routine.outputs), pointers=pointers)


def quick_cases(routine: Routine, base: dict[str, Any], only: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """One case per not-read rule of ``routine`` (§2.5, :attr:`Routine.not_read`; ``only``: the rules of these
    scalars): ``base`` with that scalar 0 and ``nan`` naming the operands it must not read (``base``'s other
    scalars should be non-zero, so the result still depends on what is read)."""
    return [{**base, scalar_name: 0.0, "nan": tuple(operands)}
            for scalar_name, operands in routine.not_read if only is None or scalar_name in only]


#: Every declared routine by name (filled by :func:`declare` as the level modules are imported).
ROUTINES: dict[str, Routine] = {}


def declare(r: Routine) -> Routine:
    """Register routine declaration ``r`` (once per name) and return it."""
    if r.name in ROUTINES:
        raise RuntimeError(f"routine {r.name} is declared twice")
    ROUTINES[r.name] = r
    return r
