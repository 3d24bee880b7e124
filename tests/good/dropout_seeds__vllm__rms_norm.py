"""LEGAL (tp39, real third-party kernels): vllm::rms_norm from a norm launcher with an optional fused dropout, in the
style of mamba's and flash-attention's layer norms: when ``dropout_p > 0`` the launcher draws one seed per row with
``torch.randint(2**32, (M,), ...)`` and the kernel drops elements with ``tl.rand(seed, offsets)``. The operator never
asks for dropout, so the draw never runs, yet L1 refused the file for the call in the source (torch-compute). L1 now
admits ``torch.randint`` in any operator's source; executed, L3 counts the draws (``aten::random_draw``), which only
random operators may make."""
import torch
import triton
import triton.language as tl


@triton.jit
def _norm_fwd(Y, X, W, SEEDS, stride_x, eps, dropout_p, N: tl.constexpr, BLOCK_N: tl.constexpr,
              HAS_DROPOUT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_DROPOUT:
        seed = tl.load(SEEDS + row).to(tl.uint32)
        keep = tl.rand(seed, cols) > dropout_p
        x = tl.where(keep, x / (1.0 - dropout_p), 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    y = (x * rstd).to(Y.dtype.element_ty)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * N + cols, (y * w).to(Y.dtype.element_ty), mask=mask)


def _norm_fwd_launch(x: torch.Tensor, weight: torch.Tensor, eps: float, out: torch.Tensor,
                     dropout_p: float = 0.0) -> None:
    N = x.shape[-1]
    x2 = x.reshape(-1, N) if x.dim() != 2 else x
    M = x2.shape[0]
    if dropout_p > 0.0:
        seeds = torch.randint(2**32, (M,), device=x.device, dtype=torch.int64)
    else:
        seeds = None
    if M:
        _norm_fwd[(M,)](out, x2, weight, seeds, x2.stride(0), eps, dropout_p, N=N,
                        BLOCK_N=triton.next_power_of_2(N), HAS_DROPOUT=seeds is not None)


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    _norm_fwd_launch(input, weight, epsilon, out)
