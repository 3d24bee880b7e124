"""LEGAL (false-rejection hunt 43): aten::mish in the style of Unsloth's ``kernels/utils.py`` and its activation
kernels: module constants with annotations (``MAX_FUSED_SIZE: int = 65536``), ``next_power_of_2 =
triton.next_power_of_2``, ``DEVICE_COUNT`` from ``torch.cuda.device_count()``, ``torch_gpu_device`` bound to
``torch.cuda.device`` on a multi-GPU host and to a ``def`` returning ``nullcontext()`` otherwise, ``triton_tanh`` and
``triton_cast`` chosen by Triton's version (``libdevice.tanh``/``tl.cast``, else ``tl.math.tanh`` and a @triton.jit
cast), ``calculate_settings(n) -> (int, int,)`` (a tuple written as the return annotation), and the kernel made with
the call forms ``k = triton.jit(k)`` then ``k = triton.heuristics({...})(k)`` rebinding the same name."""
from contextlib import nullcontext

import torch
import triton
import triton.language as tl
from packaging.version import Version

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2
DEVICE_COUNT: int = torch.cuda.device_count() if torch.cuda.is_available() else 1

if DEVICE_COUNT > 1:
    torch_gpu_device = torch.cuda.device
else:
    def torch_gpu_device(device):
        return nullcontext()

if Version(triton.__version__) >= Version("3.0.0"):
    from triton.language.extra import libdevice

    triton_tanh = libdevice.tanh
    triton_cast = tl.cast
else:
    triton_tanh = tl.math.tanh

    @triton.jit
    def triton_cast(x, dtype):
        return x.to(dtype)


def calculate_settings(
    n: int,
) -> (
    int,
    int,
):
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        BLOCK_SIZE = MAX_FUSED_SIZE
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def _mish_forward_kernel(X, Y, n_elements, FP64: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    block_idx = tl.program_id(0).to(tl.int64)
    offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x_row = tl.load(X + offsets, mask=mask, other=0)
    if FP64:
        x = triton_cast(x_row, tl.float64)
    else:
        x = triton_cast(x_row, tl.float32)
    # softplus with PyTorch's threshold of 20, log1p for small exp(x)
    softplus = tl.where(x > 20.0, x, libdevice.log1p(tl.exp(x)))
    y = x * triton_tanh(softplus)
    tl.store(Y + offsets, triton_cast(y, Y.dtype.element_ty), mask=mask)


_mish_forward_kernel = triton.jit(_mish_forward_kernel)
_mish_forward_kernel = triton.heuristics(
    {
        "FP64": lambda args: bool(args["FP64"]),
    }
)(_mish_forward_kernel)


def _mish_launch(X, Y):
    n_elements: int = Y.numel()
    if n_elements == 0:
        return Y
    X = X.contiguous()
    dst = Y if Y.is_contiguous() else torch.empty(Y.shape, dtype=Y.dtype, device=Y.device)
    BLOCK_SIZE, num_warps = calculate_settings(min(n_elements, 1024))
    with torch_gpu_device(X.device):
        _mish_forward_kernel[(triton.cdiv(n_elements, BLOCK_SIZE),)](
            X,
            dst,
            n_elements,
            FP64=X.dtype == torch.float64,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    if dst is not Y:
        Y.copy_(dst)
    return Y


def mish(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("mish needs a floating input")
    return _mish_launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def mish_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _mish_launch(self, out)
