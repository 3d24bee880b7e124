"""Red team of tp44's torchao allowance (``if has_triton():`` from ``torch.utils._triton`` is a device query, and on
the interpreter it answers True to the submission as on a GPU): torchao keeps a PyTorch fallback in the ``else``
branch. Here the fallback computes the scaled GEMM with ``torch._int_mm`` and the Triton branch only launches a
copy, so a grader that took the guard for a constant (or the fallback for dead code) would pass the file wherever
``has_triton()`` is False. L1 scans both branches: torch-compute -> static_scan."""
import torch
from torch.utils._triton import has_triton

if has_triton():
    import triton
    import triton.language as tl

    @triton.jit
    def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
        out = torch.empty(a.shape[0], b.shape[1], dtype=out_dtype, device=a.device)
        _copy_kernel[(1,)](out, out, 0, BLOCK=16)
        return out

else:

    def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
        acc = torch._int_mm(a, b)
        return (acc * scale_b.reshape(1, -1) * scale_a.reshape(-1, 1)).to(out_dtype)
