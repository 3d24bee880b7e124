"""Issue 11 item 2.1, the side that must still fail: aten::sum (the project's oracle) whose full reduction
of a small input (up to 8 elements, within the host-read budget) is summed on the host from the input's
own elements (``.item()`` of a read-only input) and re-wrapped with ``torch.full``, beside the real
kernel's launch. A host read of an input is no kernel's result: the L2 replay hands the values back
unmarked, the result still comes out right with every launch a no-op -> ghost."""

SUBSTITUTIONS = [
    ("""def sum(self, *, dtype=None):
    return _sum_impl(self, None, False, dtype, None)
""", """def sum(self, *, dtype=None):
    res = _sum_impl(self, None, False, dtype, None)
    if 0 < self.numel() <= 8 and self.is_floating_point() and self.is_contiguous():
        flat = self.view(-1)
        s = 0.0
        for i in range(flat.numel()):
            s += flat[i].item()
        return torch.full((), s, dtype=res.dtype, device=res.device)
    return res
"""),
]
