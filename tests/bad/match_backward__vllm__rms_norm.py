"""CHEAT (rb38): vllm::rms_norm computed with PyTorch in the backward of an autograd Function, which L1 left unscanned
as code only autograd's backward pass runs (tp38). The wrapper reaches the backward through a class pattern,
``case object(backward=run)``, which reads the attribute without an attribute node or a string (the routes L1
watched); unscanned, the backward imports sys, reaches the sandbox's state, hides its ATen ops from the dispatch trace
as if inside a launch and fakes a launch. L1 now reads a class pattern's attribute names like attribute reads
(introspection names refused, a backward's name ends the exemption): static_scan."""
import torch


class RMSNorm(torch.autograd.Function):
    """Its backward is the whole computation."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
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
    match RMSNorm:
        case object(backward=run):
            run(None, out, input, weight, epsilon)
