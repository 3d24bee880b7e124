"""LEGAL (false-rejection hunt 42): vllm::rms_norm through a mamba/FLA-style layer-norm forward kernel: optional
operands (bias, residual, residual_out) passed as ``None`` at the launch, their presence turned into constexprs by
``@triton.heuristics({"HAS_BIAS": lambda args: args["B"] is not None, ...})``, ``IS_RMS_NORM`` a constexpr, the
row block sized as ``65536 // x.element_size()`` and the mean-square in fp32."""
import torch
import triton
import triton.language as tl


@triton.heuristics({
    "HAS_BIAS": lambda args: args["B"] is not None,
    "HAS_RESIDUAL": lambda args: args["RESIDUAL"] is not None,
    "STORE_RESIDUAL_OUT": lambda args: args["RESIDUAL_OUT"] is not None,
})
@triton.jit
def _layer_norm_fwd_1pass(X, Y, W, B, RESIDUAL, RESIDUAL_OUT, stride_x_row, stride_y_row, N, eps,
                          IS_RMS_NORM: tl.constexpr, BLOCK_N: tl.constexpr, HAS_BIAS: tl.constexpr,
                          HAS_RESIDUAL: tl.constexpr, STORE_RESIDUAL_OUT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride_x_row
    Y += row * stride_y_row
    if HAS_RESIDUAL:
        RESIDUAL += row * N
    if STORE_RESIDUAL_OUT:
        RESIDUAL_OUT += row * N
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    if HAS_RESIDUAL:
        x += tl.load(RESIDUAL + cols, mask=cols < N, other=0.0).to(tl.float32)
    if STORE_RESIDUAL_OUT:
        tl.store(RESIDUAL_OUT + cols, x, mask=cols < N)
    if not IS_RMS_NORM:
        mean = tl.sum(x, axis=0) / N
        xbar = tl.where(cols < N, x - mean, 0.0)
        var = tl.sum(xbar * xbar, axis=0) / N
    else:
        xbar = tl.where(cols < N, x, 0.0)
        var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    mask = cols < N
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    x_hat = (x - mean) * rstd if not IS_RMS_NORM else x * rstd
    y = x_hat.to(Y.dtype.element_ty).to(tl.float32) * w
    if HAS_BIAS:
        y += tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


def _layer_norm_fwd(x, weight, bias, eps, out, residual=None, residual_out=None, is_rms_norm=False):
    M, N = x.shape
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_N:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    _layer_norm_fwd_1pass[(M,)](x, out, weight, bias, residual, residual_out, x.stride(0), out.stride(0), N, eps,
                                is_rms_norm, BLOCK_N)
    return out


def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
    if input.numel() == 0:
        return None
    x = input.reshape(-1, H)
    if x.stride(-1) != 1:
        x = x.contiguous()
    y = out.view(-1, H)
    _layer_norm_fwd(x, weight, None, float(epsilon), y, is_rms_norm=True)
    return None
