"""LEGAL (tp44): cublas::cublasZdotc_v2 written the way PyTorch-first kernel authors split complex data: the real and
imaginary parts handed to the kernel as the attribute views ``x.real`` and ``x.imag`` (float64 views of the complex
storage, two words apart), a negative increment turned into a base offset on the host, each program's partial sum
of conj(x)·y added with ``tl.atomic_add`` into ``result.real``/``result.imag`` after ``result.zero_()``."""
import torch
import triton
import triton.language as tl


@triton.jit
def _zdotc_kernel(xr_ptr, xi_ptr, yr_ptr, yi_ptr, out_re_ptr, out_im_ptr, n, x_base, y_base, incx, incy,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ox = (x_base + offs.to(tl.int64) * incx) * 2  # complex elements -> float64 words of the real/imag views
    oy = (y_base + offs.to(tl.int64) * incy) * 2
    xr = tl.load(xr_ptr + ox, mask=mask, other=0.0)
    xi = tl.load(xi_ptr + ox, mask=mask, other=0.0)
    yr = tl.load(yr_ptr + oy, mask=mask, other=0.0)
    yi = tl.load(yi_ptr + oy, mask=mask, other=0.0)
    # conj(x) * y = (xr*yr + xi*yi) + i (xr*yi - xi*yr)
    tl.atomic_add(out_re_ptr, tl.sum(xr * yr + xi * yi, axis=0))
    tl.atomic_add(out_im_ptr, tl.sum(xr * yi - xi * yr, axis=0))


def cublasZdotc_v2(n, x, incx, y, incy, result):
    result.zero_()
    if n <= 0:
        return result
    x_base = 0 if incx > 0 else (n - 1) * -incx
    y_base = 0 if incy > 0 else (n - 1) * -incy
    BLOCK = 1024
    _zdotc_kernel[(triton.cdiv(n, BLOCK),)](x.real, x.imag, y.real, y.imag, result.real, result.imag, n,
                                            x_base, y_base, incx, incy, BLOCK=BLOCK, num_warps=4)
    return result
