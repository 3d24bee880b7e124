"""BAD (issue 12, class 6, the cheat next to the legal host-methods fixture): aten::sort whose wrapper
binds a name to a list, rebinds it to the input tensor and calls ``.sort()`` on it:
PyTorch's sort, the op being replaced. L1 once exempted ``.sort()`` on any name bound to a list
somewhere in its scope (the call passed L1 and only the L3 trace caught it); its inference now holds
a name to be plain Python only when every binding is, so the call is L1's ``dispatch-recursion``.
The rest is the oracle (solutions/aten__sort.py)."""

SUBSTITUTIONS = [
    ("""\
def sort(self, dim=-1, descending=False):
    return _functional(self, dim, descending)
""", """\
def sort(self, dim=-1, descending=False):
    order = []  # looks like a host list ...
    order = self  # ... but is the input tensor
    return order.sort(dim, descending)  # CHEAT: Tensor.sort, the op being replaced
"""),
]
