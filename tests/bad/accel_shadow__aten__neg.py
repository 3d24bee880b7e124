"""Red team of tp43's bitsandbytes allowance (``getattr(torch, device_type, torch.cuda)`` with ``device_type`` the
current accelerator's ``.type``): a memoized function that binds ``torch`` itself to its own object, whose
``accelerator.current_accelerator().type`` answers ``"neg"``, makes ``getattr(torch, dev())`` PyTorch's ``torch.neg``,
which computes the answer; a launch of a copy kernel proves a Triton kernel ran. The module's view of ``torch`` cannot
vouch for a function's local binding: caught by L1 (dynamic-attr) -> static_scan."""
import functools

import torch
import triton
import triton.language as tl


class _Device:
    type = "neg"


class _Accelerator:
    @staticmethod
    def current_accelerator():
        return _Device()


class _Torch:
    accelerator = _Accelerator


@functools.cache
def dev():
    torch = _Torch()
    return torch.accelerator.current_accelerator().type


torch_accelerator_module = getattr(torch, dev(), torch.cuda)


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def neg(self):
    res = torch_accelerator_module(self.contiguous())
    out = torch.empty_like(res)
    if res.numel():
        _copy[(triton.cdiv(res.numel(), 1024),)](res, out, res.numel(), BLOCK=1024)
    return out


def neg_out(self, *, out):
    res = neg(self)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
