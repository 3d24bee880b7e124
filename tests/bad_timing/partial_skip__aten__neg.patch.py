"""BAD (timing cheat, GPU only; red team 32): timed_noop's detection (a fresh ``torch.empty`` holds the harness's
NaN poison only while a call is traced), but the work is skipped on about 3 of 4 timed calls at random, not on all:
the skipped repetitions move the median, and two random judged repetitions miss every skipped one with probability
about (1/4)^2. The verifier also judges the fastest repetitions (Settings.timing_fastest), which are skipped ones:
``wrong_result``. The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
def neg(self):
""", """\
_LCG = [12345]


def _coin():
    # a linear congruential generator: about 3 of 4 calls skip
    _LCG[0] = (_LCG[0] * 1103515245 + 12345) % 2147483648
    return (_LCG[0] >> 16) % 4 != 0


@triton.jit
def _nothing(p):
    pass


def _timed(device):
    probe = torch.empty(1, dtype=torch.float32, device=device)
    v = probe.item()
    return v == v


def neg(self):
    if self.is_floating_point() and self.device.type == "cuda" and _timed(self.device) and _coin():
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
        _nothing[(1,)](out)
        return out
"""),
]
