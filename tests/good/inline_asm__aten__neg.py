"""LEGAL (false-rejection hunt 42): aten::neg whose float32 path negates with ``tl.inline_asm_elementwise`` (PTX
``neg.f32``, the ``"=r,r"`` constraint form of the ``tanh.approx.f32``/``rcp.approx.ftz.f32`` helpers many kernel files
carry), as kernels that reach an instruction Triton does not expose do; other dtypes use the plain ``-x``. Triton's
interpreter cannot run inline assembly: the float32 cases are ``unsupported`` there (never failed, never passed), and
the job judges the rest (INTERPRETER_LIMITED); a GPU judges every case."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, USE_ASM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if USE_ASM:
        y = tl.inline_asm_elementwise("neg.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    else:
        y = -x
    tl.store(y_ptr + offs, y, mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[(triton.cdiv(n, 1024),)](src, dst, n, USE_ASM=x.dtype == torch.float32, BLOCK=1024)
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
