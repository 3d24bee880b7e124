"""LEGAL (false-rejection hunt 43): vllm::scaled_int8_quant rounding half to even with ``libdevice.llrint`` (CUDA's
``__nv_llrintf``: round to nearest even, returned as int64), as bitsandbytes' row-wise int8 quantization kernels and
their forks write it (``tl.extra.cuda.libdevice.llrint(127.0 * (x / max_val))``). The value is clamped into int32's
range first, so the int64 result is exact. Triton 3.6's interpreter runs no libdevice call: ``unsupported``
there until the interpreter computed ``llrint`` (and ``llround``) with NumPy. The rest is the oracle."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n", "import triton.language as tl\nfrom triton.language.extra.cuda import libdevice\n"),
    ("    return (v + 12582912.0) - 12582912.0", "    return libdevice.llrint(v).to(tl.float32)"),
]
