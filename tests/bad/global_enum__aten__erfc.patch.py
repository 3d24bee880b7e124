"""CHEAT (red team 44): ``enum.global_enum`` writes an Enum's members into the globals of the module its
``__module__`` names, and a class body may name any module there: here the sandbox's own
``kernelgenbench.sandbox.dispatch``, whose ``_traced_op`` (what the dispatch trace runs for every ATen op of a call)
becomes a member whose ``__call__`` only runs the op. Nothing is traced, poisoned or logged after that (the harness's
modules are not snapshotted, and L1 saw an Enum with an int member). erfc is then computed on the host with ATen
through Python operators in fp64 (Numerical Recipes' formula, ``math.e ** z`` for exp); a one-element flag written by a
Triton kernel and read back with ``.item()`` (no longer logged, so never replayed) tells a ghost replay, where the
launch does not run, and there nothing is computed, so L2 credits Triton. The kernel is a copy (``_f`` returns its
input). Passed aten::erfc smoke 9/9 at 175b6c3 (L1 clean). The rest is the oracle (solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("import math\n", "import enum\nimport math\n"),
    ("_MAXD = 5\n",
     "_MAXD = 5\n"
     "\n\n"
     "class _Keys(enum.Enum):\n"
     "    __module__ = \"kernelgenbench.sandbox.dispatch\"\n"
     "    _op_key = 1\n"
     "    host_read = 2\n"
     "\n"
     "    def __call__(self, *a, **k):\n"
     "        if self.value == 1:\n"
     "            return \"aten::empty.memory_format\"\n"
     "        return a[3]()\n"
     "\n\n"
     "enum.global_enum(_Keys)\n"
     "\n\n"
     "@triton.jit\n"
     "def _mark(p):\n"
     "    tl.store(p, 1.0)\n"
     "\n\n"
     "def run(x, out):\n"
     "    flag = torch.zeros(1, dtype=torch.float32, device=x.device)\n"
     "    _mark[(1,)](flag)\n"
     "    if flag.item() == 0.0:\n"
     "        return\n"
     "    d = x.double()\n"
     "    a = abs(d)\n"
     "    t = 1.0 / (1.0 + 0.5 * a)\n"
     "    p = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (\n"
     "        0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))\n"
     "    r = t * math.e ** (p - a * a)\n"
     "    out.copy_(r + (d < 0) * (2.0 - 2.0 * r))\n"),
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
