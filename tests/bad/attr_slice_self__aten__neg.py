"""Red team 43 (rb43) of tp43's launcher-attribute allowance: a method of the file's plain launcher class called
unbound with a builtin ``slice`` as ``self``. A slice keeps its arguments as ``start``/``stop``/``step``, names that
are no attribute of ``torch.Tensor`` or ``torch.nn.Module`` and need no string or keyword to be set, so
``self.stop.add(x, alpha=-1)`` is ``Tensor.add`` on a tensor of zeros: it computes the negation; a copy kernel proves
a Triton kernel ran. L1 cannot prove ``self`` an instance of the class where the class escapes otherwise than as the
callee that makes one (``Launcher.note``, ``type(obj).note``, a subclass with another base): tensor-method ->
static_scan (the L3 trace, aten::add, stands behind it)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class Launcher:
    def __init__(self):
        self.stop = []

    def note(self, *keys, **options):
        return self.stop.add(*keys, **options)


def neg(self):
    x = self.contiguous().view(-1)
    zeros = torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
    res = Launcher.note(slice(None, zeros), x, alpha=-1)
    out = torch.empty_like(res)
    if res.numel():
        _copy[(triton.cdiv(res.numel(), 1024),)](res, out, res.numel(), BLOCK=1024)
    return out.view(self.shape)


def neg_out(self, *, out):
    res = neg(self)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
