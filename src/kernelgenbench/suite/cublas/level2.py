"""Level-2 cuBLAS routines (cublas.md §3): gemv, ger, symv, syr2, sbmv, tbmv, trsv.

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
    rounding_text,
    storage_view,
)
from .decl import Ref, diag_code, fill_padding_, mat_view, quick_cases, trans_code, uplo_code, vec_offsets
from .grids import A5, A9, AB3, INC3, N6, N11, vec_mask
from .routines import CGEMV_R, CGERU_R, CSYMV_R, DGEMV_R, DSBMV_R, DSYR2_R, SGER_R, STBMV_R, STRSV_R, ZGERC_R
from .rows import Row, routine_operator


# ----------------------------------------------------------------------------------------- Strsv
def _trsv_build(p: dict[str, Any], device, gen) -> Call:
    n, incx = p["n"], p["incx"]
    uplo, trans, diag = p["uplo"], p["trans"], p["diag"]
    lda = p.get("lda", n)
    data = p.get("data", "upstream")
    if data == "upstream":
        # cublas.md §2.13 item 4: a row-major tril/triu + 5I passed as column-major, so the
        # referenced triangle holds only the diagonal.
        g = torch.randn(n, n, generator=gen, device=device)
        rm = (torch.tril(g) if uplo_code(uplo) == 0 else torch.triu(g)) + 5 * torch.eye(n, device=device)
        A = torch.zeros(n, lda, device=device)
        A[:, :n] = rm
    else:
        # A genuine triangle in the referenced half (column-major), NaN in the other half and padding.
        scale = 0.1 if data == "genuine" else 1.0 / max(1, n)
        dense = torch.randn(n, n, generator=gen, device=device) * scale
        dense.diagonal().copy_(3.0 + 0.1 * torch.randn(n, generator=gen, device=device))
        cm = torch.tril(dense) if uplo_code(uplo) == 0 else torch.triu(dense)
        other = torch.triu(torch.ones(n, n, dtype=torch.bool, device=device), 1) if uplo_code(uplo) == 0 else \
            torch.tril(torch.ones(n, n, dtype=torch.bool, device=device), -1)
        cm = cm.masked_fill(other, float("nan"))
        A = torch.full((n, lda), float("nan"), device=device)
        A[:, :n] = cm.t()  # storage is column-major: column j is row j of the (n, lda) buffer
        if diag_code(diag) == 1:
            A.diagonal()[:n].fill_(float("nan"))  # unit diagonal: never read
    x = torch.randn(n * abs(incx), generator=gen, device=device)
    return Call([uplo, trans, diag, n, A, lda, x, incx], written=(6,))


def _trsv_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    uplo, trans, diag, n, A, lda, x, incx = call.args
    full = mat_view(A, n, n, lda).double()
    lower = uplo_code(uplo) == 0
    mask = torch.tril(torch.ones(n, n, dtype=torch.bool, device=A.device))
    if not lower:
        mask = mask.t()
    tri = torch.where(mask, full, torch.zeros((), dtype=torch.float64, device=A.device))
    if diag_code(diag) == 1:
        tri = tri.clone()
        tri.diagonal().fill_(1.0)
    upper = not lower
    if trans_code(trans) != 0:
        tri = tri.t()
        upper = not upper
    ox = x.storage_offset() + vec_offsets(n, incx, x.device)
    exp = storage_view(x).clone()
    rhs = exp[ox].double()[:, None]
    z = torch.linalg.solve_triangular(tri, rhs, upper=upper)[:, 0]
    exp[ox] = z.float()
    # the accumulation rule (README "Tolerance and precision policy"): substitution in any order solves
    # (T + dT) z' = x with |dT| <= gamma_n |T| (Higham, Thm 8.5), so |z - z'| <= gamma_n |T^-1| |T| |z|
    # <= gamma_n M(T)^-1 |T| |z|, M(T) the comparison matrix (|t_ii| on the diagonal, -|t_ij| off it):
    # one more fp64 triangular solve
    comparison = -tri.abs()
    comparison.diagonal().copy_(tri.diagonal().abs())
    absum = torch.linalg.solve_triangular(comparison, (tri.abs() @ z.abs())[:, None], upper=upper)[:, 0]
    tol, extra = accumulation_rule(torch.float32, absum, max(1, n), p.get("reduce_dim", 1))
    full_extra = torch.zeros(exp.shape, dtype=torch.float64, device=exp.device)
    full_extra[ox] = extra
    mask = vec_mask(x, n, incx)
    return [Expected("arg.6", exp, tol, mask, atol_extra=full_extra[mask]),
            Expected("return", None, Tolerance(), alias="arg.6")]



_TRSV_FLAGS = product(uplo=[0, 1], trans=[0, 1], diag=[0, 1])

STRSV = routine_operator(Row(
    STRSV_R, category='level 2 triangular solve',
    semantics="solve op(A) z = x and store z into x; A is n x n triangular per uplo (only that triangle is "
              "read), diag UNIT means a unit diagonal that is not read; op = N or T; no singularity test. "
              "Returns x.",
    grids={
        "smoke": [
            dict(n=1, incx=1, uplo=0, trans=0, diag=0),
            dict(n=32, incx=2, uplo=1, trans=1, diag=1),
            dict(n=17, incx=1, uplo=0, trans=0, diag=0, data="genuine"),
            dict(n=24, incx=-1, uplo=1, trans=1, diag=0, data="genuine", lda=27),
        ],
        "full": [dict(n=d["n"], incx=d["incx"], uplo=d["f"]["uplo"], trans=d["f"]["trans"], diag=d["f"]["diag"])
                 for d in product(n=N6, incx=[1, 2], f=_TRSV_FLAGS)],
        "heldout": [dict(n=40, lda=45, incx=-2, data="genuine", **f) for f in _TRSV_FLAGS]
        + [dict(n=4096, incx=1, uplo=1, trans=1, diag=0, data="dominant", reduce_dim=4096),
           dict(n=64, incx=1, uplo="U", trans="T", diag="N", data="genuine"),
           dict(n=64, incx=3, uplo="L", trans="N", diag="U", data="genuine")],
    },
    build=_trsv_build, raw_reference=_trsv_ref,
    atol_text=accumulation_text("n", "(M(T)^-1 |T| |z|)[i] (M(T): |t_ii| on the diagonal, -|t_ij| off it; z the "
                                "exact solution)", "1e-4 x reduce_dim (reduce_dim 1 in the spec's cases)"),
    notes="Tolerance (ours, not the spec's): a substitution in any order solves (T + dT) z' = x with |dT| <= "
          "gamma_n |T| (Higham, Thm 8.5), so the accumulation bound applies to M(T)^-1 |T| |z|, a componentwise bound "
          "of |T^-1| |T| |z|; it never exceeds the spec's atol, and where a case's reduce_dim is long it stops a "
          "solve from fp16-rounded inputs passing (README \"Tolerance and precision policy\").",
    cost=lambda p: Cost(float(p["n"]) ** 2, (p["n"] ** 2 / 2 + 2 * p["n"]) * 4),
    timed=lambda p: p["n"] >= 1024,
))



# ------------------------------------------------------------------------------------ shared helpers
_ONE_ATOL = "1e-4 (reduce_dim 1, cublas.md)"
_MV_ATOL = accumulation_text("the inner length + 2", "(|alpha| (|op(A)| |x|)[i] + |beta| |y[i]|)",
                             "1e-4 (reduce_dim 1)")


def _op(a: torch.Tensor, code: int) -> torch.Tensor:
    """op(A) for a trans code: A, A^T, or conj(A)^T (C; = T for real data)."""
    if code == 0:
        return a
    return a.t().conj() if code == 2 else a.t()


def _fills(p: dict[str, Any], gen: Any):
    """Per-case data adjustments named in the grids (cublas.md §2.5, §2.11):
    ``nan_<arg>``: the whole buffer NaN (an operand that must not be read, or an output whose logical
    region is overwritten without being read); ``sym``: A = (R + R^T)/2 over the n x n block (Csymv's
    upstream data); ``nan_other``: NaN outside the uplo triangle of A (n x n, lda) and in its padding rows;
    ``band``: A in band storage per uplo, out-of-matrix slots zero (or NaN with ``nan_band``), the diagonal
    row 1 for diag UNIT (NaN with ``nan_band``)."""
    def fill(name: str, t: torch.Tensor) -> None:
        if p.get("nan_" + name):
            t.fill_(float("nan"))
        if name != "A":
            return
        n, lda = p["n"], p.get("lda") or None
        if p.get("sym") or p.get("nan_other"):
            lda = lda or n + p.get("pad", 0)
            a = mat_view(t, n, n, lda)
            if p.get("sym"):
                a.copy_((a + a.t()) / 2)
            if p.get("nan_other"):
                lower = uplo_code(p["uplo"]) == 0
                keep = torch.tril(torch.ones(n, n, dtype=torch.bool, device=t.device)) if lower else \
                    torch.triu(torch.ones(n, n, dtype=torch.bool, device=t.device))
                a.masked_fill_(~keep.to(t.device), float("nan"))
                fill_padding_(t, n, lda, float("nan"))
        if p.get("band"):
            k = p["k"]
            lda = lda or k + 1 + p.get("pad", 0)
            b = mat_view(t, k + 1, n, lda)
            unused = ~_band_valid(n, k, uplo_code(p["uplo"]) == 1, k + 1, t.device)
            b.masked_fill_(unused, float("nan") if p.get("nan_band") else 0.0)
            if p.get("nan_band"):                  # rows k+1..lda-1: padding, never read
                fill_padding_(t, k + 1, lda, float("nan"))
            if "diag" in p and diag_code(p["diag"]) == 1:
                row = k if uplo_code(p["uplo"]) == 1 else 0
                b[row].fill_(float("nan") if p.get("nan_band") else 1.0)
    return fill


def _band_valid(n: int, k: int, upper: bool, rows: int, device: Any) -> torch.Tensor:
    """Bool (rows, n): which band-storage slots hold matrix elements (UPPER: row r of column j is
    A(r - k + j, j) for r - k + j >= 0; LOWER: A(j + r, j) for j + r < n; rows > k are padding)."""
    r = torch.arange(rows, device=device)[:, None]
    j = torch.arange(n, device=device)[None, :]
    if upper:
        return (r <= k) & (r - k + j >= 0)
    return (r <= k) & (j + r < n)


def _band_dense(band: torch.Tensor, n: int, k: int, upper: bool) -> torch.Tensor:
    """The n x n matrix of a (k+1) x n band storage (only the stored triangle; zeros elsewhere)."""
    dense = torch.zeros(n, n, dtype=band.dtype, device=band.device)
    valid = _band_valid(n, k, upper, k + 1, band.device)
    r, j = torch.nonzero(valid, as_tuple=True)
    i = r - k + j if upper else j + r
    dense[i, j] = band[r, j]
    return dense


def _acc_tol(r: Ref, out: torch.Tensor, absum: torch.Tensor, terms: int, reduce_dim: int):
    """The row's tolerance: floating and complex results by the accumulation rule of their precision (capped at
    1e-4 x reduce_dim; README "Tolerance and precision policy"), the spec's rule otherwise."""
    return accumulation_rule(r.r.dtype, absum, terms, reduce_dim)


