"""Red team 37: L1 exempts self._cache/self.handle/self.filters/... on the self of a plain class's method in a file
that logs (false-rejection hunt 37), when the method never rebinds self. A ``match`` capture (``case _ as self:``)
rebinds it without an ast.Name target, so self.addFilter(...) put the submission's filter on PyTorch's logger (its
code would run whenever torch logs, outside the traced calls) past L1; the child's logging-tree check caught it only
after the import (profile)."""
import logging

import torch
import triton
import triton.language as tl

_LOG = logging.getLogger("torch")


class _Tap:
    def attach(self, sink):
        match _LOG:
            case _ as self:
                self.addFilter(sink)
        return sink


def _seen(record):
    return True


_Tap().attach(_seen)


@triton.jit
def _neg_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(o_ptr + offs, -x, mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _neg_kernel[(triton.cdiv(n, 512),)](xc, res, n, BLOCK=512)
    if out is None:
        return res
    if out.shape != x.shape:
        out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
