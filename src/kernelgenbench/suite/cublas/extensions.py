"""BLAS-like extension cuBLAS routines (cublas.md §3): SgemmEx, Sgeam, Sdgmm, CsyrkEx.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import Cost, accumulation_text, product, rounding_text
from .decl import Ref, quick_cases
from .grids import AB3, G9, TT4
from .level3 import gemm_atol, gemm_cost, gemm_fill, gemm_gate, gemm_reference, syrk_reference, tri_fill
from .routines import CSYRKEX_R, SDGMM_R, SGEAM_R, SGEMMEX_R
from .rows import Row, routine_operator

_R32F = dict(Atype=0, Btype=0, Ctype=0)

SGEMMEX = routine_operator(Row(
    SGEMMEX_R, category="extension gemm",
    semantics="C = alpha*op(A)*op(B) + beta*C computed in true fp32 (no TF32), A, B, C stored in the types their "
              "cudaDataType codes name (graded: Atype = Btype = Ctype = 0, CUDA_R_32F: float32, i.e. Sgemm; other "
              "codes may raise ValueError); column-major with leading dimensions; beta == 0: C not read; "
              "alpha == 0: A, B not read. Returns C.",
    grids={
        "smoke": [dict(m=1, n=1, k=1, transa="N", transb="N", alpha=1.0, beta=0.0, **_R32F),
                  dict(m=17, n=13, k=9, transa="T", transb="N", alpha=0.5, beta=0.5, **_R32F),
                  dict(m=16, n=16, k=16, transa="N", transb="T", alpha=-1.0, beta=1.0, **_R32F)]
        + quick_cases(SGEMMEX_R, dict(m=9, n=7, k=5, transa="N", transb="T", alpha=0.5, beta=-0.5, **_R32F)),
        "full": [dict(m=d["s"][0], n=d["s"][1], k=d["s"][2], alpha=d["ab"][0], beta=d["ab"][1], transa=d["tt"][0],
                      transb=d["tt"][1], **_R32F) for d in product(s=G9, ab=AB3, tt=TT4)],
        "heldout": [dict(m=200, n=100, k=300, transa="T", transb="T", alpha=1.0, beta=0.0, pad=3, nan_C=True,
                         **_R32F),
                    dict(m=128, n=128, k=256, transa=0, transb=0, alpha=0.5, beta=-1.0, **_R32F)]
        + quick_cases(SGEMMEX_R, dict(m=65, n=33, k=17, transa="T", transb="N", alpha=1.0, beta=-0.5, pad=3, **_R32F),
                      only=("alpha",)),
    },
    reference=gemm_reference, fill=gemm_fill, atol_text=gemm_atol(SGEMMEX_R.dtype),
    notes="Held-out mixed-precision type triples of the spec (H2 fp16 -> fp32, H3 bf16) are not graded here: a "
          "routine declaration has one storage precision.",
    cost=gemm_cost(4, False, "fp32"), timed=gemm_gate,
))



# ------------------------------------------------------------------------------------------ Sgeam
def _geam_ref(p: dict[str, Any], r: Ref) -> None:
    m, n = r.v["m"], r.v["n"]
    if m <= 0 or n <= 0:
        r.unchanged("C")
        return
    a, b = r.scalar("alpha"), r.scalar("beta")
    out = torch.zeros(m, n, dtype=torch.float64, device=r.device)
    mag = torch.zeros(m, n, dtype=torch.float64, device=r.device)
    if a != 0:
        A = r.mat("A")
        out = out + a * (A if r.v["transa"] == 0 else A.t())
        mag = mag + (a * (A if r.v["transa"] == 0 else A.t())).abs()
    if b != 0:
        B = r.mat("B")
        out = out + b * (B if r.v["transb"] == 0 else B.t())
        mag = mag + (b * (B if r.v["transb"] == 0 else B.t())).abs()
    # fp32: two products and a sum (or an FMA): 2(|alpha A| + |beta B| + |ref|) units (NaN terms: NaN allowance)
    tol, extra = r.rounding(out, 2 * (mag + out.abs()), "2(|alpha A| + |beta B| + |ref|)")
    r.out("C", out, tol, atol_extra=extra)


def _nan_b(p: dict[str, Any]):
    def fill(name: str, t: torch.Tensor) -> None:
        if name == "B" and p.get("nan_B"):          # beta == 0: B is not read
            t.fill_(float("nan"))
    return fill


def _geam_build(p: dict[str, Any], device: Any, gen: Any):
    from .decl import build_call

    call = build_call(SGEAM_R, p, device, gen, fill=_nan_b(p))
    if p.get("in_place"):                      # C = A (transa N, lda = ldc): the same tensor
        call.args[SGEAM_R.position("C")] = call.args[SGEAM_R.position("A")]
        call.args[SGEAM_R.position("ldc")] = call.args[SGEAM_R.position("lda")]
        call.unchanged = (SGEAM_R.position("B"),)        # A is the output itself
    return call


SGEAM = routine_operator(Row(
    SGEAM_R, category="extension",
    semantics="C = alpha*op(A) + beta*op(B), all m x n after op (A is m x n for N, n x m for T; B likewise), "
              "column-major with leading dimensions, fp32; beta == 0: B is not read; alpha == 0: A is not read; "
              "C may be the very tensor A (transa N, lda = ldc): read each element before writing it; padding rows "
              "of C untouched. Returns C.",
    grids={
        "smoke": [dict(m=1, n=1, transa=0, transb=0, alpha=1.0, beta=0.0),
                  dict(m=32, n=17, transa=1, transb=0, alpha=0.5, beta=0.5),
                  dict(m=9, n=33, transa=0, transb=1, alpha=-1.0, beta=1.0)]
        + quick_cases(SGEAM_R, dict(m=9, n=7, transa=1, transb=1, alpha=0.5, beta=-0.5)),
        "full": [dict(m=d["m"], n=d["n"], alpha=d["ab"][0], beta=d["ab"][1], transa=d["tt"][0], transb=d["tt"][1])
                 for d in product(m=[1, 32, 1024], n=[1, 71, 1024], ab=AB3, tt=[(0, 0), (0, 1), (1, 0), (1, 1)])],
        "heldout": [dict(m=11, n=6, transa=ta, transb=tb, alpha=0.75, beta=-1.25, lda=(6 if ta else 11) + 2,
                         ldb=(6 if tb else 11) + 3, ldc=12, poison=True) for ta, tb in ((0, 0), (0, 1), (1, 0), (1, 1))]
        + [dict(m=1000, n=777, transa=0, transb=1, alpha=1.0, beta=0.0, nan_B=True),
           dict(m=40, n=30, transa="N", transb="T", alpha=2.0, beta=-1.0, in_place=True)]
        + quick_cases(SGEAM_R, dict(m=33, n=21, transa=1, transb=0, alpha=1.0, beta=-0.5, pad=2), only=("alpha",)),
    },
    reference=_geam_ref, build=_geam_build, atol_text="1e-4 (reduce_dim 1, cublas.md)",
    cost=lambda p: Cost(3.0 * p["m"] * p["n"], 3 * p["m"] * p["n"] * 4),
    timed=lambda p: p["m"] >= 128 and p["n"] >= 128,
))


# ------------------------------------------------------------------------------------------ Sdgmm
def _dgmm_ref(p: dict[str, Any], r: Ref) -> None:
    m, n = r.v["m"], r.v["n"]
    if m <= 0 or n <= 0:
        r.unchanged("C")
        return
    A, x = r.mat("A"), r.vec("x")
    ref = x[:, None] * A if r.v["mode"] == 0 else A * x[None, :]
    tol, extra = r.rounding(ref, 4 * ref.abs(), "4|ref|: one product")
    r.out("C", ref, tol, atol_extra=extra)


SDGMM = routine_operator(Row(
    SDGMM_R, category="extension",
    semantics="mode LEFT: C = diag(x)*A, C(i,j) = x[i]*A(i,j) with x of length m; RIGHT: C = A*diag(x), "
              "C(i,j) = A(i,j)*x[j] with x of length n; x uses incx (negative: backwards layout; incx = 0: x[0] "
              "for every element); A, C m x n column-major (lda, ldc); padding rows of C untouched. Returns C.",
    grids={
        # the spec's cases make two calls each (LEFT then RIGHT): here one case per call, so 18 -> 36
        "smoke": [dict(m=1, n=1, mode=md, incx=1) for md in (0, 1)] + [dict(m=32, n=32, mode=0, incx=-3),
                                                                       dict(m=32, n=32, mode=1, incx=3)],
        "full": [dict(m=d["n"], n=d["n"], mode=d["mode"], incx=d["incx"])
                 for d in product(n=[1, 32, 71, 1024, 4096, 5333], incx=[1, 2, 3], mode=[0, 1])],
        "heldout": [dict(m=13, n=7, lda=15, ldc=14, mode=0, incx=-1), dict(m=13, n=7, lda=15, ldc=14, mode=1, incx=0),
                    dict(m=4099, n=33, mode="R", incx=2, pad=3, poison=True)],
    },
    reference=_dgmm_ref, atol_text="1e-4 (reduce_dim 1, cublas.md)",
    notes="The spec's full-tier case makes a LEFT and a RIGHT call; here each call is its own case (36 cases, the "
          "LEFT ones timed: 9).",
    cost=lambda p: Cost(float(p["m"] * p["n"]), 2 * p["m"] * p["n"] * 4 + p["n"] * 4),
    timed=lambda p: p["n"] >= 1024 and p["mode"] in (0, "L", "l"),
))


# ------------------------------------------------------------------------------------------ CsyrkEx
_C32F = dict(Atype=4, Ctype=4)
_SYRK_AB = [(d["a"], d["b"]) for d in product(a=[1, 0, 0.5 + 0.3j, 0.001 + 0.001j, -0.999, 100.001, -1],
                                                b=[0, 1, 0.5 - 0.25j, -1, 0.001 + 0.001j])]

CSYRKEX = routine_operator(Row(
    CSYRKEX_R, category="extension symmetric rank-k",
    semantics="C = alpha*op(A)*op(A)^T + beta*C with a PLAIN transpose (never conjugated: syrk, not herk; trans C "
              "behaves as T), written on the uplo triangle of the n x n column-major C only (diagonal included; the "
              "other triangle and the padding rows stay bit-identical); op(A) is n x k; complex64 storage as "
              "interleaved float32 pairs, Atype = Ctype = 4 (CUDA_C_32F; other type codes may raise ValueError); "
              "beta == 0: C not read; alpha == 0: A not read. Returns C.",
    grids={
        "smoke": [dict(n=1, k=1, uplo=0, trans=0, alpha=1, beta=0, tri_arg="C", cparts="half", **_C32F),
                  dict(n=17, k=9, uplo=1, trans=1, alpha=0.5 + 0.3j, beta=0.5 - 0.25j, tri_arg="C", cparts="half",
                       **_C32F),
                  dict(n=12, k=17, uplo=0, trans=2, alpha=-1, beta=1, tri_arg="C", cparts="half", **_C32F),
                  dict(n=6, k=4, uplo=0, trans=0, alpha=1 - 0.5j, beta=0, tri_arg="C", cparts="half", **_C32F)]
        + quick_cases(CSYRKEX_R, dict(n=7, k=5, uplo=1, trans=2, alpha=0.5 + 0.3j, beta=0.5 - 0.25j, tri_arg="C",
                                      cparts="half", **_C32F)),
        # upstream's axes with the type code corrected from 8 (CUDA_R_8U) to 4 (2.13 item 1)
        "full": [dict(n=d["n"], k=d["k"], uplo=d["uplo"], trans=d["trans"], alpha=d["ab"][0], beta=d["ab"][1],
                      tri_arg="C", cparts="half", **_C32F)
                 for d in product(ab=_SYRK_AB, trans=[0, 1, 2], uplo=[0, 1], k=[1, 17, 33, 71, 160, 497],
                                  n=[1, 17, 32, 33, 71, 160, 497, 1024, 4113, 4096, 5333])],
        "heldout": [dict(n=333, k=65, uplo=1, trans=0, alpha=0.5 - 0.5j, beta=1, lda=340, ldc=337, tri_arg="C",
                         nan_other=True, cparts="half", **_C32F),
                    dict(n=64, k=1000, uplo=0, trans=1, alpha=1, beta=0, tri_arg="C", nan_tri=True, cparts="half",
                         **_C32F),
                    dict(n=4096, k=8, uplo="U", trans="C", alpha=-1, beta=0.5j, tri_arg="C", cparts="half", **_C32F)]
        + quick_cases(CSYRKEX_R, dict(n=65, k=33, uplo=1, trans=0, alpha=1, beta=0.5 - 0.25j, tri_arg="C",
                                      cparts="half", **_C32F), only=("alpha",)),
    },
    reference=syrk_reference, fill=tri_fill,
    atol_text=accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(A)|^T)[i,j] + |beta| |C[i,j]|)", "1e-4 x k"),
    cost=lambda p: Cost(4.0 * p["n"] ** 2 * p["k"], (p["n"] * p["k"] + p["n"] ** 2) * 8, "fp32"),
    timed=lambda p: p["n"] >= 1024,
))

OPERATORS = [CSYRKEX, SDGMM, SGEAM, SGEMMEX]


# the rounding bound's atol in words (kgb show; red team 32 R2)
SGEAM.atol_text = rounding_text("2(|alpha A| + |beta B| + |ref|)")
SDGMM.atol_text = rounding_text("4|ref| (one product: rtol alone)")
