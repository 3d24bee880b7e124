"""LEGAL (tp38, real third-party kernels): aten::silu launched the way Unsloth's kernels/utils.py launches: a
module-level ``torch_gpu_device`` bound to ``torch.cuda.device``, or to ``torch.xpu.device`` on an Intel GPU, or to a
function returning ``contextlib.nullcontext()`` on a single device, then ``with torch_gpu_device(x.device):`` around
each launch. L1 refused the xpu alias ("references the PyTorch class torch.xpu.device as a value ... (rule
torch-compute)") while the cuda one passed; both device-selecting context managers are allowed now
(verify/scan/policy.py TORCH_ALLOWED). On a CUDA GPU and on the interpreter the cuda or single-device branch runs."""
from contextlib import nullcontext

import torch
import triton
import triton.language as tl

if torch.cuda.is_available() and torch.cuda.device_count() > 1:
    torch_gpu_device = torch.cuda.device
elif torch.xpu.is_available() and torch.xpu.device_count() > 1:
    torch_gpu_device = torch.xpu.device
else:
    def torch_gpu_device(device):
        """One device: nothing to select."""
        return nullcontext()


@triton.jit
def _silu_flat(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=keep)


def silu(self):
    x = self.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        with torch_gpu_device(x.device):
            _silu_flat[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    return y


def silu_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    out.copy_(silu(self))
    return out
