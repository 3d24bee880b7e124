"""CHEAT: aten::neg whose kernel writes nothing useful; functools.update_wrapper copies a helper's class attributes
(a storage_offset that computes the result with PyTorch) into a scratch tensor's __dict__, past the child's
Tensor.__setattr__ guard, and the tensor goes to a launch: the interpreter calls storage_offset() while it copies
launch arguments, where nothing is traced (red team 29c: neg, mm, Sgemm, rms_norm passed smoke + held-out). Now the
launch rule refuses a tensor argument that carries instance attributes: profile."""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    tl.store(p, tl.load(p))


def neg_out(x, *, out):
    buf = torch.zeros(1, dtype=torch.float32, device=x.device)

    def storage_offset():
        out.copy_(-x)
        return 0

    class _H:
        pass

    _H.storage_offset = staticmethod(storage_offset)
    functools.update_wrapper(buf, _H, assigned=(), updated=("__dict__",))
    _touch[(1,)](buf)
    return out


def neg(x):
    return neg_out(x, out=torch.empty_like(x, memory_format=torch.contiguous_format))
