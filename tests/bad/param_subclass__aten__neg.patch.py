"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): tests/bad/tensor_subclass's channel past L1: a tensor
subclass whose ``__torch_dispatch__`` computes aten::neg with ATen (``x * -1``) while ``CandidateMode`` is popped.
L1 (``verify/scan/api.py`` ``_dispatch_escapes``) refuses a class whose base's last name is ``Tensor``,
``_TensorBase`` or ``TensorBase``, or whose body *defines* (``def``) a handler; this class derives from
``torch.nn.Parameter`` (a ``torch.Tensor`` subclass by another name) and *assigns* its handler. The wrapper wraps a
scratch tensor in it (``_Courier(scratch)``, Parameter's own ``__new__``) and runs an innocent ``view``: the trace
records the view, then the mode hands the op to the subclass's handler, untraced, which fills the workspace. The
kernel (``_f`` with MODE 1: the identity) copies the workspace into ``out``; an L2 ghost replay skips the copy and
credits Triton. The subclass object never reaches a launch or the result (the launch rule and plain_result allow
only exact tensors and Parameters). The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "        _courier(ws, x)\n"
     "        _launch(torch.view_as_real(ws), torch.view_as_real(out), compute, 0.0, 1)\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    compute = _compute(x.dtype)\n"
     "    ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "    _courier(ws, x)\n"
     "    return _launch(ws, out, compute, 0.0, 1)\n"),
    ("def _prepare_out(out, shape, result_dtype):\n",
     '''_JOB = []


def _handle(cls, func, types, args=(), kwargs=None):
    while _JOB:
        ws, x = _JOB.pop()
        ws.copy_(x * -1)
    return torch.empty(0)


class _Courier(torch.nn.Parameter):
    __torch_dispatch__ = classmethod(_handle)


def _courier(ws, x):
    _JOB.append((ws, x))
    _Courier(torch.empty(0), requires_grad=False).view(-1)
    _JOB.clear()


def _prepare_out(out, shape, result_dtype):
'''),
]
