"""LEGAL (false-rejection hunt 42): aten::neg with the allocation idioms of vLLM's and SGLang's launchers: outputs
from ``x.new_empty(...)`` and ``torch.empty_strided(...)``, a scratch buffer made with ``torch.empty(...)`` then
``.fill_(0)`` (vLLM writes ``torch.empty(...).fill_(float("-inf"))`` for its max buffers), and a
``.view(-1)`` flat alias."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)
    tl.atomic_add(cnt_ptr, 1)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous().view(-1)
    if out.is_contiguous():
        dst = out
    else:
        dst = torch.empty_strided(tuple(out.shape), tuple(_contig_strides(out.shape)), dtype=out.dtype,
                                  device=out.device)
    counter = torch.empty((1,), dtype=torch.int32, device=x.device).fill_(0)
    _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, counter, n, BLOCK=1024)
    if dst is not out:
        out.copy_(dst)
    return out


def _contig_strides(shape):
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return list(reversed(strides))


def neg(self):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    return _launch(self, self.new_empty(self.shape))


def neg_out(self, *, out):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
