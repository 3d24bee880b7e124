"""LEGAL (false-rejection hunt 43): aten::silu with launch values of Triton's tutorials and FlagGems: a string
constexpr selecting the activation (tutorial 03's ``ACTIVATION: tl.constexpr`` given ``"silu"`` and compared with
``==`` in the body), a non-constexpr parameter with a default (``stride=1``), ``@triton.heuristics`` reading a
tensor argument's dtype, ``numel()`` and ``stride(0)`` (``args["x_ptr"].dtype == torch.float64``), a grid lambda
reading a runtime argument from ``META`` (``META["n_elements"]``), the element type's ``primitive_bitwidth`` and
``is_fp64()`` tested in the body, ``num_ctas=1`` in a launch, and ``sem=``/``scope=`` on an atomic counter."""
import torch
import triton
import triton.language as tl


@triton.jit
def _act(x, ACTIVATION: tl.constexpr):
    if ACTIVATION == "silu":
        return x / (1.0 + tl.exp(-x))
    elif ACTIVATION == "leaky_relu":
        return tl.where(x >= 0, x, 0.01 * x)
    else:
        return x


@triton.heuristics({
    "WIDE": lambda args: args["x_ptr"].dtype == torch.float64,
    "EVEN": lambda args: args["x_ptr"].numel() % args["BLOCK_SIZE"] == 0 and args["x_ptr"].stride(0) >= 0,
})
@triton.jit
def _silu_kernel(x_ptr, y_ptr, done_ptr, n_elements, stride=1, ACTIVATION: tl.constexpr = "", WIDE: tl.constexpr = False,
                 EVEN: tl.constexpr = False, BLOCK_SIZE: tl.constexpr = 1024):
    pid = tl.program_id(axis=0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if EVEN:
        x = tl.load(x_ptr + offsets * stride)
    else:
        x = tl.load(x_ptr + offsets * stride, mask=mask, other=0.0)
    if WIDE or x_ptr.dtype.element_ty.is_fp64():
        xc = x.to(tl.float64)
    elif x_ptr.dtype.element_ty.primitive_bitwidth < 32:
        xc = x.to(tl.float32)
    else:
        xc = x
    y = _act(xc, ACTIVATION).to(y_ptr.dtype.element_ty)
    if EVEN:
        tl.store(y_ptr + offsets, y)
    else:
        tl.store(y_ptr + offsets, y, mask=mask)
    tl.atomic_add(done_ptr, 1, sem="relaxed", scope="gpu")


def _launch(x, out):
    n_elements = out.numel()
    if n_elements == 0:
        return out
    src = x.contiguous().view(-1)
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    done = torch.zeros(1, dtype=torch.int32, device=out.device)
    grid = lambda META: (triton.cdiv(META["n_elements"], META["BLOCK_SIZE"]),)  # noqa: E731
    _silu_kernel[grid](src, dst, done, n_elements, ACTIVATION="silu", BLOCK_SIZE=1024, num_ctas=1)
    if dst is not out:
        out.copy_(dst)
    return out


def silu(self):
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def silu_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
