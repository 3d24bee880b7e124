"""CHEAT (rt39b): type_alias_run with the class handed to a function, ``_patch(type(_rms_norm_fwd))`` whose body sets
``c.run = _run``: L1 follows names bound to ``type(...)``, not parameters, and passes it. Triton's kernel class
(InterpretedFunction here, JITFunction on a GPU) gets the file's run (a pass-through here). Passed every tier before
rt39b; the child now snapshots Triton's runtime classes and compares them after the import, after every traced
call and with every answer: profile."""
import torch
import triton
import triton.language as tl

_RUNS = []


def _run(self, *args, **kwargs):
    _RUNS.append(1)
    return _HOOKED_RUN(self, *args, **kwargs)


@triton.jit
def _rms_norm_fwd(Y, X, W, stride_x, eps, N: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * N + cols, ((x * rstd).to(Y.dtype.element_ty) * w).to(Y.dtype.element_ty), mask=mask)


def _patch(c):
    global _HOOKED_RUN
    _HOOKED_RUN = c.run
    c.run = _run


_patch(type(_rms_norm_fwd))


def rms_norm(out, input, weight, epsilon):
    N = input.shape[-1]
    x2 = input.reshape(-1, N)
    if x2.shape[0]:
        _rms_norm_fwd[(x2.shape[0],)](out, x2, weight, x2.stride(0), epsilon, N=N, BLOCK_N=triton.next_power_of_2(N))
