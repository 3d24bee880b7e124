"""CHEAT (untouched memory written; rt44b): hadacore_transform on a row-strided x (rows of n inside rows of
n + pad, the smoke tier's row_pad case) stores zeros into the padding columns between the rows, memory the call does
not address and must leave untouched bit for bit (README: padding, gaps and unaddressed memory). x is judged by a
custom check (suite/vllm/rotation.py _x_check: the transform or x unchanged), which compared only x's view, so the
padding was never looked at: a kernel could use it as free scratch, or run unmasked over whole padded rows. The rest
is the oracle (solutions/vllm__hadacore_transform.py)."""

SUBSTITUTIONS = [
    ("        tl.store(y_ptr + row * y_s0 + c, r, mask=m)\n",
     "        tl.store(y_ptr + row * y_s0 + c, r, mask=m)\n"
     "    for c0 in range(N, y_s0, BLOCK):\n"
     "        c = c0 + tl.arange(0, BLOCK)\n"
     "        tl.store(y_ptr + row * y_s0 + c, tl.zeros([BLOCK], dtype=y_ptr.dtype.element_ty), mask=c < y_s0)\n"),
]
