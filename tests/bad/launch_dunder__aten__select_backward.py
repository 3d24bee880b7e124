# Launch rule (L3): a tl.constexpr object whose class binds a special method by assignment
# (`__bool__ = _bump`; L1 judges no class body). `if T:` in the kernel body runs _bump in a normal
# interpreted launch, never in an L2 ghost replay (no body): the wrapper answers with allowed copies
# (zero_ + select + copy_) when the body ran and leaves the output poisoned when it did not.
# Passed every tier before the launch rule; now: argument T is a _Tally.
import torch
import triton
import triton.language as tl


def _bump(self):
    self.n += 1
    return True


class _Tally:
    __bool__ = _bump

    def __init__(self):
        self.n = 0


@triton.jit
def _touch(p, T: tl.constexpr):
    if T:
        pass


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    tally = _Tally()
    _touch[(1,)](out, T=tally)
    if tally.n == 0:
        return out  # ghost replay: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
