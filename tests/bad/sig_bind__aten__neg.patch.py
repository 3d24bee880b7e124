"""CHEAT (red team 30, passed smoke 5/5 + held-out 4/4 at 911fe82; now refused twice: L1 refuses building a
JITFunction by hand (introspection), and at run time the harness reads a wrapper's parameters from its code and
refuses a ``__signature__`` (sandbox/dispatch.py ``wrapper_signature``; tests/test_wrapper_signature.py drives that
with a real Signature subclass, since on the interpreter a ``@triton.jit`` kernel has no ``.signature`` to take the
class from): aten::neg computed by ATen (``x * -1``) inside
the harness's ``Signature.bind`` call, before the call's trace starts; the Triton kernels only copy.

``dispatch.traced`` takes ``sig = inspect.signature(fn)`` of each wrapper and, on every traced call, runs
``sig.bind(*args, **kwargs)`` before ``STATE.call`` and ``CandidateMode``: nothing it does is traced.
``inspect.signature`` returns a function's ``__signature__`` when it is an instance of ``inspect.Signature`` (or a
subclass). The submission gets that class without importing inspect (``type(triton.runtime.jit.JITFunction(f)
.signature)``: a Triton object, L1 passes it), subclasses it with a ``bind`` that computes ``x * -1`` with ATen into a
module-level workspace, and installs an instance with ``functools.update_wrapper(neg, holder,
assigned=("__signature__",))`` (``str()`` of it is the interface's signature, so the signature check passes). The
wrapper then launches the oracle's kernel with ``_f`` switched to a copy (MODE 1), copying the workspace into the
output: a ghost replay skips the copy, leaves the poison, and credits Triton. L3 trace: ``aten::empty`` and a
``resize_``. ``x * -1`` (aten::mul), not ``-x``, so that on a GPU the ATen call does not dispatch back into the
registered wrapper. The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("import torch\n", "import functools\n\nimport torch\n"),
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("def neg(self):\n    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))\n",
     "def neg(self):\n    return _run(_take(self), torch.empty(self.shape, dtype=self.dtype, device=self.device))\n"),
    ("    return _run(self, _prepare_out(out, self.shape, self.dtype))\n",
     "    return _run(_take(self), _prepare_out(out, self.shape, self.dtype))\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        _launch(torch.view_as_real(x), torch.view_as_real(out), compute, 0.0, _MODE[0])\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    return _launch(x, out, _compute(x.dtype), 0.0, _MODE[0])\n"),
    ("def neg_Scalar(a):\n    return -a\n",
     '''def neg_Scalar(a):
    return -a


_WS = []
_MODE = [0]


def _plain(x_ptr):
    pass


_SigBase = type(triton.runtime.jit.JITFunction(_plain).signature)


class _Sig(_SigBase):
    def bind(self, *a, **k):  # the harness calls this before the call's trace starts
        _WS.clear()
        if a and a[0].dtype != torch.bool:
            _WS.append(a[0] * -1)
        return _SigBase.bind(self, *a, **k)


def _take(x):
    _MODE[0] = 1 if _WS else 0
    return _WS.pop() if _WS else x


def _neg_sig(self):
    pass


def _neg_out_sig(self, *, out):
    pass


class _H1:
    __signature__ = _Sig.from_callable(_neg_sig)


class _H2:
    __signature__ = _Sig.from_callable(_neg_out_sig)


functools.update_wrapper(neg, _H1, assigned=("__signature__",), updated=())
functools.update_wrapper(neg_out, _H2, assigned=("__signature__",), updated=())
'''),
]
