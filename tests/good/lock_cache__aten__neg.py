"""LEGAL (false-rejection hunt 42): aten::neg whose launcher builds its kernel lazily per dtype under a
``threading.Lock`` (double-checked: ``with _LOCK:`` around the cache fill), as
FlagGems' ``LibEntry`` serializes a kernel's first compilation (``self.lock = threading.Lock()``); no thread is
started. L1 refused ``import threading`` itself (rule threads); of threading Lock and RLock now pass, every other name
stays refused where it is used (verify/scan/stdlib_rules.py)."""
import threading

import torch
import triton
import triton.language as tl

_LOCK = threading.Lock()
_BLOCKS = {}


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _block_for(dtype):
    block = _BLOCKS.get(dtype)
    if block is None:
        with _LOCK:
            block = _BLOCKS.get(dtype)
            if block is None:
                block = 2048 if dtype in (torch.float16, torch.bfloat16, torch.int8, torch.uint8) else 1024
                _BLOCKS[dtype] = block
    return block


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    block = _block_for(x.dtype)
    _neg_kernel[(triton.cdiv(n, block),)](src, dst, n, BLOCK=block)
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
