"""Level-3 cuBLAS routines (cublas.md §3): gemm, symm, syrk, trsm.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import (ACCUMULATION_NOTE, Call, Cost, Expected, Tolerance, accumulation_rule, accumulation_text,
                    product, written_expected)
from ..tensors import poison_
from .decl import mat_view, trans_code
from .routines import SGEMM_R
from .rows import Row, routine_operator
from .grids import AB6, G9, TT4, f32


# ---------------------------------------------------------------------------------------- Sgemm
def _gemm_build(p: dict[str, Any], device, gen) -> Call:
    m, n, k = p["m"], p["n"], p["k"]
    ta, tb = p["transa"], p["transb"]
    pad = p.get("pad", 0)
    ra, ca = (m, k) if trans_code(ta) == 0 else (k, m)
    rb, cb = (k, n) if trans_code(tb) == 0 else (n, k)
    lda, ldb, ldc = ra + pad, rb + pad, m + pad
    A = torch.randn(ca, lda, generator=gen, device=device)
    B = torch.randn(cb, ldb, generator=gen, device=device)
    C = torch.randn(n, ldc, generator=gen, device=device)
    if pad:  # padding rows of C hold sentinels that must survive bit for bit
        poison_(C[:, m:])
    if p.get("nan_c"):
        C[:, :m] = float("nan")
    if p.get("nan_ab"):
        A.fill_(float("nan"))
        B.fill_(float("nan"))
    return Call([ta, tb, m, n, k, p["alpha"], A, lda, B, ldb, p["beta"], C, ldc], written=(11,))


def _op(mat: torch.Tensor, t: Any) -> torch.Tensor:
    return mat if trans_code(t) == 0 else mat.t()


def _gemm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc = call.args
    a, b = f32(alpha), f32(beta)
    ra, ca = (m, k) if trans_code(ta) == 0 else (k, m)
    rb, cb = (k, n) if trans_code(tb) == 0 else (n, k)
    out = torch.zeros(m, n, dtype=torch.float64, device=C.device)
    # the accumulation rule (README "Tolerance and precision policy"): per element |alpha| sum|a_i b_i|
    # + |beta| |c| in fp64, over the k products, the alpha scaling and the beta term (n = k + 2)
    absum = torch.zeros(m, n, dtype=torch.float64, device=C.device)
    if a != 0.0 and k > 0:
        opa, opb = _op(mat_view(A, ra, ca, lda).double(), ta), _op(mat_view(B, rb, cb, ldb).double(), tb)
        out += a * (opa @ opb)
        absum += abs(a) * (opa.abs() @ opb.abs())
    if b != 0.0:
        c = mat_view(C, m, n, ldc).double()
        out += b * c
        absum += abs(b) * c.abs()
    tol, extra = accumulation_rule(torch.float32, absum, k + 2, k)
    return [written_expected("arg.11", C, out, tol, region_view=mat_view(C, m, n, ldc), atol_extra=extra),
            Expected("return", None, Tolerance(), alias="arg.11")]



SGEMM = routine_operator(Row(
    SGEMM_R, category='level 3 gemm',
    semantics="C = alpha*op(A)*op(B) + beta*C in true fp32 (no TF32), column-major with leading dimensions; "
              "beta == 0: C is not read; alpha == 0: A and B are not read; padding rows of C stay untouched. "
              "Returns C.",
    grids={
        "smoke": [
            dict(m=1, n=1, k=1, transa="N", transb="N", alpha=1.0, beta=0.0),
            dict(m=33, n=21, k=40, transa="T", transb="N", alpha=100.001, beta=-1.0),
            dict(m=16, n=16, k=16, transa="N", transb="T", alpha=0.0, beta=1.0),
            dict(m=7, n=9, k=3, transa="T", transb="T", alpha=-0.999, beta=0.5),
        ],
        "full": [dict(m=s[0], n=s[1], k=s[2], alpha=ab[0], beta=ab[1], transa=tt[0], transb=tt[1])
                 for s, ab, tt in ((d["s"], d["ab"], d["tt"]) for d in product(
                     s=G9 + [(71, 71, 71), (33, 71, 497)], ab=AB6 + [(-0.999, 0.5), (100.001, -1.0)], tt=TT4))],
        "heldout": [
            dict(m=37, n=29, k=4096, transa="N", transb="N", alpha=0.5, beta=0.5),
            dict(m=1000, n=999, k=97, transa="T", transb="N", alpha=1.0, beta=0.0, pad=5, nan_c=True),
            dict(m=64, n=64, k=64, transa=0, transb=1, alpha=0.0, beta=0.5, nan_ab=True),
        ],
    },
    build=_gemm_build, raw_reference=_gemm_ref,
    atol_text=accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(B)|)[i,j] + |beta| |C[i,j]|)", "1e-4 x k"),
    notes=ACCUMULATION_NOTE.format(n="k"),
    cost=lambda p: Cost(2.0 * p["m"] * p["n"] * p["k"],
                        (p["m"] * p["k"] + p["k"] * p["n"] + 2 * p["m"] * p["n"]) * 4, "fp32"),
    timed=lambda p: p["m"] >= 128 and p["n"] >= 128 and p["k"] >= 64,
))




OPERATORS = [SGEMM]
