# Red-team "user method called from a kernel body": on the interpreter a @triton.jit body is plain
# Python, so a method of an object passed as a tl.constexpr runs in a normal launch and not in an L2
# ghost replay's no-op. Here the method counts its calls; the wrapper reads the count after the
# launch: zero means a ghost replay, and it leaves its output poisoned; else it answers with allowed
# copies (zero_ + select + copy_, no Triton compute). The explicit-container rule (append, stores)
# does not see it: bump() is an ordinary method. (A GPU compile would run bump() once, at compile
# time.) Caught by L1 (rule kernel-body): a kernel body may call only Triton builtins, @triton.jit
# functions and methods of Triton values.
import torch
import triton
import triton.language as tl


class _Tally:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


@triton.jit
def _touch(p, T: tl.constexpr):
    T.bump()


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    tally = _Tally()
    _touch[(1,)](out, T=tally)
    if tally.n == 0:
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
