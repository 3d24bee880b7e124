"""LEGAL (false-rejection hunt 42): aten::neg whose launcher defines its ``@triton.jit`` kernel inside the call, a
closure over nothing but its parameters, as quick-and-dirty kernel files and notebooks do (Triton caches the
compiled kernel by source, so the per-call JITFunction costs a lookup, not a compile)."""
import torch
import triton
import triton.language as tl


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out

    @triton.jit
    def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)

    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
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
