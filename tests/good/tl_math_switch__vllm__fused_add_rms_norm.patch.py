"""LEGAL (false-rejection hunt 43): vllm::fused_add_rms_norm with xformers' ``rmsnorm_kernels.py`` idiom of a math
module picked at import by what Triton has: ``if hasattr(tl, "libdevice"): tl_math = tl.libdevice`` (Triton 2.0)
``else: tl_math = tl.math``, read in a jit helper as ``tl_math.sqrt``, plus ``eviction_policy="evict_last"`` on the
residual's first read. The rest is the oracle."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n", "import triton.language as tl\n\nif hasattr(tl, \"libdevice\"):\n"
     "    tl_math = tl.libdevice\nelse:\n    tl_math = tl.math\n"),
    ("    return (1.0 / tl.sqrt(v)).to(tl.float32)", "    return (1.0 / tl_math.sqrt(v)).to(tl.float32)"),
    ("        r = tl.load(res_row + cols, mask=mask, other=0.0).to(tl.float32)\n",
     "        r = tl.load(res_row + cols, mask=mask, other=0.0, eviction_policy=\"evict_last\").to(tl.float32)\n"),
]
