"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel whose reset_to_zero= names the
output with a ``str`` subclass of the submission. Triton's own pre-hook (``kwargs[name].zero_()``), which the harness
leaves untraced as Triton's bookkeeping, looks the name up in a dict inside the benchmarking (on a GPU): the
subclass's ``__hash__``/``__eq__`` run there. Passed every tier before rt40; the autotune rule now takes only plain
strings as reset_to_zero/restore_value names: profile."""
import torch
import triton
import triton.language as tl


class _Name(str):
    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        return self is other or str(self) == str(other)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 reset_to_zero=[_Name("o_ptr")])
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
