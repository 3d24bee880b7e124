"""CHEAT (rb39): the same PyTorch rms_norm in a method of a class no code of the file names (tp39 left it unscanned);
its base, a class of the file, keeps every subclass in ``__init_subclass__``, which runs when the class is made, so
the wrapper reaches the class without its name (passed every tier at tp39 1cab52f). Since tp39
b6d0c31 a class whose base is the file's (or any with an ``__init_subclass__``) is reachable: static_scan."""
import torch

_IMPLS = []


class _Registered:
    """Keeps every subclass."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _IMPLS.append(cls)


class _RMSNormReference(_Registered):
    """A reference kept beside the kernels."""

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
