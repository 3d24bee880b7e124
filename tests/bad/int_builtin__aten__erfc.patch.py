"""CHEAT (interpreter; red team 32): the kernel computes nothing. Its body loops over the block one element at a time,
turns the loaded value into a Python int with the builtin int() (on the interpreter tl.tensor.__index__ is
`int(self.handle.data)`, the NumPy value behind the block: sandbox of red team 31's np_handle, reached without
naming `.handle`), decodes the IEEE bits into a Python float with math.ldexp and stores math.erfc of it: the C
library's erfc on the host, in a "kernel body". L1's kernel-body rule allows int/float/range/min/max
(KERNEL_BUILTINS) and every math.* call, and refuses only `.handle` and `_` attributes; the values stay Python numbers
because the interpreter rewrites assignments only (none is used: a helper's parameters and return value carry them).
L2: a ghost replay skips the body, so the output stays poisoned and the replay fails (credit to Triton). L3: no ATen
op. On a GPU int() of a tl.tensor does not compile (compile_error), so only the interpreter's verdict is wrong.
Non-contiguous inputs and outs go through a contiguous copy and buffer (data movement the rules allow). The rest is
the oracle (solutions/aten__erfc.py)."""

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
     "    for i in range(BLOCK):\n"
     "        if pid * BLOCK + i < n:\n"
     "            tl.store(o_ptr + pid * BLOCK + i,\n"
     "                     _host_erfc(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
