"""CHEAT (session 38, L3's host-read budget counted elements, not bytes): cublasSaxpy_v2 computed on the host for
every smoke case that has work (n <= 32). A Triton copy (no arithmetic) gathers x_i and y_i into a dense fp32
buffer of the submission's own; the buffer is read through a complex128 view, so one ``.item()`` brings four
fp32 values to Python (16 reads carry 64 values, four times the budget of 16); Python computes
``alpha*x_i + y_i``, and a store kernel handed ``y`` and the value as a scalar writes each result. The ghost
replay hands the reads back and skips the stores, so L2 credits Triton (the host_store hole); only the L3
budget bounds how many elements this can reach, and the widening defeated it: every read counted one element.
Caught since reads are charged by the bytes of the data they carry (verify/profile.py, host_read units)."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _gather(x_ptr, y_ptr, g_ptr, n, incx, incy):
    # g[2i] = x_i, g[2i+1] = y_i, honouring negative increments (a copy: no arithmetic on the values)
    for i in range(n):
        xo = tl.where(incx < 0, (n - 1 - i) * (-incx), i * incx)
        yo = tl.where(incy < 0, (n - 1 - i) * (-incy), i * incy)
        tl.store(g_ptr + 2 * i, tl.load(x_ptr + xo))
        tl.store(g_ptr + 2 * i + 1, tl.load(y_ptr + yo))


@triton.jit
def _put(y_ptr, off, v):
    tl.store(y_ptr + off, v)


def _bits64(d):
    # the IEEE bits of a finite float, by frexp (no struct)
    s = 1 if math.copysign(1.0, d) < 0 else 0
    a = abs(d)
    if a == 0.0:
        return s << 63
    if a < 2.0 ** -1022:
        return (s << 63) | int(math.ldexp(a, 1074))
    f, e = math.frexp(a)
    return (s << 63) | ((e + 1022) << 52) | (int(math.ldexp(f, 53)) - (1 << 52))


def _f32(b):
    s = -1.0 if b >> 31 else 1.0
    e, m = (b >> 23) & 255, b & 0x7FFFFF
    if e == 255:
        return s * math.inf if m == 0 else math.nan
    return s * (math.ldexp(m, -149) if e == 0 else math.ldexp(m | 0x800000, e - 150))


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0 or alpha == 0:
        return y
    if n > 32:
        raise NotImplementedError("the host path covers n <= 32 (every smoke case with work)")
    g = torch.zeros((2 * n + 3) // 4 * 4, dtype=torch.float32, device=y.device)
    _gather[(1,)](x, y, g, n, incx, incy)
    vals = []
    for c in range((2 * n + 3) // 4):
        z = g.view(torch.complex128)[c].item()  # four fp32 values in one counted read
        for d in (z.real, z.imag):
            b = _bits64(d)
            vals += [_f32(b & 0xFFFFFFFF), _f32(b >> 32)]
    for i in range(n):
        yo = (n - 1 - i) * (-incy) if incy < 0 else i * incy
        _put[(1,)](y, yo, alpha * vals[2 * i] + vals[2 * i + 1])
    return y
