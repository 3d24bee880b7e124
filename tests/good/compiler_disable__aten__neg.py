"""LEGAL (false-rejection hunt 37): aten::neg whose wrappers are kept out of torch.compile's tracing with
``@torch.compiler.disable`` (bare, and called with ``recursive=False``), as libraries mark eager-only launchers
(a graph break around a Triton launch). L1 refused it as rule compile ("uses the PyTorch compiler stack
(torch.compiler.disable), which generates kernels the submission did not write"), but the decorator compiles
nothing: called eagerly it calls the function it wraps (with ``functools.wraps``, so the harness reads the wrapper's
parameters through it). It is allowed like ``torch.compiler.is_compiling``; ``torch.compile`` and
``torch._dynamo`` stay refused."""
import torch
import triton
import triton.language as tl


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


@torch.compiler.disable
def neg(self):
    return _run(self, None)


@torch.compiler.disable(recursive=False)
def neg_out(self, *, out):
    return _run(self, out)
