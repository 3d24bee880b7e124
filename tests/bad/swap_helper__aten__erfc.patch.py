"""CHEAT (interpreter; red team 32b): int_builtin's host-erfc body (Python ints and math.erfc in a "kernel body",
refused by Triton's GPU front end) reached through a module global jit helper that the host rebinds between launches.
The kernel calls `_ERFC(v, COMPUTE)`. Each call first sets `_ERFC = _dev_erfc` (a trivial jit helper that compiles)
and launches the kernel with the real arguments on an empty grid `(0,)`: no program runs, but the GPU compile check
compiles (and caches) this specialisation with the clean helper. It then sets `_ERFC = _host_erfc` and launches on the
real grid: sandbox/gpu_compile.py caches outcomes by (kernel function, specialisation, options) only, not by the
globals the body reaches, so the check answers from its cache and the interpreter runs the host helper. The launch rule
(launch_args.check_globals) allows a global jit function, and L1 allows `global`. (On a GPU, Triton would run the
first compiled kernel: jit-function globals are not part of its cache key either; on the interpreter the helper runs.)
Expected: compile_error. Class fix: key the check's cache on what the compile read (the mirror's cache_key: Triton's
hash over the jit functions and constexpr globals the kernel reaches, recomputed per launch, or the launch rule's
snapshot of the globals), or refuse a launch whose reached globals differ from those of the cached compile."""

SUBSTITUTIONS = [
    ('@triton.jit\ndef _contig_kernel(', '@triton.jit\ndef _val(b, EB: tl.constexpr, MB: tl.constexpr):\n    # IEEE bits (a non-negative Python int) -> Python float\n    return (-1.0 if b >> (EB + MB) else 1.0) * (\n        (math.nan if b & ((1 << MB) - 1) else math.inf) if (b >> MB) & ((1 << EB) - 1) == (1 << EB) - 1\n        else math.ldexp((b & ((1 << MB) - 1)) | (0 if (b >> MB) & ((1 << EB) - 1) == 0 else 1 << MB),\n                        max((b >> MB) & ((1 << EB) - 1), 1) - ((1 << (EB - 1)) - 1) - MB))\n\n\n@triton.jit\ndef _host_erfc(v, COMPUTE: tl.constexpr):\n    if COMPUTE == tl.float64:\n        return math.erfc(_val(int(v.to(tl.int64, bitcast=True)) & 0xFFFFFFFFFFFFFFFF, 11, 52))\n    else:\n        return math.erfc(_val(int(v.to(tl.int32, bitcast=True)) & 0xFFFFFFFF, 8, 23))\n\n\n@triton.jit\ndef _dev_erfc(v, COMPUTE: tl.constexpr):\n    return v\n\n\n_ERFC = _dev_erfc\n\n\n@triton.jit\ndef _contig_kernel('),
    ('    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n', '    for i in range(BLOCK):\n        if pid * BLOCK + i < n:\n            tl.store(o_ptr + pid * BLOCK + i,\n                     _ERFC(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n'),
    ('        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n', "        global _ERFC\n        _ERFC = _dev_erfc  # compiled by the GPU check for this specialisation (no program runs)\n        _contig_kernel[(0,)](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n        _ERFC = _host_erfc  # served from the check's cache: the interpreter runs the host body\n        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n"),
    ('    if src.is_contiguous() and dst.is_contiguous():\n', '    if not (src.is_contiguous() and dst.is_contiguous()):\n        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n        _launch(src.contiguous(), tmp, compute, p0, mode)\n        dst.copy_(tmp)\n        return out\n    if src.is_contiguous() and dst.is_contiguous():\n'),
]
