"""cuBLAS routine rows (cublas.md §3). Arguments are BLAS arrays on raw storage (§2.2); the
reference is fp64 on column-major strided views of the input buffers (§2.6); the baseline is the real
cuBLAS routine through :mod:`.blas` (§2.7)."""
from __future__ import annotations

from typing import Any, Callable

import torch

from ..function import FunctionOperator
from ..spec import (
    ACCUMULATION_NOTE,
    Call,
    Cost,
    Expected,
    Interface,
    Tolerance,
    accumulation_rule,
    accumulation_text,
    product,
    storage_view,
    written_expected,
)
from ..tensors import poison_
from .blas import diag_code, trans_code, uplo_code

N9 = [1, 32, 71, 160, 497, 1024, 4113, 4096, 5333]
N6 = [1, 32, 71, 1024, 4096, 5333]
A8 = [1.0, 0.0, 0.001, -0.999, 100.001, -111.999, 0.5, -0.5]
INC3 = [1, 2, 3]
AB6 = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 1.0), (2.0, -0.5), (0.001, 0.999)]
G9 = [(1, 1, 1), (16, 16, 16), (32, 64, 16), (64, 32, 48), (128, 256, 64), (256, 128, 128), (17, 33, 65),
      (128, 128, 128), (256, 256, 256)]
TT4 = [("N", "N"), ("N", "T"), ("T", "N"), ("T", "T")]


def f32(v: float) -> float:
    """A Python float rounded to fp32 (cublas.md §2.4: scalars are converted to the routine's type)."""
    return float(torch.tensor(v, dtype=torch.float32))


def vec_offsets(n: int, inc: int, device: torch.device) -> torch.Tensor:
    """Storage offsets of the n elements of a BLAS vector with increment ``inc`` (§2.2)."""
    i = torch.arange(n, device=device, dtype=torch.int64)
    return i * inc if inc > 0 else (n - 1 - i) * (-inc)


def mat_view(t: torch.Tensor, rows: int, cols: int, ld: int) -> torch.Tensor:
    """The column-major ``rows x cols`` matrix with leading dimension ``ld`` at ``t``'s base."""
    return t.as_strided((rows, cols), (1, ld), t.storage_offset())


def _vec_mask(buf: torch.Tensor, n: int, inc: int) -> torch.Tensor:
    mask = torch.zeros(storage_view(buf).numel(), dtype=torch.bool, device=buf.device)
    if n > 0:
        mask[buf.storage_offset() + vec_offsets(n, inc, buf.device)] = True
    return mask


