"""CHEAT (interpreter; red team 37): int_builtin (host math.erfc on Python ints in a "kernel body", which Triton's GPU
front end refuses) launched with ``num_warps=3``. Triton's CUDA options assert that num_warps is a power of 2, so on a
GPU the launch raises AssertionError before anything compiles; the interpreter ignores num_warps. The GPU compile check
binds the launch with Triton's own ``_pack_args`` (``backend.parse_options``), which raised that AssertionError, and
any failure of its binding was a harness note (the check's "plumbing"): the interpreter's verdict stood and the body
ran (9/9 on aten::erfc's smoke tier at 04d0df4). ``stream=0`` went the same way (``_pack_args`` asserts it absent):
red team 32b closed only unknown keyword names, one member of the class. Expected: runtime_error, as on a GPU. Class
fix: an exception whose innermost frame is Triton's code (binder, argument packing, options, dependency hash, front
end) or not the harness's is the launch's own failure (gpu_compile._launch_error); only the harness's own plumbing
failures stay notes."""

SUBSTITUTIONS = [
    ("USE_I64=n + block >= 2 ** 31, num_warps=warps)\n        return out\n",
     "USE_I64=n + block >= 2 ** 31, num_warps=3)\n        return out\n"),
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
