# Red-team "exception channel" through a builtin raise (tp43 allowed ``raise NotImplementedError()`` in kernel
# bodies for SGLang's constexpr-gated features): ``_boom``'s body raises RuntimeError when it runs (the interpreter
# executes it; on a GPU a live ``raise`` is a compile error), so a normal launch raises and a ghost no-op returns.
# The wrapper then leaves its output poisoned in the replay and answers with allowed copies (zero_ + select + copy_,
# no Triton compute) otherwise. Caught as ghost_raise is: a ghost replay re-raises what each launch raised in the
# normal run of the same inputs (and on GPUs compiles the kernel) -> ghost.
import torch
import triton
import triton.language as tl


@triton.jit
def _boom(p):
    raise RuntimeError("boom")


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
