"""Cheat: a kernel made in a factory calls a closure variable that holds a plain Python function, not a
jit function. On the interpreter the body would run it as host code in a normal launch and not in a
ghost replay (a channel that tells them apart). L1 defers closure calls to the runtime launch check,
which admits only Triton values in closure cells: fails as ``profile`` (on a GPU the compiler refuses it
too)."""
import torch
import triton
import triton.language as tl

SEEN = [0]


def _host_negate(x):
    SEEN[0] += 1
    return -x


def make_unary(op):
    @triton.jit
    def unary(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(o_ptr + offs, op(tl.load(x_ptr + offs, mask=mask, other=0)), mask=mask)

    return unary


_NEG = make_unary(_host_negate)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _NEG[(triton.cdiv(n, 256),)](xc, res, n, BLOCK=256)
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
