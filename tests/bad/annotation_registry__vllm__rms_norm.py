"""CHEAT (rb39): Triton's runtime class JITFunction, which L1 admits in annotations only (type-only), handed back as a
value: functools.singledispatch's register reads the annotations of the function it is given, here a
``@staticmethod`` whose annotations tp39 made type positions again (its decorator only wraps it), and keeps the
annotated class in the registry. The file then replaces ``JITFunction.run``, where on a GPU the harness counts and
checks every launch and ghost replays turn launches into no-ops (here a pass-through; the kernel below is honest).
Passed every tier at tp39 963010a, as the same grab through a plain def did before tp39. The annotations of any
function the file hands to code as a value (by name, as an attribute or in a string) are now judged as values:
static_scan."""
import functools

import torch
import triton
import triton.language as tl
import triton.runtime


class _Signatures:
    """Typed entry points of the kernels (for readers)."""

    @staticmethod
    def launch(kernel: triton.runtime.JITFunction, grid: tuple) -> None:
        return None


@functools.singledispatch
def _describe(kind):
    return "object"


_describe.register(_Signatures.launch)
_RUNTIME = [k for k in _describe.registry if k is not object][0]
_HOOKED_RUN = _RUNTIME.run
_RUNS = []


def _run(self, *args, **kwargs):
    _RUNS.append(1)
    return _HOOKED_RUN(self, *args, **kwargs)


_RUNTIME.run = _run


@triton.jit
def _rms_norm_fwd(Y, X, W, stride_x, eps, N: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * N + cols, ((x * rstd).to(Y.dtype.element_ty) * w).to(Y.dtype.element_ty), mask=mask)


def rms_norm(out, input, weight, epsilon):
    N = input.shape[-1]
    x2 = input.reshape(-1, N)
    if x2.shape[0]:
        _rms_norm_fwd[(x2.shape[0],)](out, x2, weight, x2.stride(0), epsilon, N=N, BLOCK_N=triton.next_power_of_2(N))
