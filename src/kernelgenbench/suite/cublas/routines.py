"""The declarations of the cuBLAS routines (decl.py): each routine's parameters in the spec's order with
their roles, from which the binding (blas.py), the reference's views and masks, the case builder and the
interface are derived. A routine's row (grids, math, cost) lives in its level module."""
from __future__ import annotations

from .decl import (
    ROUTINES,
    Routine,
    Shape,
    band_dims,
    count,
    declare,
    dims,
    flag,
    inc,
    ld,
    mat,
    op_dims,
    op_len,
    ptrs,
    result,
    scalar,
    size,
    stride,
    typecode,
    vec,
)

__all__ = ["ROUTINES"]

# The not-read rules of cublas.md §2.5 (Routine.not_read): gemm-like routines read neither A/B (x) at alpha == 0
# nor C (y) at beta == 0; axpy, ger and syr2 return at once at alpha == 0; trsm (below) sets B to 0 unread.
_MM = (("alpha", ("A", "B")), ("beta", ("C",)))
_MV = (("alpha", ("A", "x")), ("beta", ("y",)))
_RK = (("alpha", ("A",)), ("beta", ("C",)))
_RANK = (("alpha", ("x", "y")),)

# ------------------------------------------------------------------------------------------ level 1
def _axpy_decl(prec: str) -> Routine:
    return declare(Routine(
        f"cublas{prec}axpy_v2", prec, (size("n"), scalar("alpha"), vec("x", "n", "incx"), inc("incx"),
                                       vec("y", "n", "incy", out=True), inc("incy")),
        returns="y", method=f"{prec.lower()}axpy",
        summary=f"y[i] = alpha*x[i] + y[i] for i < n ({prec}); alpha == 0 returns at once (y untouched).",
        not_read=(("alpha", ("x",)),)))

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
        returns="result", method=name[6:-3].lower(),
        summary=f"result[0] = {what} over i < n ({prec}); n <= 0 gives 0."))

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




def _gemv_decl(prec: str) -> Routine:
    return declare(Routine(
        f"cublas{prec}gemv_v2", prec,
        (flag("trans"), size("m"), size("n"), scalar("alpha"), mat("A", dims("m", "n"), "lda"), ld("lda"),
         vec("x", op_len("trans", "n", "m"), "incx"), inc("incx"), scalar("beta"),
         vec("y", op_len("trans", "m", "n"), "incy", out=True), inc("incy")),
        returns="y", method=f"{prec.lower()}gemv",
        summary=f"y = alpha*op(A)*x + beta*y ({prec}), A m x n; beta == 0: y not read; alpha == 0: A, x not read.",
        not_read=_MV))


DGEMV_R, CGEMV_R = _gemv_decl("D"), _gemv_decl("C")


def _ger_decl(name: str, prec: str, what: str) -> Routine:
    return declare(Routine(
        name, prec, (size("m"), size("n"), scalar("alpha"), vec("x", "m", "incx"), inc("incx"), vec("y", "n", "incy"),
                     inc("incy"), mat("A", dims("m", "n"), "lda", out=True), ld("lda")),
        returns="A", method=name[6:-3].lower(), summary=f"A = {what} + A ({prec}); alpha == 0 leaves A untouched.",
        not_read=_RANK))


SGER_R = _ger_decl("cublasSger_v2", "S", "alpha*x*y^T")
CGERU_R = _ger_decl("cublasCgeru_v2", "C", "alpha*x*y^T (no conjugation)")
ZGERC_R = _ger_decl("cublasZgerc_v2", "Z", "alpha*x*y^H")

DSYR2_R = declare(Routine(
    "cublasDsyr2_v2", "D", (flag("uplo"), size("n"), scalar("alpha"), vec("x", "n", "incx"), inc("incx"),
                            vec("y", "n", "incy"), inc("incy"), mat("A", dims("n", "n"), "lda", out=True, tri="uplo"),
                            ld("lda")),
    returns="A", method="dsyr2",
    summary="A = alpha*(x*y^T + y*x^T) + A on the uplo triangle of A only (fp64); alpha == 0 leaves A untouched.",
    not_read=_RANK))

CSYMV_R = declare(Routine(
    "cublasCsymv_v2", "C", (flag("uplo"), size("n"), scalar("alpha"), mat("A", dims("n", "n"), "lda", tri="uplo"),
                            ld("lda"), vec("x", "n", "incx"), inc("incx"), scalar("beta"),
                            vec("y", "n", "incy", out=True), inc("incy")),
    returns="y", method="csymv",
    summary="y = alpha*A*x + beta*y, A n x n complex symmetric (not Hermitian) from its uplo triangle (complex64).",
    not_read=_MV))

