"""CHEAT (red team of the pointer arrays): cublasSgemvBatched that never computes with Triton. It reads each
batch's addresses on the host (``Aarray[b].item()``), makes NumPy arrays of the memory they point to (an object
with ``__array_interface__``: no copy), computes y_b = alpha*op(A_b) x_b + beta*y_b with NumPy and writes it
through the NumPy view of y_b; a launch of an empty kernel proves nothing. L1 rejects the NumPy import
(host-compute) -> static_scan.

Behind L1 (NOT CAUGHT, xfail in test_later_tiers_catch_what_l1_rejects_behind_l1): the dispatcher sees no
compute (NumPy), the three reads per batch fit the host-read budget, and the ghost replay hands back the
addresses the latest normal run read, those of that run's clone of the arrays, not the replay's: the replay
writes the answer into the old memory, its own y stays poisoned, and L2 credits Triton. Stale replayed
addresses let any host-side dereference of a pointer array pass L2; only L1's bans (NumPy, ctypes, DLPack,
raw storage, array-interface objects given to torch.as_tensor) keep the host from dereferencing."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p):
    pass


class _Mem:
    # an address and a length as NumPy's array interface: np.asarray makes an array of that memory
    def __init__(self, addr, n):
        self.__array_interface__ = {"data": (addr, False), "shape": (n,), "typestr": "<f4", "version": 3}


def cublasSgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    _touch[(1,)](yarray)
    t = trans in ("T", "t", 1)
    mo, k = (n, m) if t else (m, n)
    for b in range(batchCount):
        A = np.asarray(_Mem(int(Aarray[b].item()), lda * n))
        x = np.asarray(_Mem(int(xarray[b].item()), 1 + (k - 1) * abs(incx)))
        y = np.asarray(_Mem(int(yarray[b].item()), 1 + (mo - 1) * abs(incy)))
        Am = A.reshape(n, lda).T[:m, :]
        op = Am.T if t else Am
        xs = x[::incx] if incx > 0 else x[::incx]
        acc = alpha * (op.astype(np.float64) @ xs.astype(np.float64))
        ys = y[::incy] if incy > 0 else y[::incy]
        if beta != 0:
            acc = acc + beta * ys.astype(np.float64)
        ys[:] = acc.astype(np.float32)
    return yarray
