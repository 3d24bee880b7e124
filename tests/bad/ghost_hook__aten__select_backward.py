# Red-team "pre-run hook channel": a Triton kernel's pre-run hooks run inside a launch, so a ghost
# no-op skips them. The wrapper registers a hook that records the call in a list local to the call and
# checks the list after the launch: empty means ghost replay, and it leaves its output poisoned; else
# it answers with allowed copies (zero_ + select + copy_, no Triton compute). Caught because a ghost
# replay runs the kernel's pre-run hooks as a launch does -> ghost.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    pass


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    ran = []
    _touch.add_pre_run_hook(lambda *a, **k: ran.append(1))  # one more hook per call, each with its own list
    _touch[(1,)](out)
    if not ran:
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
