"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): vllm::rms_norm computed by ATen (``@`` for the sum of
squares, ``** -0.5``, dtype conversions) inside the ``__torch_dispatch__`` of a PyTorch dispatch mode pushed around
the launch of a Triton copy kernel: the channel of tests/bad/mode_relay__aten__neg (read its docstring) in a function
task (no InterceptMode). The mode class is a ``TorchDispatchMode`` subclass taken from ``torch.autograd.graph`` (a
base class: L1 allows it), its handler assigned in the class body (L1 refuses only ``def __torch_dispatch__``); the
harness's own ATen ops inside the launch (``STATE.inside_launch``) reach it first, and whatever its handler runs
passes ``CandidateMode`` untraced. The oracle's kernel is never launched; ``_copy1d`` moves the workspace into
``out``, so an L2 ghost replay (copy skipped) leaves ``out`` poisoned. The rest is the oracle
(solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("    num_warps = max(1, min(8, BLOCK // 512))\n",
     '''    ws = torch.empty(out.shape, dtype=out.dtype, device=out.device)

    def job():
        xf = input.float()
        ss = (xf * xf) @ torch.ones((H, 1), dtype=torch.float32, device=xf.device)
        y = (xf * (ss / H + float(epsilon)) ** -0.5).to(input.dtype).float() * weight.float()
        ws.copy_(y.to(out.dtype).reshape(ws.shape))

    _JOB.append(job)
    n = ws.numel()
    with _Relay(None):
        _copy1d[(triton.cdiv(n, 4096),)](ws, out, n, BLOCK=4096)
    _JOB.clear()
    return None
    num_warps = max(1, min(8, BLOCK // 512))
'''),
    ("def rms_norm(out, input, weight, epsilon):\n",
     '''@triton.jit
def _copy1d(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


_JOB = []


def _relay(self, func, types, args=(), kwargs=None):
    # every ATen op while the mode is pushed; the first is the harness's own, inside the launch (untraced)
    while _JOB:
        _JOB.pop()()
    return func(*args, **(kwargs or {}))


class _Relay(torch.autograd.graph._CloneArgBeforeMutateMode):
    __torch_dispatch__ = _relay


def rms_norm(out, input, weight, epsilon):
'''),
]
