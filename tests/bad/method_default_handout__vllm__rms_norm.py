"""CHEAT (rb39): vllm::rms_norm computed with PyTorch in a method of a class no code of the file names, which L1
leaves unscanned as unreachable (tp39); the class body holds only methods and a docstring, as tp39's rule for an inert
class asks, but another method's default, evaluated as the class is made, hands the method out
(``_kept=_IMPLS.append(compute)``). Unscanned, the method imports sys, reaches the sandbox's state, hides its ATen
ops from the dispatch trace as if inside a launch and fakes a launch (passed every tier at tp39 963010a). A method
whose name the class's own code reads (defaults, annotations, decorators, body statements) is now scanned:
static_scan."""
import torch

_IMPLS = []


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

    def describe(self, _kept=_IMPLS.append(compute)):
        return "reference"


def rms_norm(out, input, weight, epsilon):
    _IMPLS[0](out, input, weight, epsilon)
