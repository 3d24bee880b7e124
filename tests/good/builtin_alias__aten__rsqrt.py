"""LEGAL (false-rejection hunt 32): aten::rsqrt written the way Unsloth's kernels/utils.py sets things up: module-level
aliases of Triton functions (``triton_cast = tl.cast``, ``triton_sqrt = tl.sqrt``, ``next_power_of_2 =
triton.next_power_of_2``) called inside the kernel, ``MAX_FUSED_SIZE`` and ``calculate_settings``, and a device guard
that is ``torch.cuda.device`` with several GPUs and a function returning ``nullcontext()`` otherwise. A GPU compiles
the aliases (Triton's code generator admits builtins as globals), but Triton 3.6's CPU interpreter patches builtins
only as attributes of ``triton.language``: ``triton_cast(...)`` raised "Did you forget to add @triton.jit ?" and every
case failed as the submission's runtime_error. The harness's interpreter now runs such aliases with its semantic
(sandbox/interpreter.py _builtin_aliases)."""
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2
triton_sqrt = tl.sqrt
triton_cast = tl.cast

DEVICE_COUNT: int = torch.cuda.device_count() if torch.cuda.is_available() else 0

# one device: no guard needed (unsloth does the same)
if DEVICE_COUNT > 1:
    torch_gpu_device = torch.cuda.device
else:
    from contextlib import nullcontext

    def torch_gpu_device(device):
        return nullcontext()


def calculate_settings(n):
    BLOCK_SIZE = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        BLOCK_SIZE = MAX_FUSED_SIZE
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rsqrt_kernel(X, Y, n, COMPUTE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1)
    y = 1.0 / triton_sqrt(triton_cast(x, COMPUTE))
    tl.store(Y + offs, triton_cast(y, Y.dtype.element_ty), mask=mask)


def _result_dtype(x):
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x.dtype
    return torch.get_default_dtype()


def _launch(x, out):
    n = x.numel()
    if n == 0:
        return out
    if x.dtype == torch.bool:
        x = x.view(torch.uint8)
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    BLOCK_SIZE, num_warps = calculate_settings(min(n, 1024))
    with torch_gpu_device(x.device):
        _rsqrt_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, COMPUTE=compute, BLOCK_SIZE=BLOCK_SIZE,
                                                       num_warps=num_warps)
    return out


def rsqrt(self):
    if self.dtype.is_complex:
        raise NotImplementedError("complex rsqrt")
    x = self.contiguous()
    out = torch.empty(x.shape, dtype=_result_dtype(self), device=x.device)
    return _launch(x, out)


def rsqrt_out(self, *, out):
    res = rsqrt(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
