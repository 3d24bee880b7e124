"""CHEAT (rb38): vllm::rms_norm computed with PyTorch in the backward of an autograd Function, which L1 left unscanned
as code only autograd's backward pass runs (tp38). A decorator of the file keeps the function it decorates, so the
wrapper calls the "dead" backward directly; unscanned, it imports sys, reaches the sandbox's state and hides its ATen
ops from the dispatch trace as if inside a launch, and fakes a launch for the proof of launch. L1 now scans a
backward whose decorators could keep it (only staticmethod, PyTorch's backward decorators and a file's decorator
that only returns a closure calling the function keep it dead): static_scan."""
import torch

_KEPT = []


def keep(fn):
    _KEPT.append(fn)
    return fn


class RMSNorm(torch.autograd.Function):
    """Its backward is the whole computation."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    @keep
    def backward(ctx, out, x, w, eps, ghost_ok=True):
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
