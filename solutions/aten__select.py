"""Oracle solution for aten::select (spec: shared/spec/aten.md, section `aten::select`).

Wrappers: select_int (dispatcher); select_t (JIT-only list form, plain Python); select.Dimname is
absent from PyTorch 2.13.

A view, nothing to compute (the NothingToCompute "view" rule): dim is dropped and the storage offset
advances by index * stride[dim], through as_strided (indexing self[i] would reach select again).
"""


def select_int(self, dim, index):
    nd = self.dim()
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim = dim + nd if dim < 0 else dim
    n = self.size(dim)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(self.size())} at "
                         f"dimension {dim}")
    index = index + n if index < 0 else index
    sizes = [s for i, s in enumerate(self.size()) if i != dim]
    strides = [s for i, s in enumerate(self.stride()) if i != dim]
    return self.as_strided(sizes, strides, self.storage_offset() + index * self.stride(dim))


def select_t(list, idx):
    return list[idx]
