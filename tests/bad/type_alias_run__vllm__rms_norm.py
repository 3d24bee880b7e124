"""CHEAT (rt39b, found by rb39): Triton's kernel class (JITFunction on a GPU, InterpretedFunction here), where the
harness counts, checks and ghost-replays every launch, reached through ``type()`` of the file's own kernel and kept
in a name: ``_KT = type(_rms_norm_fwd); _KT.run = _run``. L1 refused ``type(k).run = f`` written in one expression
only, not a store through a name (or loop variable, container item, walrus) bound to such a class. Here ``_run`` is
a pass-through (the kernel below is honest); it runs before every launch of every kernel. Passed every tier before
rt39b; a store through a name bound to a class reached by type(...) is now monkey-patch: static_scan."""
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


_KT = type(_rms_norm_fwd)
_HOOKED_RUN = _KT.run
_KT.run = _run


def rms_norm(out, input, weight, epsilon):
    N = input.shape[-1]
    x2 = input.reshape(-1, N)
    if x2.shape[0]:
        _rms_norm_fwd[(x2.shape[0],)](out, x2, weight, x2.stride(0), epsilon, N=N, BLOCK_N=triton.next_power_of_2(N))
