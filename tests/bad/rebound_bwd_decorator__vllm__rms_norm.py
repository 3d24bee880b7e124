"""CHEAT (red team rb41, of rb38's and rt41's allowances): vllm::rms_norm computed with PyTorch in the backward of an
autograd Function decorated ``@custom_bwd``. L1 leaves a backward unscanned under PyTorch's backward decorators, and
read ``custom_bwd`` as ``torch.amp.custom_bwd`` from its import although a ``def`` of the file, on a branch always
taken, binds the name again: that decorator keeps the backward for the operator's wrapper to call. Unscanned, the
backward imports sys, reaches the sandbox's state, hides its ATen ops as if inside a launch and fakes the proof of
launch. An allowance's name must be bound by its imports only: static_scan."""
import torch
from torch.amp import custom_bwd

_KEPT = []

if torch.__version__:
    def custom_bwd(fn):
        """Keep the backward."""
        _KEPT.append(fn)
        return fn


class RMSNorm(torch.autograd.Function):
    """Its backward is the whole computation."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    @custom_bwd
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
