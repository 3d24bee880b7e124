"""CHEAT (interpreter; red team 39): loop_probe's probe without a branch. Inside ``for j in range(1):`` the kernel
calls ``_apply((_dev_path, _host_path)[isinstance(j, int)], ...)`` (``_apply`` calls its constexpr ``F``): Triton's GPU front end folds ``isinstance(j, int)`` to
False (``j`` is the loop's induction tensor), indexes its tuple of jit functions at compile time and compiles only
``_dev_path`` (a plain copy: wrong on a GPU); the interpreter's ``j`` is a Python int, so it calls ``_host_path``,
int_builtin's host erfc, which the GPU check never compiled. No if, ternary, and/or or static_range is involved, so
folded.py recorded nothing to compare. Expected before the fix: 9/9 passed on aten::erfc's smoke tier. Class: a jit
function the interpreter calls at a call site where the GPU front end compiled another one (a subscript, getattr or
any other compile-time-evaluated selection of the callee)."""

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
     "@triton.jit\n"
     "def _dev_path(x_ptr, o_ptr, pid, n, BLOCK: tl.constexpr, COMPUTE: tl.constexpr):\n"
     "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
     "    mask = offs < n\n"
     "    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)\n"
     "\n\n"
     "@triton.jit\n"
     "def _host_path(x_ptr, o_ptr, pid, n, BLOCK: tl.constexpr, COMPUTE: tl.constexpr):\n"
     "    for i in range(BLOCK):\n"
     "        if pid * BLOCK + i < n:\n"
     "            tl.store(o_ptr + pid * BLOCK + i,\n"
     "                     _host_erfc(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n"
     "\n\n"
     "@triton.jit\n"
     "def _apply(F: tl.constexpr, x_ptr, o_ptr, pid, n, BLOCK: tl.constexpr, COMPUTE: tl.constexpr):\n"
     "    F(x_ptr, o_ptr, pid, n, BLOCK, COMPUTE)\n"
     "\n\n"
     "@triton.jit\ndef _contig_kernel("),
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    for j in range(1):\n"
     "        # interpreter: isinstance is True (j a Python int): the host path; GPU front end: False: the copy\n"
     "        _apply((_dev_path, _host_path)[isinstance(j, int)], x_ptr, o_ptr, pid, n, BLOCK, COMPUTE)\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
