"""LEGAL (tp38, real third-party kernels): vllm::rms_norm laid out like Liger-Kernel's norm modules: a
``torch.autograd.Function`` whose forward launches the Triton kernel and saves the reciprocal RMS, and whose backward
(with a module-level helper only it calls) launches a gradient kernel per program and then adds the per-program weight
gradients with PyTorch, ``partial.sum(dim=0).to(w.dtype)``. The forward pass never reaches that code: only autograd's
backward pass runs a backward, and neither the harness nor the wrapper starts one. L1 refused the file for the
``.sum``/``.to`` calls ("calls the tensor method .sum(), which computes with PyTorch"); it now leaves unscanned the body
of a backward nothing in the file can reach, and of the helpers only such bodies call (verify/scan/class_rules.py
``prepare_class_rules``)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_fwd(y_ptr, x_ptr, x_row_stride, w_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=keep, other=0.0)
    xf = x.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, (xf * rstd).to(x.dtype) * w, mask=keep)


@triton.jit
def _rms_bwd(dx_ptr, dy_ptr, x_ptr, w_ptr, rstd_ptr, dw_ptr, n_rows, n_cols, rows_per_program, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, rows_per_program):
        row = pid * rows_per_program + i
        if row < n_rows:
            x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + row * n_cols + cols, mask=keep, other=0.0).to(tl.float32)
            rstd = tl.load(rstd_ptr + row)
            m = dy * w
            dx = rstd * m - rstd * rstd * rstd / n_cols * tl.sum(m * x, axis=0) * x
            tl.store(dx_ptr + row * n_cols + cols, dx, mask=keep)
            dw += dy * x * rstd
    tl.store(dw_ptr + pid * n_cols + cols, dw, mask=keep)


def _weight_grad(dy, x, w, rstd):
    """The backward's launch, then the host-side sum of the per-program weight gradients."""
    n_rows, n_cols = x.shape
    programs = min(n_rows, 8)
    rows_per_program = triton.cdiv(n_rows, programs)
    dx = torch.empty_like(x)
    partial = torch.empty((programs, n_cols), dtype=torch.float32, device=x.device)
    _rms_bwd[(programs,)](dx, dy, x, w, rstd, partial, n_rows, n_cols, rows_per_program,
                          BLOCK=triton.next_power_of_2(n_cols))
    return dx, partial.sum(dim=0).to(w.dtype)


class RMSNormFunction(torch.autograd.Function):
    """y = x / rms(x) * w over the last dimension."""

    @staticmethod
    def forward(ctx, x, w, eps):
        shape = x.shape
        x2 = x.reshape(-1, shape[-1])
        n_rows, n_cols = x2.shape
        y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
        rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        if n_rows:
            _rms_fwd[(n_rows,)](y, x2, x2.stride(0), w, rstd, n_cols, eps, BLOCK=triton.next_power_of_2(n_cols))
        ctx.save_for_backward(x2, w, rstd)
        return y.view(shape)

    @staticmethod
    def backward(ctx, dy):
        x2, w, rstd = ctx.saved_tensors
        dx, dw = _weight_grad(dy.reshape(x2.shape).contiguous(), x2.contiguous(), w, rstd)
        return dx.view(dy.shape), dw, None


def rms_norm(out, input, weight, epsilon):
    out.copy_(RMSNormFunction.apply(input, weight, epsilon))
