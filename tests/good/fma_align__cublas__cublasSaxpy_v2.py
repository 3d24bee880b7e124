"""LEGAL (false-rejection hunt 43): cublasSaxpy_v2 with jit options real kernels pass: ``@triton.jit(
do_not_specialize=["n"], do_not_specialize_on_alignment=["x_ptr", "y_ptr"])`` (Triton >= 3.2: one compile for any
pointer alignment, as vLLM's and SGLang's varlen kernels write it), a ``@triton.jit(noinline=True)`` helper (a real call on a GPU;
Triton allows only scalar arguments there) for a strided vector's origin, ``alpha * x + y`` as ``tl.fma``, autotune configs with ``maxnreg=`` (register cap, Triton >= 3.0),
``restore_value`` for the in-place ``y``, and the compile option ``enable_fp_fusion=False`` passed at launch."""
import triton
import triton.language as tl


@triton.jit(noinline=True)
def _origin(n, inc):
    # BLAS: a negative increment walks the vector from its far end
    return tl.where(inc < 0, (1 - n) * inc, 0)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 512}, num_warps=4, maxnreg=128),
        triton.Config({"BLOCK": 2048}, num_warps=8, maxnreg=64),
    ],
    key=["n"],
    restore_value=["y_ptr"],
)
@triton.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=["x_ptr", "y_ptr"])
def _saxpy(x_ptr, y_ptr, n, alpha, incx, incy, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    xo = _origin(n, incx) + i * incx
    yo = _origin(n, incy) + i * incy
    x = tl.load(x_ptr + xo, mask=m, other=0.0)
    y = tl.load(y_ptr + yo, mask=m, other=0.0)
    tl.store(y_ptr + yo, tl.fma(x, alpha, y), mask=m)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0 or alpha == 0.0:
        return y
    grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)  # noqa: E731
    _saxpy[grid](x, y, n, float(alpha), incx, incy, enable_fp_fusion=False)
    return y
