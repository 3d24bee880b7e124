"""The numbers an NVIDIA GPU computes, where Triton 3.6's CPU interpreter computes others (installed by the
child on the interpreter platform, with the other interpreter patches of ``sandbox/interpreter.py``).

* ``tl.dot`` of fp32 operands at input precision ``"tf32"`` (Triton's default on NVIDIA GPUs) rounds its
  operands to TF32 as the tensor cores do (:func:`_tf32_dot`): the interpreter computed it in exact fp32, so a
  kernel that left the default on an fp32 operator passed on the CPU and failed on the GPU.
* Conversions to and from fp8 (``tl.float8e4nv``, ``tl.float8e5``) are exact (:func:`_exact_fp8_conversions`):
  the interpreter rounded ties up, carried into the wrong exponent, truncated subnormals and neither saturated
  nor knew e4m3fn's NaN; here they round to nearest even and saturate as the GPU's ``cvt.rn.satfinite`` does.
* bf16 arithmetic (:func:`_bf16_arithmetic`): the interpreter keeps bf16 values as their 16-bit patterns and
  computed on the patterns as integers (``bf16 + bf16`` was an integer sum of bit patterns), converted fp32 to
  bf16 by truncation and reduced bit patterns. Here every operation on bf16 computes on the values in fp32 and
  rounds the result to bf16 to nearest even, as the GPU's bf16 instructions (or its fp32 ones followed by
  ``cvt.rn.bf16.f32``) do: elementwise arithmetic, comparisons, math functions, fma, clamp, conversions,
  ``tl.dot`` (fp32 products and sums of bf16 operands), the sum, min/max and cumulative reductions (a bf16 sum
  adds pairwise, rounding every partial sum to bf16, as a GPU's tree of bf16 additions does) and atomic adds,
  min/max and exchanges.
* Python ``float`` launch arguments are fp32 scalars (:func:`_fp32_float_args`), as the GPU's launcher types
  them (``mangle_type(float) == "fp32"``): the interpreter handed them to the kernel as Python floats, which
  Triton treats as weakly typed constants, so ``fp64_value * scale`` kept ``scale`` in full precision (an fp64
  mean scaled by ``1/N`` passed on the CPU and failed on the GPU) and ``fp16_value * scale`` stayed fp16.
* libdevice functions that ``tl.math`` lacks (:func:`_libdevice_numpy`): the interpreter runs no extern call; the
  common elementwise ones (``tanh``, ``pow``, ``log1p``, ``isnan``, ...) are computed with NumPy after Triton's own
  libdevice wrapper has type-checked and broadcast the operands, as it does for a GPU.

Everything here is plain NumPy on the interpreter's arrays: no torch op runs inside a traced candidate call.
"""
from __future__ import annotations

from typing import Any


def install_gpu_numerics() -> None:
    """Install every patch of this module into Triton's interpreter (idempotent)."""
    _tf32_dot()
    _exact_fp8_conversions()
    _bf16_arithmetic()
    _fp32_float_args()
    _int1_wrapping()
    _maxnum_minnum()
    _libdevice_numpy()


def _libdevice_table() -> dict[str, Any]:
    """libdevice functions outside ``tl.math`` that NumPy computes on the interpreter (false-rejection hunt 36):
    name (the CUDA symbol less ``__nv_`` and its ``f``/``d`` suffix) -> function of the operands' arrays. Triton's
    libdevice wrapper has already checked the operand types (fp32/fp64; ``fast_*`` fp32 only), broadcast them and
    chosen the result type, exactly as it does for a GPU; these compute in the operands' precision or better, within
    a few ulp of libdevice's own (``fast_*`` are approximations on a GPU, computed exactly here)."""
    import math

    import numpy as np

    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    return {
        "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
        "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "expm1": np.expm1,
        "log1p": np.log1p, "log10": np.log10, "exp10": lambda x: np.power(10.0, x), "cbrt": np.cbrt,
        "rcbrt": lambda x: 1.0 / np.cbrt(x), "erfc": erfc,
        "fast_expf": np.exp, "fast_logf": np.log, "fast_log2f": np.log2, "fast_log10f": np.log10,
        "fast_exp10f": lambda x: np.power(10.0, x), "fast_sinf": np.sin, "fast_cosf": np.cos, "fast_tanf": np.tan,
        "isnan": np.isnan, "isinf": np.isinf, "finite": np.isfinite, "isfinite": np.isfinite, "signbit": np.signbit,
        "pow": np.power, "powi": np.power, "fast_powf": np.power, "atan2": np.arctan2, "hypot": np.hypot,
        "fmod": np.fmod, "copysign": np.copysign, "nextafter": np.nextafter, "fast_fdividef": np.divide,
        # (tp43) rounding to an int64 result (bitsandbytes' int8 quantization rounds with ``llrint``): exact, the
        # result type Triton chose casts the integral value
        "llrint": np.rint, "llround": _round_half_away,
    }


