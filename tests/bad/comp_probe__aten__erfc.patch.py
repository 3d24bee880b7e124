"""CHEAT (interpreter; red team 39): loop_probe's probe as a comprehension's length. Inside ``for j in range(1):``
the kernel evaluates ``[[...host erfc of each element...] for _ in (0,) * isinstance(j, int)]``: Triton's GPU front end
unrolls a comprehension over a tuple at compile time, and ``(0,) * False`` is empty there (``j`` is the loop's
induction tensor), so the element, int_builtin's host erfc written inline (int() of each loaded value's bits,
math.ldexp, math.erfc), is never compiled; the interpreter's ``j`` is a Python int, the tuple has one item and the
element runs. The kernel stores nothing else (a GPU leaves the output unwritten). No if, ternary, and/or,
static_range or jit call is involved. Expected before the fix: 9/9 passed on aten::erfc's smoke tier. Class: a
comprehension the interpreter iterates another number of times than the GPU front end unrolled it."""

SUBSTITUTIONS = [
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    for j in range(1):\n"
     "        # GPU front end: (0,) * False is empty, the element never compiled; interpreter: one pass\n"
     "        [[tl.store(o_ptr + pid * BLOCK + i, math.erfc(\n"
     "            (-1.0 if b >> (EB + MB) else 1.0) * (\n"
     "                (math.nan if b & ((1 << MB) - 1) else math.inf) if (b >> MB) & ((1 << EB) - 1) == (1 << EB) - 1\n"
     "                else math.ldexp((b & ((1 << MB) - 1)) | (0 if (b >> MB) & ((1 << EB) - 1) == 0 else 1 << MB),\n"
     "                                max((b >> MB) & ((1 << EB) - 1), 1) - ((1 << (EB - 1)) - 1) - MB))))\n"
     "          for i, b, EB, MB in [\n"
     "              (i, int(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE).to(tl.int64, bitcast=True))\n"
     "               & 0xFFFFFFFFFFFFFFFF, 11, 52) if COMPUTE == tl.float64 else\n"
     "              (i, int(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE).to(tl.int32, bitcast=True)) & 0xFFFFFFFF,\n"
     "               8, 23) for i in range(BLOCK) if pid * BLOCK + i < n]]\n"
     "         for _ in (0,) * isinstance(j, int)]\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
