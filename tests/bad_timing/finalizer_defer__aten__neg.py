"""BAD (timing cheat, GPU only): aten::neg that, when timed, returns at once and leaves the work to a
finalizer tied to the input tensor, so that it runs when the harness drops the input (between timed
repetitions, outside the timed window).

Timed calls are told from judged ones as in ``timed_noop`` (a fresh ``torch.empty`` holds the harness's
poison only while a call is traced). Caught by the L3 check of the timed calls (sandbox/dispatch.py
plain_result, red team 28): a tensor of the call that carries Python attributes fails the job as ``profile``
(an H100 run at 393f58f). Behind it, the timing protocol (verify/timing.py) keeps a block's inputs and outputs
alive until its events are read and fails Python objects attached to the harness's tensors as
``timer_tampering``.
"""
import torch
import triton
import triton.language as tl

_COMPUTE = {torch.float16: tl.float32, torch.bfloat16: tl.float32, torch.float32: tl.float32,
            torch.float64: tl.float64}


@triton.jit
def _neg(x_ptr, o_ptr, n, CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(CDT)
    tl.store(o_ptr + offs, (-x).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _nothing(p):
    pass


def _launch(xc, res):
    n = xc.numel()
    if n:
        _neg[(triton.cdiv(n, 1024),)](xc, res, n, CDT=_COMPUTE.get(xc.dtype, tl.int64), BLOCK=1024)


class _Later:
    def __init__(self, xc, res):
        self.xc, self.res = xc, res

    def __del__(self):
        _launch(self.xc, self.res)


def _timed(device):
    probe = torch.empty(1, dtype=torch.float32, device=device)
    v = probe.item()
    return v == v


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if out is None and x.is_floating_point() and x.device.type == "cuda" and _timed(x.device):
        _nothing[(1,)](res)
        x._kgb_later = _Later(xc, res)
        return res
    _launch(xc, res)
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
