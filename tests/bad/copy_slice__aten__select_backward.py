# Red team (issue 12 class 1, ATen's copy machinery doing the operator's work): select_backward as a
# zero tensor with grad copied into the selected slice by ATen (``full.select(dim, index).copy_(grad)``),
# then one Triton kernel that copies the finished tensor into the output. Every value comes out of a
# real launch (an L2 replay leaves the output poisoned), so this passed every tier. Caught by L3's
# data-movement copy rule: the copy goes into a view the wrapper derived (aten::copy_ with a non-trivial
# mapping) -> profile.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def _bwd(grad, input_sizes, dim, index):
    sizes = [int(s) for s in input_sizes]
    full = torch.zeros(sizes, dtype=grad.dtype, device=grad.device)
    full.select(dim, index).copy_(grad)
    res = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    if res.numel():
        _copy[(triton.cdiv(res.numel(), 1024),)](full, res, res.numel(), BLOCK=1024)
    return res


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    res = _bwd(grad_output, input_sizes, dim, index)
    if list(out.shape) != list(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
