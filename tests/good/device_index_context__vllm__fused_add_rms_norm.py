"""LEGAL (tp39, real third-party kernels): vllm::fused_add_rms_norm launched the way mamba's and flash-attention's
layer-norm launchers do it, inside ``with torch.cuda.device(x.device.index):`` (so that a tensor on a second GPU is
served by that GPU's context). On a GPU the index selects x's device; on the CPU interpreter x's index is None, which
PyTorch documents as a no-op, yet PyTorch without CUDA raised ``TypeError: '<' not supported between instances of
'NoneType' and 'int'`` entering the context, and every case failed as runtime_error. The interpreter's stand-in for
``torch.cuda.device`` now treats None and a negative index as it treats a CPU device (sandbox/interpreter.py)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add_rms_fwd(x_ptr, res_ptr, w_ptr, x_row_stride, eps, N: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0)
    r = tl.load(res_ptr + row * N + cols, mask=mask, other=0.0)
    z = x + r  # rounded to the storage dtype, as the residual stream keeps it
    tl.store(res_ptr + row * N + cols, z, mask=mask)
    zf = z.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(zf * zf, axis=0) / N + eps)
    y = (zf * rstd).to(x_ptr.dtype.element_ty)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(x_ptr + row * x_row_stride + cols, (y * w).to(x_ptr.dtype.element_ty), mask=mask)


def _layer_norm_fwd_inplace(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float) -> None:
    N = x.shape[-1]
    M = residual.numel() // N if N else 0
    x_rows = x.reshape(M, N) if x.dim() != 2 else x
    assert x_rows.stride(-1) == 1
    BLOCK_N = triton.next_power_of_2(N)
    if M == 0:
        return
    with torch.cuda.device(x.device.index):
        _add_rms_fwd[(M,)](x_rows, residual, weight, x_rows.stride(0), eps, N=N, BLOCK_N=BLOCK_N,
                           num_warps=min(max(BLOCK_N // 256, 1), 8))


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    _layer_norm_fwd_inplace(input, residual, weight, epsilon)