def _mv_update(r: Ref, product: Any, reduce_dim: int, terms: int) -> None:
    """y = alpha*product() + beta*y with the quick rules of §2.5 (alpha == 0: A and x not read;
    beta == 0: y not read). ``product()`` returns (value, |terms| sum)."""
    a, b = r.scalar("alpha"), r.scalar("beta")
    ny = r.arg("y").shape(r.v)
    out = torch.zeros(ny, dtype=r.r.ref_dtype, device=r.device)
    absum = torch.zeros(ny, dtype=torch.float64, device=r.device)
    if a != 0 and terms > 0:
        val, mag = product()
        out = out + a * val
        absum = absum + abs(a) * mag
    if b != 0:
        y = r.vec("y")
        out = out + b * y
        absum = absum + abs(b) * y.abs()
    tol, extra = _acc_tol(r, out, absum, terms + 2, reduce_dim)
    r.out("y", out, tol, atol_extra=extra)


# ----------------------------------------------------------------------------------- Dgemv, Cgemv
def gemv_reference(p: dict[str, Any], r: Ref) -> None:
    """y = alpha*op(A)*x + beta*y for plain and strided-batched gemv (cublas.md §2.5 quick rules); fp32
    results by the accumulation rule over the inner length (+2), others by the spec's rule (reduce_dim 1 for
    the plain routines, the inner length for the batched ones)."""
    t = r.v["trans"]
    inner = r.v["n"] if t == 0 else r.v["m"]
    batched = "batchCount" in r.v
    if (r.v["n"] if t else r.v["m"]) <= 0 or r.v.get("batchCount", 1) <= 0:
        r.unchanged("y")
        return
    a, b = r.scalar("alpha"), r.scalar("beta")
    out = absum = 0
    if a != 0 and inner > 0:
        A = r.mat("A")
        opa = A.transpose(-1, -2) if t else A
        if t == 2:
            opa = opa.conj()
        x = r.vec("x")[..., None]
        out = a * (opa @ x)[..., 0]
        absum = abs(a) * (opa.abs() @ x.abs())[..., 0]
    if b != 0:
        y = r.vec("y")
        out = out + b * y
        absum = absum + abs(b) * y.abs()
    ny = r.arg("y").shape(r.v)
    shape = (r.v["batchCount"], ny) if batched else (ny,)
    out = out + torch.zeros(shape, dtype=r.r.ref_dtype, device=r.device)
    absum = absum + torch.zeros(shape, dtype=torch.float64, device=r.device)
    rd = inner if batched else 1
    tol, extra = accumulation_rule(r.r.dtype, absum, inner + 2, rd)
    r.out("y", out, tol, atol_extra=extra)


