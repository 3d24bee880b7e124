"""CHEAT (rb39): the same PyTorch rms_norm in a method of a class no code of the file names (tp39 left it unscanned);
a descriptor in its body is handed the class by ``__set_name__`` when the class is made (passed every tier at tp39
1cab52f). Since tp39 b6d0c31 a class body binding anything but a constant keeps the class reachable: static_scan."""
import torch

_IMPLS = []


class _Field:
    """Remembers its owner."""

    def __set_name__(self, owner, name):
        _IMPLS.append(owner)


class _RMSNormReference:
    """A reference kept beside the kernels."""

    field = _Field()

    @staticmethod
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


def rms_norm(out, input, weight, epsilon):
    _IMPLS[0].compute(out, input, weight, epsilon)
