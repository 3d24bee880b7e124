"""BAD (timing cheat, GPU only): aten::neg that tells timed calls from judged ones and skips the work
when timed.

A fresh ``torch.empty`` holds the harness's poison (a NaN payload) while a call is traced (correctness
runs, L2) and whatever the allocator left there while it is timed (tracing is off in timing); one
``.item()`` read of it decides. Timed calls launch a kernel that does nothing and return the output
unwritten. Caught by the judged timed repetitions (verify/timing.py ``check``): ``wrong_result``.
The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
def neg(self):
""", """\
@triton.jit
def _nothing(p):
    pass


def _timed(device):
    probe = torch.empty(1, dtype=torch.float32, device=device)
    v = probe.item()
    return v == v


def neg(self):
    if self.is_floating_point() and self.device.type == "cuda" and _timed(self.device):
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
        _nothing[(1,)](out)
        return out
"""),
]
