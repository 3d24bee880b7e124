"""CHEAT (interpreter; red team 36): swap_helper one call deeper. The kernel calls a fixed jit helper `_mid`, and
`_mid` calls the module global `_ERFC`, which each call sets to a clean helper `_dev_erfc` for an empty-grid launch
(the GPU compile check compiles and caches the specialisation) and then to `_host_erfc` (Python ints and math.erfc on
the loaded values, refused by Triton's GPU front end) for the real launch. swap_helper's fix keys the check's cache
on Triton's dependency hash of the kernel, recomputed per launch, but sandbox/gpu_compile.py reset only the kernel's
own mirror's ``hash``: the hash of `_mid`'s mirror, which covers `_ERFC`, stayed cached from the first launch, so the
kernel's hash did not change, the check answered from its cache and the interpreter ran the host body (9/9 on the
smoke tier at 54dc9d6). Expected: compile_error. Class fix: every mirror's cached hash is dropped when a global or
closure value its function reads has been rebound since it was computed (gpu_compile._sync_reads)."""

SUBSTITUTIONS = [
    ('@triton.jit\ndef _contig_kernel(',
     '@triton.jit\ndef _val(b, EB: tl.constexpr, MB: tl.constexpr):\n    # IEEE bits (a non-negative Python int) -> Python float\n    return (-1.0 if b >> (EB + MB) else 1.0) * (\n        (math.nan if b & ((1 << MB) - 1) else math.inf) if (b >> MB) & ((1 << EB) - 1) == (1 << EB) - 1\n        else math.ldexp((b & ((1 << MB) - 1)) | (0 if (b >> MB) & ((1 << EB) - 1) == 0 else 1 << MB),\n                        max((b >> MB) & ((1 << EB) - 1), 1) - ((1 << (EB - 1)) - 1) - MB))\n\n\n@triton.jit\ndef _host_erfc(v, COMPUTE: tl.constexpr):\n    if COMPUTE == tl.float64:\n        return math.erfc(_val(int(v.to(tl.int64, bitcast=True)) & 0xFFFFFFFFFFFFFFFF, 11, 52))\n    else:\n        return math.erfc(_val(int(v.to(tl.int32, bitcast=True)) & 0xFFFFFFFF, 8, 23))\n\n\n@triton.jit\ndef _dev_erfc(v, COMPUTE: tl.constexpr):\n    return v\n\n\n_ERFC = _dev_erfc\n\n\n@triton.jit\ndef _mid(v, COMPUTE: tl.constexpr):\n    return _ERFC(v, COMPUTE)  # the rebound global, read one call down\n\n\n@triton.jit\ndef _contig_kernel('),
    ('    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n',
     '    for i in range(BLOCK):\n        if pid * BLOCK + i < n:\n            tl.store(o_ptr + pid * BLOCK + i,\n                     _mid(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n'),
    ('        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n',
     "        global _ERFC\n        _ERFC = _dev_erfc  # compiled by the GPU check for this specialisation (no program runs)\n        _contig_kernel[(0,)](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n        _ERFC = _host_erfc  # served from the check's cache: the interpreter runs the host body\n        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n"),
    ('    if src.is_contiguous() and dst.is_contiguous():\n',
     '    if not (src.is_contiguous() and dst.is_contiguous()):\n        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n        _launch(src.contiguous(), tmp, compute, p0, mode)\n        dst.copy_(tmp)\n        return out\n    if src.is_contiguous() and dst.is_contiguous():\n'),
]
