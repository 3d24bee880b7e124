"""Level-3 cuBLAS routines (cublas.md §3): gemm, symm, syrk, trsm.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import (ACCUMULATION_NOTE, Call, Cost, Expected, Tolerance, accumulation_rule, accumulation_text,
                    product, written_expected)
from ..tensors import poison_
from .decl import Ref, mat_view, trans_code
from .routines import CGEMM_R, SGEMM_R
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





# ------------------------------------------------------------------------------ the GEMM family
def op_last2(x: torch.Tensor, code: int) -> torch.Tensor:
    """op(X) on the last two dims: X, X^T, or conj(X)^T (C; = T for real data)."""
    if code == 0:
        return x
    x = x.transpose(-1, -2)
    return x.conj() if code == 2 and x.is_complex() else x


def gemm_reference(p: dict[str, Any], r: Ref) -> None:
    """C = alpha*op(A)*op(B) + beta*C for plain and strided-batched GEMMs (cublas.md §2.5: beta == 0: C not
    read; alpha == 0 or k == 0: A, B not read); fp16/fp32 results by the accumulation rule over k + 2 terms
    (capped at 1e-4 x k), complex and fp64 results by the spec's rule with reduce_dim k."""
    k = r.v["k"]
    if r.v["m"] <= 0 or r.v["n"] <= 0 or r.v.get("batchCount", 1) <= 0:
        r.unchanged("C")
        return
    a, b = r.scalar("alpha"), r.scalar("beta")
    c_shape = r.mat("C").shape if b != 0 else None
    batches = r.v.get("batchCount")
    shape = (batches, r.v["m"], r.v["n"]) if batches else (r.v["m"], r.v["n"])
    out = torch.zeros(shape, dtype=r.r.ref_dtype)
    absum = torch.zeros(shape, dtype=torch.float64)
    if a != 0 and k > 0:
        opa, opb = op_last2(r.mat("A"), r.v["transa"]), op_last2(r.mat("B"), r.v["transb"])
        out = out + a * (opa @ opb)
        absum = absum + abs(a) * (opa.abs() @ opb.abs())
    if b != 0:
        c = r.mat("C")
        assert c.shape == c_shape
        out = out + b * c
        absum = absum + abs(b) * c.abs()
    if r.r.dtype in (torch.float16, torch.float32):
        tol, extra = accumulation_rule(r.r.dtype, absum, k + 2, k)
    else:
        tol, extra = Tolerance(reduce_dim=max(1, k)), None
    r.out("C", out, tol, atol_extra=extra)


def gemm_fill(p: dict[str, Any], gen: Any):
    """``nan_C``: C all NaN (beta == 0: never read); ``nan_AB``: A and B NaN (alpha == 0: never read)."""
    def fill(name: str, t: torch.Tensor) -> None:
        if (name == "C" and p.get("nan_C")) or (name in ("A", "B") and p.get("nan_AB")):
            t.fill_(float("nan"))
    return fill


def gemm_cost(es: int, complex_: bool, compute: str):
    def cost(p: dict[str, Any]) -> Cost:
        m, n, k, b = p["m"], p["n"], p["k"], p.get("batchCount", 1)
        return Cost((8.0 if complex_ else 2.0) * m * n * k * b, (m * k + k * n + 2 * m * n) * es * b, compute)
    return cost


def gemm_gate(p: dict[str, Any]) -> bool:
    return p["m"] >= 128 and p["n"] >= 128 and p["k"] >= 64


def gemm_atol(dtype: torch.dtype) -> str:
    if dtype in (torch.float16, torch.float32):
        return accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(B)|)[i,j] + |beta| |C[i,j]|)", "1e-4 x k")
    rt = {torch.float64: "1e-5", torch.complex64: "1.3e-6", torch.complex128: "1e-6"}[dtype]
    return f"1e-4 x k (reduce_dim k, cublas.md), rtol {rt}"


def shapes(*mnk: tuple[int, int, int], **extra: Any) -> list[dict[str, Any]]:
    return [dict(m=m, n=n, k=k, **extra) for m, n, k in mnk]


_CGEMM_SHAPES = [(1, 1, 1), (16, 16, 16), (32, 32, 32), (32, 64, 16), (64, 32, 48), (128, 256, 64), (256, 128, 128),
                 (17, 33, 65), (71, 497, 33), (128, 128, 128), (256, 256, 256), (1024, 1024, 256), (4096, 1024, 64),
                 (1024, 4096, 32), (5333, 5333, 71), (5333, 71, 33), (71, 5333, 17)]
_CGEMM_AB = [(1, 0), (0, 1), (0.5, 0.5), (-1, 1), (2, -0.5), (0.001, 0.999), (-0.999, 1), (100.001, -0.999),
             (0.5 + 0.3j, 0.5 - 0.2j), (0.001 + 0.001j, 0), (1, 0.001 + 0.001j)]
_TT9 = ["NN", "NT", "TN", "TT", "CN", "NC", "CC", "TC", "CT"]

CGEMM = routine_operator(Row(
    CGEMM_R, category="level 3 gemm",
    semantics="C = alpha*op(A)*op(B) + beta*C in complex64 (interleaved float32 re/im pairs; compute in true fp32, "
              "no TF32), op = N, T or C (conjugate transpose) per operand; column-major with leading dimensions; "
              "beta == 0: C is not read; alpha == 0: A and B are not read; padding rows of C untouched. Returns C.",
    grids={
        "smoke": [dict(m=1, n=1, k=1, transa="N", transb="N", alpha=1, beta=0, cparts="half"),
                  dict(m=17, n=13, k=9, transa="C", transb="N", alpha=0.5 + 0.3j, beta=0.5 - 0.2j, cparts="half"),
                  dict(m=16, n=16, k=16, transa="T", transb="C", alpha=0, beta=1, cparts="half"),
                  dict(m=8, n=12, k=20, transa="N", transb="C", alpha=-0.999, beta=1, cparts="half")],
        "full": [dict(m=s[0], n=s[1], k=s[2], alpha=ab[0], beta=ab[1], transa=tt[0], transb=tt[1], cparts="half")
                 for s, ab, tt in ((d["s"], d["ab"], d["tt"]) for d in product(s=_CGEMM_SHAPES, ab=_CGEMM_AB,
                                                                                  tt=_TT9))],
        "heldout": [dict(m=257, n=131, k=67, transa="C", transb="T", alpha=0.25 - 0.75j, beta=-0.5 + 0.1j, pad=3,
                         cparts="half", poison=True),
                    dict(m=1000, n=1, k=513, transa="N", transb="N", alpha=1, beta=0.5, cparts="half"),
                    dict(m=300, n=200, k=100, transa="C", transb="C", alpha=1 + 1j, beta=0, nan_C=True,
                         cparts="half")],
    },
    reference=gemm_reference, fill=gemm_fill, atol_text=gemm_atol(torch.complex64),
    cost=gemm_cost(8, True, "fp32"), timed=gemm_gate,
))

OPERATORS = [CGEMM, SGEMM]
