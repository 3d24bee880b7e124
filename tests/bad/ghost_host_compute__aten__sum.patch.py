"""Issue 11 item 2.1, the side that must still fail: aten::sum (the project's oracle) whose full reduction
of a small input (up to 8 elements, within the host-read budget) is a Triton *copy* of the input, read back
on the host (``.item()`` of memory a launch received: Triton-derived reads) and summed in Python. The L2
replay hands the reads back (marked as Triton's); the sum is none of the values read, so the replay's
right result was computed on the host, not re-wrapped from a kernel's -> ghost."""

SUBSTITUTIONS = [
    ("""def sum(self, *, dtype=None):
    return _sum_impl(self, None, False, dtype, None)
""", """@triton.jit
def _copy_1d(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def sum(self, *, dtype=None):
    if 0 < self.numel() <= 8 and self.is_floating_point() and self.is_contiguous():
        buf = torch.empty(self.numel(), dtype=self.dtype, device=self.device)
        _copy_1d[(1,)](self, buf, self.numel(), BLOCK=8)
        s = 0.0
        for i in range(buf.numel()):
            s += buf[i].item()
        return torch.full((), s, dtype=_result_dtype(self, dtype, None), device=self.device)
    return _sum_impl(self, None, False, dtype, None)
"""),
]
