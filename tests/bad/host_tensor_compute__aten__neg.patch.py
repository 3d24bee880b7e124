"""BAD (issue 11, item 2.2, the cheat next to the legal host-tensor fixture): aten::neg computed on the
host: every input value read with ``.item()``, negated in Python, the result built with
``torch.tensor`` from that Python list and copied into the output by a Triton kernel (so an L2 ghost
replay, where the copy does not run, does not pass). ``torch.tensor`` of a Python list passes L1 now
(data movement, like ``torch.full``); the L3 dispatch trace sees the host reads and the host-built
tensor (``profile``). The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
""", """\
def neg(self):
    flat = self.reshape(-1)
    vals = [-flat[i].item() for i in range(flat.numel())]  # CHEAT: host compute
    res = torch.tensor(vals, dtype=self.dtype, device=self.device).view(self.shape)
    return _launch(res, torch.empty(self.shape, dtype=self.dtype, device=self.device), _compute(self.dtype), mode=1)
"""),
    ("""\
def _f(x, p0, MODE: tl.constexpr):
    return x * -1
""", """\
def _f(x, p0, MODE: tl.constexpr):
    if MODE == 1:  # a plain copy of what the host computed
        return x
    return x * -1
"""),
]
