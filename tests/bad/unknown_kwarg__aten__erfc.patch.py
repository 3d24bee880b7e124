"""CHEAT (interpreter; red team 32b): int_builtin (host math.erfc on Python ints in a "kernel body", which Triton's GPU
front end refuses: compile_error) with one extra keyword at the launch, ``KGB_HINT=0``, that names no parameter of the
kernel. The interpreter's GridExecutor drops keywords that are not parameters, so the body runs as before; the GPU
compile check binds the launch with Triton's own ``_pack_args``, which raises ``KeyError("Keyword argument KGB_HINT was
specified but unrecognised")`` (on a GPU the launch fails with it). That KeyError is the check's "plumbing"
(sandbox/gpu_compile.py check_launch: any failure of _bind is a harness note), so the interpreter's verdict stands and
the body a GPU would refuse twice over runs. The launch rule (launch_args.check_launch) accepts any keyword name whose
value is a leaf. Expected: compile_error (or a launch failure); the interpreter-only check passes it."""

SUBSTITUTIONS = [
    ("USE_I64=n + block >= 2 ** 31, num_warps=warps)\n        return out\n",
     "USE_I64=n + block >= 2 ** 31, num_warps=warps, KGB_HINT=0)\n        return out\n"),
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
