"""Level-1 cuBLAS routines (cublas.md §3): axpy, scal, copy, swap, dot, asum.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import (
    Call,
    Cost,
    Expected,
    Tolerance,
    accumulation_rule,
    accumulation_text,
    product,
    rounding_rule,
    rounding_text,
    storage_view,
)
from .decl import Ref, quick_cases, vec_offsets
from .grids import A5, A8, INC3, N6, N9, N11, f32, vec_mask
from .routines import CCOPY_R, CDOTU_R, DASUM_R, DAXPY_R, DCOPY_R, SAXPY_R, SDOT_R, SSCAL_R, ZDOTC_R, ZSWAP_R
from .rows import Row, routine_operator

_GATE = lambda p: p["n"] >= 1024  # noqa: E731  (every level-1 routine: timed if n >= 1024)



# ---------------------------------------------------------------------------------------- Saxpy
def _axpy_build(p: dict[str, Any], device, gen) -> Call:
    n, incx, incy = p["n"], p["incx"], p["incy"]
    x = torch.randn(n * abs(incx), generator=gen, device=device)
    y = torch.randn(n * abs(incy), generator=gen, device=device)
    if p.get("nan_x") or "x" in p.get("nan", ()):
        x.fill_(float("nan"))
    return Call([n, p["alpha"], x, incx, y, incy], written=(4,))


def _axpy_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    n, alpha, x, incx, y, incy = call.args
    exp = storage_view(y).clone()
    a = f32(alpha)
    mag = exp.double().abs()
    if a != 0.0 and n > 0:
        ox = x.storage_offset() + vec_offsets(n, incx, x.device)
        oy = y.storage_offset() + vec_offsets(n, incy, y.device)
        xs = storage_view(x)[ox].double()
        mag[oy] = (a * xs).abs() + exp[oy].double().abs()
        exp[oy] = (a * xs + exp[oy].double()).float()
    mask = vec_mask(y, n, incy)
    # the rounding bound (red team 32 R2): a product and a sum (or an FMA) and the reference's own rounding
    tol, extra = rounding_rule(exp, 2 * (mag + exp.double().abs()), "2(|alpha x| + |y| + |ref|)")
    return [Expected("arg.4", exp, tol, mask, atol_extra=extra[mask]),
            Expected("return", None, Tolerance(), alias="arg.4")]



SAXPY = routine_operator(Row(
    SAXPY_R, category='level 1',
    semantics="y[i] = alpha*x[i] + y[i] over BLAS vectors (increments may be negative: backwards layout); alpha "
              "rounded to fp32; alpha == 0 returns immediately without touching y. Returns y.",
    grids={
        "smoke": [dict(n=1, alpha=1.0, incx=1, incy=1), dict(n=32, alpha=-111.999, incx=-2, incy=3),
                  dict(n=71, alpha=0.0, incx=3, incy=1), dict(n=17, alpha=0.5, incx=1, incy=-2)]
        + quick_cases(SAXPY_R, dict(n=33, alpha=0.5, incx=-2, incy=1)),
        "full": product(n=N9, alpha=A8, incx=INC3, incy=INC3),
        "heldout": [dict(n=1000, alpha=0.75, incx=-2, incy=3), dict(n=33, alpha=-1.5, incx=1, incy=-1),
                    dict(n=4097, alpha=0.0, incx=1, incy=1, nan_x=True)],
    },
    build=_axpy_build, raw_reference=_axpy_ref,
    atol_text="1e-4 (reduce_dim 1: no reduction, cublas.md)",
    cost=lambda p: Cost(2.0 * p["n"], 3 * p["n"] * 4), timed=lambda p: p["n"] >= 1024,
))



# ---------------------------------------------------------------------------------------- Daxpy
def _axpy_ref(p: dict[str, Any], r: Ref) -> None:
    a = r.scalar("alpha")
    if a == 0 or r.v["n"] <= 0:
        r.unchanged("y")
        return
    x, y = r.vec("x"), r.vec("y")
    ref = a * x + y
    # fp32: a product and a sum (or an FMA) and the reference's own rounding: 2(|a x| + |y| + |ref|) units
    tol, extra = r.rounding(ref, 2 * ((a * x).abs() + y.abs() + ref.abs()), "2(|alpha x| + |y| + |ref|)")
    r.out("y", ref, tol, atol_extra=extra)


def _nan_x(p: dict[str, Any], gen: Any):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "x" and p.get("nan_x"):
            t.fill_(float("nan"))
    return fill


DAXPY = routine_operator(Row(
    DAXPY_R, category="level 1",
    semantics="y[i] = alpha*x[i] + y[i] in fp64 over BLAS vectors (increments may be negative: backwards "
              "layout); alpha == 0 returns immediately without touching y (x is not read). Returns y.",
    grids={
        "smoke": [dict(n=1, alpha=1.0, incx=1, incy=1), dict(n=71, alpha=-0.5, incx=-3, incy=2),
                  dict(n=32, alpha=0.0, incx=2, incy=1)]
        + quick_cases(DAXPY_R, dict(n=33, alpha=0.5, incx=2, incy=-1)),
        "full": product(n=N6, alpha=[1.0, 0.0, -0.5, 100.001], incx=INC3, incy=[1, 2]),
        "heldout": [dict(n=4097, alpha=0.75, incx=-2, incy=3, poison=True),
                    dict(n=33, alpha=0.0, incx=1, incy=1, nan_x=True),
                    dict(n=1000003, alpha=-1.5, incx=1, incy=1)],
    },
    reference=_axpy_ref, fill=_nan_x, atol_text="1e-4 (reduce_dim 1: no reduction, cublas.md)",
    cost=lambda p: Cost(2.0 * p["n"], 3 * p["n"] * 8), timed=_GATE,
))


# ---------------------------------------------------------------------------------------- Sscal

def _scal_ref(p: dict[str, Any], r: Ref) -> None:
    if r.v["n"] <= 0 or r.v["incx"] <= 0:
        r.unchanged("x")
        return
    ref = r.scalar("alpha") * r.vec("x")
    tol, extra = r.rounding(ref, 4 * ref.abs(), "4|ref|: one product")
    r.out("x", ref, tol, atol_extra=extra)


def _scal_fill(p: dict[str, Any], gen: Any):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "x" and p.get("nan_inf"):
            inc_ = abs(p["incx"])
            t[0:: 3 * inc_] = float("nan")
            t[inc_:: 3 * inc_] = float("inf")
    return fill


SSCAL = routine_operator(Row(
    SSCAL_R, category="level 1",
    semantics="x[i] = alpha*x[i] for i < n at offsets i*incx, alpha rounded to fp32; a real multiplication even "
              "when alpha == 0 (NaN and inf become NaN: never a fill with zeros); incx < 0: nothing happens "
              "(x untouched). Returns x.",
    grids={
        "smoke": [dict(n=1, alpha=1.0, incx=1), dict(n=71, alpha=100.001, incx=3),
                  dict(n=32, alpha=0.0, incx=2, nan_inf=True), dict(n=17, alpha=-0.5, incx=-2)],
        "full": product(n=N9, alpha=A8, incx=INC3),
        "heldout": [dict(n=4097, alpha=0.0, incx=1, nan_inf=True), dict(n=33, alpha=2.0, incx=-1),
                    dict(n=1000003, alpha=-0.5, incx=1, poison=True)],
    },
    reference=_scal_ref, fill=_scal_fill, atol_text="1e-4 (reduce_dim 1: no reduction, cublas.md)",
    cost=lambda p: Cost(float(p["n"]), 2 * p["n"] * 4), timed=_GATE,
))


# ------------------------------------------------------------------------------------ Dcopy, Ccopy

def _copy_ref(p: dict[str, Any], r: Ref) -> None:
    if r.v["n"] <= 0:
        r.unchanged("y")
        return
    r.out("y", r.vec("x"), Tolerance(exact=True))


_COPY_SEM = ("y[i] = x[i] for i < n with the increment layout of §2.2 (negative: backwards); a bit-exact copy, "
             "the gaps of y untouched. Returns y.")

DCOPY = routine_operator(Row(
    DCOPY_R, category="level 1", semantics=_COPY_SEM,
    grids={
        "smoke": [dict(n=1, incx=1, incy=1), dict(n=32, incx=-3, incy=2), dict(n=71, incx=1, incy=-3),
                  dict(n=33, incx=2, incy=3)],
        "full": product(n=[1, 32, 71, 497, 1024, 4096, 5333], incx=INC3, incy=INC3),
        "heldout": [dict(n=50, incx=-3, incy=2), dict(n=4097, incx=2, incy=-1, poison=True),
                    dict(n=1000003, incx=1, incy=1)],
    },
    reference=_copy_ref, atol_text="exact (a copy)", cost=lambda p: Cost(0.0, 2 * p["n"] * 8), timed=_GATE,
    data_movement=True,
))

CCOPY = routine_operator(Row(
    CCOPY_R, category="level 1", semantics=_COPY_SEM + " Complex storage: interleaved float32 (re, im) pairs.",
    grids={
        "smoke": [dict(n=1, incx=1, incy=1), dict(n=17, incx=-2, incy=3), dict(n=33, incx=3, incy=-1),
                  dict(n=32, incx=-2, incy=-3)],
        "full": product(n=N11, incx=INC3, incy=INC3),
        "heldout": [dict(n=4097, incx=-2, incy=1), dict(n=1000, incx=1, incy=-3, poison=True),
                    dict(n=100003, incx=1, incy=1)],
    },
    reference=_copy_ref, atol_text="exact (a copy)", cost=lambda p: Cost(0.0, 2 * p["n"] * 8), timed=_GATE,
    data_movement=True,
))


# ---------------------------------------------------------------------------------------- Zswap

def _swap_ref(p: dict[str, Any], r: Ref) -> None:
    if r.v["n"] <= 0:
        r.unchanged("x")
        r.unchanged("y")
        return
    x, y = r.vec("x"), r.vec("y")
    r.out("x", y, Tolerance(exact=True))
    r.out("y", x, Tolerance(exact=True))


ZSWAP = routine_operator(Row(
    ZSWAP_R, category="level 1",
    semantics="for i < n exchange x[i] and y[i] (bit-exact; complex128 = interleaved float64 pairs), increments "
              "as in §2.2 (negative: backwards); both x and y are written, gaps untouched. Returns x.",
    grids={
        "smoke": [dict(n=1, incx=1, incy=1), dict(n=32, incx=-3, incy=2), dict(n=71, incx=2, incy=-1),
                  dict(n=33, incx=3, incy=2)],
        "full": product(n=N6, incx=INC3, incy=[1, 2]),
        "heldout": [dict(n=50, incx=-2, incy=3), dict(n=4097, incx=1, incy=-1, poison=True),
                    dict(n=1000003, incx=1, incy=1)],
    },
    reference=_swap_ref, atol_text="exact (a swap)", cost=lambda p: Cost(0.0, 4 * p["n"] * 16), timed=_GATE,
    data_movement=True,
))


# ------------------------------------------------------------------------------ Sdot, Cdotu, Zdotc

def _dot_ref(conj: bool):
    def ref(p: dict[str, Any], r: Ref) -> None:
        n = r.v["n"]
        if n <= 0:
            r.out("result", torch.zeros(1, dtype=r.r.ref_dtype, device=r.device), Tolerance())
            return
        x, y = r.vec("x"), r.vec("y")
        if conj:
            x = x.conj()
        val = (x * y).sum().reshape(1)
        # every precision by the accumulation rule (README "Tolerance and precision policy"): Zdotc in fp64,
        # Cdotu per component in fp32
        tol, extra = accumulation_rule(r.r.dtype, (x * y).abs().sum().reshape(1), n, 1)
        r.out("result", val, tol, atol_extra=extra)
    return ref


SDOT = routine_operator(Row(
    SDOT_R, category="level 1 reduction",
    semantics="result[0] = sum_{i<n} x[i]*y[i] in fp32 (negative increments: backwards layout); result is a "
              "one-element device tensor the routine overwrites (it may hold garbage). Returns result.",
    grids={
        "smoke": [dict(n=1, incx=1, incy=1), dict(n=33, incx=-2, incy=3, nan_result=True), dict(n=71, incx=3, incy=-1)],
        "full": product(n=N11, incx=INC3, incy=INC3),
        "heldout": [dict(n=777, incx=-1, incy=2), dict(n=1000003, incx=1, incy=1),
                    dict(n=4097, incx=2, incy=-3, nan_result=True)],
    },
    reference=_dot_ref(False), atol_text=accumulation_text("n", "sum |x[i] y[i]|", "1e-4 (reduce_dim 1)"),
    cost=lambda p: Cost(2.0 * p["n"], 2 * p["n"] * 4), timed=_GATE,
))

CDOTU = routine_operator(Row(
    CDOTU_R, category="level 1 reduction",
    semantics="result[0] = sum_{i<n} x[i]*y[i] (complex64, no conjugation; interleaved float32 re/im pairs); "
              "result is a one-element complex64 device tensor holding garbage that must be overwritten. "
              "Returns result.",
    grids={
        "smoke": [dict(n=1, incx=1, incy=1), dict(n=33, incx=-2, incy=3), dict(n=71, incx=3, incy=-1, nan_result=True)],
        "full": product(n=N11, incx=INC3, incy=INC3),
        "heldout": [dict(n=4097, incx=-1, incy=2), dict(n=100003, incx=1, incy=-3),
                    dict(n=5333, incx=1, incy=1, nan_result=True)],
    },
    reference=_dot_ref(False), atol_text=accumulation_text("n", "sum |x[i] y[i]|", "1e-4 (reduce_dim 1)"),
    cost=lambda p: Cost(8.0 * p["n"], 2 * p["n"] * 8 + 8), timed=_GATE,
))

ZDOTC = routine_operator(Row(
    ZDOTC_R, category="level 1 reduction",
    semantics="result[0] = sum_{i<n} conj(x[i])*y[i] (complex128; the FIRST operand is conjugated; interleaved "
              "float64 re/im pairs); result is a one-element complex128 device tensor holding garbage that must "
              "be overwritten. Returns result.",
    grids={
        "smoke": [dict(n=37, incx=2, incy=-3, cparts="half"), dict(n=1, incx=1, incy=1, cparts="half"),
                  dict(n=71, incx=-2, incy=2, cparts="half", nan_result=True)],
        # alpha: the spec's unused axis (2.13 item 8): 12 configurations x 5 draws
        "full": [dict(n=d["n"], alpha=d["alpha"], incx=d["inc"], incy=d["inc"], cparts="half")
                 for d in product(n=N6, alpha=A5, inc=[1, 2])],
        "heldout": [dict(n=777, incx=-2, incy=1, cparts="half"),
                    dict(n=1000003, incx=1, incy=1, cparts="half", nan_result=True)],
    },
    reference=_dot_ref(True), atol_text=accumulation_text("n", "sum |conj(x[i]) y[i]|", "1e-4 (reduce_dim 1)"),
    cost=lambda p: Cost(8.0 * p["n"], 2 * p["n"] * 16), timed=_GATE,
))


# ---------------------------------------------------------------------------------------- Dasum

def _asum_ref(p: dict[str, Any], r: Ref) -> None:
    n, incx = r.v["n"], r.v["incx"]
    if n <= 0 or incx <= 0:
        r.out("result", torch.zeros(1, dtype=torch.float64, device=r.device), Tolerance(exact=True))
        return
    val = r.vec("x").abs().sum().reshape(1)
    tol, extra = accumulation_rule(torch.float64, val, n, 1)     # fp64 accumulation of n terms |x_i|
    r.out("result", val, tol, atol_extra=extra)


DASUM = routine_operator(Row(
    DASUM_R, category="level 1 reduction",
    semantics="result[0] = sum_{i<n} |x[i]| in fp64 at offsets i*incx; incx < 0 is not a backwards vector here: "
              "the result is exactly 0 (as for n <= 0). result is a one-element float64 device tensor the "
              "routine overwrites. Returns result.",
    grids={
        "smoke": [dict(n=1, incx=1), dict(n=71, incx=3), dict(n=33, incx=-2)],
        "full": product(n=N6, incx=INC3),
        "heldout": [dict(n=1000003, incx=1), dict(n=4097, incx=2, nan_result=True), dict(n=33, incx=-1)],
    },
    reference=_asum_ref, atol_text=accumulation_text("n", "sum |x[i]|", "1e-4 (reduce_dim 1)"),
    cost=lambda p: Cost(float(p["n"]), p["n"] * 8), timed=_GATE,
))

OPERATORS = [CCOPY, CDOTU, DASUM, DAXPY, DCOPY, SAXPY, SDOT, SSCAL, ZDOTC, ZSWAP]


# the rounding bound's atol in words (kgb show; red team 32 R2)
SAXPY.atol_text = rounding_text("2(|alpha x| + |y| + |ref|)")
SSCAL.atol_text = rounding_text("4|ref| (one product: rtol alone)")
