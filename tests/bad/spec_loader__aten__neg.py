"""Red team of tp44's bitsandbytes allowance (``import importlib`` when every read is
``importlib.util.find_spec("<name>") is (not) None``): beside the honest ``is_triton_available()`` test, the file
takes NumPy's module spec and has its loader execute NumPy (an import L1 never saw), negates on the host with it and
copies the answer in through a Triton copy kernel. The allowance holds only when no read of ``importlib`` keeps the
spec: caught by L1 (dynamic-import) -> static_scan."""
import importlib

import torch
import triton
import triton.language as tl


def is_triton_available():
    return importlib.util.find_spec("triton") is not None


_np = importlib.util.find_spec("numpy").loader.load_module("numpy")


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _run(x, out):
    host = torch.as_tensor(_np.multiply(x.contiguous().cpu().numpy(), -1)).to(x.device)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel():
        _copy_kernel[(triton.cdiv(x.numel(), 512),)](host, y, x.numel(), BLOCK=512)
    if out is None:
        return y
    out.resize_(x.shape)
    out.copy_(y)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
