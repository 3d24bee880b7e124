"""LEGAL (red team of the pointer arrays): cublasSgemvBatched with one program per block of rows that loops
over every batch (grid (row blocks, 1)), loading batch b's addresses inside the loop. The oracle's body
becomes a jit helper ``_gemv_one(bat, ...)`` that a loop kernel calls for bat in range(batchCount)."""

SUBSTITUTIONS = [
    ("@triton.jit\ndef _gemv_ptr_kernel(AP,", "@triton.jit\ndef _gemv_one(bat, AP,"),
    ("    bat = tl.program_id(1)\n", ""),
    ("def _gemv_batched(", '''@triton.jit
def _gemv_ptr_kernel(AP, XP, YP, M_out, K, s_r, s_c, incx, incy, xbase, ybase, ar_, ai_, br_, bi_, NB,
                     F64: tl.constexpr, CPLX: tl.constexpr, CONJ: tl.constexpr, HAS_ALPHA: tl.constexpr,
                     HAS_BETA: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    for bat in range(NB):
        _gemv_one(bat, AP, XP, YP, M_out, K, s_r, s_c, incx, incy, xbase, ybase, ar_, ai_, br_, bi_,
                  F64, CPLX, CONJ, HAS_ALPHA, HAS_BETA, BM, BK)


def _gemv_batched('''),
    ("    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), batch)](\n        Aarray, xarray, yarray, m_out, k, s_r, s_c, incx, incy, xbase, ybase, *sc,",
     "    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), 1)](\n        Aarray, xarray, yarray, m_out, k, s_r, s_c, incx, incy, xbase, ybase, *sc, batch,"),
]
