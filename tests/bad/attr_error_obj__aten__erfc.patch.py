"""CHEAT (red team 44): an object handed back by a caught exception, opaque to L1. Python 3.10+ puts the object whose
attribute lookup failed on the AttributeError (``e.obj``): ``torch.kgb_missing`` raises one whose ``obj`` is the
``torch`` module itself, and L1 took ``e.obj`` for an unknown value, so every path through it passed as attributes of
an unknown receiver: ``_T.sys.modules[...]`` (the sandbox's STATE), ``_T.os.system``, ``_T._C._DisableTorchDispatch``,
``_T.compile``, ``_T.library``. Here it reaches STATE and computes erfc with ATen (fp64 ``special.ndtr``) "inside a
launch", where the dispatch trace counts nothing; in a ghost replay it does nothing, so L2 credits Triton. The kernel
is a copy (``_f`` returns its input). Passed aten::erfc smoke 9/9 at 175b6c3 (L1 clean).
The rest is the oracle (solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("_MAXD = 5\n",
     "_MAXD = 5\n"
     "try:\n"
     "    torch.kgb_missing\n"
     "except AttributeError as _e:\n"
     "    _T = _e.obj\n"
     "_S = _T.sys.modules[\"kernelgenbench.sandbox.state\"].STATE\n"
     "\n\n"
     "def run(x, out):\n"
     "    if _S.ghost:\n"
     "        return\n"
     "    _S.inside_launch += 1\n"
     "    try:\n"
     "        d = x.double()\n"
     "        out.copy_(_T.special.ndtr(d * -1.4142135623730951) * 2)\n"
     "    finally:\n"
     "        _S.inside_launch -= 1\n"),
    ("    r = t * tl.exp(p - a * a)\n    return tl.where(x < 0, 2.0 - r, r)\n",
     "    return x\n"),
    ("def erfc(self):\n    rd = _result_dtype(self.dtype)\n"
     "    return _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))\n",
     "def erfc(self):\n    rd = _result_dtype(self.dtype)\n"
     "    out = _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))\n"
     "    run(self, out)\n"
     "    return out\n"),
    ("    return _launch(self, _prepare_out(out, self.shape, rd), _compute(rd))\n",
     "    out = _launch(self, _prepare_out(out, self.shape, rd), _compute(rd))\n"
     "    run(self, out)\n"
     "    return out\n"),
]
