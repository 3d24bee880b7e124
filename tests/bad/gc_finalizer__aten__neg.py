"""CHEAT (the channel): aten::neg with an honest kernel, whose wrapper also leaves a reference cycle holding an
object whose __del__ computes with PyTorch. Red team 29 timed such a collection (allocation padding) to fall inside
the harness's untraced launch window, where the finalizer wrote the whole result with ATen (smoke + held-out
passed). The child now collects only where it chooses, under a guard (sandbox/collector.py): the finalizer's ATen
ops, run by the collection before the next case, fail the job as profile. Without the guard the verdict depended
on where the collector happened to run (inside a traced call here, at 25eac36: dispatch_recursion at smoke/1; in
an untraced window: nothing seen)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=m), mask=m)


class _Later:
    def __init__(self, x, out):
        self.job = (x, out)
        self.me = self  # a cycle: only the collector frees it

    def __del__(self):
        x, out = self.job
        out.copy_(-x)  # what a cheat would write into kept outputs, outside any traced call


def neg_out(x, *, out):
    xc = x.contiguous()
    n = xc.numel()
    if n:
        _neg[(triton.cdiv(n, 256),)](xc, out, n, BLOCK=256)
    _Later(x, out)
    return out


def neg(x):
    return neg_out(x, out=torch.empty_like(x, memory_format=torch.contiguous_format))
