"""Oracle solution for aten::expand (spec: shared/spec/aten.md, section `aten::expand`).

Wrapper: expand (dispatcher).

A view, nothing to compute (the NothingToCompute "view" rule): PyTorch's expand geometry (sizes
matched from the trailing dim; -1 keeps a dim; a size-1 dim that grows, or a new leading dim of size
> 1, gets stride 0; a new leading dim of size 1 gets the extent of the dims after it; a 0-d input
expands with all strides 0), applied to self's storage with as_strided. Calling self.expand or
expand_as here would be dispatch recursion.
"""


def _expand_geometry(sizes, strides, target):
    nd, sd = len(target), len(sizes)
    if nd < sd:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal to the number "
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
        if want == -1:
            if d < 0:
                raise RuntimeError(f"expand: -1 is not allowed in a leading, non-existing dimension {i}")
            want = size
        if size != want:
            if size != 1:
                raise RuntimeError(f"expand: the expanded size {want} must match the existing size {size} at "
                                   f"non-singleton dimension {i}; target sizes {list(target)}, tensor sizes "
                                   f"{list(sizes)}")
            size, stride = want, 0
        out_size[i], out_stride[i] = size, stride
    return out_size, out_stride


def expand(self, size, *, implicit=False):
    new_size, new_stride = _expand_geometry(list(self.size()), list(self.stride()), list(size))
    return self.as_strided(new_size, new_stride, self.storage_offset())
