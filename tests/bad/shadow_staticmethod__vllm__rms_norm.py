"""CHEAT (rb38): kept_backward's backward, whose ``@staticmethod`` is the class body's own ``staticmethod = keep``:
L1 judged the decorator by the module's name (the builtin) and left the body unscanned as code only a backward pass
runs; the wrapper calls the kept function, which reaches the sandbox's state and hides its PyTorch compute. A name
the class statement binds now keeps its backward scanned: static_scan."""
import torch

_KEPT = []


def keep(fn):
    _KEPT.append(fn)
    return fn


class RMSNorm(torch.autograd.Function):
    """Its backward is the whole computation."""

    staticmethod = keep

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
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
    _KEPT[-1](None, out, input, weight, epsilon)
