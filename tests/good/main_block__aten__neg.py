"""LEGAL (false-rejection hunt 42): aten::neg in a file kept as its author wrote it, with a self-test under
``if __name__ == "__main__":`` (random inputs, the PyTorch reference, ``torch.testing.assert_close`` and a
``triton.testing.do_bench`` timing), as Triton's tutorials and many kernel files end. Imported as a module the block
never runs."""
import torch
import triton
import triton.language as tl


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


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(98432, device="cuda")
    torch.testing.assert_close(neg(x), torch.neg(x))
    ms = triton.testing.do_bench(lambda: neg(x))
    print(f"neg: {ms:.3f} ms, {2 * x.numel() * x.element_size() / ms * 1e-6:.1f} GB/s")