def _round_half_away(x: Any) -> Any:
    """C's ``round``/``llround``: to the nearest integral value, halves away from zero (exact for any float)."""
    import numpy as np

    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x), t)


def _libdevice_numpy() -> None:
    """Triton 3.6's interpreter runs no libdevice call (``create_extern_elementwise`` raises NotImplementedError), so
    a kernel calling ``libdevice.tanh`` (GELU), ``pow``, ``log1p``, ``isnan``, ... was ``unsupported`` on the CPU,
    never judged there. The calls of :func:`_libdevice_table` are computed with NumPy; any other symbol raises
    Triton's own NotImplementedError as before (an interpreter limit)."""
    import numpy as np
    from triton.runtime import interpreter as interp

    B = interp.InterpreterBuilder
    orig = B.create_extern_elementwise
    if getattr(orig, "_kgb_numpy", False):
        return
    table = _libdevice_table()

    def create_extern_elementwise(self, libName, libPath, symbol, argList, retType, isPure):
        name = symbol[len("__nv_"):] if symbol.startswith("__nv_") else None
        fn = None
        for key in (name, name and name[:-1] if name and name[-1] in "fd" else None):
            if key and key in table and all(type(a) is interp.TensorHandle for a in argList):
                fn = table[key]
                break
        if fn is None:
            return orig(self, libName, libPath, symbol, argList, retType, isPure)
        scalar = getattr(retType, "scalar", retType)
        with np.errstate(all="ignore"):
            data = np.asarray(fn(*(a.data for a in argList))).astype(interp._get_np_dtype(scalar))
        return interp.TensorHandle(data, scalar)

    create_extern_elementwise._kgb_numpy = True  # type: ignore[attr-defined]
    B.create_extern_elementwise = create_extern_elementwise


