"""Red team 37: torch.compiler.disable, allowed for the file's own launchers (false-rejection hunt 37), given a class
rebinds that class's __init__ and __call__ to dynamo's wrappers: torch.compiler.disable(type(x)) changes PyTorch's
torch.Tensor (every tensor becomes callable: x(...) constructs torch.Tensor(x, ...)). The wrappers' code lies in
PyTorch's folder, so the child's monkey-patch snapshot (snapshots.harness_changed) took them for PyTorch's own lazy
entries, and L1 judged only what the decorator wraps as a torch function. The kernel is honest; the job passed."""
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
    torch.compiler.disable(type(self))  # monkey-patches torch.Tensor.__init__/__call__
    return _run(self, None)


@torch.compiler.disable(recursive=False)
def neg_out(self, *, out):
    return _run(self, out)
