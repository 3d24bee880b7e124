import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(out_ptr, x_ptr, w_ptr, stride_x, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # Wrong: divides by the mean of |x| instead of the root mean square.
    mean_abs = tl.sum(tl.abs(x), axis=0) / n_cols
    y = (x / (mean_abs + eps)) * w
    tl.store(out_ptr + row * n_cols + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def rms_norm(out, input, weight, epsilon):
    h = input.shape[-1]
    x = input.reshape(-1, h)
    _kernel[(x.shape[0],)](out, x, weight, x.stride(0), h, epsilon, BLOCK=triton.next_power_of_2(h))
