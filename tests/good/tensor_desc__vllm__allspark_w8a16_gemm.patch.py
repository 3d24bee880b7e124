"""LEGAL (red team of the quantised GEMMs): vllm::allspark_w8a16_gemm loading its activation tiles through a host
``triton.tools.tensor_descriptor.TensorDescriptor`` (the TMA idiom of Hopper GEMMs: ``desc.load([m0, k0])``,
rows past M read as zeros) instead of pointer arithmetic. The rest is the oracle."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n", "import triton.language as tl\nfrom triton.tools.tensor_descriptor import TensorDescriptor\n"),
    ("def _allspark_kernel(a_ptr,", "def _allspark_kernel(a_desc,"),
    ("        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + rk[None, :], mask=mm[:, None] & km[None, :], other=0.0)\n",
     "        a = a_desc.load([pid_m * BM, k0])\n"),
    ("    _allspark_kernel[grid](a.contiguous(),",
     "    a_desc = TensorDescriptor.from_tensor(a.contiguous(), [bm, bk])\n    _allspark_kernel[grid](a_desc,"),
]
