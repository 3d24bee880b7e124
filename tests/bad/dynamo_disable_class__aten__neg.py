"""CHEAT (tp42, the class of disable_class through the other spelling): torch._dynamo.disable, allowed by
false-rejection hunt 42 as the decorator of the file's own launchers (torch.compiler.disable only calls it), given a
class rebinds that class's __init__ and __call__ as torch.compiler.disable does: torch._dynamo.disable(type(x))
changes PyTorch's torch.Tensor. L1 judges both spellings by the same rule (indirect_rules ``_DISABLE_PATHS``); behind
it the child's snapshot of PyTorch's own classes. The kernel is honest."""
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


@torch._dynamo.disable
def neg(self):
    torch._dynamo.disable(type(self))  # monkey-patches torch.Tensor.__init__/__call__
    return _run(self, None)


@torch._dynamo.disable(recursive=False)
def neg_out(self, *, out):
    return _run(self, out)
