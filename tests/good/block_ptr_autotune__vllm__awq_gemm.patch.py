"""LEGAL (red team of the quantised GEMMs): vllm::awq_gemm with an autotuned kernel (``@triton.autotune`` over
two configs keyed on M, N, K; on the interpreter the autotuner takes the first) that loads its activation tiles
through ``tl.make_block_ptr`` / ``tl.advance`` (boundary checks with zero padding) instead of pointer
arithmetic. The rest is the oracle."""

SUBSTITUTIONS = [
    ("""@triton.jit
def _awq_kernel(""", """@triton.autotune(configs=[triton.Config({}, num_warps=4), triton.Config({}, num_warps=8)],
                 key=["M", "N", "K"])
@triton.jit
def _awq_kernel("""),
    ("""    for i in range(0, count):
""", """    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(K, 1), offsets=(pid_m * BM, first * BK),
                              block_shape=(BM, BK), order=(1, 0))
    for i in range(0, count):
"""),
    ("""        a = tl.load(a_rows + rk[None, :], mask=mm[:, None], other=0.0)
""", """        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        a_blk = tl.advance(a_blk, (0, STRIDE * BK))
"""),
    ("BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)", "BM=bm, BN=bn, BK=bk)"),
]
