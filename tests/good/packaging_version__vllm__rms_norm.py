"""LEGAL (false-rejection hunt 37): vllm::rms_norm in the manner of Unsloth's kernels/utils.py and rms_layernorm.py:
the Triton and PyTorch versions gated with ``packaging.version.Version`` (the autocast decorators picked by
``Version(torch.__version__) < Version("2.4.0")``, an option by the Triton version), ``MAX_FUSED_SIZE`` and a
``calculate_settings`` helper, the launch inside ``with torch.cuda.device(X.device):`` and a
``torch.autograd.Function`` whose forward writes the caller's ``out``. L1 refused ``from packaging.version import
Version`` as forbidden-import (outside the allowed imports); ``packaging.version`` (Version, parse, InvalidVersion)
only parses and compares version strings and is now allowed, the rest of ``packaging`` stays refused."""
import torch
import triton
import triton.language as tl
from packaging.version import Version

if Version(torch.__version__) < Version("2.4.0"):
    torch_amp_custom_fwd = torch.cuda.amp.custom_fwd
else:
    torch_amp_custom_fwd = torch.amp.custom_fwd(device_type="cuda")

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2
#: Triton 3 names the fp32-accumulating reductions the same way; only the warps cap moved
_MAX_WARPS = 32 if Version(triton.__version__) >= Version("3.0.0") else 16


def calculate_settings(n: int) -> tuple[int, int]:
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize = "
                           f"{MAX_FUSED_SIZE}.")
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = _MAX_WARPS
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rms_layernorm_forward(
    Y, Y_row_stride, X, X_row_stride, W, r, n_cols, eps, BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0)
    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = 1.0 / tl.sqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = (X_row * inv_var).to(W_row.dtype)
    tl.store(Y + col_offsets, normed * W_row, mask=mask)


class Fast_RMS_Layernorm(torch.autograd.Function):
    @staticmethod
    @torch_amp_custom_fwd
    def forward(ctx, out, X, W, eps):
        shape = X.shape
        dim = shape[-1]
        X = X.reshape(-1, dim)
        Y = out.view(-1, dim)
        n_rows, n_cols = X.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        r = torch.empty(n_rows, dtype=torch.float32, device=X.device)
        with torch.cuda.device(X.device):
            _rms_layernorm_forward[(n_rows,)](
                Y, Y.stride(0), X, X.stride(0), W, r, n_cols, eps,
                BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
            )
        ctx.eps = eps
        ctx.save_for_backward(X, W, r)
        return out


def rms_norm(out, input, weight, epsilon):
    Fast_RMS_Layernorm.apply(out, input, weight, epsilon)
