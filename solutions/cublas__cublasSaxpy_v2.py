import triton
import triton.language as tl

# |alpha| at or below this rounds to 0.0 in float32 (round-to-nearest-even).
_F32_ZERO_LIMIT = 2.0 ** -150


@triton.jit
def _saxpy_kernel(x_ptr, y_ptr, n, alpha, incx, incy, x_base, y_base,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    xo = x_base + i * incx
    yo = y_base + i * incy
    x = tl.load(x_ptr + xo, mask=mask, other=0.0)
    y = tl.load(y_ptr + yo, mask=mask, other=0.0)
    tl.store(y_ptr + yo, alpha * x + y, mask=mask)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    n = int(n)
    if n <= 0:
        return y
    alpha = float(alpha)
    if abs(alpha) <= _F32_ZERO_LIMIT:
        # alpha rounds to 0 in float32: cuBLAS returns immediately, y untouched
        return y
    incx = int(incx)
    incy = int(incy)
    # backwards layout for negative increments: element i at (n-1-i)*|inc|
    x_base = 0 if incx >= 0 else -(n - 1) * incx
    y_base = 0 if incy >= 0 else -(n - 1) * incy
    if n >= 65536:
        BLOCK, nw = 2048, 8
    elif n >= 1024:
        BLOCK, nw = 1024, 4
    else:
        BLOCK, nw = max(32, triton.next_power_of_2(n)), (4 if n >= 512 else 1)
    grid = (triton.cdiv(n, BLOCK),)
    _saxpy_kernel[grid](x, y, n, alpha, incx, incy, x_base, y_base,
                        BLOCK=BLOCK, num_warps=nw)
    return y
