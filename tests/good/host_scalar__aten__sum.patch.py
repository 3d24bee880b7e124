"""Legal (issue 11 item 2.1): aten::sum (the project's oracle) whose full reductions read the kernel's
result back on the host with ``.item()`` and return it re-wrapped with ``torch.full`` (a style of
third-party kernels). The value is the kernel's work: the L2 replay hands the read back marked as a
Triton-derived read (the memory a launch of the call wrote), and a replay whose right result is made of
such values is not counted as passed without Triton (run/job.py from_triton_reads). It failed as
``ghost`` before."""

SUBSTITUTIONS = [
    ("""def sum(self, *, dtype=None):
    return _sum_impl(self, None, False, dtype, None)
""", """def sum(self, *, dtype=None):
    res = _sum_impl(self, None, False, dtype, None)
    return torch.full((), res.item(), dtype=res.dtype, device=res.device)
"""),
]