def _baseline(routine: str) -> Callable[[Call, Any], tuple[Callable[[Call], Any], str]]:
    def pick(call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        from .blas import get_cublas

        lib = get_cublas()
        method = getattr(lib, routine)
        return (lambda c: method(*c.args, **c.kwargs)), f"cuBLAS {routine} (libcublas {lib.library_version()}, ctypes)"
    return pick


def _fp32(p: dict[str, Any]) -> set[torch.dtype]:
    return {torch.float32}


# ---------------------------------------------------------------------------------------- Saxpy
def _axpy_build(p: dict[str, Any], device, gen) -> Call:
    n, incx, incy = p["n"], p["incx"], p["incy"]
    x = torch.randn(n * abs(incx), generator=gen, device=device)
    y = torch.randn(n * abs(incy), generator=gen, device=device)
    if p.get("nan_x"):
        x.fill_(float("nan"))
    return Call([n, p["alpha"], x, incx, y, incy], written=(4,))


def _axpy_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    n, alpha, x, incx, y, incy = call.args
    exp = storage_view(y).clone()
    a = f32(alpha)
    if a != 0.0 and n > 0:
        ox = x.storage_offset() + vec_offsets(n, incx, x.device)
        oy = y.storage_offset() + vec_offsets(n, incy, y.device)
        xs = storage_view(x)[ox].double()
        exp[oy] = (a * xs + exp[oy].double()).float()
    return [Expected("arg.4", exp, Tolerance(), _vec_mask(y, n, incy)), Expected("return", None, Tolerance(), alias="arg.4")]


SAXPY = FunctionOperator(
    "cublasSaxpy_v2", source="cublas", category="level 1", section="cublas.md § cublas::cublasSaxpy_v2",
    semantics="y[i] = alpha*x[i] + y[i] over BLAS vectors (increments may be negative: backwards layout); alpha "
              "rounded to fp32; alpha == 0 returns immediately without touching y. Returns y.",
    interface=Interface(
        function="cublasSaxpy_v2", params=("n", "alpha", "x", "incx", "y", "incy"), written=("y",), returns="y",
        args_doc={"n": "int", "alpha": "Python float (rounded to fp32)", "x": "float32 BLAS vector (raw storage)",
                  "incx": "int, may be negative", "y": "written; float32 BLAS vector", "incy": "int, may be negative"}),
    grids={
        "smoke": [dict(n=1, alpha=1.0, incx=1, incy=1), dict(n=32, alpha=-111.999, incx=2, incy=3),
                  dict(n=71, alpha=0.0, incx=3, incy=1)],
        "full": product(n=N9, alpha=A8, incx=INC3, incy=INC3),
        "heldout": [dict(n=1000, alpha=0.75, incx=-2, incy=3), dict(n=33, alpha=-1.5, incx=1, incy=-1),
                    dict(n=4097, alpha=0.0, incx=1, incy=1, nan_x=True)],
    },
    build=_axpy_build, reference=_axpy_ref, dtypes=_fp32,
    atol_text="1e-4 (reduce_dim 1: no reduction, cublas.md)",
    cost=lambda p: Cost(2.0 * p["n"], 3 * p["n"] * 4), timed=lambda p: p["n"] >= 1024,
    baseline=_baseline("saxpy"),
)


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


SGEMM = FunctionOperator(
    "cublasSgemm_v2", source="cublas", category="level 3 gemm", section="cublas.md § cublas::cublasSgemm_v2",
    semantics="C = alpha*op(A)*op(B) + beta*C in true fp32 (no TF32), column-major with leading dimensions; "
              "beta == 0: C is not read; alpha == 0: A and B are not read; padding rows of C stay untouched. "
              "Returns C.",
    interface=Interface(
        function="cublasSgemm_v2",
        params=("transa", "transb", "m", "n", "k", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc"),
        written=("C",), returns="C",
        args_doc={"transa": "'N'/'T'/'C' or 0/1/2", "transb": "'N'/'T'/'C' or 0/1/2", "m": "int", "n": "int",
                  "k": "int", "alpha": "Python float", "A": "float32 column-major (lda)", "lda": "int",
                  "B": "float32 column-major (ldb)", "ldb": "int", "beta": "Python float",
                  "C": "written; float32 column-major m x n (ldc)", "ldc": "int"}),
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
    build=_gemm_build, reference=_gemm_ref, dtypes=_fp32,
    atol_text=accumulation_text("k + 2", "(|alpha| (|op(A)| @ |op(B)|)[i,j] + |beta| |C[i,j]|)", "1e-4 x k"),
    notes=ACCUMULATION_NOTE.format(n="k"),
    cost=lambda p: Cost(2.0 * p["m"] * p["n"] * p["k"],
                        (p["m"] * p["k"] + p["k"] * p["n"] + 2 * p["m"] * p["n"]) * 4, "fp32"),
    timed=lambda p: p["m"] >= 128 and p["n"] >= 128 and p["k"] >= 64,
    baseline=_baseline("sgemm"),
)


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
    mask = _vec_mask(x, n, incx)
    return [Expected("arg.6", exp, tol, mask, atol_extra=full_extra[mask]),
            Expected("return", None, Tolerance(), alias="arg.6")]


_TRSV_FLAGS = product(uplo=[0, 1], trans=[0, 1], diag=[0, 1])

STRSV = FunctionOperator(
    "cublasStrsv_v2", source="cublas", category="level 2 triangular solve",
    section="cublas.md § cublas::cublasStrsv_v2",
    semantics="solve op(A) z = x and store z into x; A is n x n triangular per uplo (only that triangle is "
              "read), diag UNIT means a unit diagonal that is not read; op = N or T; no singularity test. "
              "Returns x.",
    interface=Interface(
        function="cublasStrsv_v2", params=("uplo", "trans", "diag", "n", "A", "lda", "x", "incx"),
        written=("x",), returns="x",
        args_doc={"uplo": "0|'L' lower, 1|'U' upper", "trans": "0|'N', 1|'T', 2|'C' (= T)",
                  "diag": "0|'N' non-unit, 1|'U' unit", "n": "int", "A": "float32 column-major n x n (lda)",
                  "lda": "int", "x": "written; float32 BLAS vector", "incx": "int, may be negative"}),
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
    build=_trsv_build, reference=_trsv_ref, dtypes=_fp32,
    atol_text=accumulation_text("n", "(M(T)^-1 |T| |z|)[i] (M(T): |t_ii| on the diagonal, -|t_ij| off it; z the "
                                "exact solution)", "1e-4 x reduce_dim (reduce_dim 1 in the spec's cases)"),
    notes="Tolerance (ours, not the spec's): a substitution in any order solves (T + dT) z' = x with |dT| <= "
          "gamma_n |T| (Higham, Thm 8.5), so the accumulation bound applies to M(T)^-1 |T| |z|, a componentwise bound "
          "of |T^-1| |T| |z|; it never exceeds the spec's atol, and where a case's reduce_dim is long it stops a "
          "solve from fp16-rounded inputs passing (README \"Tolerance and precision policy\").",
    cost=lambda p: Cost(float(p["n"]) ** 2, (p["n"] ** 2 / 2 + 2 * p["n"]) * 4),
    timed=lambda p: p["n"] >= 1024,
    baseline=_baseline("strsv"),
)

OPERATORS = [SAXPY, SGEMM, STRSV]
