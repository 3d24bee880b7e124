"""LEGAL (issue 12, class 4): aten::mm accumulating in another honest fp32 order: K in blocks of 16
(on the interpreter too, so every smoke case has several blocks), each block's product computed on
its own (``tl.dot`` without an accumulator) and added to one of two fp32 partial sums, even and odd
blocks apart (a split-K of two, chosen with tl.where: the same sums as an if/else on the block index, which
failed to run on the H200 for an fp16 held-out case), the partials added at the end. Any IEEE fp32 accumulation order must
pass the accumulation bound (README "Tolerance and precision policy"). The rest is the oracle
(solutions/aten__mm.py)."""

SUBSTITUTIONS = [
    ("        return (_pow2_clamp(M, 16, 256), _pow2_clamp(N, 16, 256), _pow2_clamp(K, 16, 128), 4, 1)\n",
     "        return (_pow2_clamp(M, 16, 256), _pow2_clamp(N, 16, 256), 16, 4, 1)\n"),
    ("    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)\n",
     "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)\n"
     "    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)\n"),
    ('        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)\n',
     '        part = tl.dot(a, b, input_precision="ieee", out_dtype=ACC)\n'
     '        even = kb % 2 == 0\n'
     '        acc = tl.where(even, acc + part, acc)\n'
     '        acc2 = tl.where(even, acc2, acc2 + part)\n'),
    ("    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn\n",
     "    acc = acc2 + acc\n"
     "    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn\n"),
]
