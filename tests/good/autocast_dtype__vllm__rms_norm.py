"""LEGAL (false-rejection hunt 42): vllm::rms_norm whose wrapper follows autocast the way mamba's layer-norm and
torchao's float8 wrappers do: ``if torch.is_autocast_enabled(): dtype = torch.get_autocast_gpu_dtype()`` picks the
weight's compute dtype (the pre-2.4 spelling of ``torch.get_autocast_dtype("cuda")``), and the kernel is told by a
constexpr whether the weight is already in the output dtype. L1 admitted ``get_autocast_dtype`` and
``is_autocast_enabled`` but refused ``get_autocast_gpu_dtype`` as torch-compute; the read-only autocast getters
(``get_autocast_gpu_dtype``, ``get_autocast_cpu_dtype``, ``is_autocast_cpu_enabled``) now pass as the others do.
Outside autocast (as the harness calls it) the branch is not taken."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_fwd(out_ptr, in_ptr, w_ptr, H, stride_row, eps, W_IS_OUT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(in_ptr + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / H + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    if not W_IS_OUT:
        w = w.to(out_ptr.dtype.element_ty)
    y = (x * inv).to(out_ptr.dtype.element_ty) * w
    tl.store(out_ptr + row * H + cols, y, mask=mask)


def _weight_dtype(weight):
    if torch.is_autocast_enabled():
        return torch.get_autocast_gpu_dtype()
    return weight.dtype


def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
    if input.numel() == 0:
        return None
    x = input.reshape(-1, H)
    if x.stride(-1) != 1:
        x = x.contiguous()
    rows = x.shape[0]
    block = triton.next_power_of_2(H)
    _rms_fwd[(rows,)](out, x, weight, H, x.stride(0), float(epsilon), W_IS_OUT=_weight_dtype(weight) == out.dtype,
                      BLOCK=block)
    return None
