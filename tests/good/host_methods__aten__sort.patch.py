"""Legal (issue 12, class 6: plain host Python is not tensor code): the aten::sort oracle with host
helpers that call methods of plain Python values whose names ``torch.Tensor`` also has: ``list.sort``
on lists of dims and sizes (``sorted(...)``, ``list(x.shape[:d])``) and ``set.add`` on a set built
with ``|``. L1 judged them by name alone, as the op being replaced (``x.sort()``: dispatch recursion)
and as a tensor method (``x.add()``); its scope-aware inference now proves these names are bound
only to plain Python values. Must pass. The rest is the oracle (solutions/aten__sort.py)."""

SUBSTITUTIONS = [
    ("""\
    dims = [(s, st) for s, st in zip(sizes, strides) if s != 1]
""", """\
    keep = sorted(i for i, s in enumerate(sizes) if s != 1)
    keep.sort()  # LEGAL: list.sort of dim indices (a Python list, not Tensor.sort)
    dims = [(sizes[i], strides[i]) for i in keep]
"""),
    ("""\
    O = 1
    for s in x.shape[:d]:
        O *= s
""", """\
    outer = list(x.shape[:d])
    outer.sort(reverse=True)  # LEGAL: list.sort of sizes
    seen = set(range(d)) | {d}
    seen.add(d)  # LEGAL: set.add (not Tensor.add)
    assert len(seen) == d + 1
    O = 1
    for s in outer:
        O *= s
"""),
]
