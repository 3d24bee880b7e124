"""Oracle solution for aten::new_empty_strided (spec: shared/spec/aten.md, section
`aten::new_empty_strided`).

Wrappers: new_empty_strided, new_empty_strided_out (dispatcher).

An allocation, nothing to compute (the NothingToCompute "allocation" rule): self.new_empty of the
storage size the strides need (dtype and device default to self's), viewed with the requested sizes
and strides (self.new_empty_strided here would be dispatch recursion). The contents are
uninitialised. The .out form resizes out to size as PyTorch does (contiguous strides, out's dtype)
and returns it.
"""


def _storage_numel(size, stride):
    if any(int(s) == 0 for s in size):
        return 0
    return 1 + sum((int(s) - 1) * int(st) for s, st in zip(size, stride))


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(size)} sizes, {len(stride)} strides")
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    buf = self.new_empty((_storage_numel(size, stride),), dtype=dtype, device=device)
    return buf.as_strided(list(size), list(stride))


def new_empty_strided_out(self, size, stride, *, out):
    out.resize_(list(size))
    return out
