"""A legal but unusual saxpy: @triton.autotune over block sizes plus @triton.heuristics, the launch
grid a function of the chosen config. It must pass on the interpreter (autotune takes the first
config there) and on GPUs (the warm-up completes autotuning before timing). y is updated in place, so the autotuner must
restore it between its benchmark runs (restore_value): without it every config benchmarked on
the real arguments adds alpha*x again, a wrong result the GPU harness rightly rejects."""
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)],
                 key=["n"], restore_value=["y_ptr"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _axpy(x_ptr, y_ptr, n, alpha, incx, incy, x0, y0, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    xo = x0 + i * incx
    yo = y0 + i * incy
    if EVEN:
        x = tl.load(x_ptr + xo)
        y = tl.load(y_ptr + yo)
        tl.store(y_ptr + yo, alpha * x + y)
    else:
        x = tl.load(x_ptr + xo, mask=m, other=0.0)
        y = tl.load(y_ptr + yo, mask=m, other=0.0)
        tl.store(y_ptr + yo, alpha * x + y, mask=m)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0 or alpha == 0.0:
        return y
    x0 = (n - 1) * -incx if incx < 0 else 0
    y0 = (n - 1) * -incy if incy < 0 else 0
    _axpy[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, alpha, incx, incy, x0, y0)
    return y
