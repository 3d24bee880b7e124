"""BAD (issue 11, item 2.3, the cheat next to the legal cmath fixture): aten::asin computed on the host
with ``cmath``, element by element (each value read with ``.item()``, written back with ``fill_``),
after a token launch of the oracle's kernel into a scratch buffer for proof of work. ``cmath`` passes
L1 now, like ``math``; what it computes on tensor values still goes through host reads and ATen fills:
the L3 host-read and fill budgets fail it on the [64, 65] smoke case (``profile``), and on smaller tensors
the L2 ghost replay would (``ghost``: with every launch a no-op the fills still produce the result). The rest is the
oracle (solutions/aten__asin.py)."""

SUBSTITUTIONS = [
    ("import math\n", "import cmath\nimport math\n"),
    ("""\
def asin(self):
    rd = _result_dtype(self.dtype)
    return _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))
""", """\
def asin(self):
    rd = _result_dtype(self.dtype)
    out = torch.empty(self.shape, dtype=rd, device=self.device)
    _launch(self, torch.empty_like(out), _compute(rd))  # token launch: proof of work only
    flat, src = out.view(-1), self.reshape(-1)
    for i in range(flat.numel()):
        w = cmath.asin(src[i].item())  # CHEAT: host compute with cmath
        flat[i].fill_(w.real if w.imag == 0 else math.nan)
    return out
"""),
]
