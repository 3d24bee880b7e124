"""LEGAL (false-rejection hunt 42): aten::neg whose kernel stages each block through a per-program scratch row and
calls ``tl.debug_barrier()`` between the staging store and the read back, as Mamba's and FLA's chunked kernels do
between phases that share memory inside one program. The scratch is the file's own ``torch.empty`` buffer."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_staged(x_ptr, y_ptr, tmp_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    lane = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(tmp_ptr + pid * BLOCK + lane, -x)
    tl.debug_barrier()
    y = tl.load(tmp_ptr + pid * BLOCK + lane)
    tl.store(y_ptr + offs, y, mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    block = 512
    grid = triton.cdiv(n, block)
    tmp = torch.empty(grid * block, dtype=out.dtype, device=out.device)
    _neg_staged[(grid,)](src, dst, tmp, n, BLOCK=block)
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
