"""LEGAL (false-rejection hunt 31): vllm::rms_norm is an nn.Module instance (``rms_norm = RMSNorm()``) whose forward
has the interface's parameters ``(out, input, weight, epsilon)``: the vLLM layer idiom. The harness read a module
through torch.nn.Module.__call__ as ``(*args, **kwargs)`` and failed the function task's interface check
(``signature``; fp30 fixed the ATen side only); a module that keeps nn.Module's own __call__ now reads as its
class's forward (sandbox/dispatch.py wrapper_signature; a forward set on the instance is refused)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_kernel(o_ptr, x_ptr, w_ptr, H, sx, so, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = cols < H
    x = tl.load(x_ptr + row * sx + cols, mask=m, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / H
    r = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
    y = (x * r).to(o_ptr.dtype.element_ty).to(tl.float32) * w
    tl.store(o_ptr + row * so + cols, y.to(o_ptr.dtype.element_ty), mask=m)


class RMSNorm(torch.nn.Module):
    def forward(self, out, input, weight, epsilon):
        H = input.shape[-1]
        x = input.reshape(-1, H)
        o = out.view(-1, H)
        _rms_kernel[(x.shape[0],)](o, x, weight, H, x.stride(0), o.stride(0), float(epsilon),
                                   BLOCK=triton.next_power_of_2(H))


rms_norm = RMSNorm()
