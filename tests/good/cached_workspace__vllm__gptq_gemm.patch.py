"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm as a split-K GEMM whose fp32 workspace is kept across
calls (a module-level dict keyed by device and size, as cuBLAS keeps its workspace): each split stores its fp32
partial tile into its own slab of the workspace, and a second kernel sums the slabs and stores the fp16 result. The
workspace is never returned (README: a workspace kept across calls is fine when it is not returned), and every call
overwrites what it reads, so nothing of an earlier call's data reaches the result. The rest is the oracle.

(Until 2026-12-06 the splits ``tl.atomic_add``-ed into a zeroed workspace. On an H100 at beda5c9 that kernel lost
one 127-element row of one tile (row 36, columns from 10624, of held-out case 0) in 5 of 200 calls outside the
harness, with a fresh ``torch.zeros`` workspace and without splitting alike: not a legal submission's behaviour to
pin down here, and the harness's L2 re-run rightly failed it once in two gate runs.)"""

SUBSTITUTIONS = [
    ("""    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn64[None, :], acc.to(tl.float16),
             mask=mm[:, None] & nm[None, :])
""", """    slab = tl.program_id(2).to(tl.int64) * M * N
    tl.store(out_ptr + slab + rm.to(tl.int64)[:, None] * N + rn64[None, :], acc, mask=mm[:, None] & nm[None, :])


_WORKSPACE = {}


@triton.jit
def _sum_splits_kernel(ws_ptr, out_ptr, MN, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(ws_ptr + s * MN + off, mask=m, other=0.0)
    tl.store(out_ptr + off, acc.to(tl.float16), mask=m)
"""),
    ("gidx_ptr, out_ptr, M, N, K, GS, ZOFF,", "gidx_ptr, out_ptr, M, N, K, GS, ZOFF, KS,"),
    ("    for k0 in range(0, K, BK):\n", "    for k0 in range(tl.program_id(2) * KS, (tl.program_id(2) + 1) * KS, BK):\n"),
    ("gs, 0 if use_v2_format else 1,", "gs, 0 if use_v2_format else 1, k // splits,"),
    ("    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))\n", """    splits = 2 if (k // 2) % gs == 0 else 1
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), splits)
    key = (str(a.device), splits * m * n)
    ws = _WORKSPACE.get(key)
    if ws is None:
        ws = torch.empty(splits * m * n, dtype=torch.float32, device=a.device)
        _WORKSPACE[key] = ws
"""),
    ("b_gptq_scales.contiguous(), gidx, out, m, n, k,", "b_gptq_scales.contiguous(), gidx, ws, m, n, k,"),
    ("                       BIT=bit, HAS_GIDX=has_gidx, BM=bm, BN=bn, BK=bk, num_warps=4)\n",
     "                       BIT=bit, HAS_GIDX=has_gidx, BM=bm, BN=bn, BK=bk, num_warps=4)\n"
     "    _sum_splits_kernel[(triton.cdiv(m * n, 1024),)](ws, out, m * n, SPLITS=splits, BLOCK=1024)\n"),
]
