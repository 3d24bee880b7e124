"""LEGAL (false-rejection hunt 37): aten::neg with the debugging scaffolding kernel files keep: NVTX ranges around the
launch (``torch.cuda.nvtx.range_push("neg")`` / ``range_pop()``), ``tl.device_print`` under a constexpr flag that is
off, ``tl.static_print``/``tl.static_assert``, a debug flag from ``os.environ.get`` held in a global
``tl.constexpr``, typed scalar parameters (``n: tl.int32``), the kernel's ``__name__`` in a log call and a grid
made with ``functools.partial``. L1 refused the NVTX calls as torch-compute (not on the allowlist); they are host
annotations for a profiler and are now allowed, and on the interpreter (a PyTorch without CUDA, where they raise
"NVTX functions not installed") they do nothing (sandbox/interpreter.py ``_nvtx_no_ops``)."""
import functools
import logging
import os

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)
DEBUG = tl.constexpr(os.environ.get("NEG_DEBUG", "0") == "1")


@triton.jit
def _neg(x_ptr, o_ptr, n: tl.int32, BLOCK: tl.constexpr, VERBOSE: tl.constexpr = False):
    tl.static_assert(BLOCK % 32 == 0)
    tl.static_print("compiling _neg with BLOCK =", BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if VERBOSE:
        tl.device_print("x", x)
    if DEBUG:
        tl.device_assert(offs >= 0, "negative offset")
    tl.store(o_ptr + offs, -x, mask=mask)


def _grid(meta, n):
    return (triton.cdiv(n, meta["BLOCK"]),)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        logger.debug("launching %s on %d elements", _neg.__name__, n)
        torch.cuda.nvtx.range_push("neg")
        _neg[functools.partial(_grid, n=n)](xc, res, n, BLOCK=512)
        torch.cuda.nvtx.range_pop()
    if out is None:
        return res
    if out.shape != x.shape:
        out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    print_once = False
    if print_once:
        print("neg", self.shape)
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
