"""LEGAL (false-rejection hunt 33): the aten::index oracle with its wrappers' bodies under ``with torch.no_grad():``
(a fresh context per call: ``index_Tensor_hacked_twin`` enters a second one, nested, inside its own), and the index
list walked by a generator helper that holds ``with torch.no_grad():`` across its yields, as chunking helpers do.
The error cases raise out of the ``with`` block (smoke's ``[]``: "at least one index must be provided"), and the
full tier's three indices into a 2-D tensor ("too many indices") raise while the generator is suspended inside its
own ``no_grad`` (passed on the full tier too, CPU interpreter, at the commit that added this file). Pins
today's run-time check of PyTorch's global state (sandbox/drive.py ``global_state_change``, before and after every
call): a ``with`` block restores grad mode as the exception leaves it, and the suspended generator is closed (its
``with`` exited) when the raising frames are freed, before the harness compares the state; nothing is left
changed, so the job must pass. (A ``torch.no_grad()`` object shared by the module and entered twice, nested, does
leave grad mode off after the outer exit: a real leak, rightly failed as profile.) The rest is the oracle
(solutions/aten__index.py)."""

SUBSTITUTIONS = [
    ("""\
def _plan(x, indices):
    \"\"\"Sources [(tensor, mult, wrap)], B shape, insert position p, rest dims [(size, self stride)].\"\"\"
""", """\
def _walk(indices):
    with torch.no_grad():  # LEGAL: held across the yields; exited when the generator finishes or is closed
        for ind in indices:
            yield ind


def _plan(x, indices):
    \"\"\"Sources [(tensor, mult, wrap)], B shape, insert position p, rest dims [(size, self stride)].\"\"\"
"""),
    ("""\
    if covered > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {covered})")
    shape, strides = list(x.shape), list(x.stride())
    srcs, rest, where = [], [], []
    d = 0
    for ind in indices:
""", """\
    shape, strides = list(x.shape), list(x.stride())
    srcs, rest, where = [], [], []
    d = 0
    walk = _walk(indices)
    for ind in walk:
        if covered > nd:  # LEGAL: raised while the generator is suspended inside its no_grad
            raise IndexError(f"too many indices for tensor of dimension {nd} (got {covered})")
"""),
    ("""\
def index_Tensor(self, indices):
    indices = list(indices)
    mask = _lone_mask(indices)
    if mask is not None:
        res = _masked(self, mask, None, 0)
        if res is not None:
            return res
    srcs, bshape, p, rest = _plan(self, indices)
    out = torch.empty(_result_shape(bshape, p, rest), dtype=self.dtype, device=self.device)
    _run(self, srcs, bshape, p, rest, out, 0)
    return out


def index_Tensor_out(self, indices, *, out):
    srcs, bshape, p, rest = _plan(self, list(indices))
    shape = _result_shape(bshape, p, rest)
    if list(out.shape) != shape:
        out.resize_(shape)
    if out.is_contiguous():
        _run(self, srcs, bshape, p, rest, out, 0)
        return out
    tmp = torch.empty(shape, dtype=self.dtype, device=self.device)
    _run(self, srcs, bshape, p, rest, tmp, 0)
    _strided_copy(tmp, out)
    return out


def index_Tensor_hacked_twin(self, indices):
    return index_Tensor(self, indices)
""", """\
def index_Tensor(self, indices):
    with torch.no_grad():  # LEGAL: the errors of _plan raise out of this block
        indices = list(indices)
        mask = _lone_mask(indices)
        if mask is not None:
            res = _masked(self, mask, None, 0)
            if res is not None:
                return res
        srcs, bshape, p, rest = _plan(self, indices)
        out = torch.empty(_result_shape(bshape, p, rest), dtype=self.dtype, device=self.device)
        _run(self, srcs, bshape, p, rest, out, 0)
        return out


def index_Tensor_out(self, indices, *, out):
    with torch.no_grad():
        srcs, bshape, p, rest = _plan(self, list(indices))
        shape = _result_shape(bshape, p, rest)
        if list(out.shape) != shape:
            out.resize_(shape)
        if out.is_contiguous():
            _run(self, srcs, bshape, p, rest, out, 0)
            return out
        tmp = torch.empty(shape, dtype=self.dtype, device=self.device)
        _run(self, srcs, bshape, p, rest, tmp, 0)
        _strided_copy(tmp, out)
        return out


def index_Tensor_hacked_twin(self, indices):
    with torch.no_grad():  # LEGAL: a second, fresh no_grad nested around the first
        return index_Tensor(self, indices)
"""),
]
