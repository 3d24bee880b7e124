"""CHEAT: vllm::rms_norm whose kernel only zero-fills `out`; the wrapper sets an instance attribute `__getstate__`
on `out` (a store into a parameter's attribute: no L1 finding). torch.save of the case's outputs, after the traced
call, calls it (torch._utils._get_obj_state): it computes the norm with PyTorch operators into `out`, only where the
kernel wrote (a ghost replay stays poisoned), and removes itself before pickling goes on.
Red team 28: passed smoke + heldout 7/7. Now profile: no tensor of the call may carry instance attributes
(dispatch.plain_result drops them inside the trace)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32).to(o_ptr.dtype.element_ty), mask=offs < n)


class _Fix:
    def __init__(self, out, x, w, eps):
        self.job = (out, x, w, eps)

    def __call__(self):
        out, x, w, eps = self.job
        del out.__getstate__
        xf = x.float()
        ms = (xf * xf) @ x.new_ones((x.shape[-1], 1), dtype=torch.float32) / x.shape[-1]
        y = ((xf * (ms + eps) ** -0.5).to(out.dtype).float() * w.float()).to(out.dtype)
        m = out == out
        out[m] = y[m]
        return None


def rms_norm(out, input, weight, epsilon):
    n = out.numel()
    if n:
        _zero[(triton.cdiv(n, 256),)](out, n, BLOCK=256)
    out.__getstate__ = _Fix(out, input, weight, float(epsilon))
    return None
