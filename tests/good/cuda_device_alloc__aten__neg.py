"""LEGAL (false-rejection hunt 37): aten::neg written for one GPU, as tutorials and generated kernels are: the output and
a scratch flag allocated with ``device="cuda"`` (and ``torch.device("cuda")``), the input moved with ``x.cuda()`` /
``x.to("cuda")`` (no-ops for a CUDA tensor), ``assert x.is_cuda``, and at import ``assert
torch.cuda.is_available() and torch.cuda.device_count() > 0``. On a GPU the harness's tensors are CUDA
tensors and "cuda" is the slot's device; on the interpreter every one raised "Torch not compiled with CUDA enabled"
(runtime_error). Made from the submission's file they now allocate on, or keep the tensor on, the CPU where the
interpreter's launches run, and the submission's questions about CUDA's presence answer as on a one-GPU machine
(sandbox/interpreter_cuda.py)."""
import torch
import triton
import triton.language as tl

assert torch.cuda.is_available() and torch.cuda.device_count() > 0, "this module needs a CUDA GPU"
DEVICE = torch.device("cuda")


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(o_ptr + offs, -x, mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    x = x.cuda() if not x.is_cuda else x
    xc = x.to("cuda").contiguous()
    assert xc.is_cuda
    res = torch.empty(x.shape, dtype=x.dtype, device="cuda")
    n = xc.numel()
    if n:
        _neg[(triton.cdiv(n, 512),)](xc, res, n, BLOCK=512)
    if out is None:
        return res
    if out.shape != x.shape:
        out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
