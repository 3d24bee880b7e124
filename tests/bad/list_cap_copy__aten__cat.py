"""CHEAT (red team 30, passes smoke 5/5 + held-out 5/5 at 911fe82): aten::cat (data movement, no copies
allowed) whose result is written by ATen copies from views (``out.narrow(...)[...] = t``) inside the harness after the
call's trace ended: the same channel as ``list_cap`` (10,001 Nones appended to the ``tensors`` list, then an object
whose ``__class__`` property runs when ``_check_returns`` -> ``provenance._tensors`` calls ``isinstance`` on it,
past ``plain_result``'s 10,000-value budget). A Triton launch only sets a flag that gates the copy (ghost replays
leave the poison)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _flag(f_ptr):
    tl.store(f_ptr, 1)


class _Job:
    def __init__(self, tensors, dim, out, flag):
        self.job = (tensors, dim, out, flag)

    @property
    def __class__(self):
        tensors, dim, out, flag = self.job
        off = 0
        for t in tensors:
            n = t.shape[dim]
            piece = out.narrow(dim, off, n)
            both = torch.empty((2,) + tuple(piece.shape), dtype=out.dtype, device=out.device)
            both[0] = piece
            both[1] = t
            piece[...] = both[flag][0]
            off += n
        return _Job


def _plan(tensors, dim):
    ts = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    if dim < 0:
        dim += ts[0].dim()
    shape = list(ts[0].shape)
    shape[dim] = sum(t.shape[dim] for t in ts)
    dt = ts[0].dtype
    for t in ts:
        dt = torch.promote_types(dt, t.dtype)
    return ts, dim, shape, dt


def _arm(tensors, ts, dim, out):
    flag = torch.zeros(1, dtype=torch.int64, device=out.device)
    _flag[(1,)](flag)
    job = _Job(ts, dim, out, flag)
    for _ in range(10001):
        tensors.append(None)
    tensors.append(job)
    return out


def cat(tensors, dim=0):
    ts, dim, shape, dt = _plan(tensors, dim)
    return _arm(tensors, ts, dim, torch.empty(shape, dtype=dt, device=ts[0].device))


def cat_out(tensors, dim=0, *, out):
    ts, dim, shape, dt = _plan(tensors, dim)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _arm(tensors, ts, dim, out)


def cat_names(tensors, dim):
    return cat(tensors, dim)


def cat_names_out(tensors, dim, *, out):
    return cat_out(tensors, dim, out=out)
