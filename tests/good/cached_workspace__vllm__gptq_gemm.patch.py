"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm as a split-K GEMM whose fp32 workspace is kept across
calls (a module-level dict keyed by device and size, as cuBLAS keeps its workspace): the split kernels
``tl.atomic_add`` their fp32 partials into it, and the rounding kernel stores the fp16 result and zeroes the
workspace behind it for the next call. The workspace is never returned (README: a workspace kept across calls is
fine when it is not returned). The rest is the oracle."""

SUBSTITUTIONS = [
    ("""    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn64[None, :], acc.to(tl.float16),
             mask=mm[:, None] & nm[None, :])
""", """    tl.atomic_add(out_ptr + rm.to(tl.int64)[:, None] * N + rn64[None, :], acc, mask=mm[:, None] & nm[None, :])


_WORKSPACE = {}


@triton.jit
def _round_and_clear_kernel(ws_ptr, out_ptr, MN, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < MN
    tl.store(out_ptr + off, tl.load(ws_ptr + off, mask=m, other=0.0).to(tl.float16), mask=m)
    tl.store(ws_ptr + off, tl.zeros([BLOCK], dtype=tl.float32), mask=m)
"""),
    ("gidx_ptr, out_ptr, M, N, K, GS, ZOFF,", "gidx_ptr, out_ptr, M, N, K, GS, ZOFF, KS,"),
    ("    for k0 in range(0, K, BK):\n", "    for k0 in range(tl.program_id(2) * KS, (tl.program_id(2) + 1) * KS, BK):\n"),
    ("gs, 0 if use_v2_format else 1,", "gs, 0 if use_v2_format else 1, k // splits,"),
    ("    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))\n", """    splits = 2 if (k // 2) % gs == 0 else 1
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), splits)
    key = (str(a.device), m * n)
    ws = _WORKSPACE.get(key)
    if ws is None:
        ws = torch.zeros(m * n, dtype=torch.float32, device=a.device)
        _WORKSPACE[key] = ws
"""),
    ("b_gptq_scales.contiguous(), gidx, out, m, n, k,", "b_gptq_scales.contiguous(), gidx, ws, m, n, k,"),
    ("                       BIT=bit, HAS_GIDX=has_gidx, BM=bm, BN=bn, BK=bk, num_warps=4)\n",
     "                       BIT=bit, HAS_GIDX=has_gidx, BM=bm, BN=bn, BK=bk, num_warps=4)\n"
     "    _round_and_clear_kernel[(triton.cdiv(m * n, 1024),)](ws, out, m * n, BLOCK=1024)\n"),
]
