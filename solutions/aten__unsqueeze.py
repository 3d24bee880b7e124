"""Oracle solution for aten::unsqueeze (spec: shared/spec/aten.md, section `aten::unsqueeze`).

Wrapper: unsqueeze (dispatcher).

A view, nothing to compute (the NothingToCompute "view" rule): a size-1 dim inserted at dim, with
stride size[dim] * stride[dim] (1 at the end), as PyTorch computes it, through as_strided
(x.unsqueeze or x[None] would reach unsqueeze again).
"""


def unsqueeze(self, dim):
    nd = self.dim()
    if not -(nd + 1) <= dim <= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-(nd + 1)}, {nd}], but got {dim})")
    dim = dim + nd + 1 if dim < 0 else dim
    sizes, strides = list(self.size()), list(self.stride())
    new_stride = 1 if dim >= nd else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return self.as_strided(sizes, strides, self.storage_offset())
