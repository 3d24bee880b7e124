"""LEGAL (false-rejection hunt 37): vllm::rms_norm with the input checks GPU-minded wrappers (and most generated
kernels) start with: ``assert input.is_cuda and weight.is_cuda, "..."`` and ``if not out.is_cuda: raise
ValueError(...)``, then a row kernel. On a GPU every tensor is a CUDA tensor; on the CPU interpreter they are CPU
tensors, so the assert failed every case as runtime_error. The interpreter now answers ``is_cuda`` as a GPU would
when the submission's own code reads it (sandbox/interpreter.py ``_is_cuda_in_the_submission``)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(out_ptr, in_ptr, w_ptr, H, stride_in, stride_out, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(in_ptr + row * stride_in + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / H + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = (x * inv).to(in_ptr.dtype.element_ty) * w
    tl.store(out_ptr + row * stride_out + cols, y, mask=mask)


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    assert input.is_cuda and weight.is_cuda, "rms_norm expects CUDA tensors"
    if not out.is_cuda:
        raise ValueError("out must live on the GPU")
    assert input.stride(-1) == 1 and weight.is_contiguous(), "last dim must be contiguous"
    H = input.shape[-1]
    x = input.reshape(-1, H)
    o = out.view(-1, H)
    _rms_norm_kernel[(x.shape[0],)](o, x, weight, H, x.stride(0), o.stride(0), epsilon,
                                    BLOCK=triton.next_power_of_2(H))