_gemv_ref = gemv_reference


def _gemv_cost(es: int, fl: int):
    def cost(p: dict[str, Any]) -> Cost:
        m, n = p["m"], p["n"]
        lx, ly = (n, m) if trans_code(p["trans"]) == 0 else (m, n)
        return Cost(float(fl * m * n), (m * n + lx + 2 * ly) * es, "fp64" if es == 8 and fl == 2 else "none")
    return cost


_GEMV_SEM = ("y = alpha*op(A)*x + beta*y; A m x n column-major (lda); op = N, T or C (conjugate transpose; = T for "
             "real data); x has n elements for N and m otherwise, y m for N and n otherwise (increments may be "
             "negative: backwards layout). beta == 0: y is not read (NaN there must not propagate); alpha == 0: A "
             "and x are not read. Returns y.")

_V5 = [(16, 16), (64, 128), (128, 256), (256, 256), (17, 33)]
DGEMV = routine_operator(Row(
    DGEMV_R, category="level 2", semantics=_GEMV_SEM,
    grids={
        "smoke": [dict(m=5, n=3, trans="N", alpha=1.0, beta=0.0, incx=1, incy=1),
                  dict(m=17, n=33, trans="T", alpha=0.5, beta=0.5, incx=1, incy=1),
                  dict(m=16, n=16, trans="N", alpha=-1.0, beta=1.0, incx=-2, incy=1)]
        + quick_cases(DGEMV_R, dict(m=9, n=7, trans="T", alpha=0.5, beta=-0.5, incx=1, incy=-1)),
        "full": [dict(m=d["mn"][0], n=d["mn"][1], alpha=d["ab"][0], beta=d["ab"][1], trans=d["trans"], incx=1, incy=1)
                 for d in product(mn=_V5, ab=AB3, trans=["N", "T"])],
        "heldout": [dict(m=37, n=23, trans="N", alpha=0.75, beta=-0.5, lda=41, incx=-2, incy=3, poison=True),
                    dict(m=5000, n=3, trans="T", alpha=1.0, beta=0.0, incx=1, incy=1, nan_y=True),
                    dict(m=3, n=5000, trans=0, alpha=0.0, beta=0.5, incx=1, incy=1, nan_A=True, nan_x=True)],
    },
    reference=_gemv_ref, fill=_fills, atol_text=_MV_ATOL,
    cost=_gemv_cost(8, 2), timed=lambda p: p["m"] >= 64 and p["n"] >= 64,
))

