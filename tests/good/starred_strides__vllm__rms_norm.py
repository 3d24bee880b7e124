"""LEGAL (false-rejection hunt 42): vllm::rms_norm launched the way vLLM's and xformers' attention kernels pass
strides: ``*input.stride()`` and ``*out.stride()`` unpacked into the launch, platform-specific launch options
collected in a dict that is empty on CUDA (``extra_kargs = {}``; ROCm's ``waves_per_eu`` etc. only where
``torch.version.hip`` is set) and passed as ``**extra_kargs``, ``maxnreg=`` among the launch options, and the launcher
under ``@torch._dynamo.disable``. L1 refused the decorator (rule compile: "uses the PyTorch compiler stack"), although
``torch.compiler.disable``, allowed since hunt 37, only calls it with the same arguments; the two spellings are now
judged by one rule (verify/scan/indirect_rules.py ``_DISABLE_PATHS``: the file's own function or class only)."""
import torch
import triton
import triton.language as tl

is_hip_ = torch.version.hip is not None


@triton.jit
def _rms_3d(out_ptr, in_ptr, w_ptr, D1, H, si0, si1, si2, so0, so1, so2, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    i0 = row // D1
    i1 = row % D1
    x_row = in_ptr + i0 * si0 + i1 * si1
    o_row = out_ptr + i0 * so0 + i1 * so1
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + c * si2, mask=c < H, other=0.0).to(tl.float32)
        acc += x * x
    inv = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / H + eps)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < H
        x = tl.load(x_row + c * si2, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
        y = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32) * w
        tl.store(o_row + c * so2, y.to(out_ptr.dtype.element_ty), mask=m)


@torch._dynamo.disable
def rms_norm(out, input, weight, epsilon):
    x = input if input.dim() == 3 else input.unsqueeze(0)
    o = out if out.dim() == 3 else out.unsqueeze(0)
    D0, D1, H = x.shape
    if D0 * D1 == 0 or H == 0:
        return None
    extra_kargs = {}
    if is_hip_:
        extra_kargs = {"waves_per_eu": 1, "matrix_instr_nonkdim": 16, "kpack": 2}
    _rms_3d[(D0 * D1,)](o, x, weight, D1, H, *x.stride(), *o.stride(), float(epsilon),
                        BLOCK=min(256, triton.next_power_of_2(H)), num_warps=4, maxnreg=128, **extra_kargs)
    return None
