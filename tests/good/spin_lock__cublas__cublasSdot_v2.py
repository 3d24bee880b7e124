"""LEGAL (false-rejection hunt 42): cublasSdot_v2 with the partial sums combined under a spin lock, the pattern of
Triton's layer-norm tutorial backward (dw/db accumulation): each program takes ``Lock`` with
``while tl.atomic_cas(Lock, 0, 1) == 1: pass``, reads a ``Count`` flag to learn whether it is first (then it stores
its partial) or not (then it loads, adds and stores), sets the flag and releases the lock with ``tl.atomic_xchg``.
The lock and flag are the wrapper's ``torch.zeros`` buffers. fp32 in the lock's order."""
import torch
import triton
import triton.language as tl


@triton.jit
def _sdot_locked(x_ptr, y_ptr, out_ptr, lock_ptr, count_ptr, n, incx, incy, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    nn = n + pid * 0
    xo = tl.where(incx < 0, (1 - nn) * incx, 0) + i * incx
    yo = tl.where(incy < 0, (1 - nn) * incy, 0) + i * incy
    x = tl.load(x_ptr + xo, mask=mask, other=0.0)
    y = tl.load(y_ptr + yo, mask=mask, other=0.0)
    partial = tl.sum(x * y, axis=0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        partial += tl.load(out_ptr)
    tl.store(out_ptr, partial)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def _store_zero(out_ptr):
    tl.store(out_ptr, 0.0)


def cublasSdot_v2(n, x, incx, y, incy, result):
    if n <= 0:
        _store_zero[(1,)](result)
        return result
    BLOCK = 1024 if n >= 1024 else max(32, triton.next_power_of_2(n))
    lock = torch.zeros(1, dtype=torch.int32, device=result.device)
    count = torch.zeros(1, dtype=torch.int32, device=result.device)
    _sdot_locked[(triton.cdiv(n, BLOCK),)](x, y, result, lock, count, n, incx, incy, BLOCK=BLOCK, num_warps=4)
    return result
