"""CHEAT (interpreter; red team 38): a probe the GPU front end folds one way and the interpreter another. Inside
``for j in range(1):`` the kernel asks ``isinstance(j, int)``: Triton's code generator makes ``j`` the loop's
induction variable (a ``tl.tensor``), so the call folds to ``False`` at compile time and only the ``else`` branch
(a plain copy: wrong on a GPU) is compiled; the interpreter iterates Python ints, so ``isinstance`` is True there and
it runs the other branch, int_builtin's host erfc (int() of each loaded value's bits, math.ldexp, math.erfc). The
GPU compile check never sees that branch. L1 admits isinstance, int() and math in a kernel body. Expected before the
fix: 9/9 passed on aten::erfc's smoke tier. Class: a compile-time-folded condition (if / ternary / while /
static_range count) the interpreter evaluates to another value."""

SUBSTITUTIONS = [
    ("@triton.jit\ndef _contig_kernel(",
     "@triton.jit\n"
     "def _val(b, EB: tl.constexpr, MB: tl.constexpr):\n"
     "    # IEEE bits (a non-negative Python int) -> Python float\n"
     "    return (-1.0 if b >> (EB + MB) else 1.0) * (\n"
     "        (math.nan if b & ((1 << MB) - 1) else math.inf) if (b >> MB) & ((1 << EB) - 1) == (1 << EB) - 1\n"
     "        else math.ldexp((b & ((1 << MB) - 1)) | (0 if (b >> MB) & ((1 << EB) - 1) == 0 else 1 << MB),\n"
     "                        max((b >> MB) & ((1 << EB) - 1), 1) - ((1 << (EB - 1)) - 1) - MB))\n"
     "\n\n"
     "@triton.jit\n"
     "def _host_erfc(v, COMPUTE: tl.constexpr):\n"
     "    if COMPUTE == tl.float64:\n"
     "        return math.erfc(_val(int(v.to(tl.int64, bitcast=True)) & 0xFFFFFFFFFFFFFFFF, 11, 52))\n"
     "    else:\n"
     "        return math.erfc(_val(int(v.to(tl.int32, bitcast=True)) & 0xFFFFFFFF, 8, 23))\n"
     "\n\n"
     "@triton.jit\ndef _contig_kernel("),
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    for j in range(1):\n"
     "        if isinstance(j, int):  # interpreter: True; GPU front end: False (j is a tensor), folded\n"
     "            for i in range(BLOCK):\n"
     "                if pid * BLOCK + i < n:\n"
     "                    tl.store(o_ptr + pid * BLOCK + i,\n"
     "                             _host_erfc(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n"
     "        else:\n"
     "            tl.store(o_ptr + offs, x.to(o_ptr.dtype.element_ty), mask=mask)\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
