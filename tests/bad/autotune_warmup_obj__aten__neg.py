"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel whose @triton.autotune gets the
deprecated warmup= as an object of the submission. Triton's Autotuner keeps a do_bench lambda of its own file that
closes over it, and triton.testing.do_bench computes ``warmup / estimate_ms`` inside the benchmarking (on a GPU): the
object's __truediv__ runs there. Passed every tier before rt40; the autotune rule now refuses a Triton benchmark
function whose closure holds anything but plain values, modules and Triton's functions: profile."""
import torch
import triton
import triton.language as tl


class _Ms:
    def __truediv__(self, other):
        return 25.0

    def __int__(self):
        return 25


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 warmup=_Ms(), rep=100)
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
