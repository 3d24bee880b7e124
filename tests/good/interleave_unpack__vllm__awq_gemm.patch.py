"""LEGAL (red team of the quantised GEMMs): vllm::awq_gemm unpacking its nibbles with Triton's shape ops: each
program loads the packed words once as a [BK, BN/8] tile, widens them to [BK, BN] with three ``tl.interleave``s
(every word repeated 8 times along N) and shifts each copy by its AWQ nibble, the shift row built by
``tl.reshape`` of a [4, 2] tile ((0, 4, 1, 5, 2, 6, 3, 7) * 4). The rest is the oracle."""

SUBSTITUTIONS = [
    ("""        words = tl.load(qw_ptr + rk.to(tl.int64)[:, None] * nw + wcol[None, :], mask=nm[None, :], other=0)
""", """        wc8 = pid_n * (BN // 8) + tl.arange(0, BN // 8)
        packed = tl.load(qw_ptr + rk.to(tl.int64)[:, None] * nw + wc8[None, :], mask=(wc8 < nw)[None, :], other=0)
        words = tl.interleave(packed, packed)
        words = tl.interleave(words, words)
        words = tl.interleave(words, words)
        order = tl.reshape(tl.arange(0, 4)[:, None] + 4 * tl.arange(0, 2)[None, :], (8,)) * 4
        shift2 = tl.reshape(tl.broadcast_to(order[None, :], (BN // 8, 8)), (BN,))
"""),
    ("        q = (words >> shift[None, :]) & 15\n", "        q = (words >> shift2[None, :]) & 15\n"),
]
