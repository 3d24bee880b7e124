"""Legal: the aten::sort oracle returning its (values, indices) as a namedtuple of its own, as PyTorch's
torch.return_types.sort is one (red team 28). The harness judges a wrapper's result by type() before it touches it
(sandbox/dispatch.py plain_result): a tuple of another class comes back as a plain tuple, read through tuple's own
slots. Must pass. The rest is the oracle (solutions/aten__sort.py)."""

SUBSTITUTIONS = [
    ("""\
def _functional(self, dim, descending):
    _check(self, dim)
    values = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    indices = torch.empty(self.shape, dtype=torch.int64, device=self.device)
    _sort_into(self, dim, descending, values, indices)
    return values, indices
""", """\
import collections

_Sorted = collections.namedtuple("_Sorted", ["values", "indices"])


def _functional(self, dim, descending):
    _check(self, dim)
    values = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    indices = torch.empty(self.shape, dtype=torch.int64, device=self.device)
    _sort_into(self, dim, descending, values, indices)
    return _Sorted(values, indices)  # LEGAL: a namedtuple result
"""),
]
