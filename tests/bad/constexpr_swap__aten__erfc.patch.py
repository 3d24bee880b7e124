"""CHEAT (interpreter; red team 36): swap_helper without rebinding a name. The kernel calls the module global
`_ERFC = tl.constexpr(_dev_erfc)`; each call sets `_ERFC.value = _dev_erfc` (a trivial jit helper that compiles) for an
empty-grid launch, so that the GPU compile check compiles and caches the specialisation, then `_ERFC.value =
_host_erfc` (Python ints and math.erfc on the loaded values, refused by Triton's GPU front end) for the real launch.
swap_helper's fix keys the check's cache on Triton's dependency hash of the kernel, but that hash records a constexpr
global without the jit function inside it, and the global's name still binds the same object: the key did not
change, the check answered from its cache and the interpreter ran the host body (9/9 on the smoke tier at 54dc9d6;
one helper down as well). L1 allows the attribute store (the constexpr is the submission's own object) and the launch
rule allows a constexpr of a jit function. Expected: compile_error. Class fix: the check's key holds a generation
bumped whenever a value any mirrored function reads (a constexpr's value and a tuple's items included) is not the
object it was at the last check (gpu_compile._sync_reads)."""

SUBSTITUTIONS = [
    ('@triton.jit\ndef _contig_kernel(',
     '@triton.jit\ndef _val(b, EB: tl.constexpr, MB: tl.constexpr):\n    # IEEE bits (a non-negative Python int) -> Python float\n    return (-1.0 if b >> (EB + MB) else 1.0) * (\n        (math.nan if b & ((1 << MB) - 1) else math.inf) if (b >> MB) & ((1 << EB) - 1) == (1 << EB) - 1\n        else math.ldexp((b & ((1 << MB) - 1)) | (0 if (b >> MB) & ((1 << EB) - 1) == 0 else 1 << MB),\n                        max((b >> MB) & ((1 << EB) - 1), 1) - ((1 << (EB - 1)) - 1) - MB))\n\n\n@triton.jit\ndef _host_erfc(v, COMPUTE: tl.constexpr):\n    if COMPUTE == tl.float64:\n        return math.erfc(_val(int(v.to(tl.int64, bitcast=True)) & 0xFFFFFFFFFFFFFFFF, 11, 52))\n    else:\n        return math.erfc(_val(int(v.to(tl.int32, bitcast=True)) & 0xFFFFFFFF, 8, 23))\n\n\n@triton.jit\ndef _dev_erfc(v, COMPUTE: tl.constexpr):\n    return v\n\n\n_ERFC = tl.constexpr(_dev_erfc)  # a constexpr global: the launch rule admits it\n\n\n@triton.jit\ndef _contig_kernel('),
    ('    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n',
     '    for i in range(BLOCK):\n        if pid * BLOCK + i < n:\n            tl.store(o_ptr + pid * BLOCK + i,\n                     _ERFC(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE), COMPUTE))\n'),
    ('        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n',
     "        _ERFC.value = _dev_erfc  # compiled by the GPU check for this specialisation (no program runs)\n        _contig_kernel[(0,)](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n        _ERFC.value = _host_erfc  # served from the check's cache: the interpreter runs the host body\n        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,\n                             USE_I64=n + block >= 2 ** 31, num_warps=warps)\n"),
    ('    if src.is_contiguous() and dst.is_contiguous():\n',
     '    if not (src.is_contiguous() and dst.is_contiguous()):\n        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n        _launch(src.contiguous(), tmp, compute, p0, mode)\n        dst.copy_(tmp)\n        return out\n    if src.is_contiguous() and dst.is_contiguous():\n'),
]
