"""Legal: aten::silu whose wrapper makes the CUDA runtime calls of GPU-minded code (false-rejection hunt 36): it reads
``torch.cuda.current_stream()`` and ``torch.cuda.current_device()``, skips a host read while
``torch.cuda.is_current_stream_capturing()``, launches, then ``torch.cuda.synchronize()`` before returning. L1 admits
these (they neither compute nor switch streams); on the CPU interpreter they raised "Torch not compiled with CUDA
enabled" and every case failed as ``runtime_error``. They now answer as a GPU with nothing in flight would
(sandbox/interpreter.py ``_cuda_runtime_calls_accept_cpu``)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x / (1.0 + tl.exp(-x))).to(y_ptr.dtype.element_ty), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    stream = torch.cuda.current_stream()
    assert torch.cuda.current_device() >= 0
    _silu_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    if not torch.cuda.is_current_stream_capturing():
        torch.cuda.synchronize()
        stream.synchronize()
    if dst is not out:
        out.copy_(dst)
    return out


def silu(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("silu needs a floating input")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def silu_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
