"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm as a persistent kernel, the Hopper idiom of Triton's
own tutorials: the wrapper reads the device's multiprocessor count (``torch.cuda.get_device_properties`` on a
GPU, a fixed 4 elsewhere), launches that many programs at most and each walks the C tiles ``pid, pid + grid,
...``. The rest is the oracle."""

SUBSTITUTIONS = [
    ("""    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
""", """    n_tiles_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * n_tiles_n, tl.num_programs(0)):
        _gptq_tile(a_ptr, qw_ptr, qz_ptr, s_ptr, gidx_ptr, out_ptr, M, N, K, GS, ZOFF, tile // n_tiles_n,
                   tile % n_tiles_n, BIT, HAS_GIDX, BM, BN, BK)


@triton.jit
def _gptq_tile(a_ptr, qw_ptr, qz_ptr, s_ptr, gidx_ptr, out_ptr, M, N, K, GS, ZOFF, pid_m, pid_n,
               BIT: tl.constexpr, HAS_GIDX: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    PF: tl.constexpr = 32 // BIT
    MASK: tl.constexpr = (1 << BIT) - 1
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
"""),
    ("    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))\n", """    if a.is_cuda:
        sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    else:
        sms = 4
    grid = (min(sms, triton.cdiv(m, bm) * triton.cdiv(n, bn)),)
"""),
]
