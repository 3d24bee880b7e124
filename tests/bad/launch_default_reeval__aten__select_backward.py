"""Cheat (red-team): Triton's interpreter re-executes a kernel's ``def`` statement when it rewrites the
kernel, which evaluated its default values a second time: the launch rule had checked the imported
function's default (an int), the body then ran with a probe object whose ``__bool__`` counts real body
executions (none in a ghost replay). Expected: interpreter wrong_result (the harness's rewrite takes the
defaults of the imported function: the probe never counts, the poison stays); GPU runtime_error (Triton's
code generator evaluates the default again while it compiles; the probe cannot be a constexpr and the first
launch raises)."""
import torch
import triton
import triton.language as tl


class _Count:
    def __init__(self):
        self.hits = 0

    def __bool__(self):
        self.hits += 1
        return False


_COUNTER = _Count()
_EVALS = [0]


def _dflt():
    _EVALS[0] += 1
    return 0 if _EVALS[0] == 1 else _COUNTER


@triton.jit
def _touch(p, G: tl.constexpr = _dflt()):
    if G:
        pass


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    seen = _COUNTER.hits
    _touch[(1,)](out)
    if _COUNTER.hits == seen:
        return out
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
