import triton
import triton.language as tl


@triton.jit
def _sscal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    x = tl.load(x_ptr + i * incx, mask=mask, other=0.0)
    tl.store(x_ptr + i * incx, alpha * x, mask=mask)   # a real product: 0 * NaN and 0 * inf give NaN


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return x          # cuBLAS does nothing for a non-positive increment
    BLOCK = 1024 if n >= 1024 else max(32, triton.next_power_of_2(n))
    _sscal_kernel[(triton.cdiv(n, BLOCK),)](x, n, float(alpha), incx, BLOCK=BLOCK, num_warps=4)
    return x
