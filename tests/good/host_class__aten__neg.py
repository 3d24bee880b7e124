"""Legal: aten::neg with a host-side configuration class that defines __repr__, __eq__ and a property
(L1 used to reject any class with special methods or properties). Its objects never reach a kernel:
the wrapper reads plain ints from them."""
import torch
import triton
import triton.language as tl


class _Cfg:
    def __init__(self, block):
        self.block = block

    def __repr__(self):
        return f"_Cfg(block={self.block})"

    def __eq__(self, other):
        return type(other) is _Cfg and other.block == self.block

    __hash__ = object.__hash__

    @property
    def warps(self):
        return 4 if self.block <= 1024 else 8


_DEFAULT = _Cfg(1024)


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(o_ptr + offs, x * -1, mask=offs < n)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    cfg = _DEFAULT if n > 64 else _Cfg(64)
    if n:
        _neg[(triton.cdiv(n, cfg.block),)](xc, res, n, BLOCK=cfg.block, num_warps=cfg.warps)
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
