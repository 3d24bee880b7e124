"""LEGAL (false-rejection hunt 43): cublasSdot_v2 as a split reduction whose programs ``tl.atomic_add`` their partial
sums into the result, autotuned with ``reset_to_zero=["out_ptr"]`` (Triton zeroes the named argument before each
benchmark run, the idiom of split-K matmuls and of gradient accumulators; Triton 3.6 does not zero it again for a
launch whose key is cached, so the wrapper zeroes the result first too, as such code does), configs written with ``triton.Config(kwargs=..., num_warps=..., num_stages=...)``
keywords, a ``key`` of the length and the increments, and ``tl.cdiv``'s Python twin in a ``lambda META`` grid."""
import triton
import triton.language as tl

_CONFIGS = [
    triton.Config(kwargs={"BLOCK": 1024}, num_warps=4, num_stages=1),
    triton.Config(kwargs={"BLOCK": 256}, num_warps=2, num_stages=1),
    triton.Config(kwargs={"BLOCK": 4096}, num_warps=8, num_stages=2),
]


@triton.autotune(configs=_CONFIGS, key=["n", "incx", "incy"], reset_to_zero=["out_ptr"])
@triton.jit
def _sdot_atomic(x_ptr, y_ptr, out_ptr, n, incx, incy, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    # BLAS: a negative increment walks the vector from its far end
    xo = tl.where(incx < 0, (1 - n) * incx, 0) + i * incx
    yo = tl.where(incy < 0, (1 - n) * incy, 0) + i * incy
    x = tl.load(x_ptr + xo, mask=mask, other=0.0)
    y = tl.load(y_ptr + yo, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * y, axis=0))


@triton.jit
def _store_zero(out_ptr):
    tl.store(out_ptr, 0.0)


def cublasSdot_v2(n, x, incx, y, incy, result):
    if n <= 0:
        _store_zero[(1,)](result)
        return result
    result.zero_()
    _sdot_atomic[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, result, n, incx, incy)
    return result
