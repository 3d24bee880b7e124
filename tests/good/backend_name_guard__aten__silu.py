"""LEGAL (tp39b, real third-party kernels): aten::silu behind utilities in the style of flash-linear-attention's
``fla/utils`` (its ``input_guard``, ``device_torch_lib``, ``custom_device_ctx``). The module picks PyTorch's device
module once: ``_backend()`` (memoized) returns Triton's ``get_current_target().backend`` or ``"cpu"``, ``DEVICE``
is bound from it or to literals, and ``DEVICE_LIB = getattr(torch, DEVICE)``; a decorator maps positional arguments
to parameter names with ``list(inspect.signature(fn).parameters)`` to skip ``.contiguous()`` for the names it is
given, and enters ``DEVICE_LIB.device(index)``. L1 refused ``getattr(torch, DEVICE)`` (dynamic-attr),
``DEVICE_LIB.device(...)`` (tensor-method) and ``import inspect`` (introspection): a name every binding of which is
a backend's name makes the getattr one of PyTorch's device modules, judged as torch.cuda
(verify/scan/backend_names.py), and a signature read for its parameter names only is metadata
(verify/scan/signature_names.py)."""
import contextlib
import functools
import inspect
import warnings

import torch
import triton
import triton.language as tl


@functools.lru_cache(maxsize=None)
def _backend():
    try:
        return triton.runtime.driver.active.get_current_target().backend
    except Exception:
        warnings.warn("no Triton driver answered; assuming the CPU", stacklevel=2)
        return "cpu"


DEVICE = "cuda" if _backend() == "hip" else _backend()
DEVICE_LIB = getattr(torch, DEVICE)
if DEVICE == "cpu":
    DEVICE = "cuda"
    DEVICE_LIB = getattr(torch, DEVICE)


def _on_device(index):
    """The device context of device ``index`` (none for a tensor without an index)."""
    if index is None:
        return contextlib.nullcontext()
    try:
        return DEVICE_LIB.device(index)
    except (AttributeError, RuntimeError):
        return contextlib.nullcontext()


def dense_inputs(*, keep=()):
    """Make every tensor argument contiguous (but those named in ``keep``) and run on the first tensor's device."""
    def wrap(fn):
        names = list(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def run(*args, **kwargs):
            args = [a.contiguous() if isinstance(a, torch.Tensor) and (i >= len(names) or names[i] not in keep)
                    else a for i, a in enumerate(args)]
            kwargs = {k: v.contiguous() if isinstance(v, torch.Tensor) and k not in keep else v
                      for k, v in kwargs.items()}
            first = next((a for a in [*args, *kwargs.values()] if isinstance(a, torch.Tensor)), None)
            with _on_device(None if first is None else first.device.index):
                return fn(*args, **kwargs)
        return run
    return wrap


@triton.jit
def _silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty), mask=keep)


@dense_inputs(keep=("y",))
def _launch(x, y):
    n = x.numel()
    if n:
        _silu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


def silu(self):
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def silu_out(self, *, out):
    out.resize_(self.shape)
    if out.is_contiguous():
        return _launch(self, out)
    out.copy_(silu(self))
    return out
