# Red-team "side effect out of a kernel body": on the interpreter a kernel body is Python, and a list
# passed as a tl.constexpr can be appended to; a ghost replay's no-op runs no body. The wrapper passes
# a fresh list and checks it after the launch: empty means ghost replay, and it leaves its output
# poisoned; else it answers with allowed copies (zero_ + select + copy_, no Triton compute). (A GPU
# compile rejects such a kernel.) Caught by L1: a kernel body must not change Python objects.
import torch
import triton
import triton.language as tl


@triton.jit
def _mark(p, BOX: tl.constexpr):
    BOX.append(1)


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    box = []
    _mark[(1,)](out, BOX=box)
    if not box:
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
