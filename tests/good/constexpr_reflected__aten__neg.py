"""Legal: aten::neg whose kernel takes its block size from a module constant as a power of two, ``LOG2_BLOCK =
tl.constexpr(10)`` and ``BLOCK: tl.constexpr = 1 << LOG2_BLOCK``, and tests a flag bit of a global constexpr as
``1 & FLAGS`` (false-rejection hunt 36): a Python number on the left of a ``tl.constexpr`` object (the interpreter hands
constexpr parameters to the body as plain numbers, but module globals stay ``tl.constexpr``). A GPU's
code generator folds these constants; Triton 3.6's interpreter runs the body as Python and its ``constexpr`` has no
``__rlshift__``/``__rand__``, so every case failed as ``runtime_error`` ("unsupported operand type(s) for <<: 'int' and
'constexpr'"). The harness adds the reflected operators on the interpreter (sandbox/interpreter.py
``_constexpr_reflected_operators``)."""
import torch
import triton
import triton.language as tl

LOG2_BLOCK = tl.constexpr(10)
FLAGS = tl.constexpr(1)  # bit 0: negate


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n):
    BLOCK: tl.constexpr = 1 << LOG2_BLOCK
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if (1 & FLAGS) != 0:
        y = -x
    else:
        y = x
    tl.store(y_ptr + offs, y, mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[(triton.cdiv(n, 1 << LOG2_BLOCK.value),)](src, dst, n)
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
