"""Red team (issue 12 class 5, allowlists that compute): aten::_to_copy (the project's oracle) whose small
calls (up to 63 elements: within the per-call fill budget) convert with ``fill_`` from a tensor of the
source dtype, one element at a time (``out.view(-1)[i].fill_(x.view(-1)[i])``: ATen's fill converts the
value), after a real kernel that writes a scratch buffer nobody reads. Copies through PyTorch are the
operator itself here, but fills are allocation-class ops, allowed. Caught by L3: a fill from a tensor of
another dtype is marked as a dtype conversion (aten::fill_.Tensor (dtype conversion)) -> profile."""

SUBSTITUTIONS = [
    ("""    _check_target(self, layout, device)
    out = _new_like(self, self.dtype if dtype is None else dtype, memory_format)
    return _assign(out, self)
""", """    _check_target(self, layout, device)
    out = _new_like(self, self.dtype if dtype is None else dtype, memory_format)
    if 0 < self.numel() <= 63 and out.dtype != self.dtype and self.is_contiguous() and out.is_contiguous():
        _assign(torch.empty_like(out), self)  # a real launch, into a buffer nobody reads
        src, dst = self.view(-1), out.view(-1)
        for i in range(src.numel()):
            dst[i].fill_(src[i])
        return out
    return _assign(out, self)
"""),
]
