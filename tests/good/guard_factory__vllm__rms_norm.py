"""LEGAL (rt41, real third-party style): vllm::rms_norm laid out like flash-linear-attention's norm modules: every
method of the ``torch.autograd.Function`` is decorated by the file's own factory ``contiguous_inputs``, written bare
(``@contiguous_inputs``) or called with keyword options (``@contiguous_inputs(skip=("w",))``), which reads the
decorated function's parameter names with ``inspect.signature(fn)`` before it returns its closure, as FLA's
``input_guard`` does. The backward sums the per-program weight gradients with PyTorch (``dw.sum(0)``, as FLA's
``layer_norm_gated_bwd``); only autograd's backward pass runs it and nothing starts one. L1 refused the file (tensor-
method) because the factory was not one of the file's decorators that only wrap (verify/scan/wrap_decorators.py)."""
import functools
import inspect

import torch
import triton
import triton.language as tl


def contiguous_inputs(fn=None, *, skip=()):
    """Hand ``fn`` contiguous tensors, but the parameters named in ``skip``."""
    def decorator(fn):
        names = list(inspect.signature(fn).parameters.keys())

        @functools.wraps(fn)
        def call(*args, **kwargs):
            args = [a.contiguous() if isinstance(a, torch.Tensor) and (i >= len(names) or names[i] not in skip)
                    else a for i, a in enumerate(args)]
            kwargs = {k: v.contiguous() if isinstance(v, torch.Tensor) and k not in skip else v
                      for k, v in kwargs.items()}
            return fn(*args, **kwargs)
        return call

    if fn is not None:
        return decorator(fn)
    return decorator


@triton.jit
def _rms_fwd(y_ptr, x_ptr, w_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=0.0)
    xf = x.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, (xf * rstd).to(x.dtype) * w, mask=keep)


@triton.jit
def _rms_bwd(dx_ptr, dy_ptr, x_ptr, w_ptr, rstd_ptr, dw_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * n_cols + cols, mask=keep, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)
    m = dy * w
    tl.store(dx_ptr + row * n_cols + cols, rstd * m - rstd * rstd * rstd / n_cols * tl.sum(m * x, axis=0) * x,
             mask=keep)
    tl.store(dw_ptr + row * n_cols + cols, dy * x * rstd, mask=keep)


def _norm_backward(dy, x, w, rstd):
    """The gradient launch, then PyTorch's sum of the per-row weight gradients (backward-only code)."""
    n_rows, n_cols = x.shape
    dx = torch.empty_like(x)
    dw = torch.empty((n_rows, n_cols), dtype=torch.float32, device=x.device)
    _rms_bwd[(n_rows,)](dx, dy, x, w, rstd, dw, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return dx, dw.sum(0).to(w.dtype)


class RMSNormFunction(torch.autograd.Function):
    """y = x / rms(x) * w over the last dimension."""

    @staticmethod
    @contiguous_inputs(skip=("eps",))
    def forward(ctx, x, w, eps):
        shape = x.shape
        x2 = x.view(-1, shape[-1])
        n_rows, n_cols = x2.shape
        y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
        rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        if n_rows:
            _rms_fwd[(n_rows,)](y, x2, w, rstd, n_cols, eps, BLOCK=triton.next_power_of_2(n_cols))
        ctx.save_for_backward(x2, w, rstd)
        return y.view(shape)

    @staticmethod
    @contiguous_inputs
    def backward(ctx, dy):
        x2, w, rstd = ctx.saved_tensors
        dx, dw = _norm_backward(dy.view(x2.shape), x2, w, rstd)
        return dx.view(dy.shape), dw, None


def rms_norm(out, input, weight, epsilon):
    out.copy_(RMSNormFunction.apply(input, weight, epsilon))