CGEMV = routine_operator(Row(
    CGEMV_R, category="level 2", semantics=_GEMV_SEM + " complex64 storage: interleaved float32 (re, im) pairs.",
    grids={
        "smoke": [dict(m=11, n=6, trans="N", alpha=0.5 - 0.25j, beta=1.0 + 1.0j, incx=1, incy=-2, cparts="half"),
                  dict(m=1, n=1, trans="N", alpha=1.0, beta=0.0, incx=1, incy=1, cparts="half"),
                  dict(m=16, n=3, trans="T", alpha=-0.5 + 0.5j, beta=1.0, incx=2, incy=1, cparts="half"),
                  dict(m=9, n=16, trans="C", alpha=1.0, beta=1.0, incx=1, incy=2, cparts="half"),
                  dict(m=7, n=5, trans="N", alpha=-0.5 + 0.5j, beta=0.0, incx=-2, incy=1, cparts="half")]
        + quick_cases(CGEMV_R, dict(m=6, n=9, trans="C", alpha=0.5 + 0.5j, beta=1 - 0.5j, incx=1, incy=1,
                                    cparts="half")),
        "full": product(m=[1, 16, 64, 128], n=[1, 16, 64, 128], trans=["N", "T", "C"], alpha=[1.0, 0.0, -0.5 + 0.5j],
                        beta=[1.0, 0.0], incx=[1, 2], incy=[1, 2], cparts=["half"]),
        "heldout": [dict(m=257, n=129, trans="C", alpha=0.5 - 0.25j, beta=1.0 + 1.0j, lda=260, incx=-2, incy=3,
                         cparts="half", poison=True),
                    dict(m=1, n=4096, trans="T", alpha=1.0, beta=0.0, incx=1, incy=1, cparts="half", nan_y=True),
                    dict(m=1000, n=3, trans=0, alpha=0.0, beta=-1.0, incx=1, incy=1, cparts="half", nan_A=True)],
    },
    reference=_gemv_ref, fill=_fills, atol_text=_MV_ATOL,
    cost=_gemv_cost(8, 8), timed=lambda p: p["m"] >= 64 and p["n"] >= 64,
))


