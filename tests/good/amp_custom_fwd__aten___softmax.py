"""LEGAL (false-rejection hunt 32): aten::_softmax written the way Liger-Kernel and Unsloth write their ops: a
``torch.autograd.Function`` whose staticmethod forward is decorated with ``@torch.amp.custom_fwd(device_type="cuda")``
and a ``functools.wraps`` ``ensure_contiguous`` decorator, backward with ``custom_bwd``; ``calculate_settings`` under
``functools.lru_cache`` (block and warps from the row length); a ``tl.constexpr`` global; the wrappers call
``Function.apply``. L1 refused the autocast decorators: "torch.amp.custom_fwd(device_type="cuda") computes with PyTorch:
torch.amp.custom_fwd is not on the allowlist" (rule torch-compute). They compute nothing (a cast under an enabled
autocast is a .to() the trace judges) and are now allowed; torch.autocast itself stays refused. Rows longer than
8192 take a looped online-softmax kernel (one block per row would not fit a GPU's registers)."""
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


@triton.jit
def _softmax_fwd_looped(y_ptr, x_ptr, n_cols, BLOCK: tl.constexpr):
    # rows longer than one block: online max and sum, then a second pass writes
    row = tl.program_id(0).to(tl.int64)
    base = row * n_cols
    m_i = tl.full([BLOCK], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_i, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m_i - m_new))
        l_i = l_i * alpha + tl.where(x == -float("inf"), 0.0, tl.exp(x - m_new))
        m_i = m_new
    m = tl.max(m_i, axis=0)
    denom = tl.sum(tl.where(m_i == -float("inf"), 0.0, l_i * tl.exp(m_i - m)), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, (tl.exp(x - m) / denom).to(y_ptr.dtype.element_ty), mask=cols < n_cols)


class LigerSoftmaxFunction(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")
    @ensure_contiguous
    def forward(ctx, x, dim):
        xt = x.movedim(dim, -1).contiguous()
        n_cols = xt.shape[-1]
        y = torch.empty_like(xt)
        rows = xt.numel() // n_cols if n_cols else 0
        if rows and n_cols > 8192:
            _softmax_fwd_looped[(rows,)](y, xt, n_cols, BLOCK=4096, num_warps=8)
        elif rows:
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
