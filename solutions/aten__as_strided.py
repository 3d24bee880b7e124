"""Oracle solution for aten::as_strided (spec: shared/spec/aten.md, section `aten::as_strided`).

Wrapper: as_strided (dispatcher).

A view, nothing to compute (the NothingToCompute "view" rule): a tensor on self's storage with the
given size, stride and storage offset (None keeps self's). as_strided cannot call itself, and other
view ops may reach it internally, so the alias is made with set_ (allowed for views).
set_(source, offset, size, stride) wants a contiguous source and takes the offset relative to the
source's own, so the source is an empty (hence contiguous) tensor on self's storage at self's
offset: set_(self) then resize_(0).
Out-of-bounds geometries are not diagnosed here (PyTorch raises; set_ would grow the storage, and the
storage's size is not readable without raw storage access); every case of the spec is in bounds.
"""
import torch


def as_strided(self, size, stride, storage_offset=None):
    offset = self.storage_offset() if storage_offset is None else storage_offset
    anchor = torch.empty(0, dtype=self.dtype, device=self.device).set_(self)
    anchor.resize_(0)
    out = torch.empty(0, dtype=self.dtype, device=self.device)
    return out.set_(anchor, offset - anchor.storage_offset(), list(size), list(stride))
