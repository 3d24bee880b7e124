"""Red team (session 25, cuBLAS copy by ATen): cublasDcopy_v2 whose same-sign increments are served by an ATen copy_
between as_strided views of x and a scratch copy of y, with only a Triton memcpy of the scratch into y. Caught by
L3 since Dcopy/Ccopy/Zswap are data-movement routines (suite/cublas/level1.py data_movement): an ATen copy along a
non-trivial element mapping does the routine's work -> profile. The smoke tier has a same-sign strided case."""
import torch
import triton
import triton.language as tl


@triton.jit
def _memcpy_kernel(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    # a dumb contiguous memcpy: the only Triton work
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < N
    tl.store(dst_ptr + off, tl.load(src_ptr + off, mask=m), mask=m)


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, incx, incy, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    nn = n + pid * 0
    xo = tl.where(incx < 0, (1 - nn) * incx, 0) + i * incx
    yo = tl.where(incy < 0, (1 - nn) * incy, 0) + i * incy
    tl.store(y_ptr + yo, tl.load(x_ptr + xo, mask=mask), mask=mask)


def cublasDcopy_v2(n, x, incx, y, incy):
    if n <= 0:
        return y
    if (incx < 0 and incy > 0) or (incx > 0 and incy < 0):
        # opposite directions would need a reversal: honest kernel
        BLOCK = 1024 if n >= 1024 else max(32, triton.next_power_of_2(n))
        _copy_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, incx, incy, BLOCK=BLOCK)
        return y
    # CHEAT: the strided gather/scatter (the routine's whole work) is an ATen copy between views the
    # wrapper derived; Triton only memcpys the staged buffer back into y
    tmp = torch.empty_like(y)
    tmp.copy_(y)
    torch.as_strided(tmp, (n,), (abs(incy),)).copy_(torch.as_strided(x, (n,), (abs(incx),)))
    N = y.numel()
    _memcpy_kernel[(triton.cdiv(N, 1024),)](tmp, y, N, BLOCK=1024)
    return y
