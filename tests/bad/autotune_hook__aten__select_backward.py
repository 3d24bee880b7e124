"""CHEAT (red team 26, GPU): aten::select_backward's data movement done by ATen inside a user pre_hook of
@triton.autotune, which Triton calls only while it benchmarks a config (Autotuner._bench, untraced by the harness);
a per-call counter in the autotune key makes every call benchmark again, and the kernel is a flat memcpy. On GPUs
the harness now traces the submission's hooks during benchmarking (sandbox/launch.py traced_autotune_hooks): the
hook's copies fail the data-movement rule (profile). On the CPU interpreter configs are ranked without running
any hook, so the memcpy alone leaves the result wrong (wrong_result)."""
import itertools

import torch
import triton
import triton.language as tl

_TICK = itertools.count()


def _stage(nargs, reset_only=False):
    if reset_only:  # the traced call after benchmarking
        return
    tmp, grad = nargs["src_ptr"], nargs["grad"]
    dim, idx = nargs["dim"], nargs["idx"]
    tmp.zero_()
    tmp.select(dim, idx).copy_(grad)  # the operator's whole work, in ATen, untraced


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 2048}, num_warps=8)],
                 key=["total", "tick"], pre_hook=_stage)
@triton.jit
def _memcpy(src_ptr, dst_ptr, total, grad, dim, idx, tick, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


def _select_bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    nd = len(sizes)
    dim %= nd
    idx = int(index) % sizes[dim]
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    total = out.numel()
    if total == 0:
        return out
    tmp = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    # a new autotune key on every call (tick): Triton benchmarks again, so the hook runs every time
    _memcpy[lambda meta: (triton.cdiv(total, meta["BLOCK"]),)](tmp, out, total, grad, dim, idx, next(_TICK))
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _select_bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _select_bwd(grad_output, input_sizes, dim, index, out)
