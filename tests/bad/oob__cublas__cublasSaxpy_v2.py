import triton
import triton.language as tl


@triton.jit
def _axpy(x_ptr, y_ptr, n, alpha, incx, incy, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    # No mask, and a wild offset: reads and writes far outside both buffers.
    far = i + (1 << 34)
    x = tl.load(x_ptr + far * incx)
    y = tl.load(y_ptr + far * incy)
    tl.store(y_ptr + far * incy, alpha * x + y)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if alpha == 0.0:
        return y
    _axpy[(triton.cdiv(n, 1024),)](x, y, n, alpha, incx, incy, BLOCK=1024)
    return y
