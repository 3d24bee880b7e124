"""LEGAL (false-rejection hunt 32): aten::silu with Liger-Kernel's device helper: ``infer_device()`` (under
``functools.lru_cache``) asks ``torch.cuda.is_available()`` and then ``torch.xpu.is_available()`` to pick warps per
backend; the wrapper refuses TorchScript callers with ``if torch.jit.is_scripting():``. L1 refused both queries:
"torch.xpu.is_available() computes with PyTorch ... (rule torch-compute)" and "torch.jit.is_scripting() uses the
PyTorch compiler stack (rule compile)". Backend presence queries, the autocast dtype and TorchScript's read-only
flags are now allowed like torch.cuda.is_available and torch.compiler.is_compiling."""
import functools

import torch
import triton
import triton.language as tl


@functools.lru_cache(maxsize=None)
def infer_device() -> str:
    """The accelerator this process runs on (Liger-Kernel's helper of the same name)."""
    if torch.cuda.is_available():
        return "cuda"
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "xpu"
    return "cpu"


@functools.lru_cache(maxsize=None)
def _settings(n: int):
    block = min(4096, triton.next_power_of_2(max(n, 1)))
    warps = 32 if infer_device() == "xpu" else (8 if block >= 2048 else 4)
    return block, warps


@triton.jit
def _silu_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    xf = x.to(tl.float32) if x.dtype != tl.float64 else x
    y = xf / (1.0 + tl.exp(-xf))
    y = tl.where(xf < -80.0, 0.0 * xf, y)  # e^-x overflows: the product is -0/0, never inf/inf
    tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=m)


def _launch(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    if n:
        block, warps = _settings(n)
        _silu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, num_warps=warps)
    return out


def silu(self):
    if torch.jit.is_scripting():
        raise RuntimeError("this Triton silu is not scriptable")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"\"silu\" not implemented for '{self.dtype}'")
    x = self.contiguous()
    return _launch(x, torch.empty_like(x))


def silu_out(self, *, out):
    res = silu(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
