# Launch rule (L3), globals: a kernel body reads a module-level object of the submission's own class
# (`if _TALLY:` runs its `__bool__`, bound by assignment) in a normal interpreted launch, never in an L2
# ghost replay; the wrapper compares the count before and after the launch.
# Passed every tier before the launch rule; now: global _TALLY is a _Tally (the wrapper's try/except
# around the launch does not help).
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


_TALLY = _Tally()


@triton.jit
def _touch(p):
    if _TALLY:
        pass


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    before = _TALLY.n
    try:  # whatever the launch raises is swallowed: the sandbox has recorded the violation already
        _touch[(1,)](out)
    except Exception:
        pass
    if _TALLY.n == before:
        return out
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
