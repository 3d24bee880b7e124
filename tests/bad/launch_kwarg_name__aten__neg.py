"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel launched with a keyword whose name is
a ``str`` subclass of the submission (``**{_Name("n"): n}``: Python keeps the key object). Triton's autotune
benchmarking hashes the launch's keyword names (``meta.keys() & config.kwargs.keys()``, the benchmark's argument
dicts) inside the benchmarking (on a GPU): the subclass's ``__hash__`` ran there. Passed every tier before rt40; the
launch rule now refuses a keyword name that is not a plain string: profile."""
import torch
import triton
import triton.language as tl


class _Name(str):
    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        return self is other or str(self) == str(other)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 )
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
        _neg[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](xc, res, **{_Name("n"): n})
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
