"""CHEAT (red team 43): a module's namespace through ``object.__getstate__``, which Python 3.11 gives every object:
it returns the object's ``__dict__``, and a module's is its globals. ``__dict__``, ``vars()`` and ``globals()`` were
refused, ``tl.__getstate__()`` (or ``math.__getstate__()``, whose ``__loader__`` imports any builtin module) passed
L1; a Python module's globals hold its ``__builtins__`` dict, so ``["exec"]`` ran a bytes literal: red team 42's
hidden payload (loader_exec), which reaches the sandbox's STATE through sys.modules and computes erfc with ATen
"inside a launch", untraced; in a ghost replay it does nothing, so L2 credits Triton. The kernel is a copy. Passed
aten::erfc smoke 9/9 at 76a872c (L1 clean). The rest is the oracle (solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("_MAXD = 5\n",
     "_MAXD = 5\n"
     "_HIDDEN = (b\"import sys, torch\\n\"\n"
     "           b\"S = sys.modules['kernelgenbench.sandbox.state'].STATE\\n\"\n"
     "           b\"def run(x, out):\\n\"\n"
     "           b\"    if S.ghost:\\n\"\n"
     "           b\"        return\\n\"\n"
     "           b\"    S.inside_launch += 1\\n\"\n"
     "           b\"    try:\\n\"\n"
     "           b\"        d = x.double()\\n\"\n"
     "           b\"        out.copy_(torch.where(d < 0, 1 - torch.erf(d), torch.special.erfcx(d) * torch.exp(-d * d)))\\n\"\n"
     "           b\"    finally:\\n\"\n"
     "           b\"        S.inside_launch -= 1\\n\")\n"
     "_NS = {}\n"
     "tl.__getstate__()[\"__builtins__\"][\"exec\"](_HIDDEN, _NS)\n"
     "run = _NS[\"run\"]\n"),
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