DSBMV_R = declare(Routine(
    "cublasDsbmv_v2", "D", (flag("uplo"), size("n"), size("k"), scalar("alpha"), mat("A", band_dims("k", "n"), "lda"),
                            ld("lda"), vec("x", "n", "incx"), inc("incx"), scalar("beta"),
                            vec("y", "n", "incy", out=True), inc("incy")),
    returns="y", method="dsbmv",
    summary="y = alpha*A*x + beta*y, A n x n symmetric with k off-diagonals in band storage (fp64).",
    not_read=_MV))

STBMV_R = declare(Routine(
    "cublasStbmv_v2", "S", (flag("uplo"), flag("trans"), flag("diag"), size("n"), size("k"),
                            mat("A", band_dims("k", "n"), "lda"), ld("lda"), vec("x", "n", "incx", out=True),
                            inc("incx")),
    returns="x", method="stbmv",
    summary="x = op(A)*x in place, A n x n triangular with k off-diagonals in band storage (fp32); unit diagonal "
            "not read."))

# ------------------------------------------------------------------------------------------ level 3
SGEMM_R = declare(Routine(
    "cublasSgemm_v2", "S", (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
                            mat("A", op_dims("transa", "m", "k"), "lda"), ld("lda"),
                            mat("B", op_dims("transb", "k", "n"), "ldb"), ld("ldb"), scalar("beta"),
                            mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="sgemm",
    summary="C = alpha*op(A)*op(B) + beta*C, m x n, true fp32 (no TF32); beta == 0: C not read; alpha == 0: A, B "
            "not read.", not_read=_MM))



CGEMM_R = declare(Routine(
    "cublasCgemm_v2", "C", (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
                            mat("A", op_dims("transa", "m", "k"), "lda"), ld("lda"),
                            mat("B", op_dims("transb", "k", "n"), "ldb"), ld("ldb"), scalar("beta"),
                            mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="cgemm",
    summary="C = alpha*op(A)*op(B) + beta*C (complex64), op = N, T or C (conjugate transpose); beta == 0: C not "
            "read; alpha == 0: A, B not read.", not_read=_MM))


def _side_dims(d: dict) -> tuple[int, int]:
    ka = d["m"] if d["side"] == 0 else d["n"]
    return ka, ka


_SIDE_DIMS = Shape(_side_dims, "m x m for side = LEFT, n x n for RIGHT")

SSYRK_R = declare(Routine(
    "cublasSsyrk_v2", "S", (flag("uplo"), flag("trans"), size("n"), size("k"), scalar("alpha"),
                            mat("A", op_dims("trans", "n", "k"), "lda"), ld("lda"), scalar("beta"),
                            mat("C", dims("n", "n"), "ldc", out=True, tri="uplo"), ld("ldc")),
    returns="C", method="ssyrk",
    summary="C = alpha*op(A)*op(A)^T + beta*C on the uplo triangle of C only (fp32); beta == 0: C not read.",
    not_read=_RK))

CSYMM_R = declare(Routine(
    "cublasCsymm_v2", "C", (flag("side"), flag("uplo"), size("m"), size("n"), scalar("alpha"),
                            mat("A", _SIDE_DIMS, "lda", tri="uplo"), ld("lda"), mat("B", dims("m", "n"), "ldb"),
                            ld("ldb"), scalar("beta"), mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="csymm",
    summary="C = alpha*A*B + beta*C (LEFT) or alpha*B*A + beta*C (RIGHT), A complex symmetric from its uplo "
            "triangle (complex64).", not_read=_MM))

STRSM_R = declare(Routine(
    "cublasStrsm_v2", "S", (flag("side"), flag("uplo"), flag("trans"), flag("diag"), size("m"), size("n"),
                            scalar("alpha"), mat("A", _SIDE_DIMS, "lda", tri="uplo"), ld("lda"),
                            mat("B", dims("m", "n"), "ldb", out=True), ld("ldb")),
    returns="B", method="strsm",
    summary="Solve op(A)*X = alpha*B (LEFT) or X*op(A) = alpha*B (RIGHT) and store X into B (fp32); A triangular "
            "per uplo, unit diagonal not read; alpha == 0: B = 0 without reading B.", not_read=(("alpha", ("B",)),)))

# ------------------------------------------------------------------------------------------ batched
def _gemm_sb_decl(prec: str, suffix: str = "") -> Routine:
    name = f"cublas{prec}gemmStridedBatched{suffix}"
    return declare(Routine(
        name, prec,
        (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
         mat("A", op_dims("transa", "m", "k"), "lda", stride="strideA", count="batchCount"), ld("lda"),
         stride("strideA"),
         mat("B", op_dims("transb", "k", "n"), "ldb", stride="strideB", count="batchCount"), ld("ldb"),
         stride("strideB"), scalar("beta"),
         mat("C", dims("m", "n"), "ldc", out=True, stride="strideC", count="batchCount"), ld("ldc"),
         stride("strideC"), count("batchCount")),
        returns="C", method=name[6].lower() + name[7:],
        summary=f"for b < batchCount: C_b = alpha*op(A_b)*op(B_b) + beta*C_b ({prec}), X_b at b*strideX; beta == 0: "
                "C not read; alpha == 0: A, B not read.", not_read=_MM))


SGEMM_SB_R, DGEMM_SB_R, CGEMM_SB_R, ZGEMM_SB_R, HGEMM_SB_R = (_gemm_sb_decl(p) for p in "SDCZH")
DGEMM_SB64_R, CGEMM_SB64_R = _gemm_sb_decl("D", "_64"), _gemm_sb_decl("C", "_64")



def _gemv_sb_decl(prec: str) -> Routine:
    name = f"cublas{prec}gemvStridedBatched"
    return declare(Routine(
        name, prec,
        (flag("trans"), size("m"), size("n"), scalar("alpha"),
         mat("A", dims("m", "n"), "lda", stride="strideA", count="batchCount"), ld("lda"), stride("strideA"),
         vec("x", op_len("trans", "n", "m"), "incx", stride="stridex", count="batchCount"), inc("incx"),
         stride("stridex"), scalar("beta"),
         vec("y", op_len("trans", "m", "n"), "incy", out=True, stride="stridey", count="batchCount"), inc("incy"),
         stride("stridey"), count("batchCount")),
        returns="y", method=name[6].lower() + name[7:],
        summary=f"for b < batchCount: y_b = alpha*op(A_b)*x_b + beta*y_b ({prec}), X_b at b*strideX; beta == 0: y "
                "not read; alpha == 0: A, x not read.", not_read=_MV))


SGEMV_SB_R, DGEMV_SB_R, CGEMV_SB_R, ZGEMV_SB_R = (_gemv_sb_decl(p) for p in "SDCZ")


def _gemv_b_decl(prec: str, suffix: str = "") -> Routine:
    name = f"cublas{prec}gemvBatched{suffix}"
    return declare(Routine(
        name, prec,
        (flag("trans"), size("m"), size("n"), scalar("alpha"),
         ptrs("Aarray", "mat", dims("m", "n"), "lda", "batchCount"),
         ld("lda"), ptrs("xarray", "vec", op_len("trans", "n", "m"), "incx", "batchCount"), inc("incx"),
         scalar("beta"), ptrs("yarray", "vec", op_len("trans", "m", "n"), "incy", "batchCount", out=True),
         inc("incy"), count("batchCount")),
        returns="yarray", method=name[6].lower() + name[7:],
        summary=f"for b < batchCount: y_b = alpha*op(A_b)*x_b + beta*y_b ({prec}), X_b at the address Xarray[b]; "
                "beta == 0: y not read; alpha == 0: A, x not read.",
        not_read=(("alpha", ("Aarray", "xarray")), ("beta", ("yarray",)))))


SGEMV_B_R, DGEMV_B_R, ZGEMV_B_R = (_gemv_b_decl(p) for p in "SDZ")
CGEMV_B64_R = _gemv_b_decl("C", "_64")


def _gemm_b_decl(prec: str, suffix: str = "") -> Routine:
    name = f"cublas{prec}gemmBatched{suffix}"
    return declare(Routine(
        name, prec,
        (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
         ptrs("Aarray", "mat", op_dims("transa", "m", "k"), "lda", "batchCount"), ld("lda"),
         ptrs("Barray", "mat", op_dims("transb", "k", "n"), "ldb", "batchCount"), ld("ldb"), scalar("beta"),
         ptrs("Carray", "mat", dims("m", "n"), "ldc", "batchCount", out=True), ld("ldc"), count("batchCount")),
        returns="Carray", method=name[6].lower() + name[7:],
        summary=f"for b < batchCount: C_b = alpha*op(A_b)*op(B_b) + beta*C_b ({prec}), X_b at the address "
                "Xarray[b]; beta == 0: C not read; alpha == 0: A, B not read.",
        not_read=(("alpha", ("Aarray", "Barray")), ("beta", ("Carray",)))))


HGEMM_B_R, DGEMM_B_R, ZGEMM_B_R = (_gemm_b_decl(p) for p in "HDZ")
SGEMM_B64_R = _gemm_b_decl("S", "_64")



def _trsm_b_decl(prec: str) -> Routine:
    name = f"cublas{prec}trsmBatched"
    return declare(Routine(
        name, prec,
        (flag("side"), flag("uplo"), flag("trans"), flag("diag"), size("m"), size("n"), scalar("alpha"),
         ptrs("Aarray", "mat", _SIDE_DIMS, "lda", "batchCount"), ld("lda"),
         ptrs("Barray", "mat", dims("m", "n"), "ldb", "batchCount", out=True), ld("ldb"), count("batchCount")),
        returns="Barray", method=name[6].lower() + name[7:],
        summary=f"for b < batchCount: solve op(A_b)*X = alpha*B_b (LEFT) or X*op(A_b) = alpha*B_b (RIGHT) and store "
                f"X into B_b ({prec}); A_b triangular per uplo, unit diagonal not read; alpha == 0: B_b = 0.",
        not_read=(("alpha", ("Barray",)),)))


DTRSM_B_R, ZTRSM_B_R = _trsm_b_decl("D"), _trsm_b_decl("Z")

# ------------------------------------------------------------------------------------------ extensions
SGEMMEX_R = declare(Routine(
    "cublasSgemmEx", "S", (flag("transa"), flag("transb"), size("m"), size("n"), size("k"), scalar("alpha"),
                           mat("A", op_dims("transa", "m", "k"), "lda"), typecode("Atype"), ld("lda"),
                           mat("B", op_dims("transb", "k", "n"), "ldb"), typecode("Btype"), ld("ldb"),
                           scalar("beta"), mat("C", dims("m", "n"), "ldc", out=True), typecode("Ctype"), ld("ldc")),
    returns="C", method="sgemmEx",
    summary="C = alpha*op(A)*op(B) + beta*C computed in fp32 with A, B, C stored per their cudaDataType codes "
            "(graded: all CUDA_R_32F = 0).", not_read=_MM))

SGEAM_R = declare(Routine(
    "cublasSgeam", "S", (flag("transa"), flag("transb"), size("m"), size("n"), scalar("alpha"),
                         mat("A", op_dims("transa", "m", "n"), "lda"), ld("lda"), scalar("beta"),
                         mat("B", op_dims("transb", "m", "n"), "ldb"), ld("ldb"),
                         mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="sgeam", summary="C = alpha*op(A) + beta*op(B), m x n (fp32); beta == 0: B not read.",
    not_read=(("alpha", ("A",)), ("beta", ("B",)))))

SDGMM_R = declare(Routine(
    "cublasSdgmm", "S", (flag("mode", "side"), size("m"), size("n"), mat("A", dims("m", "n"), "lda"), ld("lda"),
                         vec("x", Shape(lambda d: d["m"] if d["mode"] == 0 else d["n"],
                                        "m for mode = LEFT, n for RIGHT"), "incx"), inc("incx"),
                         mat("C", dims("m", "n"), "ldc", out=True), ld("ldc")),
    returns="C", method="sdgmm",
    summary="C = diag(x)*A (mode LEFT) or A*diag(x) (RIGHT), m x n (fp32); incx = 0 broadcasts x[0]."))

CSYRKEX_R = declare(Routine(
    "cublasCsyrkEx", "C", (flag("uplo"), flag("trans"), size("n"), size("k"), scalar("alpha"),
                           mat("A", op_dims("trans", "n", "k"), "lda"), typecode("Atype"), ld("lda"), scalar("beta"),
                           mat("C", dims("n", "n"), "ldc", out=True, tri="uplo"), typecode("Ctype"), ld("ldc")),
    returns="C", method="csyrkEx",
    summary="C = alpha*op(A)*op(A)^T + beta*C (plain transpose, never conjugated; trans C = T) on the uplo "
            "triangle of C only, complex64 storage (graded: Atype = Ctype = 4, CUDA_C_32F).", not_read=_RK))
