"""LEGAL (false-rejection hunt 42): aten::neg launched in the less common forms real launchers use: every argument by
keyword (``_neg_kernel[grid](x_ptr=..., y_ptr=..., n=..., FLIP=..., BLOCK=...)``), a plain (non-constexpr) flag
tested in the kernel (a Python bool in one launch, which Triton's own interpreter cannot convert, an int in the
other), a grid given as a list (``grid = [triton.cdiv(n, BLOCK)]``, as lmdeploy and FlagGems write it), and the
subscripted kernel bound with ``functools.partial`` before the call. The list grid failed every case as runtime_error
on the interpreter (Triton's interpreter concatenates ``(1,)`` to it; Triton's GPU launch only indexes it): the
harness's interpreted launch now makes it a tuple (sandbox/launch.py ``interpreted_launch``)."""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, FLIP, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if FLIP:
        x = -x
    tl.store(y_ptr + offs, x, mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    half = n // 2
    if half:
        _neg_kernel[[triton.cdiv(half, 512)]](x_ptr=src, y_ptr=dst, n=half, FLIP=True, BLOCK=512)
    rest = functools.partial(_neg_kernel[(triton.cdiv(n - half, 512),)], BLOCK=512)
    rest(src.view(-1)[half:], dst.view(-1)[half:], n - half, 1)
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
