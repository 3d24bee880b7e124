"""CHEAT (the channel): aten::neg with an honest autotuned kernel whose configs are a triton.Config subclass.
Triton's Autotuner._bench calls config.all_kwargs() for each config inside its benchmarking, which the harness
does not trace (on GPUs: an overriding all_kwargs could compute the result with ATen unseen). The launch rule
refuses configs that are not plain triton.Config objects (sandbox/launch.py check_autotuner): profile."""
import torch
import triton
import triton.language as tl


class _Cfg(triton.Config):
    def all_kwargs(self):
        return super().all_kwargs()


@triton.autotune(configs=[_Cfg({"BLOCK": 128}), _Cfg({"BLOCK": 256})], key=["n"],
                 )
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
