"""Legal (issue 12 class 1, the honest side of the data-movement copy rule): aten::index_select (the
project's oracle) whose ``out=`` form gathers into a fresh buffer of the call, filled first with
``torch.full``, with the Triton kernel and copies the whole buffer into ``out`` as given (resized where
its shape differs, as ATen's out= forms do): ``out.copy_(tmp)``; the functional form makes its inputs dense
as given (``.contiguous()``) and passes views to the kernel. No copy maps elements as the operator would."""

SUBSTITUTIONS = [
    ("""def index_select(self, dim, index):
    dim, shape = _check(self, dim, index)
    y = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _gather(self, dim, index, y)


def index_select_out(self, dim, index, *, out):
    dim, shape = _check(self, dim, index)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _gather(self, dim, index, out)
""", """def index_select(self, dim, index):
    dim, shape = _check(self, dim, index)
    y = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _gather(self.contiguous(), dim, index.contiguous(), y)


def index_select_out(self, dim, index, *, out):
    dim, shape = _check(self, dim, index)
    if list(out.shape) != shape:
        out.resize_(shape)
    tmp = torch.full(shape, 0, dtype=self.dtype, device=self.device)
    _gather(self, dim, index, tmp.view(shape))
    out.copy_(tmp)
    return out
"""),
]