# ------------------------------------------------------------------------------ Sger, Cgeru, Zgerc
def _ger_ref(conj: bool):
    def ref(p: dict[str, Any], r: Ref) -> None:
        a = r.scalar("alpha")
        if a == 0 or r.v["m"] <= 0 or r.v["n"] <= 0:
            r.unchanged("A")
            return
        x, y = r.vec("x"), r.vec("y")
        if conj:
            y = y.conj()
        A, xy = r.mat("A"), a * torch.outer(x, y)
        ref = A + xy
        # fp32: two products and a sum (or an FMA): 2(|A| + |alpha x y| + |ref|) units; complex: the spec's rule
        tol, extra = r.rounding(ref, 2 * (A.abs() + xy.abs() + ref.abs()), "2(|A| + |alpha x y| + |ref|)")
        r.out("A", ref, tol, atol_extra=extra)
    return ref


SGER = routine_operator(Row(
    SGER_R, category="level 2 rank-1 update",
    semantics="A = alpha*x*y^T + A on the m x n column-major matrix (lda), fp32; x has m elements, y n (increments "
              "may be negative); alpha == 0 returns at once (A untouched, x and y not read); padding rows of A "
              "untouched. Returns A.",
    grids={
        "smoke": [dict(m=1, n=1, alpha=1.0, incx=1, incy=1), dict(m=32, n=17, alpha=-111.999, incx=-2, incy=3),
                  dict(m=39, n=33, alpha=0.0, incx=3, incy=1)]
        + quick_cases(SGER_R, dict(m=9, n=7, alpha=0.5, incx=1, incy=-1)),
        "full": product(m=[1, 32, 71, 160, 497, 1024, 4096, 5333], n=N11, alpha=A9, incx=INC3, incy=INC3),
        "heldout": [dict(m=19, n=11, lda=23, alpha=-0.75, incx=-1, incy=2, poison=True),
                    dict(m=4097, n=3, alpha=0.0, incx=1, incy=1, nan_x=True),
                    dict(m=5, n=100003, alpha=0.5, incx=1, incy=1)],
    },
    reference=_ger_ref(False), fill=_fills, atol_text=_ONE_ATOL,
    cost=lambda p: Cost(2.0 * p["m"] * p["n"], (2 * p["m"] * p["n"] + p["m"] + p["n"]) * 4),
    timed=lambda p: p["n"] >= 1024,
))

_GER_SQ = [dict(m=d["n"], n=d["n"], alpha=d["alpha"], incx=d["inc"], incy=d["inc"], cparts="half")
           for d in product(n=N6, alpha=A5, inc=[1, 2])]

CGERU = routine_operator(Row(
    CGERU_R, category="level 2 rank-1 update",
    semantics="A = alpha*x*y^T + A (no conjugation) on the m x n column-major complex64 matrix (lda; interleaved "
              "float32 pairs); alpha == 0: A untouched. Returns A.",
    grids={
        "smoke": [dict(m=11, n=6, alpha=0.5 - 1.25j, incx=2, incy=-1, cparts="half"),
                  dict(m=1, n=1, alpha=1.0, incx=1, incy=1, cparts="half"),
                  dict(m=17, n=17, alpha=-0.999, incx=-2, incy=2, cparts="half"),
                  dict(m=32, n=32, alpha=0.0, incx=1, incy=1, cparts="half")]
        + quick_cases(CGERU_R, dict(m=9, n=7, alpha=0.5 - 0.5j, incx=1, incy=1, cparts="half")),
        "full": _GER_SQ,
        "heldout": [dict(m=300, n=77, lda=305, alpha=0.5 - 1.25j, incx=-1, incy=2, cparts="half", poison=True),
                    dict(m=33, n=33, alpha=0.0, incx=1, incy=1, cparts="half", nan_x=True),
                    dict(m=4097, n=4097, alpha=1.0, incx=1, incy=1, cparts="half")],
    },
    reference=_ger_ref(False), fill=_fills, atol_text=_ONE_ATOL + ", rtol 1.3e-6 (complex64)",
    cost=lambda p: Cost(8.0 * p["m"] * p["n"], (2 * p["m"] * p["n"] + p["m"] + p["n"]) * 8),
    timed=lambda p: p["n"] >= 1024,
))

