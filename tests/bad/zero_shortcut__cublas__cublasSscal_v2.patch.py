"""Red team (session 25, second round): cuBLAS Sscal (the project's oracle) that writes zeros when alpha == 0, the
reference-BLAS shortcut that cublas.md §2.5 does not give scal (cuBLAS multiplies: 0 * NaN and 0 * inf are NaN).
Passed the smoke tier while its alpha == 0 case had no NaN/inf in x; the case has them now -> wrong_result."""

SUBSTITUTIONS = [
    ("""    tl.store(x_ptr + i * incx, alpha * x, mask=mask)""",
     """    tl.store(x_ptr + i * incx, tl.where(alpha == 0.0, 0.0, alpha * x), mask=mask)"""),
]
