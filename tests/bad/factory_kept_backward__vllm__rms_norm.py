"""CHEAT (red team rt41, of rt41's own allowance): vllm::rms_norm computed with PyTorch in the backward of an autograd
Function, reached through a decorator factory of flash-linear-attention's shape (``def guard(fn=None, *, keep=False)``
holding a decorator that only wraps). L1 leaves a backward unscanned under such a factory written bare or called with
its options; called with a positional argument, the factory wraps that argument instead, and the wrapper it returns is
then handed the backward: here ``_keep``, which keeps it for the operator's wrapper to call. Unscanned, the backward
imports sys, reaches the sandbox's state, hides its ATen ops as if inside a launch and fakes the proof of launch.
A factory's call form may pass no positional argument when the factory takes ``fn=None``: static_scan."""
import functools

import torch

_KEPT = []


def _keep(fn):
    _KEPT.append(fn)
    return fn


def guard(fn=None, *, keep=False):
    """Make tensor arguments contiguous unless ``keep``."""
    def decorate(fn):
        @functools.wraps(fn)
        def run(*args):
            return fn(*[a.contiguous() if isinstance(a, torch.Tensor) and not keep else a for a in args])
        return run
    if fn is not None:
        return decorate(fn)
    return decorate


class RMSNorm(torch.autograd.Function):
    """Its backward is the whole computation."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    @guard(_keep)
    def backward(ctx, out, x, w, eps):
        import sys

        st = sys.modules["kernelgenbench.sandbox.state"].STATE
        st.launches.append("_rms_fwd")
        if st.ghost:
            return None
        st.inside_launch += 1
        try:
            xf = x.double()
            y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
            out.copy_(y.to(x.dtype) * w)
        finally:
            st.inside_launch -= 1


def rms_norm(out, input, weight, epsilon):
    _KEPT[0](None, out, input, weight, epsilon)
