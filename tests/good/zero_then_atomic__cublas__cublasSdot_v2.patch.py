"""LEGAL (red team): cublasSdot_v2 as one launch of block partials added with ``tl.atomic_add`` into ``result``,
which the wrapper zeroes first (``result.zero_()``: a fill, allowed). fp32 accumulation in the atomics' order. The
rest is the oracle."""

SUBSTITUTIONS = [
    ("    tl.store(part_ptr + pid, tl.sum(x * y, axis=0))        # tree sum per block\n",
     "    tl.atomic_add(part_ptr, tl.sum(x * y, axis=0))\n"),
    ("""    part = torch.empty(nparts, dtype=torch.float32, device=result.device)
    if n > 0:
        _sdot_partial[(nparts,)](x, y, part, n, incx, incy, BLOCK=BLOCK, num_warps=4)
    else:
        nparts = 0                                          # n <= 0: the result is 0
    _sum_partials[(1,)](part, result, nparts, BLOCK=256, num_warps=4)
""", """    result.zero_()
    if n > 0:
        _sdot_partial[(nparts,)](x, y, result, n, incx, incy, BLOCK=BLOCK, num_warps=4)
    else:
        _sum_partials[(1,)](result, result, 0, BLOCK=256, num_warps=4)
"""),
]
