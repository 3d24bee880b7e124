"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::sort by ATen's own sort, no Triton compute at
all, the L3 trace switched off and L2 ghost replays detected by reading the harness's state.

``torch.package.importer._SysImporter.import_module`` is ``importlib.import_module``; a subclass of it (a base class:
a type position L1 allows; no path rule covers ``torch.package``) imports anything (tests/bad/pkg_import__aten__neg).
Here it imports ``torch`` under a name L1 cannot follow (``_T``: ``_T.ops.aten.sort.stable`` is no ``torch.ops`` path
to L1, and ``stable`` no tensor method) and the sandbox's ``kernelgenbench.sandbox.state``. Each call launches a
Triton kernel that loads one element and stores nothing (the launch the proof of execution wants), then, unless
``STATE.ghost`` says this is an L2 replay, raises ``STATE.inside_launch`` (``CandidateMode`` then passes every ATen op
through untraced) and runs ATen's sort into the outputs. In a replay the outputs stay poisoned: L2 credits Triton.
L3 trace: ``empty`` only."""
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(p + offs, mask=offs < n)


class _Imp(torch.package.importer._SysImporter):
    pass


_T = _Imp().import_module("torch")
_ST = _Imp().import_module("kernelgenbench.sandbox.state").STATE


def _sort_into(x, dim, descending, stable, values, indices):
    _touch[(1,)](x, min(1, x.numel()), BLOCK=16)
    if _ST.ghost:
        return values, indices
    _ST.inside_launch += 1
    try:
        v, i = _T.ops.aten.sort.stable(x, stable=stable, dim=dim, descending=descending)
        if tuple(values.shape) != tuple(v.shape):
            values.resize_(v.shape)
        if tuple(indices.shape) != tuple(i.shape):
            indices.resize_(i.shape)
        values.copy_(v)
        indices.copy_(i)
    finally:
        _ST.inside_launch -= 1
    return values, indices


def _new(x):
    return (torch.empty(x.shape, dtype=x.dtype, device=x.device),
            torch.empty(x.shape, dtype=torch.int64, device=x.device))


def sort(self, dim=-1, descending=False):
    return _sort_into(self, dim, descending, None, *_new(self))


def sort_stable(self, *, stable, dim=-1, descending=False):
    return _sort_into(self, dim, descending, stable, *_new(self))


def sort_values(self, dim=-1, descending=False, *, values, indices):
    return _sort_into(self, dim, descending, None, values, indices)


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return _sort_into(self, dim, descending, stable, values, indices)
