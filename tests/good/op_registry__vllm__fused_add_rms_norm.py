"""LEGAL (false-rejection hunt 43): vllm::fused_add_rms_norm in the style of Liger-Kernel's multi-DSL dispatcher
(``liger_kernel/backends`` and ``ops/backends/_triton/*.py``): a ``Capability`` dataclass, a ``register_op(name,
impl_name=..., capability=..., preference_rank=..., tolerances=...)`` decorator factory that records the implementation
in a module-level registry at import (``_REGISTRY.setdefault(name, []).append(...)``) and returns the function
unchanged, per-dtype tolerance tables keyed by ``torch.float16``/``bfloat16``/``float32``, and a ``dispatch(name,
*args, impl=None)`` that picks the best-ranked implementation whose required modules are present. The registry holds
functions, filled once at import; no call writes to it. The Triton implementation is an autograd Function (Liger's
``LigerFusedAddRMSNormFunction`` shape, in place)."""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import torch
import triton
import triton.language as tl


@dataclasses.dataclass(frozen=True)
class Capability:
    modules: tuple = ()
    min_compute_capability: Optional[tuple] = None


@dataclasses.dataclass(frozen=True)
class _Impl:
    op: str
    impl_name: str
    fn: Callable
    capability: Capability
    preference_rank: int
    tolerances: dict
    notes: str = ""


_REGISTRY: dict = {}


def register_op(op: str, *, impl_name: str, capability: Capability, preference_rank: int = 0,
                tolerances: Optional[dict] = None, notes: str = ""):
    def deco(fn):
        _REGISTRY.setdefault(op, []).append(_Impl(op, impl_name, fn, capability, preference_rank,
                                                  dict(tolerances or {}), notes))
        return fn
    return deco


def _available(cap: Capability) -> bool:
    return all(m in ("triton", "torch") for m in cap.modules)


def dispatch(op: str, *args, impl: Optional[str] = None, **kwargs):
    candidates = [i for i in _REGISTRY.get(op, []) if _available(i.capability)
                  and (impl is None or i.impl_name == impl)]
    if not candidates:
        raise NotImplementedError(f"no implementation of {op!r} (impl={impl!r})")
    best = sorted(candidates, key=lambda i: -i.preference_rank)[0]
    return best.fn(*args, **kwargs)


@triton.jit
def _fused_add_rms_norm_kernel(X_ptr, X_row_stride, R_ptr, R_row_stride, W_ptr, n_cols, eps,
                               BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    X_ptr += row_idx * X_row_stride
    R_ptr += row_idx * R_row_stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        z = tl.load(X_ptr + cols, mask=mask, other=0.0) + tl.load(R_ptr + cols, mask=mask, other=0.0)
        tl.store(R_ptr + cols, z, mask=mask)  # the residual, rounded to the tensors' dtype
        zf = z.to(tl.float32)
        acc += zf * zf
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        z = tl.load(R_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W_ptr + cols, mask=mask, other=0.0)
        tl.store(X_ptr + cols, (z * rstd).to(X_ptr.dtype.element_ty) * w, mask=mask)


class FusedAddRMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, R, W, eps):
        n_cols = X.shape[-1]
        X2 = X.view(-1, n_cols) if X.dim() != 2 else X
        R2 = R.view(-1, n_cols)
        n_rows = X2.shape[0]
        if n_rows and n_cols:
            BLOCK_SIZE = min(1024, triton.next_power_of_2(n_cols))
            _fused_add_rms_norm_kernel[(n_rows,)](X2, X2.stride(0), R2, R2.stride(0), W, n_cols, eps,
                                                  BLOCK_SIZE=BLOCK_SIZE)
        return X, R


_TRITON_TOLERANCES = {
    torch.float16: {"atol_fwd": 5e-3, "rtol_fwd": 1e-3},
    torch.bfloat16: {"atol_fwd": 2e-2, "rtol_fwd": 1e-2},
    torch.float32: {"atol_fwd": 1e-5, "rtol_fwd": 1e-5},
}


@register_op(
    "fused_add_rms_norm",
    impl_name="nvidia-triton",
    capability=Capability(modules=("triton",)),
    preference_rank=50,
    tolerances=_TRITON_TOLERANCES,
    notes="in-place Triton kernel; the default cross-arch implementation",
)
def fused_add_rms_norm_triton(X, R, W, eps, *, mode: Optional[str] = None):
    if mode not in (None, "default"):
        raise ValueError(f"Triton fused_add_rms_norm has only mode='default'; got mode={mode!r}")
    return FusedAddRMSNormFunction.apply(X, R, W, eps)


def fused_add_rms_norm(input, residual, weight, epsilon):
    if input.dim() > 2 and not input.is_contiguous():
        raise ValueError("input rows must merge into one row stride")
    dispatch("fused_add_rms_norm", input, residual, weight, float(epsilon))
    return None
