"""CHEAT (rt39b): kernel_attr_run with the store made through a function parameter, ``def _patch(k): k.run = _run``
then ``_patch(_rms_norm_fwd)``: L1 follows names bound to the file's kernels, not parameters, and passes it. The
instance ``run`` shadows the hooked class run (a pass-through here, to the bound hooked run). Passed every tier
before rt39b; the launch rule now refuses a kernel (or a kernel it wraps through .fn) whose instance attributes
shadow its Triton class's entries: profile."""
import torch
import triton
import triton.language as tl

_RUNS = []


@triton.jit
def _rms_norm_fwd(Y, X, W, stride_x, eps, N: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * N + cols, ((x * rstd).to(Y.dtype.element_ty) * w).to(Y.dtype.element_ty), mask=mask)


_HOOKED_RUN = _rms_norm_fwd.run


def _run(*args, **kwargs):
    _RUNS.append(1)
    return _HOOKED_RUN(*args, **kwargs)


def _patch(k):
    k.run = _run


_patch(_rms_norm_fwd)


def rms_norm(out, input, weight, epsilon):
    N = input.shape[-1]
    x2 = input.reshape(-1, N)
    if x2.shape[0]:
        _rms_norm_fwd[(x2.shape[0],)](out, x2, weight, x2.stride(0), epsilon, N=N, BLOCK_N=triton.next_power_of_2(N))
