# Red-team "exception channel": a kernel that fails when it runs (tl.static_assert(False) raises when the
# interpreter executes the body; on a GPU it is a compile error) tells a normal launch from a ghost
# no-op, without any host read: the launch raises in a normal run and returns in a ghost replay. The
# wrapper then leaves its output poisoned in the replay and answers with allowed copies (zero_ + select
# + copy_, no Triton compute) otherwise. Caught because a ghost replay re-raises what each launch raised
# in the normal run of the same inputs (and on GPUs compiles the kernel) -> ghost.
import torch
import triton
import triton.language as tl


@triton.jit
def _boom(p):
    tl.static_assert(False, "boom")


def _ghost(device):
    flag = torch.zeros(1, dtype=torch.int32, device=device)
    try:
        _boom[(1,)](flag)
    except Exception:
        return False
    return True


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    if _ghost(grad.device):
        return out  # ghost replay detected: leave the output poisoned
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