ZGERC = routine_operator(Row(
    ZGERC_R, category="level 2 rank-1 update",
    semantics="A = alpha*x*y^H + A, i.e. A(i,j) += alpha*x[i]*conj(y[j]) (y is conjugated, not x), on the m x n "
              "column-major complex128 matrix (lda; interleaved float64 pairs); alpha == 0: A untouched. Returns A.",
    grids={
        "smoke": [dict(m=11, n=6, alpha=0.5 - 1.25j, incx=1, incy=-2, cparts="half"),
                  dict(m=1, n=1, alpha=1.0, incx=1, incy=1, cparts="half"),
                  dict(m=17, n=17, alpha=-0.999, incx=-2, incy=2, cparts="half"),
                  dict(m=32, n=32, alpha=0.0, incx=1, incy=1, cparts="half")]
        + quick_cases(ZGERC_R, dict(m=9, n=7, alpha=0.5 - 0.5j, incx=1, incy=1, cparts="half")),
        "full": _GER_SQ,
        "heldout": [dict(m=19, n=11, lda=23, alpha=0.5 - 1.25j, incx=-1, incy=2, cparts="half", poison=True),
                    dict(m=4097, n=4097, alpha=0.0, incx=1, incy=1, cparts="half", nan_x=True),
                    dict(m=3, n=5000, alpha=-2.0 + 0.5j, incx=1, incy=1, cparts="half")],
    },
    reference=_ger_ref(True), fill=_fills, atol_text=_ONE_ATOL + ", rtol 1e-6 (complex128)",
    cost=lambda p: Cost(8.0 * p["m"] * p["n"], (2 * p["m"] * p["n"] + p["m"] + p["n"]) * 16),
    timed=lambda p: p["n"] >= 1024,
))


# ------------------------------------------------------------------------------------------ Dsyr2
def _syr2_ref(p: dict[str, Any], r: Ref) -> None:
    a, n = r.scalar("alpha"), r.v["n"]
    if a == 0 or n <= 0:
        r.unchanged("A")
        return
    x, y = r.vec("x"), r.vec("y")
    tri = torch.tril(torch.ones(n, n, dtype=torch.bool, device=r.device)) if r.v["uplo"] == 0 else \
        torch.triu(torch.ones(n, n, dtype=torch.bool, device=r.device))
    A = r.mat("A")
    upd = torch.where(tri, A, torch.zeros((), dtype=A.dtype)) + a * (torch.outer(x, y) + torch.outer(y, x))
    r.out("A", upd, Tolerance(), region=tri)


DSYR2 = routine_operator(Row(
    DSYR2_R, category="level 2 symmetric rank-2 update",
    semantics="A = alpha*(x*y^T + y*x^T) + A in fp64 on the uplo triangle of the n x n column-major A (diagonal "
              "included); the other triangle and the padding rows stay bit-identical (A need not be symmetric); "
              "alpha == 0: A untouched. Returns A.",
    grids={
        "smoke": [dict(n=11, uplo=1, alpha=0.75, incx=2, incy=-1),
                  dict(n=1, uplo=1, alpha=1.0, incx=1, incy=1), dict(n=17, uplo=0, alpha=0.5, incx=2, incy=2),
                  dict(n=32, uplo=1, alpha=0.0, incx=1, incy=1), dict(n=9, uplo=1, alpha=-0.999, incx=-1, incy=2)]
        + quick_cases(DSYR2_R, dict(n=9, uplo=0, alpha=0.5, incx=1, incy=1)),
        "full": [dict(n=d["n"], uplo=1, alpha=d["alpha"], incx=d["inc"], incy=d["inc"])
                 for d in product(n=N6, alpha=A5, inc=[1, 2])],
        "heldout": [dict(n=13, lda=16, uplo=0, alpha=0.75, incx=-1, incy=3),
                    dict(n=1500, uplo=0, alpha=-1.0, incx=1, incy=1, pad=3, nan_other=True),
                    dict(n=4097, uplo="U", alpha=-2.5, incx=1, incy=1)]
        + quick_cases(DSYR2_R, dict(n=33, uplo=0, alpha=1.0, incx=-1, incy=2, pad=2)),
    },
    reference=_syr2_ref, fill=_fills, atol_text=_ONE_ATOL + " (fp64 result)",
    cost=lambda p: Cost(2.0 * p["n"] ** 2, (p["n"] ** 2 + 2 * p["n"]) * 8), timed=lambda p: p["n"] >= 1024,
))


# ------------------------------------------------------------------------------------------ Csymv
def _symv_ref(p: dict[str, Any], r: Ref) -> None:
    n = r.v["n"]

    def product():
        A = r.mat("A")
        tri = torch.tril(torch.ones(n, n, dtype=torch.bool, device=r.device)) if r.v["uplo"] == 0 else \
            torch.triu(torch.ones(n, n, dtype=torch.bool, device=r.device))
        sym = torch.where(tri, A, A.t())           # the stored triangle mirrored; the other one never read
        x = r.vec("x")
        return sym @ x, sym.abs() @ x.abs()
    _mv_update(r, product, max(1, n), n)


