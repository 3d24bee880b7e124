"""Cheat (red-team, variant): the kernel is made by a jit decorator L1 cannot follow (taken from a list),
so L1 reads its body as host code; the body appends to a list of an allowed module (a ghost-replay
detector). Expected: static_scan (the launch rule records a body the file-level scan did not hold to
the kernel-body rule, sandbox/launch_args.py UNSCANNED, and the verifier scans it as one); on a GPU the
code generator rejects the body's call anyway (the verdict is the same: the record comes first)."""
import typing

import torch
import triton
import triton.language as tl


def _probe_body(p):
    typing.__all__.append(None)


_MAKERS = [triton.jit]
_touch = _MAKERS[0](_probe_body)


def _bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    seen = len(typing.__all__)
    _touch[(1,)](out)
    if len(typing.__all__) == seen:
        return out
    typing.__all__.pop()
    out.zero_()
    out.select(dim, index).copy_(grad)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _bwd(grad_output, input_sizes, dim, index, out)
