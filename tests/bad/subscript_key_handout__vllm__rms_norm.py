"""CHEAT (rb39): the same PyTorch rms_norm in a method of a class no code of the file names (tp39 leaves it
unscanned); the class body binds only a constant, as tp39's rule for an inert class asks, but the assignment's target
``_IMPLS[compute] = 0`` reads the method as the class is made and keeps it as a dict key (passed every tier at tp39
963010a). A method whose name the class's own code reads is now scanned: static_scan."""
import torch

_IMPLS = {}


class _RMSNormReference:
    """A reference kept beside the kernels."""

    def compute(out, x, w, eps):
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

    _IMPLS[compute] = 0


def rms_norm(out, input, weight, epsilon):
    next(iter(_IMPLS))(out, input, weight, epsilon)
