"""Cheat (red-team): Triton's interpreter copied its own module globals (``inspect``, ``np``, ...) into the
submission's module at the first launch; host code then used ``inspect``, never imported (so L1 saw no
introspection import), to find the harness's state on the stack and tell a ghost replay apart.
Expected: runtime_error everywhere (the harness's rewrite adds only the interpreter's semantic object,
under a name no code can spell: ``inspect`` is undefined, as on a GPU)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    pass


def _ghost():
    for fi in inspect.stack():  # noqa: F821 - injected by the interpreter
        if fi.filename.endswith("hooks.py"):
            return inspect.getmodule(fi.frame).STATE.ghost  # noqa: F821
    return False


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    _touch[(1,)](out)
    if _ghost():
        return out
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
