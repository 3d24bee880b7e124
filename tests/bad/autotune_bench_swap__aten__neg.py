"""CHEAT (the channel, red team rt40): aten::neg with an honest autotuned kernel whose early_config_prune stores a
do_bench of the submission on the autotuner (through a function parameter, which L1 does not follow), over Triton's
``functools.cached_property``, after the launch rule checked the kernel and before Triton benchmarks the configs; the
launch grid deletes it again before the next launch's check. On a GPU Triton's benchmarking calls it untraced. The
autotune rule looked at ``do_bench=`` only, and on the interpreter its ``Autotuner._bench`` hook was replaced by the
interpreter's ranking: passed every tier before rt40. The rule now judges the cached value too, and the ranking is
installed under the hook: profile."""
import torch
import triton
import triton.language as tl


def _bench(kernel_call, quantiles=None):
    kernel_call()
    return [1.0, 1.0, 1.0]


def _put(obj, value):
    obj.do_bench = value


def _drop(obj):
    del obj.do_bench


def _prune(configs, nargs, **kw):
    _put(_TUNER[0], _bench)
    _SET.append(1)
    return configs


_TUNER = []
_SET = []


def _grid(n, meta):
    if _SET:
        _SET.clear()
        _drop(_TUNER[0])
    return (triton.cdiv(n, meta["BLOCK"]),)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=m), mask=m)


_TUNER.append(_neg)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        _neg[lambda meta: _grid(n, meta)](xc, res, n)
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
