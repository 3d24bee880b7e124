"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel whose @triton.autotune gets as
do_bench= another autotuner's bound ``warmup``. The autotune rule took any do_bench whose ``__code__`` is in Triton's
files, and a bound method's ``__code__`` is its function's: Triton's benchmarking would call ``_helper.warmup``, which
calls ``_helper``'s early_config_prune, the submission's, inside the benchmarking Triton runs untraced (on a GPU).
Passed every tier before rt40; the rule now takes only plain functions of Triton's files holding plain values
(sandbox/kernel_guard.py foreign_bench): profile."""
import torch
import triton
import triton.language as tl


def _prune(configs, nargs, **kw):
    return configs


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _helper(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 do_bench=_helper.warmup)
@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=m), mask=m)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _neg[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](xc, res, n)
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
