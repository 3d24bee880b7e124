"""CHEAT (tp42, what the lock allowance could open): aten::neg that imports threading for a lock, as FlagGems'
LibEntry does (allowed since tp42), and also keeps per-thread state with ``threading.local()``: the first call on a
thread computes with the kernel, later calls hand back the first call's output object whenever the shape matches
(the harness calls from one thread), a result that depends on another call's. Of threading only Lock and RLock are
allowed; ``threading.local`` stays rule threads (verify/scan/stdlib_rules.py). Behind L1, the cases whose input
differs from the remembered call's would fail as wrong results."""
import threading

import torch
import triton
import triton.language as tl

_LOCK = threading.Lock()
_SEEN = threading.local()


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    with _LOCK:
        last = getattr(_SEEN, "last", None)
        if last is not None and last.shape == dst.shape and last.dtype == dst.dtype:
            return last
        _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
        _SEEN.last = dst
    if dst is not out:
        out.copy_(dst)
    return out


def neg(self):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
