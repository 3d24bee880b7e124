"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::mm computed by ATen (``a @ b``, aten::mm) inside
the ``__torch_dispatch__`` of a PyTorch dispatch mode pushed around the launch of a Triton 2-D copy kernel: the same
channel as tests/bad/mode_relay__aten__neg (read its docstring): a ``TorchDispatchMode`` subclass taken from
``torch.autograd.graph`` (L1 allows it as a base class), its handler assigned in the class body (L1 looks only for a
``def __torch_dispatch__``), pushed inside the traced call; the harness's own ATen ops inside the launch
(``STATE.inside_launch``: note_launch's snapshot, the interpreter's argument copies) reach it first, and the ops its
handler runs pass ``CandidateMode`` untraced. The oracle's GEMM kernel is never launched; ``_copy2d`` moves the
workspace ATen filled into ``c``, so an L2 ghost replay (copy skipped) leaves ``c`` poisoned. The rest is the oracle
(solutions/aten__mm.py)."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n\n\n@triton.jit\n",
     '''import triton.language as tl


@triton.jit
def _copy2d(src, dst, M, N, ss0, ss1, ds0, ds1, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    msk = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(src + rm[:, None] * ss0 + rn[None, :] * ss1, mask=msk)
    tl.store(dst + rm[:, None] * ds0 + rn[None, :] * ds1, v, mask=msk)


_JOB = []


def _relay(self, func, types, args=(), kwargs=None):
    # every ATen op while the mode is pushed; the first is the harness's own, inside the launch (untraced)
    while _JOB:
        _JOB.pop()()
    return func(*args, **(kwargs or {}))


class _Relay(torch.autograd.graph._CloneArgBeforeMutateMode):
    __torch_dispatch__ = _relay


@triton.jit
'''),
    ("    BM, BN, BK, warps, stages = _config(M, N, K, a.dtype, a.device)\n",
     '''    ws = torch.empty((M, N), dtype=c.dtype, device=c.device)
    _JOB.append(lambda: ws.copy_(a.to(ws.dtype) @ b.to(ws.dtype)))
    with _Relay(None):
        _copy2d[(_cdiv(M, 32), _cdiv(N, 32))](ws, c, M, N, ws.stride(0), ws.stride(1), c.stride(0), c.stride(1),
                                               BM=32, BN=32)
    _JOB.clear()
    return c
    BM, BN, BK, warps, stages = _config(M, N, K, a.dtype, a.device)
'''),
]
