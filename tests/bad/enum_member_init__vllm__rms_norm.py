"""CHEAT (rb39): an ``enum.Enum`` class no code of the file names (tp39 left its methods unscanned); its metaclass calls
the members' ``__init__`` when the class is made, at import, and that method hands out a PyTorch rms_norm that
reaches the sandbox's state (passed every tier at tp39 1cab52f). Since tp39 b6d0c31 only a PyTorch, Triton or
builtin base made by ``type``, ``abc.ABCMeta`` or ``FunctionMeta`` leaves a class unreachable: static_scan."""
import enum

import torch

_IMPLS = []


class _Modes(enum.Enum):
    """Modes of the reference."""

    FAST = 1

    def __init__(self, value):
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

        _IMPLS.append(compute)


def rms_norm(out, input, weight, epsilon):
    _IMPLS[0](out, input, weight, epsilon)
