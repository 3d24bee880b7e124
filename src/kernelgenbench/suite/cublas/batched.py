"""Batched cuBLAS routines (cublas.md §3): strided-batched GEMMs and GEMVs, and the pointer-array ``*Batched``
GEMVs and GEMMs (their arrays live in one tensor per pointer argument, turned into the int64 address tensor
right before each call: decl.py ``ptrs``, suite/spec.py ``bind_pointers``).

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from ..spec import Cost, Tolerance, accumulation_rule, accumulation_text, product
from .decl import Ref, Routine, build_call, mat_view, quick_cases, uplo_code
from .grids import AB3, AB6, AB6C, G5, G9, TT4
from .level2 import gemv_reference
from .level3 import gemm_atol, gemm_cost, gemm_fill, gemm_gate, gemm_reference, tri_of
from .routines import (
    CGEMM_SB64_R,
    CGEMM_SB_R,
    CGEMV_B64_R,
    CGEMV_SB_R,
    DGEMM_B_R,
    DGEMM_SB64_R,
    DGEMM_SB_R,
    DGEMV_B_R,
    DGEMV_SB_R,
    DTRSM_B_R,
    HGEMM_B_R,
    HGEMM_SB_R,
    SGEMM_B64_R,
    SGEMM_SB_R,
    SGEMV_B_R,
    SGEMV_SB_R,
    ZGEMM_B_R,
    ZGEMM_SB_R,
    ZGEMV_B_R,
    ZGEMV_SB_R,
    ZTRSM_B_R,
)
from .rows import Row, routine_operator

_G9_TIMED = ((128, 256, 64), (256, 128, 128), (128, 128, 128), (256, 256, 256))


def _grid(shapes_: list, abs_: list, tts: list, batches: list, **extra: Any) -> list[dict[str, Any]]:
    return [dict(m=d["s"][0], n=d["s"][1], k=d["s"][2], alpha=d["ab"][0], beta=d["ab"][1], transa=d["tt"][0],
                 transb=d["tt"][1], batchCount=d["b"], **extra)
            for d in product(s=shapes_, ab=abs_, tt=tts, b=batches)]


def _c(m: int, n: int, k: int, ta: Any, tb: Any, alpha: Any, beta: Any, batch: int, **extra: Any) -> dict[str, Any]:
    return dict(m=m, n=n, k=k, transa=ta, transb=tb, alpha=alpha, beta=beta, batchCount=batch, **extra)


def _semantics(r: Routine, extra: str = "") -> str:
    return ("for b < batchCount: C_b = alpha*op(A_b)*op(B_b) + beta*C_b, where X_b starts at element b*strideX of X "
            "(column-major with leading dimension ldX; a stride may be 0: one matrix shared by every batch); "
            "op = N, T or C (conjugate transpose; = T for real data); beta == 0: C is not read; alpha == 0: A and B "
            "are not read; padding rows and memory between the C batches untouched. Returns C." + extra)


def _row(r: Routine, grids: dict[str, list[dict[str, Any]]], es: int, compute: str, extra: str = "") -> Any:
    return routine_operator(Row(
        r, category="batched gemm (strided)", semantics=_semantics(r, extra), grids=grids,
        reference=gemm_reference, fill=gemm_fill, atol_text=gemm_atol(r.dtype),
        cost=gemm_cost(es, r.dtype.is_complex, compute), timed=gemm_gate))


_COMPLEX = " Complex storage: interleaved (re, im) pairs of the real type."
SGEMM_SB = _row(SGEMM_SB_R, {
    "smoke": [_c(1, 1, 1, "N", "N", 1.0, 0.0, 1), _c(17, 13, 9, "T", "T", 0.001, 0.999, 2),
              _c(16, 16, 16, "N", "T", 0.0, 1.0, 3), _c(9, 5, 7, "N", "N", -1.0, 0.5, 2)]
    + quick_cases(SGEMM_SB_R, _c(9, 5, 7, "T", "N", 0.5, -0.5, 2)),
    "full": _grid(G9, AB6, TT4, [1, 2, 4, 8]),
    "heldout": [_c(19, 12, 9, "N", "N", 0.5, 0.5, 3, lda=21, ldb=14, ldc=20, strideA=21 * 9 + 7, strideB=0,
                   strideC=20 * 12 + 3, poison=True),
                _c(255, 257, 129, "T", "N", 1.0, 0.0, 2, nan_C=True),
                _c(64, 32, 48, 0, 1, -1.0, 1.0, 8)]
    + quick_cases(SGEMM_SB_R, _c(33, 21, 17, "N", "T", 1.0, -0.5, 3, pad=2), only=("alpha",))}, 4, "fp32")

DGEMM_SB = _row(DGEMM_SB_R, {
    "smoke": [_c(1, 1, 1, "N", "N", 1.0, 0.0, 1), _c(17, 13, 9, "T", "N", 2.0, -0.5, 2),
              _c(16, 16, 16, "T", "T", 0.0, 1.0, 3), _c(9, 5, 7, "N", "T", -1.0, 0.5, 2)]
    + quick_cases(DGEMM_SB_R, _c(9, 5, 7, "N", "T", 0.5, -0.5, 2)),
    "full": _grid(G9, AB6, TT4, [1, 2, 4, 8]),
    "heldout": [_c(129, 65, 33, "N", "T", 0.5, 0.5, 5, pad=3, gap=7, strideB=0, poison=True),
                _c(64, 64, 64, "T", "N", 1.0, 0.0, 2, nan_C=True),
                _c(1, 300, 1000, "N", "N", -1.0, 1.0, 8)]
    + quick_cases(DGEMM_SB_R, _c(33, 21, 17, "T", "T", 1.0, -0.5, 3, pad=2, gap=3), only=("alpha",))}, 8, "fp64")

DGEMM_SB64 = _row(DGEMM_SB64_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 1), _c(16, 16, 16, "N", "T", 0.5, 0.5, 2),
              _c(17, 13, 9, "T", "T", -1.0, 1.0, 2)]
    + quick_cases(DGEMM_SB64_R, _c(9, 5, 7, "T", "N", 0.5, -0.5, 2)),
    "full": _grid(G5, AB3, TT4, [1, 2, 4]),
    "heldout": [_c(19, 12, 9, "N", "N", 0.5, 0.5, 3, lda=21, ldb=14, ldc=20, strideA=21 * 9 + 7, strideB=0,
                   strideC=20 * 12 + 3, poison=True),
                _c(128, 256, 64, 0, 1, 1.0, 0.0, 4),
                _c(257, 3, 129, "T", "N", 1.0, 0.0, 2, nan_C=True)]
    + quick_cases(DGEMM_SB64_R, _c(33, 21, 17, "T", "N", 1.0, -0.5, 3, pad=2),
                  only=("alpha",))}, 8, "fp64", " All integers are 64-bit in C.")

CGEMM_SB = _row(CGEMM_SB_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 2), _c(16, 16, 16, "T", "N", 0.5, 0.5, 2),
              _c(17, 13, 9, "C", "T", -1.0, 1.0, 3), _c(11, 6, 5, "N", "C", 0.5 + 0.3j, 1.0, 2)]
    + quick_cases(CGEMM_SB_R, _c(9, 5, 7, "C", "N", 0.5 + 0.3j, 0.5 - 0.2j, 2)),
    "full": _grid(G5, AB3, TT4, [2, 4]),
    "heldout": [_c(129, 67, 33, "C", "N", 0.5 + 0.3j, 0.5 - 0.2j, 5),
                _c(64, 48, 40, "N", "T", 1.0, 0.5, 3, pad=3, gap=7, strideB=0, poison=True),
                _c(96, 96, 32, "T", "N", 1.0, 0.0, 2, nan_C=True)]
    + quick_cases(CGEMM_SB_R, _c(33, 21, 17, "C", "T", 0.5 + 0.3j, 0.5 - 0.2j, 3, pad=2),
                  only=("alpha",))}, 8, "fp32", _COMPLEX)

CGEMM_SB64 = _row(CGEMM_SB64_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 2, cparts="half"), _c(16, 16, 16, "T", "C", 0.5, 0.5, 2, cparts="half"),
              _c(17, 13, 9, "C", "T", -1.0, 1.0, 2, cparts="half")]
    + quick_cases(CGEMM_SB64_R, _c(9, 5, 7, "N", "C", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half")),
    "full": _grid(G5, AB3, TT4, [2, 4], cparts="half"),
    "heldout": [_c(100, 60, 33, "C", "C", 0.5 - 0.5j, 0.25 + 1j, 3, cparts="half"),
                _c(48, 80, 16, "T", "T", 1.0, 1.0, 2, pad=5, gap=11, strideA=0, cparts="half", poison=True),
                _c(48, 80, 16, 1, 2, -1.0, 0.5, 2, cparts="half")]
    + quick_cases(CGEMM_SB64_R, _c(33, 21, 17, "C", "N", 0.5 - 0.5j, 1 + 0.5j, 3, pad=2, cparts="half"))}, 8, "fp32",
    _COMPLEX + " All integers are 64-bit in C.")

ZGEMM_SB = _row(ZGEMM_SB_R, {
    "smoke": [_c(1, 1, 1, "N", "N", 1, 0, 1, cparts="half"),
              _c(17, 13, 9, "T", "C", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half"),
              _c(16, 16, 16, "N", "T", 1 + 0.5j, 0, 3, cparts="half"),
              _c(7, 5, 6, "C", "N", -1, 1, 2, cparts="half")]
    + quick_cases(ZGEMM_SB_R, _c(9, 5, 7, "C", "T", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half")),
    "full": _grid([s for s in G9 if s != (256, 256, 256)], AB6C, TT4, [1, 2, 4, 8], cparts="half"),
    "heldout": [_c(129, 65, 33, "C", "N", 0.5 + 0.3j, -1, 4, pad=3, gap=7, strideB=0, cparts="half", poison=True),
                _c(64, 64, 64, "N", "C", 1, 0, 2, nan_C=True, cparts="half"),
                _c(256, 256, 256, 0, 1, -1, 1, 2, cparts="half")]
    + quick_cases(ZGEMM_SB_R, _c(33, 21, 17, "N", "C", 0.5 - 0.5j, 1 + 0.5j, 3, pad=2, cparts="half"),
                  only=("alpha",))}, 16, "fp64", _COMPLEX)

HGEMM_SB = _row(HGEMM_SB_R, {
    "smoke": [_c(1, 1, 1, "N", "N", 1.0, 0.0, 1), _c(17, 13, 9, "T", "N", 0.001, 0.999, 2),
              _c(16, 16, 16, "N", "T", 2.0, -0.5, 3)]
    + quick_cases(HGEMM_SB_R, _c(9, 5, 7, "T", "N", 0.5, -0.5, 2)),
    "full": _grid(G9, AB6, TT4, [1, 2, 4, 8]),
    "heldout": [_c(256, 256, 256, "N", "N", 1.0, 0.5, 8, gap=5, strideA=0, poison=True),
                _c(129, 65, 300, "T", "T", 1.0, 0.0, 2, nan_C=True),
                _c(128, 256, 64, 0, 1, 0.5, 0.5, 4)]
    + quick_cases(HGEMM_SB_R, _c(33, 21, 17, "T", "N", 1.0, -0.5, 3, pad=2), only=("alpha",))}, 2, "fp16",
    " fp16 storage, alpha/beta rounded to fp16; accumulate in fp32 and round once (an fp16 accumulation fails "
    "the tolerance where K is long enough to tell).")


# --------------------------------------------------------------------------- strided-batched gemv
_V9 = [(1, 1), (16, 16), (32, 64), (64, 32), (128, 64), (256, 128), (17, 33), (128, 128), (256, 256)]


def _v(m: int, n: int, trans: Any, alpha: Any, beta: Any, batch: int, **extra: Any) -> dict[str, Any]:
    return dict(m=m, n=n, trans=trans, alpha=alpha, beta=beta, batchCount=batch, incx=extra.pop("incx", 1),
                incy=extra.pop("incy", 1), **extra)


def _vgrid(abs_: list, **extra: Any) -> list[dict[str, Any]]:
    return [_v(d["s"][0], d["s"][1], d["t"], d["ab"][0], d["ab"][1], d["b"], **extra)
            for d in product(s=_V9, ab=abs_, t=["N", "T"], b=[1, 2, 4, 8])]


def _gemv_fill(p: dict[str, Any], gen: Any):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "y" and p.get("nan_y"):
            t.fill_(float("nan"))
    return fill


def _gemv_cost(es: int, fl: int, compute: str):
    def cost(p: dict[str, Any]) -> Any:
        from ..spec import Cost

        m, n, b = p["m"], p["n"], p["batchCount"]
        lx, ly = (n, m) if p["trans"] in ("N", "n", 0) else (m, n)
        return Cost(float(fl * m * n * b), (m * n + lx + 2 * ly) * es * b, compute)
    return cost


def _vrow(r: Routine, grids: dict[str, list[dict[str, Any]]], es: int, fl: int, extra: str = "") -> Any:
    return routine_operator(Row(
        r, category="batched gemv (strided)",
        semantics="for b < batchCount: y_b = alpha*op(A_b)*x_b + beta*y_b, X_b starting at element b*strideX of X "
                  "(stridex = 0: one x shared by every batch); A_b m x n column-major (lda); op = N, T or C "
                  "(conjugate transpose; = T for real data); x_b has n elements for N and m otherwise, y_b m for N "
                  "and n otherwise (increments may be negative); beta == 0: y not read; alpha == 0: A and x not "
                  "read; gaps and memory between the y batches untouched. Returns y." + extra,
        grids=grids, reference=gemv_reference, fill=_gemv_fill,
        atol_text=(accumulation_text("the inner length + 2", "(|alpha| (|op(A)| |x|)[i] + |beta| |y[i]|)",
                                     "1e-4 x inner length") if r.dtype == torch.float32 else
                   "1e-4 x the inner length (reduce_dim: n for N, m otherwise; cublas.md)"),
        cost=_gemv_cost(es, fl, "none"), timed=lambda p: p["m"] >= 128 and p["n"] >= 64))


SGEMV_SB = _vrow(SGEMV_SB_R, {
    "smoke": [_v(1, 1, "N", 1.0, 0.0, 1), _v(17, 33, "T", -1.0, 1.0, 2), _v(16, 16, "N", 2.0, -0.5, 3),
              _v(13, 7, "T", 0.5, -0.5, 2, incx=-2, incy=-3)]
    + quick_cases(SGEMV_SB_R, _v(9, 7, "T", 0.5, -0.5, 2)),
    "full": _vgrid(AB6),
    "heldout": [_v(21, 10, "T", 0.5, 0.5, 3, lda=24, strideA=24 * 10 + 5, stridex=0, incy=2, stridey=2 * 10 + 3,
                   poison=True),
                _v(4096, 1, "N", 1.0, 0.0, 2, nan_y=True),
                _v(128, 64, 1, -1.0, 1.0, 32)]
    + quick_cases(SGEMV_SB_R, _v(65, 33, "T", 1.0, -0.5, 3, incx=2, incy=3), only=("alpha",))}, 4, 2)

DGEMV_SB = _vrow(DGEMV_SB_R, {
    "smoke": [_v(1, 1, "N", 1.0, 0.0, 1), _v(17, 33, "T", 2.0, -0.5, 2), _v(16, 16, "N", 0.001, 0.999, 3),
              _v(13, 7, "N", 0.5, -0.5, 2, incx=-3, incy=-2)]
    + quick_cases(DGEMV_SB_R, _v(9, 7, "T", 0.5, -0.5, 2)),
    "full": _vgrid(AB6),
    "heldout": [_v(130, 70, "T", 0.5, 0.5, 4, lda=133, gap=9, stridex=0, incy=2, poison=True),
                _v(4096, 7, "N", 1.0, 0.0, 2, nan_y=True),
                _v(64, 128, 0, -1.0, 1.0, 3)]
    + quick_cases(DGEMV_SB_R, _v(65, 33, "N", 1.0, -0.5, 3, incx=2), only=("alpha",))}, 8, 2)

CGEMV_SB = _vrow(CGEMV_SB_R, {
    "smoke": [_v(1, 1, "N", 1, 0, 1, cparts="half"), _v(17, 33, "T", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half"),
              _v(16, 16, "N", 0, 1, 3, cparts="half"), _v(7, 5, "C", 0.5 - 0.5j, 1, 2, cparts="half"),
              _v(6, 9, "N", -1, 0.5 - 0.2j, 2, cparts="half"),
              _v(9, 6, "C", 0.5 + 0.3j, 0.5 - 0.2j, 2, incx=-2, incy=-1, cparts="half")]
    + quick_cases(CGEMV_SB_R, _v(9, 7, "C", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half")),
    "full": _vgrid(AB6C, cparts="half"),
    "heldout": [_v(130, 70, "C", 0.5 - 0.5j, 1, 4, lda=133, strideA=133 * 70 + 9, stridex=0, incy=2, gap=5,
                   cparts="half", poison=True),
                _v(256, 1, "N", 1, 0, 2, nan_y=True, cparts="half"),
                _v(64, 32, 1, -1, 0.5j, 16, cparts="half")]
    + quick_cases(CGEMV_SB_R, _v(65, 33, "C", 1j, -0.5, 3, incx=2, cparts="half"), only=("alpha",))}, 8, 8, _COMPLEX)

ZGEMV_SB = _vrow(ZGEMV_SB_R, {
    "smoke": [_v(1, 1, "N", 1, 0, 1, cparts="half"),
              _v(17, 33, "T", 0.001 + 0.001j, 0.999 - 0.999j, 2, cparts="half"),
              _v(16, 16, "N", 1 + 0.5j, 0, 3, cparts="half"), _v(7, 5, "C", 0.5 + 0.25j, -1, 2, cparts="half"),
              _v(9, 6, "N", 0.5 + 0.3j, 0.5 - 0.2j, 2, incx=-1, incy=-2, cparts="half")]
    + quick_cases(ZGEMV_SB_R, _v(9, 7, "T", 0.5 + 0.3j, 0.5 - 0.2j, 2, cparts="half")),
    "full": _vgrid(AB6C, cparts="half"),
    "heldout": [_v(130, 70, "C", 0.5 + 0.25j, -1, 4, pad=3, gap=5, stridex=0, incy=2, cparts="half", poison=True),
                _v(256, 1, "T", 1, 0, 2, nan_y=True, cparts="half"),
                _v(64, 32, 2, -1, 1, 3, cparts="half")]
    + quick_cases(ZGEMV_SB_R, _v(65, 33, "T", 1j, -0.5, 3, incy=2, cparts="half"), only=("alpha",))}, 16, 8, _COMPLEX)


# --------------------------------------------------------------------------- pointer-array gemv / gemm
_PTR = (" The pointer arrays are 1-D int64 device tensors of device addresses (one per batch; input entries may "
        "repeat): load entry b in the kernel and cast it to a pointer of the element type (the real type for complex "
        "data), e.g. tl.load(Aarray + b).to(tl.pointer_type(tl.float32)). The output arrays are written in place, "
        "never the addresses.")


def _gemv_b_reference(p: dict[str, Any], r: Any) -> None:
    gemv_reference(p, r.renamed(A="Aarray", x="xarray", y="yarray"))


def _gemv_b_fill(p: dict[str, Any], gen: Any):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "yarray" and p.get("nan_y"):
            t.fill_(float("nan"))
    return fill


def _gemm_b_reference(p: dict[str, Any], r: Any) -> None:
    gemm_reference(p, r.renamed(A="Aarray", B="Barray", C="Carray"))


def _gemm_b_fill(p: dict[str, Any], gen: Any):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "Carray" and p.get("nan_C"):
            t.fill_(float("nan"))
    return fill


def _vb_row(r: Routine, grids: dict[str, list[dict[str, Any]]], es: int, fl: int, timed: Callable[[dict], bool],
            extra: str = "") -> Any:
    return routine_operator(Row(
        r, category="batched gemv (pointer array)",
        semantics="for b < batchCount: y_b = alpha*op(A_b)*x_b + beta*y_b, where A_b, x_b, y_b are the arrays at the "
                  "addresses Aarray[b], xarray[b], yarray[b]; A_b m x n column-major (lda); op = N, T or C "
                  "(conjugate transpose; = T for real data); x_b has n elements for N and m otherwise, y_b m for N "
                  "and n otherwise (increments may be negative); beta == 0: y not read; alpha == 0: A and x not "
                  "read; gaps of y and memory beside the y arrays untouched. Returns yarray." + _PTR + extra,
        grids=grids, reference=_gemv_b_reference, fill=_gemv_b_fill,
        atol_text=(accumulation_text("the inner length + 2", "(|alpha| (|op(A)| |x|)[i] + |beta| |y[i]|)",
                                     "1e-4 x inner length") if r.dtype == torch.float32 else
                   "1e-4 x the inner length (reduce_dim: n for N, m otherwise; cublas.md)"),
        cost=_gemv_cost(es, fl, "none"), timed=timed))


def _gb_row(r: Routine, grids: dict[str, list[dict[str, Any]]], es: int, compute: str, extra: str = "") -> Any:
    return routine_operator(Row(
        r, category="batched gemm (pointer array)",
        semantics="for b < batchCount: C_b = alpha*op(A_b)*op(B_b) + beta*C_b, where A_b, B_b, C_b are the "
                  "column-major matrices (leading dimensions lda, ldb, ldc) at the addresses Aarray[b], Barray[b], "
                  "Carray[b]; op = N, T or C (conjugate transpose; = T for real data); beta == 0: C is not read; "
                  "alpha == 0: A and B are not read; padding rows and memory beside the C arrays untouched. "
                  "Returns Carray." + _PTR + extra,
        grids=grids, reference=_gemm_b_reference, fill=_gemm_b_fill, atol_text=gemm_atol(r.dtype),
        cost=gemm_cost(es, r.dtype.is_complex, compute), timed=gemm_gate))


_SGEMV_B_SHAPES = [(1, 1), (1, 32), (32, 1), (16, 16), (32, 64), (64, 128), (128, 64), (128, 128), (128, 256),
                   (256, 128), (256, 256), (17, 33), (33, 17), (71, 497), (497, 71), (1024, 4096), (4096, 1024),
                   (5333, 5333)]
_SGEMV_B_AB = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 1.0), (1.0, 0.5), (0.001, 0.999), (-0.999, -1.0),
               (100.001, 0.0), (0.5, -0.5)]
_V5 = [(16, 16), (64, 128), (128, 256), (256, 256), (17, 33)]


def _v5_grid(flip: bool, **extra: Any) -> list[dict[str, Any]]:
    """V5 x AB3 x {N, T} x {1, 2, 4}; ``flip``: the test's row-major (m, n) as cuBLAS sees it (DgemvBatched:
    cuBLAS m = test n, n = test m, the transpose flipped)."""
    out = []
    for d in product(s=_V5, ab=AB3, t=["N", "T"], b=[1, 2, 4]):
        m, n, t = d["s"][0], d["s"][1], d["t"]
        if flip:
            m, n, t = n, m, ("T" if t == "N" else "N")
        out.append(_v(m, n, t, d["ab"][0], d["ab"][1], d["b"], **extra))
    return out


SGEMV_B = _vb_row(SGEMV_B_R, {
    "smoke": [_v(13, 7, "N", 0.5, -0.5, 2, incx=1, incy=-2),
              _v(1, 1, "N", 1.0, 0.0, 1), _v(17, 33, "T", 0.5, 0.5, 2, incx=-2, incy=3),
              _v(33, 17, "N", -0.999, -1.0, 3, incx=3, incy=1)]
    + quick_cases(SGEMV_B_R, _v(9, 7, "T", 0.5, -0.5, 2, incx=-1)),
    "full": [_v(d["s"][0], d["s"][1], d["t"], d["ab"][0], d["ab"][1], d["b"], incx=d["ix"], incy=d["iy"])
             for d in product(s=_SGEMV_B_SHAPES, ab=_SGEMV_B_AB, t=["N", "T"], b=[1, 2, 4, 8], ix=[1, 2, 3],
                              iy=[1, 2, 3])],
    "heldout": [_v(21, 10, "T", 0.5, 0.5, 3, lda=24, incx=2, incy=3, gap=5, poison=True),
                _v(5000, 3, "N", 1.0, 0.0, 4, incx=-1, nan_y=True),
                _v(3, 5000, "T", -1.0, 1.0, 64, shared=("Aarray",))]
    + quick_cases(SGEMV_B_R, _v(65, 33, "N", 1.0, -0.5, 3, incx=-1, incy=2), only=("alpha",))}, 4, 2,
    lambda p: p["m"] >= 128 and p["n"] >= 64)

DGEMV_B = _vb_row(DGEMV_B_R, {
    "smoke": [_v(13, 7, "T", 0.5, -0.5, 2, incx=2, incy=-1),
              _v(5, 3, "T", 1.0, 0.0, 1), _v(9, 17, "N", 0.5, 0.5, 2, incx=-1), _v(16, 16, "T", -1.0, 1.0, 3)]
    + quick_cases(DGEMV_B_R, _v(9, 7, "N", 0.5, -0.5, 2)),
    "full": _v5_grid(True),
    "heldout": [_v(21, 10, "N", 0.5, 0.5, 3, lda=24, incx=-1, incy=1, poison=True),
                _v(300, 4000, "T", 1.0, 0.0, 2, nan_y=True),
                _v(1, 1, "N", -1.0, 1.0, 64)]
    + quick_cases(DGEMV_B_R, _v(65, 33, "T", 1.0, -0.5, 3, incx=2, incy=3), only=("alpha",))}, 8, 2,
    lambda p: p["n"] >= 128 and p["m"] >= 64, " Timed if the test's m (cuBLAS n) >= 128 and n (cuBLAS m) >= 64.")

ZGEMV_B = _vb_row(ZGEMV_B_R, {
    "smoke": [_v(5, 3, "N", 1.0, 0.0, 1), _v(17, 9, "T", 0.5, 0.5, 2), _v(8, 8, "C", -1.0, 1.0, 2),
              _v(9, 6, "T", 0.5 + 0.3j, 0.5 - 0.2j, 2, incx=-2, incy=-1)]
    + quick_cases(ZGEMV_B_R, _v(9, 7, "C", 0.5 + 0.3j, 0.5 - 0.2j, 2)),
    "full": _v5_grid(False),
    "heldout": [_v(21, 10, "C", 0.5 + 0.5j, -1 + 0.25j, 3, lda=24, incx=1, incy=2, poison=True),
                _v(4096, 3, "T", 1.0, 0.0, 2, nan_y=True),
                _v(1, 1, "N", -1.0, 1.0, 100)]
    + quick_cases(ZGEMV_B_R, _v(65, 33, "C", 0.5j, 1 - 1j, 3, incx=2, incy=3), only=("alpha",))}, 16, 8,
    lambda p: p["m"] >= 128 and p["n"] >= 64, _COMPLEX)

CGEMV_B64 = _vb_row(CGEMV_B64_R, {
    "smoke": [_v(5, 3, "N", 1.0, 0.0, 1), _v(17, 9, "T", 0.5, 0.5, 2), _v(8, 8, "C", -1.0, 1.0, 3),
              _v(9, 6, "C", 0.5 + 0.3j, 0.5 - 0.2j, 2, incx=-1, incy=-3)]
    + quick_cases(CGEMV_B64_R, _v(9, 7, "T", 0.5 + 0.3j, 0.5 - 0.2j, 2)),
    "full": _v5_grid(False),
    "heldout": [_v(300, 77, "C", 1 - 1j, 0.5, 5, lda=303, incx=2, incy=3, poison=True),
                _v(64, 64, "N", 1.0, 0.0, 3, nan_y=True, shared=("Aarray",)),
                _v(1, 4096, "T", -1.0, 1.0, 2)]
    + quick_cases(CGEMV_B64_R, _v(65, 33, "C", 0.5j, 1 - 1j, 3, incx=2, incy=3), only=("alpha",))}, 8, 8,
    lambda p: p["m"] >= 128 and p["n"] >= 64, _COMPLEX + " All integers are 64-bit in C.")

DGEMM_B = _gb_row(DGEMM_B_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 1), _c(16, 16, 16, "T", "N", 0.5, 0.5, 2),
              _c(17, 13, 9, "N", "T", -1.0, 1.0, 3)]
    + quick_cases(DGEMM_B_R, _c(9, 5, 7, "T", "N", 0.5, -0.5, 2)),
    "full": _grid(G5, AB3, TT4, [1, 2, 4]),
    "heldout": [_c(19, 12, 9, "T", "N", 0.5, 0.5, 3, lda=21, ldb=14, ldc=20, gap=7, poison=True),
                _c(128, 128, 64, "T", "T", 1.0, 0.0, 2, shared=("Aarray",), nan_C=True),
                _c(300, 5, 700, "N", "N", -1.0, 1.0, 7)]
    + quick_cases(DGEMM_B_R, _c(33, 21, 17, "N", "T", 1.0, -0.5, 3, gap=3), only=("alpha",))}, 8, "fp64")

SGEMM_B64 = _gb_row(SGEMM_B64_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 1), _c(16, 16, 16, "T", "N", 0.5, 0.5, 2),
              _c(17, 13, 9, "T", "T", -1.0, 1.0, 3)]
    + quick_cases(SGEMM_B64_R, _c(9, 5, 7, "N", "T", 0.5, -0.5, 2)),
    "full": _grid(G5, AB3, TT4, [1, 2, 4]),
    "heldout": [_c(19, 12, 9, "T", "N", 0.5, 0.5, 3, lda=21, ldb=14, ldc=20, poison=True),
                _c(128, 256, 64, "N", "N", 1.0, 0.0, 2, shared=("Aarray",), nan_C=True),
                _c(300, 7, 1000, "N", "T", -1.0, 1.0, 5)]
    + quick_cases(SGEMM_B64_R, _c(33, 21, 17, "T", "T", 1.0, -0.5, 3, pad=2),
                  only=("alpha",))}, 4, "fp32", " All integers are 64-bit in C.")

HGEMM_B = _gb_row(HGEMM_B_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 1), _c(16, 16, 16, "T", "T", 0.5, 0.5, 2),
              _c(17, 13, 9, "N", "T", -1.0, 1.0, 2)]
    + quick_cases(HGEMM_B_R, _c(9, 5, 7, "T", "N", 0.5, -0.5, 2)),
    "full": _grid(G5, AB3, TT4, [1, 2, 4]),
    "heldout": [_c(19, 12, 9, "T", "T", 0.5, -1.0, 3, lda=21, ldb=14, ldc=20, poison=True),
                _c(256, 256, 1024, "N", "N", 1.0, 0.0, 2, nan_C=True),
                _c(64, 64, 64, "T", "N", 0.001, 0.999, 4)]
    + quick_cases(HGEMM_B_R, _c(33, 21, 17, "N", "N", 1.0, -0.5, 3, pad=2), only=("alpha",))}, 2, "fp16",
    " fp16 storage, alpha/beta rounded to fp16; accumulate in fp32 and round once.")

ZGEMM_B = _gb_row(ZGEMM_B_R, {
    "smoke": [_c(5, 7, 3, "N", "N", 1.0, 0.0, 1), _c(9, 8, 7, "T", "C", 0.5, 0.5, 2),
              _c(16, 16, 16, "C", "T", -1.0, 1.0, 2)]
    + quick_cases(ZGEMM_B_R, _c(9, 5, 7, "C", "N", 0.5 + 0.3j, 0.5 - 0.2j, 2)),
    "full": _grid(G5, AB3, TT4, [1, 2, 4]),
    "heldout": [_c(19, 12, 9, "C", "T", 0.5 + 0.5j, -0.5j, 3, lda=21, ldb=14, ldc=20, poison=True),
                _c(128, 128, 64, "C", "C", 1.0, 0.0, 2, nan_C=True),
                _c(64, 300, 17, "N", "N", -1.0, 1.0, 9)]
    + quick_cases(ZGEMM_B_R, _c(33, 21, 17, "C", "N", 0.5 - 0.5j, 1 + 0.5j, 3, pad=2),
                  only=("alpha",))}, 16, "fp64", _COMPLEX)


# --------------------------------------------------------------------------- pointer-array trsm
def _trsm_b_build(r: Routine):
    """build_call, then each distinct A_b's data (cublas.md DtrsmBatched/ZtrsmBatched): ``data="upstream"``:
    diag(1 + U(0,1)) plus 0.1*randn in the row-major strict upper part, read column-major (so the referenced
    upper triangle of the upstream flags holds the diagonal only, §2.13 item 4); ``data="genuine"``: the uplo
    triangle with off-diagonal 0.1*randn and diagonal 1 + U(0,1); ``nan_other``: NaN outside the uplo
    triangle and in the padding rows (never read); ``nan_diag``: NaN on the diagonal (diag = UNIT: not read)."""
    def build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Any:
        call = build_call(r, p, device, gen)
        ia = r.position("Aarray")
        t, lda = call.args[ia], call.args[r.position("lda")]
        ka = p["m"] if p["side"] in (0, "L", "l") else p["n"]
        lower = uplo_code(p["uplo"]) == 0
        tri = tri_of(ka, lower, device)
        for o in sorted(set(call.pointers[ia])):
            a = mat_view(t[o:], ka, ka, lda)
            off = 0.1 * torch.randn(ka, ka, generator=gen, device=device, dtype=r.dtype)
            dg = (1.0 + torch.rand(ka, generator=gen, device=device, dtype=torch.float64)).to(r.dtype)
            if p.get("data") == "genuine":
                dense = torch.where(tri, off, torch.zeros((), dtype=r.dtype, device=device))
            else:
                dense = torch.triu(off, diagonal=1).t()          # row-major strict upper, read column-major
            dense.diagonal().copy_(dg)
            a.copy_(dense)
            if p.get("nan_other"):
                a.masked_fill_(~tri, float("nan"))
                for j in range(ka - 1):                         # padding rows inside A_b's extent
                    t[o + j * lda + ka:o + (j + 1) * lda] = float("nan")
            if p.get("nan_diag"):
                a.diagonal().fill_(float("nan"))
        return call
    return build


def _trsm_b_reference(p: dict[str, Any], r: Ref) -> None:
    """Per batch: op(A_b) X = alpha B_b (LEFT) or X op(A_b) = alpha B_b (RIGHT) in fp64/complex128 from the
    referenced triangle only (unit diagonal: ones); alpha == 0: B_b = 0 exactly; reduce_dim = the triangle's
    order (cublas.md)."""
    m, n, batch = r.v["m"], r.v["n"], r.v["batchCount"]
    if m <= 0 or n <= 0 or batch <= 0:
        r.unchanged("Barray")
        return
    a = r.scalar("alpha")
    if a == 0:
        r.out("Barray", torch.zeros(batch, m, n, dtype=r.r.ref_dtype, device=r.device), Tolerance(exact=True))
        return
    left = r.v["side"] == 0
    ka = m if left else n
    lower = r.v["uplo"] == 0
    A = r.mat("Aarray")
    T = torch.where(tri_of(ka, lower, r.device), A, torch.zeros((), dtype=A.dtype, device=r.device))
    if r.v["diag"] == 1:
        T.diagonal(dim1=-2, dim2=-1).fill_(1.0)
    upper = not lower
    if r.v["trans"] != 0:
        T, upper = T.transpose(-1, -2), lower
        if r.v["trans"] == 2:
            T = T.conj()
    X = torch.linalg.solve_triangular(T, a * r.mat("Barray"), upper=upper, left=left)
    # componentwise bound of a substitution in any order (as level 3 trsm): |X - X'| <= gamma M(T)^-1 |T| |X|,
    # M(T) the comparison matrix, per batch; fp64 / complex128 by the accumulation rule of their precision
    Tl, Xl, up = (T, X, upper) if left else (T.transpose(-1, -2), X.transpose(-1, -2), not upper)
    comp = -Tl.abs()
    comp.diagonal(dim1=-2, dim2=-1).copy_(Tl.diagonal(dim1=-2, dim2=-1).abs())
    absum = torch.linalg.solve_triangular(comp, Tl.abs() @ Xl.abs(), upper=up)
    tol, extra = accumulation_rule(r.r.dtype, absum if left else absum.transpose(-1, -2), ka, ka)
    r.out("Barray", X, tol, atol_extra=extra)


def _trsm_b_cost(es: int, fl: int, compute: str):
    def cost(p: dict[str, Any]) -> Cost:
        m, n, b = p["m"], p["n"], p["batchCount"]
        ka = m if p["side"] in (0, "L", "l") else n
        return Cost(float(fl * m * n * ka * b), (ka * ka / 2 + 2 * m * n) * es * b, compute)
    return cost


def _t(m: int, n: int, alpha: Any, batch: int, side: Any = 0, uplo: Any = 1, trans: Any = 0, diag: Any = 0,
       data: str = "upstream", **extra: Any) -> dict[str, Any]:
    return dict(side=side, uplo=uplo, trans=trans, diag=diag, m=m, n=n, alpha=alpha, batchCount=batch, data=data,
                **extra)


def _tb_row(r: Routine, grids: dict[str, list[dict[str, Any]]], es: int, fl: int, extra: str = "") -> Any:
    return routine_operator(Row(
        r, category="batched triangular solve (pointer array)",
        semantics="for b < batchCount: side LEFT: solve op(A_b)*X = alpha*B_b (A_b m x m); RIGHT: X*op(A_b) = "
                  "alpha*B_b (A_b n x n); X overwrites B_b (m x n, ldb; padding rows and memory beside the B "
                  "arrays untouched); A_b, B_b at the addresses Aarray[b], Barray[b]. A_b is triangular per uplo: "
                  "only that triangle is read, and not its diagonal when diag is UNIT (ones are used); op = N, T "
                  "or C (conjugate transpose; = T for real data); no singularity test; alpha == 0: B_b = 0 "
                  "without reading B. Returns Barray." + _PTR + extra,
        grids=grids, build=_trsm_b_build(r), reference=_trsm_b_reference,
        atol_text=accumulation_text("the triangle's order (m for LEFT, n for RIGHT)",
                                    "(M(T)^-1 |T| |X|)[i,j] (M(T): |t_ii| on the diagonal, -|t_ij| off it)",
                                    "1e-4 x the triangle's order"),
        cost=_trsm_b_cost(es, fl, "fp64"), timed=lambda p: p["m"] >= 64 and p["n"] >= 32,
        args_doc={"Aarray": r.arg_doc(r.arg("Aarray")) + "; only the uplo triangle is read (not the diagonal "
                                                         "for diag = UNIT)"}))


def _trsm_full(**extra: Any) -> list[dict[str, Any]]:
    return [_t(d["m"], d["n"], d["a"], d["b"], **extra)
            for d in product(m=[4, 16, 32, 64], n=[4, 16, 32], a=[1.0, 0.5, -1.0], b=[1, 2, 4])]


DTRSM_B = _tb_row(DTRSM_B_R, {
    "smoke": [_t(4, 4, 1.0, 1), _t(16, 4, -1.0, 2), _t(5, 3, 1.0, 2, data="genuine"),
              _t(5, 3, -0.5, 2, side=1, uplo=0, trans=1, diag=1, data="genuine", nan_other=True)]
    + quick_cases(DTRSM_B_R, _t(5, 3, 0.5, 2, data="genuine")),
    "full": _trsm_full(),
    "heldout": [_t(12, 5, -0.5, 3, side=1, uplo=0, trans=1, lda=14, ldb=13, data="genuine", nan_other=True,
                   gap=3, poison=True),
                _t(64, 32, 1.0, 16, diag=1, data="genuine", nan_diag=True),
                _t(31, 17, 0.0, 4, side=1, uplo=1, trans=1, data="genuine")]
    + quick_cases(DTRSM_B_R, _t(21, 9, 1.0, 3, side=1, uplo=0, trans=1, data="genuine", pad=2), only=("alpha",))}, 8, 1)

ZTRSM_B = _tb_row(ZTRSM_B_R, {
    "smoke": [_t(4, 4, 1.0, 1, cparts="half"), _t(16, 4, 0.5, 2, cparts="half"),
              _t(5, 3, 1.0, 2, data="genuine", cparts="half"),
              _t(5, 3, 0.5 - 1j, 2, side=1, uplo=0, trans=2, diag=1, data="genuine", nan_other=True, cparts="half"),
              _t(4, 3, 1.0, 2, side=0, uplo=0, trans=1, data="genuine", cparts="half")]
    + quick_cases(ZTRSM_B_R, _t(5, 3, 0.5 - 1j, 2, data="genuine", cparts="half")),
    "full": _trsm_full(cparts="half"),
    "heldout": [_t(12, 5, 0.5 - 1j, 3, side=s, uplo=u, trans=tr, lda=14, ldb=13, data="genuine", nan_other=True,
                   cparts="half") for s, u, tr in ((0, 1, 0), (1, 0, 1), (0, 0, 2), (1, 1, 2))]
    + [_t(64, 32, 1.0, 16, diag=1, data="genuine", nan_diag=True, cparts="half"),
       _t(33, 7, 1.0, 2, side="L", uplo="U", trans="C", diag="N", data="genuine", cparts="half")]
    + quick_cases(ZTRSM_B_R, _t(21, 9, 1.0, 3, side=0, uplo=1, trans=2, data="genuine", pad=2, cparts="half"),
                  only=("alpha",))}, 16, 4,
    _COMPLEX)

OPERATORS = [CGEMM_SB, CGEMM_SB64, CGEMV_B64, CGEMV_SB, DGEMM_B, DGEMM_SB, DGEMM_SB64, DGEMV_B, DGEMV_SB, HGEMM_B,
             HGEMM_SB, SGEMM_B64, SGEMM_SB, SGEMV_B, SGEMV_SB, ZGEMM_B, ZGEMM_SB, ZGEMV_B, ZGEMV_SB, DTRSM_B, ZTRSM_B]
