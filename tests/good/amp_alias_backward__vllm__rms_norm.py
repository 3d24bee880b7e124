"""LEGAL (rt41, real third-party style): vllm::rms_norm laid out like unsloth's kernels: PyTorch's autograd
decorators bound to module names by PyTorch's version (``torch_amp_custom_fwd = torch.cuda.amp.custom_fwd`` before
2.4, else ``torch.amp.custom_fwd(device_type="cuda")``) and written ``@torch_amp_custom_fwd``/``@torch_amp_custom_bwd``
on the Function's methods, ``calculate_settings`` for block size and warps, ``torch_cuda_device = torch.cuda.device``
as the launch's device context, a ``triton.heuristics`` flag on the backward kernel. The backward also reduces the
weight gradient with PyTorch (``.sum(0)``); only autograd's backward pass runs it. L1 did not know the module names as
PyTorch's decorators and scanned that backward (tensor-method); a name every binding of which is one of them now is
that decorator (verify/scan/class_rules.py ``_decorator_alias``)."""
import torch
import triton
import triton.language as tl
from packaging.version import Version

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2

if Version(torch.__version__) < Version("2.4.0"):
    torch_amp_custom_fwd = torch.cuda.amp.custom_fwd
    torch_amp_custom_bwd = torch.cuda.amp.custom_bwd
else:
    torch_amp_custom_fwd = torch.amp.custom_fwd(device_type="cuda")
    torch_amp_custom_bwd = torch.amp.custom_bwd(device_type="cuda")

torch_cuda_device = torch.cuda.device


def calculate_settings(n: int) -> tuple[int, int]:
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"n = {n} exceeds the largest fused block ({MAX_FUSED_SIZE})")
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rms_fwd(Y, Y_row_stride, X, X_row_stride, W, r, n_cols: tl.constexpr, eps: tl.constexpr,
             BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0)
    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = (X_row * inv_var).to(W_row.dtype)
    tl.store(Y + col_offsets, normed * W_row, mask=mask)


@triton.heuristics({"GEMMA": lambda args: bool(args["GEMMA"])})
@triton.jit
def _rms_bwd(dY, dY_row_stride, dX, dX_row_stride, X, X_row_stride, W, r, n_cols: tl.constexpr,
             eps: tl.constexpr, GEMMA: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    dY += row_idx * dY_row_stride
    X += row_idx * X_row_stride
    r += row_idx
    dX += row_idx * dX_row_stride
    dY_row = tl.load(dY + col_offsets, mask=mask, other=0).to(tl.float32)
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0).to(tl.float32)
    inv_var = tl.load(r).to(tl.float32)
    normed = X_row * inv_var
    dY_W = dY_row * (W_row + 1.0) if GEMMA else dY_row * W_row
    rowsum = tl.sum(dY_W * normed, axis=0)
    tl.store(dX + col_offsets, inv_var / n_cols * (n_cols * dY_W - normed * rowsum), mask=mask)


class Fast_RMS_Layernorm(torch.autograd.Function):
    @staticmethod
    @torch_amp_custom_fwd
    def forward(ctx, X: torch.Tensor, W: torch.Tensor, eps: float, gemma: bool = False):
        shape = X.shape
        dim: int = shape[-1]
        X = X.reshape(-1, dim)
        n_rows: int
        n_cols: int
        n_rows, n_cols = X.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        device = X.device
        Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=device)
        r = torch.empty(n_rows, dtype=torch.float32, device=device)
        with torch_cuda_device(device):
            _rms_fwd[(n_rows,)](Y, Y.stride(0), X, X.stride(0), W, r, n_cols, eps,
                                BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.eps = eps
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.GEMMA = gemma
        ctx.save_for_backward(X, W, r)
        return Y.view(*shape)

    @staticmethod
    @torch_amp_custom_bwd
    def backward(ctx, dY: torch.Tensor):
        shape = dY.shape
        dim: int = shape[-1]
        dY = dY.reshape(-1, dim)
        X, W, r = ctx.saved_tensors
        n_rows, n_cols = dY.shape
        dX = torch.empty_like(dY)
        with torch_cuda_device(dY.device):
            _rms_bwd[(n_rows,)](dY, dY.stride(0), dX, dX.stride(0), X, X.stride(0), W, r, n_cols, ctx.eps,
                                GEMMA=ctx.GEMMA, BLOCK_SIZE=ctx.BLOCK_SIZE, num_warps=ctx.num_warps)
        dX = dX.view(*shape)
        # the weight gradient as a quick host-side reduction (backward-only)
        dW = (dY.float() * X.float()).sum(0).to(W.dtype)
        return dX, dW, None, None


def fast_rms_layernorm(weight, X, eps, gemma=False):
    return Fast_RMS_Layernorm.apply(X, weight, eps, gemma)


def rms_norm(out, input, weight, epsilon):
    out.copy_(fast_rms_layernorm(weight, input.contiguous(), epsilon))
