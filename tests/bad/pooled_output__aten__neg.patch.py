"""Red team (issue 12 class 3, outputs that share storage across calls): aten::neg (the project's oracle)
whose functional wrapper returns a view of one module-level buffer instead of a new tensor. Every result is
right when it is read, but successive results alias each other (a caller's earlier result changes under
it), and on GPUs the timed calls allocate nothing. Caught by L3's memory provenance: a returned output
must live in storage allocated during its call (or be an argument), checked in correctness runs and in
timed calls (sandbox/provenance.py CallEvidence.stale_returns) -> profile."""

SUBSTITUTIONS = [
    ("""def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
""", """_POOL = {}


def _pooled(shape, dtype, device):
    n = 1
    for s in shape:
        n *= s
    key = (dtype, str(device))
    if key not in _POOL or _POOL[key].numel() < n:
        _POOL[key] = torch.empty(max(n, 1 << 12), dtype=dtype, device=device)
    return _POOL[key][:n].view(shape)


def neg(self):
    return _run(self, _pooled(list(self.shape), self.dtype, self.device))
"""),
]
