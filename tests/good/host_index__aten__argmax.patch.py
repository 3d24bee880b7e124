"""Legal (issue 11 item 2.1): aten::argmax (the project's oracle) whose reductions over every element read
the kernel's index back on the host with ``int()`` (and check it with ``bool()``) and return it
re-wrapped with ``torch.full``. The L2 replay hands the reads back marked as Triton-derived, and a replay
whose right result is made of them is not counted as passed without Triton."""

SUBSTITUTIONS = [
    ("""def argmax(self, dim=None, keepdim=False):
    return _argmax_impl(self, dim, keepdim, None)
""", """def argmax(self, dim=None, keepdim=False):
    res = _argmax_impl(self, dim, keepdim, None)
    if dim is None and res.numel() == 1:
        idx = int(res.view(-1)[0])
        if bool(res.view(-1)[0]) != (idx != 0):  # a second read of the same value, as a truth value
            raise RuntimeError("argmax: the index read back twice differs")
        return torch.full(res.shape, idx, dtype=torch.int64, device=res.device)
    return res
"""),
]
