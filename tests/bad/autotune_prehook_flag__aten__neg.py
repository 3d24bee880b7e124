"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel one of whose triton.Configs gets as
pre_hook= an object of the submission that is not callable, with a ``__bool__``. Triton's benchmarking tests
``if config.pre_hook:`` inside the benchmarking (on a GPU), where the object's ``__bool__`` ran (returning False, so
Triton never calls it); the harness traces only callable hooks. Passed every tier before rt40; the autotune rule
now takes as a config's pre_hook only None or a callable: profile."""
import torch
import triton
import triton.language as tl


class _Flag:
    def __bool__(self):
        return False


_FLAG = _Flag()


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256}, pre_hook=_FLAG)],
                 key=["n"])
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
