# Red-team "argument probe channel": Triton's launcher inspects every launch argument (hasattr(arg,
# "data_ptr") while copying arguments to the host and converting them on the interpreter; the binder's
# specialization and the C launcher's data_ptr on GPUs). The wrapper passes an object whose
# __getattr__ counts the probes to a dummy kernel; if nothing probed it, the launch was a ghost no-op
# and it leaves its output poisoned; else it answers with allowed copies (zero_ + select + copy_, no
# Triton compute). Caught because a ghost launch processes the arguments as a real launch does and
# skips only the kernel itself -> ghost.
import torch
import triton
import triton.language as tl


@triton.jit
def _noop(p, probe, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(p + offs, mask=offs < n, other=0)


class Probe:
    def __init__(self):
        self.hits = 0

    def __getattr__(self, name):
        self.hits += 1
        raise AttributeError(name)


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    probe = Probe()
    _noop[(1,)](grad, probe, 1, BLOCK=16)
    if not probe.hits:
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
