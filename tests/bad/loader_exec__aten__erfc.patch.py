"""CHEAT (red team 42): code L1 never scanned, run through the module's import machinery. A module's
`__loader__` (also `__spec__.loader`, and any imported module's: `math.__loader__` is the builtin importer) passed
L1 as a plain name. `source_to_code` of the submission's own loader compiles a bytes literal the scanner takes for
data, an instance attribute makes that code the loader's `get_code`, and `load_module()` runs it in the submission's
module (which then holds `run`, a name no code of the file defines). The hidden code reaches the sandbox's STATE
through sys.modules and computes erfc with ATen (fp64 erf and erfcx) "inside a launch", where the dispatch trace
counts nothing; in a ghost replay it does nothing, so L2 credits Triton. The kernel is a copy (`_f` returns its
input). The same loader also reads and writes files (`get_data`, `set_data`). Passed aten::erfc smoke 9/9 at a6ad926.
The rest is the oracle (solutions/aten__erfc.py)."""

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
