"""BAD (issue 12, class 6, the cheat next to the legal host-methods fixture): aten::sort whose wrappers
bind a name to a list, rebind it to the input tensor and call ``.sort()`` on it: PyTorch's sort, the op
being replaced. L1 once exempted ``.sort()`` on any name bound to a list somewhere in its scope (the
call passed L1 and only the L3 dispatch trace caught it, as ``dispatch_recursion``); its inference now
holds a name to be plain Python only when every binding is, so L1 reports ``dispatch-recursion``."""


def _sorted(self, dim, descending):
    order = []  # looks like a host list ...
    order = self  # ... but is the input tensor
    return order.sort(dim, descending)  # CHEAT: Tensor.sort, the op being replaced


def sort(self, dim=-1, descending=False):
    return _sorted(self, dim, descending)


def sort_stable(self, *, stable, dim=-1, descending=False):
    return _sorted(self, dim, descending)


def sort_values(self, dim=-1, descending=False, *, values, indices):
    v, i = _sorted(self, dim, descending)
    values.resize_(v.shape).copy_(v)
    indices.resize_(i.shape).copy_(i)
    return values, indices


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return sort_values(self, dim, descending, values=values, indices=indices)
