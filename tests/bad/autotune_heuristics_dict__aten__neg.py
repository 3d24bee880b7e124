"""CHEAT (the channel, red team rt40): aten::neg with an honest kernel under @triton.autotune over
@triton.heuristics whose values are a dict subclass of the submission. The harness traces the heuristics functions
Triton's benchmarking calls by swapping them for traced wrappers, only where the values are a plain dict: here
Heuristics.run inside the benchmarking (on a GPU) called the subclass's items() and the heuristics untraced. Passed
every tier before rt40; the autotune rule now takes only a plain dict with str keys as heuristics values: profile."""
import torch
import triton
import triton.language as tl


class _Values(dict):
    def items(self):
        return dict.items(self)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.heuristics(_Values({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0}))
@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
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
