"""Oracle solution for aten::narrow (spec: shared/spec/aten.md, section `aten::narrow`).

Wrappers: narrow, narrow_Tensor (dispatcher; CompositeImplicit in PyTorch, intercepted by the
registration).

A view, nothing to compute (the NothingToCompute "view" rule): elements [start, start + length)
along dim, i.e. size[dim] = length and the storage offset advanced by start * stride[dim], through
as_strided (self.narrow or slicing would reach narrow/slice again). narrow_Tensor reads its 0-d start
tensor with .item() (another op than this one).
"""


def narrow(self, dim, start, length):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim = dim + nd if dim < 0 else dim
    n = self.size(dim)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    sizes = list(self.size())
    sizes[dim] = length
    return self.as_strided(sizes, self.stride(), self.storage_offset() + start * self.stride(dim))


def narrow_Tensor(self, dim, start, length):
    if start.dim() != 0 or start.is_floating_point() or start.is_complex():
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return narrow(self, dim, int(start.item()), length)
