"""LEGAL (session 40, GPU-only divergence): aten::zero_ whose contiguous fill kernel is autotuned over its block size
(``@triton.autotune`` keyed on n, the grid a function of the chosen config). On a GPU the wrapper is registered at the
dispatcher and Triton benchmarks the configs inside the candidate's call: ``triton.testing.do_bench`` zeroes its
256 MB L2-flush buffer with ``Tensor.zero_`` before every timed run, which reached the running candidate and failed
it as a dispatch recursion (the interpreter, which registers nothing and never benchmarked, passed it). The harness
lifts the registration while Triton benchmarks (sandbox/window.py ``registration_lifted``). The rest is the oracle."""

SUBSTITUTIONS = [
    ("""@triton.jit
def _fill_flat(""", """@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4),
                          triton.Config({"BLOCK": 4096}, num_warps=8)], key=["n"])
@triton.jit
def _fill_flat("""),
    ("""        _fill_flat[grid](flat, n, payload, IS_FLOAT=is_float, IS_BOOL=is_bool, BLOCK=block,
                         I64=n > 2 ** 31 - 2 * block, num_warps=warps)""",
     """        _fill_flat[lambda meta: (_cdiv(n, meta["BLOCK"]),)](flat, n, payload, IS_FLOAT=is_float,
                                                             IS_BOOL=is_bool, I64=n > 2 ** 31 - 2 * 4096)"""),
]
