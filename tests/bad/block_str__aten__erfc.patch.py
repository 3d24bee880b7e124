"""CHEAT (interpreter; red team 32): the kernel computes nothing. It loads a chunk of 512 inputs, formats the block in
an f-string (on the interpreter tl.tensor.__str__/__repr__ are NumPy's str of the block's values, exact for fp32:
NumPy prints the shortest string that reads back as the same value), splits the text and hands the list to a jit
helper that stores math.erfc(float(token)) one element at a time: the C library's erfc on the host, fed by Python
text parsing, in a "kernel body". L1's kernel-body rule judges calls (str.split passes: `split` is also a tl.tensor
method name; float/min/range are KERNEL_BUILTINS; math.* is allowed) and refuses only `.handle` and `_` attributes;
an f-string is no call. The list stays a Python list because the interpreter rewrites assignments only (it travels as
a helper's argument). The same root cause as int_builtin (the interpreter's dunders of tl.tensor expose the values
behind a block as Python data) through another dunder; about 10 times faster, so that it also finishes the held-out
tier's 511 x 257 case within the case timeout. L2: a ghost replay skips the body (output poisoned: credit to
Triton); L3: no ATen op. On a GPU it does not compile. Non-contiguous inputs and outs go through a contiguous copy and
buffer. The rest is the oracle (solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("@triton.jit\ndef _contig_kernel(",
     "@triton.jit\n"
     "def _rows(o_ptr, base, toks, n):\n"
     "    for i in range(n):\n"
     "        tl.store(o_ptr + base + i, math.erfc(float(toks[i])))\n"
     "\n\n"
     "@triton.jit\ndef _contig_kernel("),
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    for start in range(0, BLOCK, 512):\n"
     "        c = pid * BLOCK + start + tl.arange(0, 512)\n"
     "        x = tl.load(x_ptr + c, mask=c < n, other=0).to(tl.float64)\n"
     "        _rows(o_ptr, pid * BLOCK + start, f\"{x}\"[1:-1].split(), max(0, min(512, n - pid * BLOCK - start)))\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
