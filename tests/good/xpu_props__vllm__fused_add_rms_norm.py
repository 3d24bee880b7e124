"""LEGAL (tp38, real third-party kernels): vllm::fused_add_rms_norm with a persistent grid sized per backend the way
Liger-Kernel's norm launchers size theirs: ``torch.xpu.get_device_properties(dev).gpu_eu_count`` on an Intel GPU,
``torch.cuda.get_device_properties(dev).multi_processor_count`` elsewhere, and a few rows per program. L1 refused the
xpu query as torch-compute ("torch.xpu.get_device_properties is not on the allowlist") although its cuda twin passed;
both are device queries now (verify/scan/policy.py TORCH_ALLOWED). On a CUDA GPU and on the interpreter the cuda
branch runs."""
import math

import torch
import triton
import triton.language as tl


def _program_count(device: torch.device) -> int:
    """Execution units of the device the rows run on."""
    if device.type == "xpu":
        return torch.xpu.get_device_properties(device).gpu_eu_count
    return torch.cuda.get_device_properties(device).multi_processor_count


@triton.jit
def _add_rms_rows(x_ptr, x_row_stride, r_ptr, w_ptr, n_rows, n_cols, eps, rows_per_program,
                  BLOCK: tl.constexpr):
    first = tl.program_id(0) * rows_per_program
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    w = tl.load(w_ptr + cols, mask=keep, other=0.0)
    for i in range(0, rows_per_program):
        row = first + i
        if row < n_rows:
            x = tl.load(x_ptr + row.to(tl.int64) * x_row_stride + cols, mask=keep, other=0.0)
            r = tl.load(r_ptr + row.to(tl.int64) * n_cols + cols, mask=keep, other=0.0)
            z = (x + r).to(x_ptr.dtype.element_ty)
            tl.store(r_ptr + row.to(tl.int64) * n_cols + cols, z, mask=keep)
            zf = z.to(tl.float32)
            inv = 1.0 / tl.sqrt(tl.sum(zf * zf, axis=0) / n_cols + eps)
            normed = (zf * inv).to(x_ptr.dtype.element_ty)
            tl.store(x_ptr + row.to(tl.int64) * x_row_stride + cols, normed * w, mask=keep)


def fused_add_rms_norm(input, residual, weight, epsilon):
    n_cols = input.shape[-1]
    n_rows = input.numel() // n_cols if n_cols else 0
    if n_rows == 0:
        return
    units = _program_count(input.device)
    rows_per_program = math.ceil(n_rows / units)
    grid = (triton.cdiv(n_rows, rows_per_program),)
    _add_rms_rows[grid](input, input.stride(-2) if input.dim() > 1 else n_cols, residual, weight, n_rows, n_cols,
                        epsilon, rows_per_program, BLOCK=triton.next_power_of_2(n_cols))