CSYMV = routine_operator(Row(
    CSYMV_R, category="level 2 symmetric",
    semantics="y = alpha*A*x + beta*y with A n x n complex symmetric (A(j,i) = A(i,j), no conjugation: not "
              "Hermitian); only the uplo triangle of A is read (the other may hold anything, NaN included); "
              "complex64 storage as interleaved float32 pairs; beta == 0: y not read; alpha == 0: A, x not read. "
              "Returns y.",
    grids={
        "smoke": [dict(n=11, uplo=0, alpha=0.5 + 0.5j, beta=0.5, incx=-2, incy=1, nan_other=True, cparts="half"),
                  dict(n=1, uplo=0, alpha=1.0, beta=0.5, incx=1, incy=1, sym=True, cparts="half"),
                  dict(n=17, uplo=0, alpha=-0.999, beta=0.5, incx=2, incy=1, nan_other=True, cparts="half"),
                  dict(n=32, uplo=0, alpha=0.0, beta=0.5, incx=1, incy=1, sym=True, cparts="half"),
                  dict(n=13, uplo=1, alpha=0.5 + 0.5j, beta=0.5, incx=1, incy=-2, nan_other=True, cparts="half")]
        + quick_cases(CSYMV_R, dict(n=9, uplo=1, alpha=0.5 + 0.5j, beta=0.5, incx=1, incy=1, nan_other=True,
                                    cparts="half")),
        "full": [dict(n=d["n"], uplo=0, alpha=d["alpha"], beta=0.5, incx=d["incx"], incy=1, sym=True, cparts="half")
                 for d in product(n=N6, alpha=A5, incx=[1, 2])],
        "heldout": [dict(n=1025, uplo=1, alpha=0.5 + 0.5j, beta=0.5, lda=1030, incx=2, incy=-1, nan_other=True,
                         cparts="half"),
                    dict(n=300, uplo=0, alpha=-1.0, beta=0.0, incx=1, incy=1, nan_other=True, nan_y=True,
                         cparts="half"),
                    dict(n=64, uplo="L", alpha=1.0, beta=0.5, incx=1, incy=1, nan_other=True, cparts="half")]
        + quick_cases(CSYMV_R, dict(n=65, uplo=1, alpha=1.0, beta=0.5 - 0.5j, incx=2, incy=2, cparts="half"),
                      only=("alpha",)),
    },
    reference=_symv_ref, fill=_fills,
    atol_text=accumulation_text("n + 2", "(|alpha| (|A_sym| |x|)[i] + |beta| |y[i]|)", "1e-4 x n"),
    cost=lambda p: Cost(8.0 * p["n"] ** 2, (p["n"] ** 2 / 2 + 3 * p["n"]) * 8), timed=lambda p: p["n"] >= 1024,
))


# ------------------------------------------------------------------------------------------ Dsbmv
def _sbmv_ref(p: dict[str, Any], r: Ref) -> None:
    n, k = r.v["n"], r.v["k"]

    def product():
        band = r.mat("A")
        tri = _band_dense(band, n, k, r.v["uplo"] == 1)
        sym = tri + tri.t() - torch.diag(torch.diagonal(tri))
        x = r.vec("x")
        return sym @ x, sym.abs() @ x.abs()
    _mv_update(r, product, max(1, n), 2 * k + 1)


DSBMV = routine_operator(Row(
    DSBMV_R, category="level 2 symmetric band",
    semantics="y = alpha*A*x + beta*y in fp64, A n x n symmetric with k super- (= sub-) diagonals in band storage "
              "(lda >= k+1): UPPER (uplo 1) stores A(i,j), max(0,j-k) <= i <= j, at (k+i-j) + j*lda; LOWER at "
              "(i-j) + j*lda for j <= i <= min(n-1, j+k); band slots outside the matrix and rows k+1..lda-1 are "
              "never read; beta == 0: y not read; alpha == 0: A, x not read. Returns y.",
    grids={
        "smoke": [dict(n=17, k=3, uplo=1, alpha=0.5, beta=1.0, incx=1, incy=-2, band=True, nan_band=True),
                  dict(n=1, k=0, uplo=1, alpha=1.0, beta=-0.75, incx=1, incy=1, band=True),
                  dict(n=32, k=2, uplo=1, alpha=-0.999, beta=-0.75, incx=2, incy=2, band=True),
                  dict(n=71, k=2, uplo=1, alpha=0.0, beta=-0.75, incx=1, incy=1, band=True),
                  dict(n=13, k=3, uplo=0, alpha=0.5, beta=-0.75, incx=-2, incy=1, band=True, nan_band=True)]
        + quick_cases(DSBMV_R, dict(n=13, k=2, uplo=0, alpha=0.5, beta=-0.75, incx=1, incy=1, band=True)),
        # k = 2, lda = 3 for every n, n = 1 included (k > n - 1 is legal: the band slots outside the matrix)
        "full": [dict(n=d["n"], k=2, uplo=1, alpha=d["alpha"], beta=-0.75, incx=d["inc"],
                      incy=d["inc"], band=True) for d in product(n=N6, alpha=A5, inc=[1, 2])],
        "heldout": [dict(n=29, k=3, lda=6, uplo=0, alpha=0.5, beta=1.0, incx=-2, incy=1, band=True, nan_band=True),
                    dict(n=4099, k=17, uplo=1, alpha=1.0, beta=0.0, incx=1, incy=1, band=True, nan_y=True),
                    dict(n=1000, k=0, uplo="L", alpha=-1.5, beta=0.25, incx=1, incy=1, band=True)]
        + quick_cases(DSBMV_R, dict(n=65, k=4, uplo=1, alpha=1.0, beta=0.25, incx=-1, incy=2, band=True),
                      only=("alpha",)),
    },
    reference=_sbmv_ref, fill=_fills,
    atol_text=accumulation_text("2k + 3", "(|alpha| (|A_sym| |x|)[i] + |beta| |y[i]|)", "1e-4 x n"),
    cost=lambda p: Cost(2.0 * p["n"] * (2 * p["k"] + 1), (p["n"] * (p["k"] + 1) + 3 * p["n"]) * 8),
    timed=lambda p: p["n"] >= 1024,
))


