"""Oracle solution for aten::empty_strided (spec: shared/spec/aten.md, section `aten::empty_strided`).

Wrappers: empty_strided, empty_strided_out (dispatcher).

An allocation, nothing to compute (the NothingToCompute "allocation" rule): a flat buffer of
1 + sum((size_i - 1) * stride_i) elements (none when a size is 0) from torch.empty, viewed with the
requested sizes and strides (torch.empty_strided here would be dispatch recursion). The contents are
uninitialised. The .out form resizes out to size as PyTorch does (contiguous strides, out's dtype)
and returns it.
"""
import torch


def _storage_numel(size, stride):
    if any(int(s) == 0 for s in size):
        return 0
    return 1 + sum((int(s) - 1) * int(st) for s, st in zip(size, stride))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(size)} sizes, {len(stride)} strides")
    dtype = torch.get_default_dtype() if dtype is None else dtype
    buf = torch.empty((_storage_numel(size, stride),), dtype=dtype, device=device)
    return buf.as_strided(list(size), list(stride))


def empty_strided_out(size, stride, *, out):
    out.resize_(list(size))
    return out
