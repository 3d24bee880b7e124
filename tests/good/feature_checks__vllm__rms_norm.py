"""LEGAL (tp39, real third-party kernels): vllm::rms_norm in the style of flash-linear-attention's modules, whose
preamble every FLA kernel file shares: the autotuner's keyword arguments picked by a feature check of Triton itself
(``"cache_results" in inspect.signature(triton.autotune).parameters``) and small @triton.jit math helpers defined one
way under an environment switch and another way otherwise (``if os.environ.get(...) == "1": @triton.jit def exp ...
else: @triton.jit def exp ...``). L1 refused ``import inspect`` (introspection) and every call of such a helper
(kernel-body: "not a @triton.jit function defined once"). A name every binding of which is a @triton.jit def is a jit
function wherever a kernel reads it, and ``inspect`` imported for such tests only, of a torch or triton callable, reads
nothing of the file (verify/scan/class_rules.py ``_inspect_checks_only``)."""
import inspect
import os

import torch
import triton
import triton.language as tl

CACHE_AUTOTUNE = os.getenv("RMS_CACHE_AUTOTUNE", "0") == "1"
HAS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_extra = {"cache_results": CACHE_AUTOTUNE} if HAS_AUTOTUNE_CACHE else {}

if os.environ.get("RMS_FAST_MATH", "0") == "1":
    @triton.jit
    def inv_sqrt(x):
        return tl.math.rsqrt(x.to(tl.float32))
else:
    @triton.jit
    def inv_sqrt(x):
        return 1.0 / tl.sqrt(x.to(tl.float32))


@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4)], key=["H"], **autotune_extra)
@triton.jit
def _rms_rows(out_ptr, in_ptr, w_ptr, in_row_stride, eps, H: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    scale = inv_sqrt(tl.sum(x * x, axis=0) / H + eps)
    normed = (x * scale).to(out_ptr.dtype.element_ty)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * H + cols, (normed * w).to(out_ptr.dtype.element_ty), mask=mask)


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    H = input.shape[-1]
    rows = input.reshape(-1, H) if input.dim() != 2 else input
    if rows.shape[0]:
        _rms_rows[(rows.shape[0],)](out, rows, weight, rows.stride(0), epsilon, H=H,
                                    BLOCK=triton.next_power_of_2(H))
