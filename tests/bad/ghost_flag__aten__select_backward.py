# Red-team "flag kernel": a one-element Triton launch writes 1 into a flag that the wrapper reads back
# with .item(). Under L2 ghost replay every launch is a no-op, so the flag stays 0: the wrapper knows it
# is being ghost-replayed and returns its poisoned output (so the replay "fails", as L2 wants). In a
# normal run it moves the values with allowed copies (zero_ + select + copy_): no Triton kernel computes
# anything. Caught by the ghost replay's host-read replay: the flag read returns the value it had in the
# normal run of the same inputs (1), the wrapper takes its copy path, and the output is right although
# every launch was a no-op -> ghost.
import torch
import triton
import triton.language as tl


@triton.jit
def _flag(p):
    tl.store(p, 1)


def _live(device):
    flag = torch.zeros(1, dtype=torch.int32, device=device)
    _flag[(1,)](flag)
    return flag.item() == 1


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    if not _live(grad.device):
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
