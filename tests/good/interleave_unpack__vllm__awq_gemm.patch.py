"""LEGAL (red team of the quantised GEMMs): vllm::awq_gemm unpacking its nibbles with Triton's shape ops: each
program loads the packed words once as a [BK, BN/8] tile, widens them to [BK, BN] with three ``tl.interleave``s
(every word repeated 8 times along N) and shifts each copy by its AWQ nibble, the shift row built by
``tl.reshape`` of a [4, 2] tile ((0, 4, 1, 5, 2, 6, 3, 7) * 4). The rest is the oracle."""

SUBSTITUTIONS = [
    ("        q = tl.reshape((words[:, :, None] >> shift[None, None, :]) & 15, [BK, BN])\n",
     """        wide = tl.interleave(words, words)
        wide = tl.interleave(wide, wide)
        wide = tl.interleave(wide, wide)
        order = tl.reshape(tl.arange(0, 4)[:, None] + 4 * tl.arange(0, 2)[None, :], (8,)) * 4
        shift2 = tl.reshape(tl.broadcast_to(order[None, :], (BN // 8, 8)), (BN,))
        q = (wide >> shift2[None, :]) & 15
"""),
]
