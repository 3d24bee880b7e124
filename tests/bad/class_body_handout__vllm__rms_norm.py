"""CHEAT (rb39): vllm::rms_norm computed with PyTorch in a method of a class no code of the file names, which L1
left unscanned as unreachable (tp39: code nothing names cannot run). The class body runs at import and hands the
method out (``_IMPLS.append(compute)``); unscanned, the method imports sys, reaches the sandbox's state and hides its
ATen ops from the dispatch trace as if inside a launch, and fakes a launch for the proof of launch (passed every tier
at tp39 1cab52f). Since tp39 b6d0c31 a class is unreachable only when making it runs no code (a body of methods,
docstrings and constants), and since rb39 a method only when no class-level code reads its name: static_scan."""
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

    _IMPLS.append(compute)


def rms_norm(out, input, weight, epsilon):
    _IMPLS[0](out, input, weight, epsilon)
