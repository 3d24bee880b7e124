"""LEGAL (false-rejection hunt 37): aten::neg whose launcher reads the current device and stream through Triton's
driver (``triton.runtime.driver.active.get_current_device()`` / ``get_current_stream(dev)``), as launcher code that
hands streams around does; L1 admits both. On the interpreter the second raised inside Triton (no driver) and every
case was ``unsupported``; the interpreter's driver stand-in now answers stream 0 (sandbox/interpreter.py
``_cpu_device_queries``), as ``torch.cuda.current_stream().cuda_stream`` does there."""
import triton as _tr
import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(o_ptr + offs, -x, mask=mask)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    dev = _tr.runtime.driver.active.get_current_device()
    stream = _tr.runtime.driver.active.get_current_stream(dev)
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
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
