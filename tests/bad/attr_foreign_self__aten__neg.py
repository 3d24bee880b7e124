"""Red team of tp43's launcher-attribute allowance (``self.seen = set()``, then ``self.seen.add(x)`` judged as
Python's): a method of the file's launcher class called unbound with a ``torch.nn.Module`` as ``self`` whose buffer
registered under the same name is a tensor of zeros, so ``self.seen.add(x, alpha=-1)`` is ``Tensor.add``: it computes
the negation; a copy kernel proves a Triton kernel ran. The name is spelt in a string (``register_buffer("seen",
...)``), so L1 cannot prove the attribute a container: tensor-method -> static_scan."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class Launcher:
    def __init__(self):
        self.seen = set()

    def note(self, *keys, **options):
        return self.seen.add(*keys, **options)


class Holder(torch.nn.Module):
    def __init__(self, n, like):
        super().__init__()
        self.register_buffer("seen", torch.zeros(n, dtype=like.dtype, device=like.device))


def neg(self):
    x = self.contiguous().view(-1)
    res = Launcher.note(Holder(x.numel(), x), x, alpha=-1)
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
