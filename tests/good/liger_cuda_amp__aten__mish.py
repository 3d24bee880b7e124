"""LEGAL (false-rejection hunt 37): aten::mish laid out like an older Liger-Kernel/Unsloth ops module: forward and
backward kernels in one file, ``calculate_settings`` (``triton.next_power_of_2`` capped by ``MAX_FUSED_SIZE``) for
the block and warps, an ``ensure_contiguous`` decorator built with ``functools.wraps``, and a
``torch.autograd.Function`` whose forward and backward carry the pre-2.4 autocast decorators
``@torch.cuda.amp.custom_fwd`` / ``@torch.cuda.amp.custom_bwd`` (PyTorch's deprecated aliases of the allowed
``torch.amp.custom_fwd(device_type="cuda")``); the ATen wrappers call ``LigerMishFunction.apply``. L1 refused the
aliases as torch-compute ("torch.cuda.amp.custom_fwd is not on the allowlist"); they are now allowed with the
functions they forward to (verify/scan/policy.py TORCH_ALLOWED)."""
import functools

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = min(triton.next_power_of_2(n), MAX_FUSED_SIZE // 16)
    num_warps = 4
    if BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        def maybe_to_contiguous(x):
            return x.contiguous() if isinstance(x, torch.Tensor) else x

        args = [maybe_to_contiguous(arg) for arg in args]
        kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
        return fn(ctx, *args, **kwargs)

    return wrapper


@triton.jit
def _mish_value(x):
    # tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2): no cancellation for negative x
    e = tl.exp(tl.minimum(x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))


@triton.jit
def _mish_forward_kernel(X_ptr, Y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(X_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = _mish_value(x)
    y = tl.where(x != x, x, y)
    tl.store(Y_ptr + offsets, y.to(Y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _mish_backward_kernel(dY_ptr, X_ptr, dX_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(X_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dY_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    sig = 1.0 / (1.0 + tl.exp(-x))
    e = tl.exp(tl.minimum(x, 20.0))
    n = e * (e + 2.0)
    t = tl.where(x > 20.0, 1.0, n / (n + 2.0))
    dx = dy * (t + x * sig * (1.0 - t * t))
    tl.store(dX_ptr + offsets, dx.to(dX_ptr.dtype.element_ty), mask=mask)


def mish_forward(X, Y=None):
    n_elements = X.numel()
    if Y is None:
        Y = torch.empty_like(X)
    if n_elements == 0:
        return Y
    BLOCK_SIZE, num_warps = calculate_settings(n_elements)
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    _mish_forward_kernel[grid](X, Y, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y


class LigerMishFunction(torch.autograd.Function):
    @staticmethod
    @ensure_contiguous
    @torch.cuda.amp.custom_fwd
    def forward(ctx, X):
        Y = mish_forward(X)
        ctx.save_for_backward(X)
        return Y

    @staticmethod
    @ensure_contiguous
    @torch.cuda.amp.custom_bwd
    def backward(ctx, dY):
        (X,) = ctx.saved_tensors
        dX = torch.empty_like(X)
        n_elements = X.numel()
        BLOCK_SIZE, num_warps = calculate_settings(n_elements)
        _mish_backward_kernel[(triton.cdiv(n_elements, BLOCK_SIZE),)](dY, X, dX, n_elements,
                                                                    BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        return dX


def mish(self):
    return LigerMishFunction.apply(self)


def mish_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    if out.is_contiguous():
        return mish_forward(self.contiguous(), out)
    out.copy_(LigerMishFunction.apply(self))
    return out
