"""LEGAL (false-rejection hunt 33): the aten::index oracle with its wrappers' bodies under ``with torch.no_grad():``
(a fresh context per call: ``index_Tensor_hacked_twin`` enters a second one, nested, around ``index_Tensor``'s).
The error cases raise out of the ``with`` blocks (smoke's ``[]``: "at least one index must be provided"; the full
tier's three indices into a 2-D tensor: "too many indices"). Pins today's run-time check of PyTorch's global state
(sandbox/drive.py ``global_state_change``, before and after every call): a ``with`` block restores grad mode as the
exception leaves it, so nothing is left changed and the job must pass. Not here, because they do leak (rightly
failed as profile; tests/test_fp33_global_state_honest.py): one ``torch.no_grad()`` object shared by the module and
entered twice, nested; a generator helper holding ``with torch.no_grad():`` across its yields inside this
wrapper's block, when the wrapper raises mid-iteration (the traceback keeps the generator suspended, the wrapper's
block exits first, and the generator's exit, when the exception is dropped, restores the state it saw: grad off).
The rest is the oracle (solutions/aten__index.py)."""

SUBSTITUTIONS = [
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
