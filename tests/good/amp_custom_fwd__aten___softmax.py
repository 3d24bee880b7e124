"""LEGAL (false-rejection hunt 32): aten::_softmax written the way Liger-Kernel and Unsloth write their ops: a
``torch.autograd.Function`` whose staticmethod forward is decorated with ``@torch.amp.custom_fwd(device_type="cuda")``
and a ``functools.wraps`` ``ensure_contiguous`` decorator, backward with ``custom_bwd``; ``calculate_settings`` under
``functools.lru_cache`` (block and warps from the row length); a ``tl.constexpr`` global; the wrappers call
``Function.apply``. L1 refused the autocast decorators: "torch.amp.custom_fwd(device_type="cuda") computes with PyTorch:
torch.amp.custom_fwd is not on the allowlist" (rule torch-compute). They compute nothing (a cast under an enabled
autocast is a .to() the trace judges) and are now allowed; torch.autocast itself stays refused."""
import functools

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE: tl.constexpr = 65536


@functools.lru_cache(maxsize=None)
def calculate_settings(n: int):
    block = triton.next_power_of_2(n)
    if block > MAX_FUSED_SIZE:
        raise RuntimeError(f"row of {n} exceeds the fused size {MAX_FUSED_SIZE}")
    num_warps = 4
    if block >= 32768:
        num_warps = 32
    elif block >= 8192:
        num_warps = 16
    elif block >= 2048:
        num_warps = 8
    return block, num_warps


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        return fn(ctx, *args, **kwargs)
    return wrapper


@triton.jit
def _softmax_fwd(y_ptr, x_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=m)


class LigerSoftmaxFunction(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")
    @ensure_contiguous
    def forward(ctx, x, dim):
        xt = x.movedim(dim, -1).contiguous()
        n_cols = xt.shape[-1]
        y = torch.empty_like(xt)
        rows = xt.numel() // n_cols if n_cols else 0
        if rows:
            block, num_warps = calculate_settings(n_cols)
            _softmax_fwd[(rows,)](y, xt, n_cols, BLOCK=block, num_warps=num_warps)
        y = y.movedim(-1, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, dy):
        raise NotImplementedError("forward only")


def _softmax(self, dim, half_to_float):
    if self.dim() == 0:
        y = LigerSoftmaxFunction.apply(self.reshape(1), 0)
        return y.reshape(())
    return LigerSoftmaxFunction.apply(self, dim % self.dim())


def _softmax_out(self, dim, half_to_float, *, out):
    y = _softmax(self, dim, half_to_float)
    if out.shape != y.shape:
        out.resize_(y.shape)
    out.copy_(y)
    return out
