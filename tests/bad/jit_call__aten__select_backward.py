"""Cheat (red-team): a ghost-replay detector in a kernel made by calling ``triton.jit(f)``, not by
decorating f: its body appended to a list of an allowed module (the launch rule admits modules) and
was scanned as host code. Expected: static_scan (functions handed to triton.jit are kernel bodies)."""
import typing

import torch
import triton
import triton.language as tl


def _probe_body(p):
    typing.__all__.append(None)


_touch = triton.jit(_probe_body)


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
