"""LEGAL (rb42): aten::neg whose module logger is named by its spec, ``logging.getLogger(__spec__.name if __spec__
else __name__)`` (as Backend.AI's modules name theirs), logging the block size it picks, with a note logged only when
run as a script (``if __name__ == "__main__" and __spec__ is None``). rt42 refused every bare ``__spec__`` (its ``loader``
ran unscanned code); reading its name, or comparing it with None, reads a string or a bool."""
import logging

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__spec__.name if __spec__ else __name__)
_BLOCKS = {}


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _block_for(dtype):
    block = _BLOCKS.get(dtype)
    if block is None:
        block = 2048 if dtype in (torch.float16, torch.bfloat16, torch.int8, torch.uint8) else 1024
        _BLOCKS[dtype] = block
        logger.debug("neg: BLOCK=%d for %s", block, dtype)
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


if __name__ == "__main__" and __spec__ is None:
    logger.warning("neg: a kernel module, run as a script: nothing to do")
