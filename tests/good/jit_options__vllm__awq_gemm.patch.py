"""LEGAL (red team): vllm::awq_gemm whose kernel is declared with options of ``triton.jit`` used in production code
(``do_not_specialize`` on the sizes, so one compiled kernel serves every M) and a ``tl.static_assert`` on its
block sizes. The rest is the oracle."""

SUBSTITUTIONS = [
    ("""@triton.jit
def _awq_kernel(""", """@triton.jit(do_not_specialize=["M", "PER"])
def _awq_kernel("""),
    ("    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n    z = tl.program_id(2)\n",
     "    tl.static_assert(BN % 8 == 0, \"BN must cover whole packed words\")\n"
     "    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n    z = tl.program_id(2)\n"),
]
