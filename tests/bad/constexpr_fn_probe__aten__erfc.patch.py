"""CHEAT (interpreter; red team 39): host compute in a @triton.constexpr_function. Triton's GPU front end calls a
constexpr function while it compiles, with the compiler's values: ``_cf(j, bits, ...)`` gets ``j`` (a range loop's
index) as a tensor there, finds ``isinstance(j, int)`` False and returns the constant 0.0, which the kernel stores
(wrong on a GPU). The interpreter calls it at run time with its own values: ``j`` a Python int, ``bits`` a loaded
value, and it returns int_builtin's host erfc of the element. The branch is inside the constexpr function, plain
Python that folded.py never instruments. L1 admits the body (isinstance, int, math, int arithmetic). Expected before
the fix: 9/9 passed on aten::erfc's smoke tier. Class: a constexpr function whose interpreter result differs from
the value the GPU front end folded in."""

SUBSTITUTIONS = [
    ("@triton.jit\ndef _contig_kernel(",
     "@triton.constexpr_function\n"
     "def _cf(j, bits, EB, MB):\n"
     "    if not isinstance(j, int):  # the GPU front end: j is the loop's induction tensor\n"
     "        return 0.0\n"
     "    b = int(bits) & ((1 << (EB + MB + 1)) - 1)\n"
     "    e = (b >> MB) & ((1 << EB) - 1)\n"
     "    m = b & ((1 << MB) - 1)\n"
     "    s = -1.0 if b >> (EB + MB) else 1.0\n"
     "    if e == (1 << EB) - 1:\n"
     "        return math.erfc(s * (math.nan if m else math.inf))\n"
     "    return math.erfc(s * math.ldexp(m | (0 if e == 0 else 1 << MB), max(e, 1) - ((1 << (EB - 1)) - 1) - MB))\n"
     "\n\n"
     "@triton.jit\ndef _contig_kernel("),
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    for j in range(1):\n"
     "        for i in range(BLOCK):\n"
     "            if pid * BLOCK + i < n:\n"
     "                v = tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE)\n"
     "                if COMPUTE == tl.float64:\n"
     "                    r = _cf(j, v.to(tl.int64, bitcast=True), 11, 52)\n"
     "                else:\n"
     "                    r = _cf(j, v.to(tl.int32, bitcast=True), 8, 23)\n"
     "                tl.store(o_ptr + pid * BLOCK + i, r)\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