def _maxnum_minnum() -> None:
    """``tl.maximum``/``tl.minimum`` with the default ``propagate_nan=NONE`` (``arith.maxnumf``/``minnumf``) return
    the other operand where one is NaN, as LLVM's ``maxnum``/``minnum`` and the GPU's ``max.f32``/``min.f32`` do
    (NumPy's ``fmax``/``fmin``); Triton 3.6's interpreter computed them with ``np.maximum``/``np.minimum``, which
    propagate NaN, so an ``fmax`` kernel correct on a GPU failed on the CPU and a ``hardsigmoid`` that loses NaN
    on a GPU passed (false-rejection hunt 29). ``tl.clamp`` with ``propagate_nan=NONE`` lowers to ``maxnum`` then
    ``minnum`` (a NaN ``x`` gives ``lo``); with ``ALL`` it keeps NaN (the interpreter's ``np.clip``, kept).
    ``propagate_nan=ALL`` min/max (``maximumf``/``minimumf``) are unchanged."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp

    B = interp.InterpreterBuilder
    if getattr(B.create_maxnumf, "_kgb_maxnum", False):
        return

    def create_maxnumf(self, lhs, rhs):
        return self.binary_op(lhs, rhs, np.fmax)

    def create_minnumf(self, lhs, rhs):
        return self.binary_op(lhs, rhs, np.fmin)

    orig_clamp = B.create_clampf

    def create_clampf(self, arg, lo, hi, propagate_nans):
        if propagate_nans == tl.PropagateNan.ALL or str(propagate_nans).endswith("ALL"):
            return orig_clamp(self, arg, lo, hi, propagate_nans)
        return self.create_minnumf(self.create_maxnumf(arg, lo), hi)

    for f in (create_maxnumf, create_minnumf, create_clampf):
        f._kgb_maxnum = True  # type: ignore[attr-defined]
    B.create_maxnumf, B.create_minnumf, B.create_clampf = create_maxnumf, create_minnumf, create_clampf


def _fp32_float_args() -> None:
    """Hand a kernel's non-constexpr Python ``float`` arguments to its body as fp32 scalar tensors, rounded to
    fp32 (to nearest; beyond fp32's range: infinity), as Triton's GPU launcher does, and ``bool`` arguments as
    int1 scalars (Triton 3.6's interpreter raised on a runtime ``bool`` argument, which a GPU takes as ``i1``);
    constexpr arguments are untouched (the interpreter never converts those)."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp

    orig = interp._implicit_cvt
    if getattr(orig, "_kgb_fp32", False):
        return

    def _implicit_cvt(arg):
        if isinstance(arg, bool):  # the interpreter built a 32-bit array for an int1 value and raised
            return tl.tensor(interp.TensorHandle(np.array([arg], dtype=np.bool_), tl.int1), tl.int1)
        if isinstance(arg, float):
            with np.errstate(over="ignore"):
                data = np.array([arg], dtype=np.float32)
            return tl.tensor(interp.TensorHandle(data, tl.float32), tl.float32)
        return orig(arg)

    _implicit_cvt._kgb_fp32 = True  # type: ignore[attr-defined]
    interp._implicit_cvt = _implicit_cvt
    _gpu_constexpr_params(interp.GridExecutor)


def _int1_wrapping() -> None:
    """Integer addition and subtraction of two int1 values wrap modulo 2, as the GPU's ``i1`` arithmetic does
    (``True + True == False``; LLVM ``add i1``): NumPy's bool ``+`` is a logical or (``True + True == True``) and
    its bool ``-`` raises. Triton types ``a + b`` of two int1 values (comparisons, runtime ``bool`` arguments)
    as int1, so the interpreter gave 1 where a GPU gives 0 (red team 27)."""
    import numpy as np
    from triton.runtime import interpreter as interp

    B = interp.InterpreterBuilder
    if getattr(B.create_add, "_kgb_int1", False):
        return

    def wrap(orig):
        def method(self, lhs, rhs):
            _orig = orig
            if lhs.data.dtype == np.bool_ and rhs.data.dtype == np.bool_:
                return interp.TensorHandle(np.logical_xor(lhs.data, rhs.data), lhs.dtype.scalar)
            return _orig(self, lhs, rhs)

        method._kgb_int1 = True  # type: ignore[attr-defined]
        return method

    B.create_add = wrap(B.create_add)
    B.create_sub = wrap(B.create_sub)


def _gpu_constexpr_params(grid_executor: type) -> None:
    """Which parameters the interpreter leaves untouched as constexprs: those the GPU's ``KernelParam`` takes as
    constexpr (``"constexpr" in`` the normalized annotation), not only an annotation that normalizes to exactly
    ``"constexpr"``. Triton 3.6's interpreter compares with ``==``, so ``ALPHA: "triton.language.constexpr"``
    (the string ``from __future__ import annotations`` makes of ``triton.language.constexpr``) was a constexpr on
    a GPU (a weakly typed Python float: exact in an fp64 product) and an fp32 scalar here (red team 27: an honest
    fp64 aten::mean scaled by such a constexpr 1/N failed as wrong_result on the interpreter only; an int
    ``BLOCK`` spelled so made ``tl.arange`` raise)."""
    from triton.runtime.jit import _normalize_ty

    orig_init = grid_executor.__init__
    if getattr(orig_init, "_kgb_constexprs", False):
        return

    def __init__(self, fn, arg_names, *a, **k):
        _orig = orig_init
        _orig(self, fn, arg_names, *a, **k)
        ann = getattr(fn, "__annotations__", {}) or {}
        self.constexprs = [name for name in arg_names
                           if name in ann and ann[name] is not None and "constexpr" in _normalize_ty(ann[name])]

    __init__._kgb_constexprs = True  # type: ignore[attr-defined]
    grid_executor.__init__ = __init__


def tf32_round(x: Any) -> Any:
    """fp32 values (a numpy float32 array) rounded to TF32 (10 explicit mantissa bits, fp32's exponent),
    to nearest with ties to even; NaN and infinities unchanged (a rounding that carries into the exponent gives
    infinity, as it must). Of the roundings the hardware might use (round to nearest, or dropping the 13 low
    bits) this one errs least, so a kernel that fails with it fails on the GPU as well."""
    import numpy as np

    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0xFFF) + ((bits >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    keep = (bits & np.uint32(0x7F800000)) == np.uint32(0x7F800000)  # NaN, inf: as they are
    return np.where(keep, bits, rounded).view(np.float32)


def _tf32_dot() -> None:
    """Triton 3.6's interpreter computes ``tl.dot`` of fp32 operands in exact fp32 whatever its input
    precision. On NVIDIA GPUs the default (``input_precision="tf32"``, also ``allow_tf32=True``; the
    ``TRITON_F32_DEFAULT`` knob sets the default) runs the tensor cores on TF32 operands: 10 mantissa bits,
    an error of up to 2^-11 per operand. Here the operands of such a dot are rounded to TF32 first
    (:func:`tf32_round`); ``"ieee"`` and ``"tf32x3"`` (fp32-accurate) stay exact, and operands of other types
    are untouched (fp16 and bf16 values are exact in TF32)."""
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    orig = InterpreterBuilder.create_dot
    if getattr(orig, "_kgb_tf32", False):
        return

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if getattr(input_precision, "name", str(input_precision)).upper() == "TF32":
            if a.data.dtype == np.float32:
                a = type(a)(tf32_round(a.data), a.dtype)
            if b.data.dtype == np.float32:
                b = type(b)(tf32_round(b.data), b.dtype)
        return orig(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._kgb_tf32 = True  # type: ignore[attr-defined]
    InterpreterBuilder.create_dot = create_dot


#: Triton fp8 type name -> (exponent bits, mantissa bits, exponent bias, largest finite magnitude, NaN code,
#: whether the all-ones exponent is Inf/NaN as in IEEE): e4m3fn (torch.float8_e4m3fn: no infinities, NaN only
#: at S.1111.111) and e5m2 (torch.float8_e5m2: IEEE-like).
FP8_TYPES = {"fp8e4nv": (4, 3, 7, 448.0, 0x7F, False), "fp8e5": (5, 2, 15, 57344.0, 0x7F, True)}


def fp8_decode_table(name: str) -> Any:
    """The value of each of the 256 codes of fp8 type ``name`` (a key of :data:`FP8_TYPES`), as numpy float32."""
    import numpy as np

    ebits, mbits, bias, _, _, ieee = FP8_TYPES[name]
    code = np.arange(256, dtype=np.int64)
    sign = np.where(code >> 7, -1.0, 1.0)
    e = (code >> mbits) & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    val = np.where(e == 0, m * 2.0 ** (1 - bias - mbits), (1 + m / 2.0 ** mbits) * 2.0 ** (e - bias)) * sign
    if ieee:
        top = e == (1 << ebits) - 1
        val = np.where(top & (m == 0), sign * np.inf, np.where(top, np.nan, val))
    else:
        val = np.where((code & 0x7F) == 0x7F, np.nan, val)
    return val.astype(np.float32)


def fp8_encode(x: Any, name: str) -> Any:
    """Values ``x`` (a numpy float array) converted to fp8 type ``name`` as an NVIDIA GPU's ``cvt.rn.satfinite``
    does (PTX ISA, cvt: fp8 destinations exist only with ``.satfinite``): rounded to nearest even; a finite value
    beyond the largest fp8 magnitude, or an infinity, becomes that magnitude with its sign; NaN gives the NaN
    code. Returns the codes, numpy uint8 of x's shape. Plain numpy (no torch op: it runs inside traced
    candidate calls)."""
    import numpy as np

    ebits, mbits, bias, top, nan_code, _ = FP8_TYPES[name]
    x = np.asarray(x, dtype=np.float64)
    a = np.minimum(np.abs(np.where(np.isnan(x), 0.0, x)), top)
    _, exp2 = np.frexp(a)                                # a = f * 2**exp2, 0.5 <= f < 1
    e = np.maximum(exp2 - 1, 1 - bias)                   # the binade (subnormals share the smallest one)
    q = np.ldexp(1.0, e - mbits)                         # the spacing of fp8 values there
    r = np.rint(a / q) * q                               # exact division by a power of two; rint: ties to even
    table = fp8_decode_table(name)[:128].astype(np.float64)
    finite = np.flatnonzero(np.isfinite(table))
    code = finite[np.searchsorted(table[finite], r)].astype(np.uint8)
    code = np.where(np.signbit(x), code | np.uint8(0x80), code)
    return np.where(np.isnan(x), np.uint8(nan_code), code).astype(np.uint8)


def _exact_fp8_conversions() -> None:
    """Conversions from and to ``tl.float8e4nv`` / ``tl.float8e5`` (the types of torch's ``float8_e4m3fn`` and
    ``float8_e5m2``): widening by table (exact), narrowing by :func:`fp8_encode` (round to nearest even,
    saturating). Other conversions, and fp8 narrowing with an explicit rounding mode other than round to
    nearest even, stay the interpreter's own."""
    import numpy as np
    import triton.runtime.interpreter as interp

    orig = interp._convert_float
    if getattr(orig, "_kgb_fp8", False):
        return
    rtne = interp._ir.ROUNDING_MODE.RTNE
    tables = {n: fp8_decode_table(n) for n in FP8_TYPES}

    def to_float64(data: Any, name: str) -> Any:
        data = np.ascontiguousarray(data)
        if name in tables:
            return tables[name][data.view(np.uint8)].astype(np.float64)
        if name == "bf16":
            return bf16_decode(data).astype(np.float64)
        if name in ("fp16", "fp32", "fp64"):
            return data.view({"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}[name]).astype(np.float64)
        return None

    def convert(input, input_dtype, output_dtype, rounding_mode):
        src, dst = input_dtype.name, output_dtype.name
        low = (*tables, "bf16")
        if not (src in low or dst in low) or (dst in tables and rounding_mode not in (None, rtne)):
            return orig(input, input_dtype, output_dtype, rounding_mode)
        x = to_float64(input, src)
        if x is None or dst not in (*tables, "fp16", "fp32", "fp64", "bf16"):
            return orig(input, input_dtype, output_dtype, rounding_mode)
        shape = np.shape(input)
        if dst in tables:
            return fp8_encode(x, dst).reshape(shape)
        if dst == "bf16":
            if src == "fp64":  # round once, from the fp64 value
                return bf16_encode_f64(x).reshape(shape)
            x32 = x.astype(np.float32)  # exact: fp16, fp32 and fp8 values are fp32 values
            return (bf16_truncate(x32) if rounding_mode not in (None, rtne) else bf16_encode(x32)).reshape(shape)
        return x.astype({"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}[dst]).reshape(shape)

    convert._kgb_fp8 = True  # type: ignore[attr-defined]
    interp._convert_float = convert


# ------------------------------------------------------------------------------------------------------ bf16
def bf16_decode(bits: Any) -> Any:
    """bf16 bit patterns (numpy uint16, the interpreter's storage of bf16) to their values, numpy float32 (exact)."""
    import numpy as np

    return (np.asarray(bits).astype(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def bf16_encode(x: Any) -> Any:
    """fp32 values to bf16 bit patterns (numpy uint16), rounded to nearest even as ``cvt.rn.bf16.f32``: NaN stays
    a (quiet) NaN with its sign, a value past bf16's largest rounds to infinity."""
    import numpy as np

    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = ((bits >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint32)
    return np.where(np.isnan(np.asarray(x, dtype=np.float32)), nan, rounded).astype(np.uint16)


def bf16_encode_f64(x: Any) -> Any:
    """fp64 values to bf16 bit patterns, rounded once to nearest even (no double rounding through fp32)."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        return _bf16_encode_f64(x)


def _bf16_encode_f64(x: Any) -> Any:
    import numpy as np

    lo = bf16_truncate(x.astype(np.float32))  # toward zero from the fp32 value: at or below |x| in magnitude...
    lo = np.where(np.abs(bf16_decode(lo).astype(np.float64)) > np.abs(x), lo - np.uint16(1), lo)  # ...for sure
    hi = lo + np.uint16(1)
    vlo, vhi = bf16_decode(lo).astype(np.float64), bf16_decode(hi).astype(np.float64)
    dlo, dhi = np.abs(x - vlo), np.abs(vhi - x)
    pick = np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(lo & np.uint16(1), hi, lo)))
    special = ~np.isfinite(x) | (x == 0)
    return np.where(special, bf16_encode(x.astype(np.float32)), pick).astype(np.uint16)


def bf16_truncate(x: Any) -> Any:
    """fp32 values to bf16 bit patterns rounded toward zero (``fp_downcast_rounding="rtz"``); NaN stays NaN."""
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    bits = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(x), bits | np.uint16(0x40), bits).astype(np.uint16)


def _is_bf16(handle: Any) -> bool:
    return getattr(getattr(handle, "dtype", None), "scalar", None) is not None and handle.dtype.scalar.name == "bf16"


def _bf16_arithmetic() -> None:
    """Compute every interpreter operation on bf16 values in fp32 and round the result to bf16 (module notes)."""
    import numpy as np
    import triton.language as tl
    import triton.runtime.interpreter as interp

    B = interp.InterpreterBuilder
    if getattr(B.binary_op, "_kgb_bf16", False):
        return
    TH = interp.TensorHandle
    dec, enc = bf16_decode, bf16_encode

    def out(values: Any) -> Any:
        return TH(np.asarray(enc(values)), tl.bfloat16) if np.asarray(values).dtype != np.bool_ else \
            TH(np.asarray(values), tl.int1)

    orig_binary, orig_unary, orig_ternary = B.binary_op, B.unary_op, B.ternary_op

    def binary_op(self, lhs, rhs, op):
        if _is_bf16(lhs) and _is_bf16(rhs):
            with np.errstate(all="ignore"):
                return out(op(dec(lhs.data), dec(rhs.data)))
        return orig_binary(self, lhs, rhs, op)

    def unary_op(self, arg, op):
        if _is_bf16(arg):
            with np.errstate(all="ignore"):
                return out(op(dec(arg.data)).astype(np.float32))
        return orig_unary(self, arg, op)

    def ternary_op(self, lhs, rhs, other, op):
        if op is np.clip and _is_bf16(lhs):  # create_clampf
            return out(np.clip(dec(lhs.data), dec(rhs.data), dec(other.data)))
        return orig_ternary(self, lhs, rhs, other, op)

    orig_fma, orig_erf, orig_rsqrt = B.create_fma, B.create_erf, B.create_rsqrt

    def create_fma(self, x, y, z):
        if _is_bf16(z):
            return out(dec(x.data).astype(np.float64) * dec(y.data) + dec(z.data))
        return orig_fma(self, x, y, z)

    def create_erf(self, arg):
        if _is_bf16(arg):
            return out(interp.np_erf_fp32(dec(arg.data)))
        return orig_erf(self, arg)

    def create_rsqrt(self, arg):
        if _is_bf16(arg):
            with np.errstate(all="ignore"):
                return out(np.float32(1) / np.sqrt(dec(arg.data)))
        return orig_rsqrt(self, arg)

    orig_cast = B.cast_impl

    def cast_impl(self, src, dst_type):
        s_bf, d_bf = _is_bf16(src), dst_type.scalar.name == "bf16"
        if not (s_bf or d_bf):
            return orig_cast(self, src, dst_type)
        if s_bf and d_bf:
            return TH(src.data, tl.bfloat16)
        if s_bf:  # to an integer or a float type: from the value
            v = dec(src.data)
            with np.errstate(all="ignore"):
                return TH(v.astype(interp._get_np_dtype(dst_type)), dst_type.scalar)
        v = src.data
        if v.dtype == np.float64:
            return TH(bf16_encode_f64(v), tl.bfloat16)
        return TH(enc(v.astype(np.float32)), tl.bfloat16)  # integers: rounded to fp32 first (exact below 2**24)

    orig_dot = B.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if _is_bf16(a) or _is_bf16(b):  # bf16 products are exact in fp32; the sum accumulates in fp32
            a = TH(dec(a.data), tl.float32) if _is_bf16(a) else a
            b = TH(dec(b.data), tl.float32) if _is_bf16(b) else b
            if _is_bf16(d):
                r = orig_dot(self, a, b, TH(dec(d.data), tl.float32), interp._ir.INPUT_PRECISION.IEEE,
                             max_num_imprecise_acc)
                return out(r.data)
            return orig_dot(self, a, b, d, interp._ir.INPUT_PRECISION.IEEE, max_num_imprecise_acc)
        return orig_dot(self, a, b, d, input_precision, max_num_imprecise_acc)

    orig_rmw = B.create_atomic_rmw

    def create_atomic_rmw(self, rmwOp, ptr, val, mask, sem, scope):
        if not _is_bf16(val):
            return orig_rmw(self, rmwOp, ptr, val, mask, sem, scope)
        name = str(getattr(rmwOp, "name", rmwOp)).upper()
        fn = {"FADD": np.add, "MAX": np.maximum, "MIN": np.minimum, "XCHG": lambda old, v: v}.get(name)
        if fn is None:
            return orig_rmw(self, rmwOp, ptr, val, mask, sem, scope)
        ptrs = np.array(np.broadcast_to(ptr.data, np.shape(val.data)), dtype=np.uint64).reshape(-1)
        vals = np.array(val.data, dtype=np.uint16).reshape(-1)
        live = np.array(np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(val.data))).reshape(-1)
        old = np.zeros(vals.shape, dtype=np.uint16)
        one = np.ones(1, dtype=bool)
        for i in np.flatnonzero(live):  # one element at a time, in order: repeated addresses accumulate
            cur = interp._interpreter.load(ptrs[i:i + 1], one, np.zeros(1, dtype=np.uint16), np.dtype(np.uint16))
            old[i] = cur[0]
            with np.errstate(all="ignore"):
                new = enc(fn(dec(cur), dec(vals[i:i + 1])))
            interp._interpreter.store(ptrs[i:i + 1], new, one)
        return TH(old.reshape(np.shape(val.data)), tl.bfloat16)

    # reductions and scans with a NumPy fast path (on the bit patterns, for bf16)
    R, S = interp.ReduceOps, interp.ScanOps
    orig_sum, orig_min_max, orig_cumsum, orig_cumprod = R.sum, R.min_max, S.cumsum, S.cumprod

    def tree_sum(v: Any, axis: int | None, keepdims: bool) -> Any:
        ndim = v.ndim
        v = v.reshape(-1) if axis is None else np.moveaxis(v, axis, -1)
        while v.shape[-1] > 1:  # adjacent pairs, every partial sum rounded to bf16
            n = v.shape[-1]
            s = dec(enc(v[..., 0:n - n % 2:2] + v[..., 1:n - n % 2:2]))
            v = np.concatenate([s, v[..., n - 1:]], axis=-1) if n % 2 else s
        r = v[..., 0]
        if axis is None:
            return r.reshape((1,) * ndim) if keepdims else r
        return np.expand_dims(r, axis) if keepdims else r

    def r_sum(self, input):
        if not _is_bf16(input.handle):
            return orig_sum(self, input)
        with np.errstate(all="ignore"):
            res = tree_sum(dec(input.handle.data), self.axis, self.keep_dims)
        return self.to_tensor(enc(res), input.dtype)

    def r_min_max(self, input, val_reduce_op, idx_reduce_op=None):
        x = input[0] if isinstance(input, tuple) else input
        if not _is_bf16(x.handle):
            return orig_min_max(self, input, val_reduce_op, idx_reduce_op)
        v = dec(x.handle.data)
        val = idx = None
        if val_reduce_op:
            val = self.to_tensor(enc(val_reduce_op(v, axis=self.axis, keepdims=self.keep_dims)), x.dtype)
        if idx_reduce_op:
            idx = self.to_tensor(idx_reduce_op(v, axis=self.axis, keepdims=self.keep_dims), tl.int32)
        return (val, idx) if val is not None and idx is not None else (val if val is not None else idx)

    def scan(self, input, fn):
        v = np.moveaxis(dec(input.handle.data), self.axis, -1).copy()
        with np.errstate(all="ignore"):
            for j in range(1, v.shape[-1]):  # each step rounded to bf16, as the GPU's bf16 combine is
                v[..., j] = dec(enc(fn(v[..., j - 1], v[..., j])))
        return [self.to_tensor(enc(np.moveaxis(v, -1, self.axis)), dtype=input.dtype)]

    def s_cumsum(self, input):
        return scan(self, input, np.add) if _is_bf16(input.handle) else orig_cumsum(self, input)

    def s_cumprod(self, input):
        return scan(self, input, np.multiply) if _is_bf16(input.handle) else orig_cumprod(self, input)

    def get_bf16(self, value):  # a bf16 scalar constant (Triton 3.6's interpreter has none: bf16 + 3.0 failed)
        return TH(bf16_encode_f64(np.array([value], dtype=np.float64)), tl.bfloat16)

    for cls, name, fn in ((B, "get_bf16", get_bf16), (B, "binary_op", binary_op), (B, "unary_op", unary_op),
                          (B, "ternary_op", ternary_op),
                          (B, "create_fma", create_fma), (B, "create_erf", create_erf),
                          (B, "create_rsqrt", create_rsqrt), (B, "cast_impl", cast_impl),
                          (B, "create_dot", create_dot), (B, "create_atomic_rmw", create_atomic_rmw),
                          (R, "sum", r_sum), (R, "min_max", r_min_max), (S, "cumsum", s_cumsum),
                          (S, "cumprod", s_cumprod)):
        fn._kgb_bf16 = True  # type: ignore[attr-defined]
        setattr(cls, name, fn)
