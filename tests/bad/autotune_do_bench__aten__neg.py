"""CHEAT (the channel): aten::neg with an honest autotuned kernel whose @triton.autotune gets a do_bench= of the
submission. Triton's Autotuner._bench calls it with the benchmark closure inside its benchmarking, which the
harness does not trace (on GPUs: there it could compute the result with ATen unseen). The launch rule refuses a
do_bench that is not Triton's own (sandbox/launch.py check_autotuner): profile, on every platform."""
import torch
import triton
import triton.language as tl


def _bench(kernel_call, quantiles=None):
    kernel_call()
    return [1.0, 1.0, 1.0]


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 do_bench=_bench)
@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=m), mask=m)


def neg_out(x, *, out):
    xc = x.contiguous()
    n = xc.numel()
    if n:
        _neg[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](xc, out, n)
    return out


def neg(x):
    return neg_out(x, out=torch.empty_like(x, memory_format=torch.contiguous_format))
