"""LEGAL (tp38, real third-party kernels): aten::_softmax launched inside a device-generic context manager in the
style of Liger-Kernel's ``device_context``: ``device = torch.device(device)``, then ``backend = getattr(torch,
device.type, None)`` picks ``torch.cuda``/``torch.xpu``, and ``with backend.device(device):`` selects the device when
the backend has one (``backend is not None and hasattr(backend, "device")``). L1 refused ``getattr(torch, device.type,
None)`` as dynamic-attr, ``backend.device(device)`` as a tensor method and ``backend is not None`` as a module used
as a value; a torch.device's type names one of PyTorch's backend modules, which the scan now reads as ``torch.cuda``
(verify/scan/scope.py ``torch_backend_getattr``), and an identity test with None reaches nothing."""
from contextlib import contextmanager

import torch
import triton
import triton.language as tl


@contextmanager
def on_device(device):
    """Run the body with ``device`` current on its backend, where the backend selects devices."""
    device = torch.device(device)
    backend = getattr(torch, device.type, None)
    if backend is not None and hasattr(backend, "device"):
        with backend.device(device):
            yield
    else:
        yield


@triton.jit
def _softmax_rows(y_ptr, x_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=keep)


def _softmax(self, dim, half_to_float):
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    y = torch.empty_like(x)
    n_cols = x.shape[-1] if x.dim() else 1
    n_rows = x.numel() // n_cols if n_cols else 0
    if n_rows:
        with on_device(x.device):
            _softmax_rows[(n_rows,)](y, x, n_rows, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y.movedim(-1, dim) if self.dim() else y.reshape(())


def _softmax_out(self, dim, half_to_float, *, out):
    out.copy_(_softmax(self, dim, half_to_float))
    return out
