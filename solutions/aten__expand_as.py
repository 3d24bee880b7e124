"""Oracle solution for aten::expand_as (spec: shared/spec/aten.md, section `aten::expand_as`).

Wrapper: expand_as (dispatcher; CompositeImplicit in PyTorch, intercepted by the registration).

A view, nothing to compute (the NothingToCompute "view" rule): self expanded to other's shape with
PyTorch's expand geometry, on self's storage through as_strided. Only other's shape is read.
"""


def _expand_geometry(sizes, strides, target):
    nd, sd = len(target), len(sizes)
    if nd < sd:
        raise RuntimeError(f"expand_as: the number of sizes provided ({nd}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({sd})")
    out_size = [0] * nd
    out_stride = [0] * nd
    for i in range(nd - 1, -1, -1):
        d = i - (nd - sd)
        if d >= 0:
            size, stride = sizes[d], strides[d]
        else:
            size = 1
            stride = out_size[i + 1] * out_stride[i + 1] if i + 1 < nd else 0
        want = int(target[i])
        if size != want:
            if size != 1:
                raise RuntimeError(f"expand_as: the expanded size {want} must match the existing size {size} at "
                                   f"non-singleton dimension {i}")
            size, stride = want, 0
        out_size[i], out_stride[i] = size, stride
    return out_size, out_stride


def expand_as(self, other):
    new_size, new_stride = _expand_geometry(list(self.size()), list(self.stride()), list(other.size()))
    return self.as_strided(new_size, new_stride, self.storage_offset())
