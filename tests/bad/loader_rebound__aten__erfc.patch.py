"""CHEAT (rb42): loader_exec with the module's `__loader__` rebound to itself first. rt42 refused the bare name
`__loader__` "unless the file binds it itself", but a module's `__loader__` (like `__spec__` and `__builtins__`) is a
module global the import system sets before the file runs, and any built-in is reached by a module-level read until
the file's own binding has run: `__loader__ = __loader__` (or a binding after the read, or one under `if False:`)
made L1 take every read of it for the file's own name and pass it, so the same hidden code ran (see
loader_exec__aten__erfc.patch.py). The same held for every refused built-in (`if False: exec = None` then
`exec(...)`). The rest is the oracle (solutions/aten__erfc.py)."""

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
     "__loader__ = __loader__\n"
     "_LD = __loader__\n"
     "_LD.get_code = {_LD.name: _LD.source_to_code(_HIDDEN, _LD.path)}.get\n"
     "_LD.load_module()\n"),
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
