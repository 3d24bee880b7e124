"""LEGAL (false-rejection hunt 42): aten::neg in FlagGems' and vLLM's table style: a module-level dict maps each
torch dtype to the ``@triton.jit`` kernel that handles it (an integer kernel and a floating one that computes in
fp32 for half types), another module-level dict holds launch settings per element size, and the launcher picks
both by the input's dtype and launches with ``**settings``."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_int(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, 0 - tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


@triton.jit
def _neg_float(x_ptr, y_ptr, n, UPCAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if UPCAST:
        x = x.to(tl.float32)
    tl.store(y_ptr + offs, (-x).to(y_ptr.dtype.element_ty), mask=mask)


_KERNELS = {
    torch.uint8: _neg_int, torch.int8: _neg_int, torch.int16: _neg_int, torch.int32: _neg_int,
    torch.int64: _neg_int, torch.float16: _neg_float, torch.bfloat16: _neg_float, torch.float32: _neg_float,
    torch.float64: _neg_float,
}
_SETTINGS = {
    1: {"BLOCK": 2048, "num_warps": 8},
    2: {"BLOCK": 1024, "num_warps": 4},
    4: {"BLOCK": 1024, "num_warps": 4},
    8: {"BLOCK": 512, "num_warps": 4},
}


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    kernel = _KERNELS.get(x.dtype)
    if kernel is None:
        raise RuntimeError(f"neg: unsupported dtype {x.dtype}")
    settings = dict(_SETTINGS[x.element_size()])
    if kernel is _neg_float:
        settings["UPCAST"] = x.dtype in (torch.float16, torch.bfloat16)
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    kernel[(triton.cdiv(n, settings["BLOCK"]),)](src, dst, n, **settings)
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
