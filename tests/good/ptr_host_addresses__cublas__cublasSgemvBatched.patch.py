"""LEGAL on the smoke tier (red team of the pointer arrays): cublasSgemvBatched reads each batch's three
addresses on the host (``Aarray[b].item()``: host reads of the int64 address tensors) and launches one kernel
per batch, the addresses handed over as int scalars and turned into pointers in the kernel. The interpreter's
bounds checks admit what the call's pointer arrays point into for every launch of the call, whatever carries
the address; a ghost replay hands the reads back (the normal run's addresses) and runs no kernel body.
Limit: three host reads per batch count against L3's budget of 16 per call (verify/profile.py ITEM_BUDGET),
so the full tier's batchCount=8 cases make 24 reads and should fail as ``profile`` (counted, not run here): a
host-synchronising pattern the budget refuses beyond five batches. The rest is the oracle."""

SUBSTITUTIONS = [
    ("@triton.jit\ndef _gemv_ptr_kernel(AP, XP, YP,", "@triton.jit\ndef _gemv_ptr_kernel(a_addr, x_addr, y_addr,"),
    ("    bat = tl.program_id(1)\n", ""),
    ("tl.load(AP + bat)", "a_addr.to(tl.int64)", 2),
    ("tl.load(XP + bat)", "x_addr.to(tl.int64)", 2),
    ("tl.load(YP + bat)", "y_addr.to(tl.int64)", 2),
    ("""    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), batch)](
        Aarray, xarray, yarray, m_out, k, s_r, s_c, incx, incy, xbase, ybase, *sc,
        F64=f64, CPLX=cplx, CONJ=cplx and t == 2, HAS_ALPHA=has_alpha, HAS_BETA=has_beta,
        BM=BM, BK=32, num_warps=4)
""", """    for b in range(batch):
        _gemv_ptr_kernel[(triton.cdiv(m_out, BM),)](
            Aarray[b].item(), xarray[b].item(), yarray[b].item(), m_out, k, s_r, s_c, incx, incy, xbase, ybase,
            *sc, F64=f64, CPLX=cplx, CONJ=cplx and t == 2, HAS_ALPHA=has_alpha, HAS_BETA=has_beta,
            BM=BM, BK=32, num_warps=4)
"""),
]
