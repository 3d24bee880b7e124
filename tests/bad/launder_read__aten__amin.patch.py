"""Red team (second round; GPUs too): aten::amin (the project's oracle) that computes full reductions of up
to 16 floating elements on the host. It clones the input, hands the clone to a kernel whose body is
``pass``, reads the clone's elements back (host reads of memory a launch received counted as Triton-derived,
so a ghost replay that hands them back was excused) and returns their minimum with ``torch.full``. Caught
because memory a launch received counts as Triton-derived only once a launch changed it (the bytes of an
argument, or of an ATen copy of non-Triton memory, are kept when a launch first receives it:
sandbox/provenance.py CallEvidence.note_launch) -> the ghost replay's right result is not excused -> ghost."""

SUBSTITUTIONS = [
    ("""def amin(self, dim=(), keepdim=False):
    return _amin_impl(self, dim, keepdim, None)
""", """@triton.jit
def _touch(p):
    pass


def _host_min(self):
    c = self.clone()
    _touch[(1,)](c)  # the clone is now memory a launch of the call received
    flat = c.reshape(-1)
    vals = [float(flat[i]) for i in range(flat.numel())]
    m = vals[0]
    for v in vals:
        if v != v:
            m = v
            break
        m = min(m, v)
    return torch.full((), m, dtype=self.dtype, device=self.device)


def amin(self, dim=(), keepdim=False):
    if 0 < self.numel() <= 16 and self.is_floating_point() and not keepdim and (dim is None or len(dim) == 0):
        return _host_min(self)
    return _amin_impl(self, dim, keepdim, None)
"""),
]
