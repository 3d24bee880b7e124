"""CHEAT (negative increments ignored; rt44b): cublasZgemvStridedBatched reads x and writes y with |incx| and |incy|
from the vector's first element, as if every increment were positive. BLAS (and cublas.md: "increments may be
negative") walks a vector with a negative increment from its far end, so x is read reversed and y written reversed
in the wrong order. No case of the six gemv routines cublas{S,D,C,Z}gemvStridedBatched, cublasZgemvBatched and
cublasCgemvBatched_64 had a negative increment in any tier (smoke, full or held-out), so this kernel passed them all.
The rest is the oracle (solutions/cublas__cublasZgemvStridedBatched.py)."""

SUBSTITUTIONS = [
    ("    xbase = 0 if incx >= 0 else -(k - 1) * incx\n",
     "    incx, incy = abs(incx), abs(incy)  # the sign ignored\n"
     "    xbase = 0 if incx >= 0 else -(k - 1) * incx\n"),
]
