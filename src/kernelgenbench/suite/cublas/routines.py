"""The declarations of the cuBLAS routines (decl.py): each routine's parameters in the spec's order with
their roles, from which the binding (blas.py), the reference's views and masks, the case builder and the
interface are derived. A routine's row (grids, math, cost) lives in its level module."""
from __future__ import annotations

from .decl import (ROUTINES, Routine, declare, dims, flag, inc, ld, mat, op_dims, result, scalar, size, vec)

__all__ = ["ROUTINES"]

# ------------------------------------------------------------------------------------------ level 1
def _axpy_decl(prec: str) -> Routine:
    return declare(Routine(
        f"cublas{prec}axpy_v2", prec, (size("n"), scalar("alpha"), vec("x", "n", "incx"), inc("incx"),
                                       vec("y", "n", "incy", out=True), inc("incy")),
        returns="y", method=f"{prec.lower()}axpy",
        summary=f"y[i] = alpha*x[i] + y[i] for i < n ({prec}); alpha == 0 returns at once (y untouched)."))

SAXPY_R = _axpy_decl("S")

DAXPY_R = _axpy_decl("D")

SSCAL_R = declare(Routine(
    "cublasSscal_v2", "S", (size("n"), scalar("alpha"), vec("x", "n", "incx", out=True), inc("incx")),
    returns="x", method="sscal",
    summary="x[i] = alpha*x[i] for i < n (fp32), a multiplication even for alpha == 0; incx <= 0 does nothing."))

def _copy_decl(prec: str) -> Routine:
    return declare(Routine(
        f"cublas{prec}copy_v2", prec, (size("n"), vec("x", "n", "incx"), inc("incx"),
                                       vec("y", "n", "incy", out=True), inc("incy")),
        returns="y", method=f"{prec.lower()}copy", summary=f"y[i] = x[i] for i < n ({prec}), bit-exact."))

DCOPY_R, CCOPY_R = _copy_decl("D"), _copy_decl("C")

ZSWAP_R = declare(Routine(
    "cublasZswap_v2", "Z", (size("n"), vec("x", "n", "incx", out=True), inc("incx"),
                            vec("y", "n", "incy", out=True), inc("incy")),
    returns="x", method="zswap", summary="exchange x[i] and y[i] for i < n (complex128), bit-exact."))

def _dot_decl(name: str, prec: str, what: str) -> Routine:
    return declare(Routine(
        name, prec, (size("n"), vec("x", "n", "incx"), inc("incx"), vec("y", "n", "incy"), inc("incy"), result()),
        returns="result", method=name[6:-3].lower(), summary=f"result[0] = {what} over i < n ({prec}); n <= 0 gives 0."))

SDOT_R = _dot_decl("cublasSdot_v2", "S", "sum x[i]*y[i]")

CDOTU_R = _dot_decl("cublasCdotu_v2", "C", "sum x[i]*y[i] (no conjugation)")

ZDOTC_R = _dot_decl("cublasZdotc_v2", "Z", "sum conj(x[i])*y[i]")

DASUM_R = declare(Routine(
    "cublasDasum_v2", "D", (size("n"), vec("x", "n", "incx"), inc("incx"), result()), returns="result",
    method="dasum", summary="result[0] = sum |x[i]| over i < n (fp64); incx <= 0 or n <= 0 gives 0."))


# ------------------------------------------------------------------------------------------ level 2
STRSV_R = declare(Routine(
    "cublasStrsv_v2", "S", (flag("uplo"), flag("trans"), flag("diag"), size("n"),
                            mat("A", dims("n", "n"), "lda", tri="uplo"), ld("lda"), vec("x", "n", "incx", out=True),
                            inc("incx")),
    returns="x", method="strsv",
    summary="Solve op(A)*z = x and store z into x (fp32); A n x n triangular per uplo, unit diagonal if diag = UNIT "
            "(then not read); no singularity test."))


# ------------------------------------------------------------------------------------------ level 3
SGEMM_R = declare(Routine(
    "cublasSgemm_v2", "S", (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
                            mat("A", op_dims("transa", "m", "k"), "lda"), ld("lda"),
                            mat("B", op_dims("transb", "k", "n"), "ldb"), ld("ldb"), scalar("beta"),
                            mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="sgemm",
    summary="C = alpha*op(A)*op(B) + beta*C, m x n, true fp32 (no TF32); beta == 0: C not read; alpha == 0: A, B "
            "not read."))

