"""Cheat (red-team): aten::neg whose kernel's visible body only copies; its docstring holds a second
``def`` line. Triton 3.6's interpreter compiles from the last line of the function's source that starts
with ``def ``, so on the interpreter the hidden function runs: host PyTorch, out of the L3 trace's sight
(it raises the hooks' in-launch counter), on tensors handed over in a module list. On a GPU the visible
body is compiled (a copy: wrong values). Expected: wrong_result on every platform (the harness makes the
interpreter start at the function's own ``def`` statement and checks that the source it runs compiles
to the imported code object: launch._install_verified_rewriter)."""
import torch
import triton
import triton.language as tl

_HANDOFF = []


@triton.jit
def _k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    """
def _k(x_ptr, o_ptr, n, BLOCK):
    st = __import__("sys").modules["kernelgenbench.sandbox.state"].STATE
    st.inside_launch += 1
    __import__("torch").mul(_HANDOFF[0], -1, out=_HANDOFF[1])
    st.inside_launch -= 1
    '''"""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
    pass  # '''


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if tuple(out.shape) != tuple(x.shape):
        out.resize_(x.shape)
    if out.numel() == 0:
        return out
    xc = x.contiguous()
    _HANDOFF[:] = [xc, out]
    _k[(triton.cdiv(xc.numel(), 256),)](xc, out, xc.numel(), BLOCK=256)
    return out


def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    return _run(self, out)