# ------------------------------------------------------------------------------------------ Stbmv
def _tbmv_ref(p: dict[str, Any], r: Ref) -> None:
    n, k = r.v["n"], r.v["k"]
    if n <= 0:
        r.unchanged("x")
        return
    tri = _band_dense(r.mat("A"), n, k, r.v["uplo"] == 1)
    if r.v["diag"] == 1:
        tri.diagonal().fill_(1.0)
    op = _op(tri, r.v["trans"])
    x = r.vec("x")
    tol, extra = accumulation_rule(torch.float32, op.abs() @ x.abs(), k + 1, 1)
    r.out("x", op @ x, tol, atol_extra=extra)


_TBMV_FLAGS = product(uplo=[0, 1], trans=[0, 1], diag=[0, 1])
STBMV = routine_operator(Row(
    STBMV_R, category="level 2 triangular band",
    semantics="x = op(A)*x in place (fp32), A n x n triangular with k off-diagonals in band storage (lda >= k+1): "
              "UPPER stores A(i,j), max(0,j-k) <= i <= j, at (k+i-j) + j*lda, LOWER at (i-j) + j*lda for "
              "j <= i <= min(n-1, j+k); diag UNIT: the diagonal band row is not read (ones are used); op = N or T "
              "(C = T). Every output needs up to k+1 old x values: read before overwriting. Returns x.",
    grids={
        "smoke": [dict(n=1, k=0, uplo=0, trans=0, diag=0, incx=1, band=True),
                  dict(n=17, k=2, uplo=1, trans=1, diag=1, incx=2, band=True, nan_band=True),
                  dict(n=32, k=2, uplo=0, trans=0, diag=0, incx=-1, band=True)],
        # k clipped to n - 1: for n = 1 the k = 2 cases repeat k = 0 (the spec's count keeps them); k_axis keeps
        # their parameters, hence their seeds, distinct
        "full": [dict(n=d["n"], k=min(d["k"], d["n"] - 1), incx=d["incx"], band=True, **d["f"],
                      **({"k_axis": d["k"]} if d["k"] > d["n"] - 1 else {}))
                 for d in product(n=N6, incx=[1, 2], f=_TBMV_FLAGS, k=[0, 2])],
        "heldout": [dict(n=29, k=3, lda=6, incx=-2, band=True, nan_band=True, **f) for f in _TBMV_FLAGS]
        + [dict(n=5000, k=64, uplo=1, trans=0, diag=0, incx=1, band=True),
           dict(n=100, k=99, uplo="L", trans="T", diag="N", incx=1, band=True)],
    },
    reference=_tbmv_ref, fill=_fills, atol_text=accumulation_text("k + 1", "(|op(A)| |x|)[i]", "1e-4 (reduce_dim 1)"),
    cost=lambda p: Cost(2.0 * p["n"] * (p["k"] + 1), (p["n"] * (p["k"] + 1) + 2 * p["n"]) * 4),
    timed=lambda p: p["n"] >= 1024,
))

OPERATORS = [CGEMV, CGERU, CSYMV, DGEMV, DSBMV, DSYR2, SGER, STBMV, STRSV, ZGERC]


# the rounding bound's atol in words (kgb show; red team 32 R2)
SGER.atol_text = rounding_text("2(|A| + |alpha x y| + |ref|)")
