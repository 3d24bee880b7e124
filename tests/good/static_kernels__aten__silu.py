"""LEGAL (false-rejection hunt 42): aten::silu with its kernels defined in a class as ``@staticmethod`` over
``@triton.jit`` (a namespace class, as some ops libraries group a forward and a backward kernel), launched as
``SiluKernels.forward[grid](...)`` from a classmethod that picks the block size."""
import torch
import triton
import triton.language as tl


class SiluKernels:
    """Namespace of the silu kernels and their launcher."""

    BLOCK = 1024

    @staticmethod
    @triton.jit
    def forward(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        xf = x.to(tl.float32) if x.dtype != tl.float64 else x
        y = xf / (1.0 + tl.exp(-xf))
        y = tl.where(xf < -80.0, 0.0 * xf, y)
        tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=m)

    @staticmethod
    @triton.jit
    def backward(g_ptr, x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + offs, mask=m, other=0.0).to(tl.float32)
        s = 1.0 / (1.0 + tl.exp(-x))
        tl.store(o_ptr + offs, (g * s * (1.0 + x * (1.0 - s))).to(o_ptr.dtype.element_ty), mask=m)

    @classmethod
    def launch(cls, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        n = x.numel()
        if n:
            cls.forward[(triton.cdiv(n, cls.BLOCK),)](x, out, n, BLOCK=cls.BLOCK)
        return out


def silu(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"\"silu\" not implemented for '{self.dtype}'")
    x = self.contiguous()
    return SiluKernels.launch(x, torch.empty_like(x))


def silu_out(self, *, out):
    res = silu(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
