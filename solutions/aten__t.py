"""Oracle solution for aten::t (spec: shared/spec/aten.md, section `aten::t`).

Wrapper: t (dispatcher).

A view, nothing to compute (the NothingToCompute "view" rule): the result shares self's storage,
with the sizes and strides of a 2-D input swapped and the same storage offset; 0-D and 1-D inputs
give a view with their own sizes and strides. Built with as_strided: x.t() would reach this wrapper
again (dispatch recursion on GPUs). No Triton kernel is needed.
"""


def t(self):
    nd = self.dim()
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    if nd < 2:
        return self.as_strided(self.size(), self.stride(), self.storage_offset())
    return self.as_strided((self.size(1), self.size(0)), (self.stride(1), self.stride(0)), self.storage_offset())
