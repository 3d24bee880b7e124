"""Legal: aten::neg whose kernel docstring shows a usage example with a line that starts with ``def ``.
Triton 3.6's interpreter alone would compile from that line; the harness takes the function's own
``def`` statement, so the kernel runs as written on every platform."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    """Negate ``n`` elements. Usage from a wrapper:

    def wrapper(x):
        _neg[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    """
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
        _neg[(triton.cdiv(n, 512),)](xc, res, n, BLOCK=512)
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
