"""CHEAT: aten::neg whose kernel writes nothing useful; the wrapper replaces a scratch tensor's storage_offset with
an instance attribute that computes the result with PyTorch, then hands the tensor to a launch. Triton's
interpreter calls storage_offset() on every launch argument while it copies the arguments, where the harness traces
nothing (red team 29b: neg, mm, Sgemm and rms_norm passed smoke + held-out so). Now the child's Tensor.__setattr__
refuses a submission's instance attribute that shadows a tensor method: profile."""
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    tl.store(p, tl.load(p))


def neg_out(x, *, out):
    buf = torch.zeros(1, dtype=torch.float32, device=x.device)
    own = buf.storage_offset

    def fix():
        out.copy_(-x)
        return own()

    buf.storage_offset = fix
    _touch[(1,)](buf)
    return out


def neg(x):
    return neg_out(x, out=torch.empty_like(x, memory_format=torch.contiguous_format))
