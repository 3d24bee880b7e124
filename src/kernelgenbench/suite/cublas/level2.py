"""Level-2 cuBLAS routines (cublas.md §3): gemv, ger, symv, syr2, sbmv, tbmv, trsv.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import Call, Cost, Expected, Tolerance, accumulation_rule, accumulation_text, product, storage_view
from .decl import diag_code, mat_view, trans_code, uplo_code, vec_offsets
from .routines import STRSV_R
from .rows import Row, routine_operator
from .grids import N6, vec_mask


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
            dict(n=24, incx=-1, uplo=1, trans=0, diag=0, data="genuine", lda=27),
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


OPERATORS = [STRSV]
