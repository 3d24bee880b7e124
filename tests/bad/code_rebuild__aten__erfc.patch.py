"""CHEAT (red team 43): a code object reached through a coroutine, rebuilt and run as a function: arbitrary code L1
never scanned. ``coro.cr_code`` (and an async generator's ``ag_code``) passed L1 while ``gi_code``, ``__code__`` and
``f_code`` were introspection; ``code.replace(co_names=...)`` renames what the code calls (``_name`` becomes the
builtin ``exec``), and ``type(f)`` of any function is ``types.FunctionType``, which makes a function of that code
(with ``{}`` as globals it takes the builtins of the caller). The rebuilt coroutine runs ``exec`` of a bytes literal:
red team 42's hidden payload (loader_exec), which reaches the sandbox's STATE through sys.modules and computes erfc
with ATen "inside a launch", untraced; in a ghost replay it does nothing, so L2 credits Triton. The kernel is a copy.
The same route imports any module (``__import__("posix")``). Passed aten::erfc smoke 9/9 at 76a872c (L1 clean).
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
     "_NS = {}\n"
     "\n\n"
     "async def _call(a, b):\n"
     "    return _name(a, b)\n"
     "\n\n"
     "_C = _call(None, None)\n"
     "_CO = _C.cr_code\n"
     "_C.close()\n"
     "try:\n"
     "    type(_call)(_CO.replace(co_names=(\"exec\",)), {})(_HIDDEN, _NS).send(None)\n"
     "except StopIteration:\n"
     "    pass\n"
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
