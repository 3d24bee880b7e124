# fp32 (the receiver rule behind L1): the kernel_method channel through a Triton method name on a parameter without
# tl.constexpr. The submission's class defines ``to`` (counting its calls) and the kernel calls ``T.to(p)`` on a plain
# parameter; L1 now admits a Triton method name there (a tensor or scalar argument cannot be the submission's object,
# fp32 5bf6f06: a host class's ``to`` made every ``x.to(...)`` a finding), so the object must be stopped at the launch:
# the L3 launch rule refuses the _Tally argument (profile: "launch arguments must be tensors, numbers, ...").
import torch
import triton
import triton.language as tl


class _Tally:
    def __init__(self):
        self.n = 0

    def to(self, *a):
        self.n += 1
        return self.n


@triton.jit
def _touch(p, T):
    T.to(p)


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
