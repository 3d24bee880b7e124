"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::neg computed by ATen (``x * -1``) inside the
``__torch_dispatch__`` of a PyTorch dispatch mode that the wrapper pushes around a Triton launch; the kernel only
copies. L1 refuses ``torch.utils._python_dispatch``/``torch.overrides`` and a class that *defines* (``def``)
``__torch_dispatch__``, but the mode class here comes from another module of PyTorch that re-exports none of them
(``torch.autograd.graph._CloneArgBeforeMutateMode``, a TorchDispatchMode subclass; read as a base class, a type
position L1 allows) and its handler is *assigned* in the class body (``__torch_dispatch__ = _relay``), which
``verify/scan/api.py`` ``_dispatch_escapes`` does not look for. The mode is pushed inside the traced call and
popped before it returns, so ``drive.foreign_modes`` (which looks between calls only) never sees it.

Inside the launch the harness's own ATen ops (``CallEvidence.note_launch``'s snapshot, the interpreter's
``GridExecutor._init_args_hst``: ``new_empty``/``set_``) run with ``STATE.inside_launch`` set; they reach the
submission's mode first (it is on top of ``CandidateMode``), whose handler then runs ``ws.copy_(x * -1)``: those ops
reach ``CandidateMode`` with ``inside_launch`` set and are passed through untraced. The L3 trace shows ``empty``
only; the kernel (``_f`` with MODE 1: the identity) copies the workspace into ``out``. In an L2 ghost replay the
argument copies still run (the workspace is computed) but the copy kernel does not: ``out`` stays poisoned and L2
credits Triton. The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "        _relayed(ws, x, lambda: _launch(torch.view_as_real(ws), torch.view_as_real(out), compute, 0.0, 1))\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    compute = _compute(x.dtype)\n"
     "    ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "    _relayed(ws, x, lambda: _launch(ws, out, compute, 0.0, 1))\n"
     "    return out\n"),
    ("def neg_Scalar(a):\n    return -a\n",
     '''def neg_Scalar(a):
    return -a


_JOB = []


def _relay(self, func, types, args=(), kwargs=None):
    # runs for every ATen op while the mode is pushed; the first one is the harness's own, inside the launch
    while _JOB:
        _JOB.pop()()
    return func(*args, **(kwargs or {}))


class _Relay(torch.autograd.graph._CloneArgBeforeMutateMode):
    __torch_dispatch__ = _relay


def _relayed(ws, x, launch):
    _JOB.append(lambda: ws.copy_(x * -1))
    with _Relay(None):
        launch()
    _JOB.clear()
'''),
]
