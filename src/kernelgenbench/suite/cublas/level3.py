"""Level-3 cuBLAS routines (cublas.md §3): gemm, symm, syrk, trsm.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations

from typing import Any

import torch

from ..spec import (
    ACCUMULATION_NOTE,
    Call,
    Cost,
    Expected,
    Tolerance,
    accumulation_rule,
    accumulation_text,
    product,
    written_expected,
)
from ..tensors import poison_
from .decl import Ref, fill_padding_, mat_view, quick_cases, trans_code, uplo_code
from .grids import AB6, G9, TT4, f32
from .routines import CGEMM_R, CSYMM_R, SGEMM_R, SSYRK_R, STRSM_R
from .rows import Row, routine_operator


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
    for name in p.get("nan", ()):                # not-read operands (cublas.md §2.5, decl.quick_cases)
        {"A": A, "B": B, "C": C}[name].fill_(float("nan"))
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
            dict(m=7, n=9, k=3, transa="N", transb="T", alpha=-0.999, beta=0.5),
        ] + quick_cases(SGEMM_R, dict(m=9, n=7, k=5, transa="T", transb="N", alpha=0.5, beta=-0.5)),
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
    out = torch.zeros(shape, dtype=r.r.ref_dtype, device=r.device)
    absum = torch.zeros(shape, dtype=torch.float64, device=r.device)
    if a != 0 and k > 0:
        opa, opb = op_last2(r.mat("A"), r.v["transa"]), op_last2(r.mat("B"), r.v["transb"])
        out = out + a * (opa @ opb)
        absum = absum + abs(a) * (opa.abs() @ opb.abs())
    if b != 0:
        c = r.mat("C")
        assert c.shape == c_shape
        out = out + b * c
        absum = absum + abs(b) * c.abs()
    tol, extra = accumulation_rule(r.r.dtype, absum, k + 2, k)
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
    return accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(B)|)[i,j] + |beta| |C[i,j]|)", "1e-4 x k")


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
                  dict(m=17, n=13, k=9, transa="C", transb="T", alpha=0.5 + 0.3j, beta=0.5 - 0.2j, cparts="half"),
                  dict(m=16, n=16, k=16, transa="T", transb="C", alpha=0, beta=1, cparts="half"),
                  dict(m=8, n=12, k=20, transa="T", transb="C", alpha=-0.999, beta=1, cparts="half"),
                  dict(m=6, n=5, k=4, transa="N", transb="N", alpha=1 + 0.5j, beta=0, cparts="half")]
        + quick_cases(CGEMM_R, dict(m=7, n=6, k=5, transa="C", transb="N", alpha=0.5 + 0.3j, beta=0.5 - 0.2j,
                                    cparts="half")),
        "full": [dict(m=s[0], n=s[1], k=s[2], alpha=ab[0], beta=ab[1], transa=tt[0], transb=tt[1], cparts="half")
                 for s, ab, tt in ((d["s"], d["ab"], d["tt"]) for d in product(s=_CGEMM_SHAPES, ab=_CGEMM_AB,
                                                                                  tt=_TT9))],
        "heldout": [dict(m=257, n=131, k=67, transa="C", transb="T", alpha=0.25 - 0.75j, beta=-0.5 + 0.1j, pad=3,
                         cparts="half", poison=True),
                    dict(m=1000, n=1, k=513, transa="N", transb="N", alpha=1, beta=0.5, cparts="half"),
                    dict(m=300, n=200, k=100, transa="C", transb="C", alpha=1 + 1j, beta=0, nan_C=True,
                         cparts="half")]
        + quick_cases(CGEMM_R, dict(m=65, n=33, k=17, transa="T", transb="C", alpha=1, beta=0.5 - 0.5j, pad=2,
                                    cparts="half"), only=("alpha",)),
    },
    reference=gemm_reference, fill=gemm_fill, atol_text=gemm_atol(torch.complex64),
    cost=gemm_cost(8, True, "fp32"), timed=gemm_gate,
))


# ------------------------------------------------------------------------------ triangles (shared)
def tri_of(n: int, lower: bool, device: torch.device | str = "cpu") -> torch.Tensor:
    """Bool (n, n) on ``device``: the lower (i >= j) or upper (i <= j) triangle, diagonal included."""
    one = torch.ones(n, n, dtype=torch.bool, device=device)
    return torch.tril(one) if lower else torch.triu(one)


def tri_fill(p: dict[str, Any], gen: torch.Generator):
    """Data of the triangle-aware rows (cublas.md §2.11, §2.13 item 4), applied to the matrix named by
    ``p["tri_arg"]`` (``"A"`` by default; ``"C"`` for syrk outputs), ``ka x ka`` with ``ld``:
    ``nan_other``: NaN outside the uplo triangle and in the padding rows (never read, or never written);
    ``nan_tri``: NaN inside the uplo triangle (an output that beta == 0 must not read);
    ``sym``: the ka x ka block made symmetric (R + R^T, upstream's fully symmetric data);
    ``data="upstream"``: a row-major tril/triu + 5I read as column-major (only the diagonal of the
    referenced triangle is non-zero, 2.13 item 4); ``data="genuine"``: a triangular matrix with diagonal
    2 + U(0, 1) and off-diagonal 0.1*randn in the referenced triangle;
    ``nan_C``/``nan_B``: that whole buffer NaN (beta == 0: never read)."""
    def fill(name: str, t: torch.Tensor) -> None:
        if p.get("nan_" + name) and name in ("B", "C"):
            t.fill_(float("nan"))
        if name != p.get("tri_arg", "A"):
            return
        side = p.get("side")
        if name == "C":
            ka = p["n"]
        elif side is None:
            ka = p["n"]
        else:
            ka = p["m"] if side in (0, "L", "l") else p["n"]
        ld = p.get("ld" + name.lower()) or ka + p.get("pad", 0)
        lower = uplo_code(p["uplo"]) == 0
        a = mat_view(t, ka, ka, ld)
        data = p.get("data")
        if data == "upstream":
            g = torch.randn(ka, ka, generator=gen, device=t.device)
            rm = (torch.tril(g) if lower else torch.triu(g)) + 5 * torch.eye(ka, device=t.device)
            a.copy_(rm.t())                        # row-major storage read column-major
        elif data == "genuine":
            off = 0.1 * torch.randn(ka, ka, generator=gen, device=t.device)
            dg = 2.0 + torch.rand(ka, generator=gen, device=t.device)
            dense = torch.where(tri_of(ka, lower).to(t.device), off, torch.zeros((), device=t.device))
            dense.diagonal().copy_(dg)
            a.copy_(dense)
        if p.get("sym"):
            a.copy_(a + a.t())
        if p.get("nan_other"):
            a.masked_fill_(~tri_of(ka, lower).to(t.device), float("nan"))
            fill_padding_(t, ka, ld, float("nan"))
        if p.get("nan_tri"):
            a.masked_fill_(tri_of(ka, lower).to(t.device), float("nan"))
    return fill


# ----------------------------------------------------------------------------------- Ssyrk, CsyrkEx
def syrk_reference(p: dict[str, Any], r: Ref) -> None:
    """C = alpha*op(A)*op(A)^T + beta*C on the uplo triangle (plain transpose; trans C = T); beta == 0: C
    not read; alpha == 0: A not read; the other triangle and the padding stay bit-identical."""
    n, k = r.v["n"], r.v["k"]
    if n <= 0:
        r.unchanged("C")
        return
    a, b = r.scalar("alpha"), r.scalar("beta")
    out = torch.zeros(n, n, dtype=r.r.ref_dtype, device=r.device)
    absum = torch.zeros(n, n, dtype=torch.float64, device=r.device)
    if a != 0 and k > 0:
        A = r.mat("A")
        opa = A if r.v["trans"] == 0 else A.t()
        out = out + a * (opa @ opa.t())
        absum = absum + abs(a) * (opa.abs() @ opa.abs().t())
    tri = tri_of(n, r.v["uplo"] == 0, r.device)
    if b != 0:
        c = torch.where(tri, r.mat("C"), torch.zeros((), dtype=r.r.ref_dtype))
        out = out + b * c
        absum = absum + abs(b) * c.abs()
    tol, extra = accumulation_rule(r.r.dtype, absum, k + 2, k)
    r.out("C", out, tol, region=tri, atol_extra=extra)


_SYRK_SEM = ("C = alpha*op(A)*op(A)^T + beta*C written on the uplo triangle of the n x n column-major C only "
             "(diagonal included; the other triangle and the padding rows stay bit-identical, they may hold NaN); "
             "op(A) is n x k (A n x k for trans N, k x n for T{c}); beta == 0: C is not read; alpha == 0: A is not "
             "read. Returns C.")

SSYRK = routine_operator(Row(
    SSYRK_R, category="level 3 symmetric rank-k", semantics=_SYRK_SEM.format(c=" and C"),
    grids={
        "smoke": [dict(n=1, k=1, uplo=0, trans=0, alpha=1.0, beta=0.25, tri_arg="C"),
                  dict(n=32, k=16, uplo=0, trans=1, alpha=-0.999, beta=0.25, tri_arg="C"),
                  dict(n=17, k=8, uplo=0, trans=0, alpha=0.0, beta=0.25, tri_arg="C"),
                  dict(n=9, k=5, uplo=1, trans=0, alpha=0.5, beta=0.25, tri_arg="C")]
        + quick_cases(SSYRK_R, dict(n=9, k=5, uplo=1, trans=1, alpha=0.5, beta=0.25, tri_arg="C")),
        "full": [dict(n=d["n"], k=max(1, d["n"] // 2), uplo=0, trans=d["trans"], alpha=d["alpha"], beta=0.25,
                      tri_arg="C") for d in product(n=[1, 32, 71, 1024, 4096, 5333],
                                                     alpha=[1.0, 0.0, -0.999, 0.5, 100.001], trans=[0, 1])],
        "heldout": [dict(n=21, k=13, lda=24, ldc=23, uplo=1, trans=1, alpha=0.5, beta=-1.0, tri_arg="C",
                         nan_other=True),
                    dict(n=2000, k=3, uplo=0, trans=0, alpha=1.0, beta=0.0, tri_arg="C", nan_tri=True),
                    dict(n=513, k=1025, uplo="U", trans="T", alpha=-0.5, beta=0.5, tri_arg="C")]
        + quick_cases(SSYRK_R, dict(n=65, k=33, uplo=0, trans=1, alpha=1.0, beta=-0.5, tri_arg="C"), only=("alpha",)),
    },
    reference=syrk_reference, fill=tri_fill,
    atol_text=accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(A)|^T)[i,j] + |beta| |C[i,j]|)", "1e-4 x k"),
    cost=lambda p: Cost(float(p["n"]) ** 2 * p["k"], (p["n"] * p["k"] + p["n"] ** 2) * 4, "fp32"),
    timed=lambda p: p["n"] >= 1024,
))


# ------------------------------------------------------------------------------------------ Csymm
def _symm_ref(p: dict[str, Any], r: Ref) -> None:
    m, n = r.v["m"], r.v["n"]
    if m <= 0 or n <= 0:
        r.unchanged("C")
        return
    a, b = r.scalar("alpha"), r.scalar("beta")
    left = r.v["side"] == 0
    ka = m if left else n
    out = torch.zeros(m, n, dtype=torch.complex128, device=r.device)
    absum = torch.zeros(m, n, dtype=torch.float64, device=r.device)
    if a != 0:
        A = r.mat("A")
        sym = torch.where(tri_of(ka, r.v["uplo"] == 0, r.device), A, A.t())    # mirrored, not conjugated
        B = r.mat("B")
        out = out + a * (sym @ B if left else B @ sym)
        absum = absum + abs(a) * (sym.abs() @ B.abs() if left else B.abs() @ sym.abs())
    if b != 0:
        out = out + b * r.mat("C")
        absum = absum + abs(b) * r.mat("C").abs()
    tol, extra = accumulation_rule(r.r.dtype, absum, ka + 2, ka)
    r.out("C", out, tol, atol_extra=extra)


CSYMM = routine_operator(Row(
    CSYMM_R, category="level 3 symmetric",
    semantics="C = alpha*A*B + beta*C (side LEFT, A m x m) or C = alpha*B*A + beta*C (RIGHT, A n x n); A complex "
              "symmetric (A^T = A, not Hermitian): only its uplo triangle (diagonal included) is read, the other is "
              "inferred by mirroring without conjugation; B, C m x n column-major; complex64 as interleaved float32 "
              "pairs; beta == 0: C not read; alpha == 0: A and B not read. Returns C.",
    grids={
        "smoke": [dict(m=1, n=1, side=0, uplo=1, alpha=1.0, beta=0.0, sym=True),
                  dict(m=9, n=9, side=1, uplo=1, alpha=-1.0, beta=0.5, nan_other=True),
                  dict(m=16, n=16, side=0, uplo=1, alpha=0.0, beta=0.5, sym=True),
                  dict(m=7, n=5, side=0, uplo=0, alpha=0.5 - 0.5j, beta=0.5, nan_other=True)]
        + quick_cases(CSYMM_R, dict(m=7, n=5, side=1, uplo=0, alpha=0.5 - 0.5j, beta=0.5, nan_other=True)),
        "full": [dict(m=d["n"], n=d["n"], side=d["side"], uplo=1, alpha=d["alpha"], beta=d["beta"], sym=True)
                 for d in product(n=[1, 32, 64, 128, 160], alpha=[1.0, 0.0, -1.0], beta=[0.0, 0.5], side=[0, 1])],
        "heldout": [dict(m=70, n=33, side=0, uplo=0, alpha=1.0, beta=0.5, pad=3, nan_other=True),
                    dict(m=33, n=70, side=1, uplo=1, alpha=0.5 - 0.5j, beta=-0.25 + 1j, nan_other=True),
                    dict(m=40, n=24, side="R", uplo="L", alpha=1.0, beta=0.0, nan_other=True, nan_C=True)]
        + quick_cases(CSYMM_R, dict(m=33, n=21, side=0, uplo=1, alpha=1.0, beta=-0.5 + 0.5j, pad=2, nan_other=True),
                      only=("alpha",)),
    },
    reference=_symm_ref, fill=tri_fill, atol_text=accumulation_text("k + 2 (k = m for LEFT, n for RIGHT)",
                                                               "(|alpha| (|A_sym| @ |B|) + |beta| |C|)[i,j]",
                                                               "1e-4 x k"),
    cost=lambda p: Cost(8.0 * p["m"] * p["n"] * (p["m"] if p["side"] in (0, "L") else p["n"]),
                        ((p["m"] if p["side"] in (0, "L") else p["n"]) ** 2 / 2 + 3 * p["m"] * p["n"]) * 8, "fp32"),
    timed=lambda p: p["n"] >= 128,
))


# ------------------------------------------------------------------------------------------ Strsm
def _trsm_ref(p: dict[str, Any], r: Ref) -> None:
    m, n = r.v["m"], r.v["n"]
    if m <= 0 or n <= 0:
        r.unchanged("B")
        return
    a = r.scalar("alpha")
    if a == 0:
        r.out("B", torch.zeros(m, n, dtype=torch.float64, device=r.device), Tolerance(exact=True))
        return
    left = r.v["side"] == 0
    ka = m if left else n
    lower = r.v["uplo"] == 0
    T = torch.where(tri_of(ka, lower, r.device), r.mat("A"), torch.zeros((), dtype=torch.float64))
    if r.v["diag"] == 1:
        T.diagonal().fill_(1.0)
    upper = not lower
    if r.v["trans"] != 0:
        T, upper = T.t(), lower
    B = a * r.mat("B")
    if left:                                   # op(A) X = alpha B
        X = torch.linalg.solve_triangular(T, B, upper=upper)
        Tl, Xl = T, X
    else:                                      # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
        X = torch.linalg.solve_triangular(T, B, upper=upper, left=False)
        Tl, Xl, upper = T.t(), X.t(), not upper
    # componentwise bound (as Strsv): a substitution in any order solves (T + dT) x' = b with |dT| <= gamma |T|,
    # so |x - x'| <= gamma M(T)^-1 |T| |x|, M(T) the comparison matrix
    comp = -Tl.abs()
    comp.diagonal().copy_(Tl.diagonal().abs())
    absum = torch.linalg.solve_triangular(comp, Tl.abs() @ Xl.abs(), upper=upper)
    tol, extra = accumulation_rule(torch.float32, absum if left else absum.t(), ka, ka)
    r.out("B", X, tol, atol_extra=extra)


_TRSM_FLAGS = product(side=[0, 1], uplo=[0, 1], trans=[0, 1], diag=[0, 1])
STRSM = routine_operator(Row(
    STRSM_R, category="level 3 triangular solve",
    semantics="side LEFT: solve op(A)*X = alpha*B (A m x m); RIGHT: X*op(A) = alpha*B (A n x n); X overwrites B "
              "(m x n, ldb; padding rows untouched). A is triangular per uplo: only that triangle is read, and "
              "not its diagonal when diag is UNIT (ones are used); op = N or T (C = T); no singularity test; "
              "alpha == 0: B = 0 without reading B. Returns B.",
    grids={
        "smoke": [dict(m=1, n=1, side=0, uplo=0, trans=0, diag=0, alpha=1.0, data="upstream"),
                  dict(m=16, n=8, side=0, uplo=1, trans=1, diag=1, alpha=1.0, data="upstream"),
                  dict(m=9, n=4, side=0, uplo=0, trans=0, diag=0, alpha=1.0, data="genuine"),
                  dict(m=6, n=9, side=1, uplo=1, trans=1, diag=0, alpha=0.5, data="genuine", nan_other=True)]
        + quick_cases(STRSM_R, dict(m=6, n=5, side=0, uplo=0, trans=0, diag=0, alpha=0.5, data="genuine")),
        "full": [dict(m=d["m"], n=d["n"], side=0, alpha=1.0, data="upstream", **d["f"])
                 for d in product(m=[1, 16, 48, 64], n=[1, 8, 16],
                                  f=product(trans=[0, 1], uplo=[0, 1], diag=[0, 1]))],
        "heldout": [dict(m=20, n=9, lda=25, ldb=23, alpha=0.5, data="genuine", nan_other=True, **f)
                    for f in _TRSM_FLAGS]
        + [dict(m=1024, n=512, side=0, uplo=0, trans=1, diag=0, alpha=1.0, data="genuine"),
           dict(m=300, n=1000, side="R", uplo="U", trans="N", diag="U", alpha=-2.0, data="genuine", nan_other=True)]
        + quick_cases(STRSM_R, dict(m=21, n=9, side=1, uplo=1, trans=0, diag=1, alpha=1.0, data="genuine", pad=2)),
    },
    reference=_trsm_ref, fill=tri_fill,
    atol_text=accumulation_text("k (m for LEFT, n for RIGHT)", "(M(T)^-1 |T| |X|)[i,j] (M(T): the comparison "
                                "matrix of T = op(A))", "1e-4 x k"),
    notes="Tolerance (ours, not the spec's): the componentwise substitution bound of Strsv (Higham, Thm 8.5) "
          "applied column by column, capped by the spec's 1e-4 x k.",
    cost=lambda p: Cost(float(p["m"]) * p["n"] * (p["m"] if p["side"] in (0, "L") else p["n"]),
                        ((p["m"] if p["side"] in (0, "L") else p["n"]) ** 2 / 2 + 2 * p["m"] * p["n"]) * 4, "fp32"),
    timed=lambda p: p["m"] >= 48 and p["n"] >= 8,
))

OPERATORS = [CGEMM, CSYMM, SGEMM, SSYRK, STRSM]
