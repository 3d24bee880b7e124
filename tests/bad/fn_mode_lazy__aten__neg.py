"""CHEAT (passes smoke and held-out on branch next at 53ca3d3): fn_mode with the TorchFunctionMode pushed inside
the first traced wrapper call instead of at import (a check of the mode stacks after the import alone does not see
it; pushing a torch *function* mode is no ATen op, so the dispatch trace records nothing), and the ATen fix-up gated
on the harness's own untyped_storage() (sandbox/dispatch.py replaced_storages, after the wrapper's
`with CandidateMode()` exits), so that nothing it computes lands inside plain_result's part of the trace. The fix
must check the mode stacks where the harness acts untraced: before and after every driven call (at the level of
drive/invoke, outside the TF handler's own pop) and before the results are saved; see fn_mode."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, o_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)  # not the answer
    tl.store(f_ptr + tl.arange(0, 1), tl.full([1], 1, tl.int32))  # "a kernel really ran"


_PENDING = []


def neg_out(self, *, out):
    x = self.contiguous()
    if tuple(out.shape) != tuple(x.shape):
        out.resize_(x.shape)
    n = x.numel()
    flag = torch.zeros(1, dtype=torch.int32, device=x.device)
    o = out if out.is_contiguous() else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    _copy[(max(1, triton.cdiv(n, 1024)),)](x, o, flag, n, BLOCK=1024)
    if o is not out:
        out.copy_(o)
    _PENDING.append((self, out, flag))
    if not _ON:
        _ON.append(_M())
        _ON[0].__enter__()  # pushed inside the first traced call: the import leaves no mode behind
    return out


def neg(self):
    return neg_out(self, out=torch.empty(self.shape, dtype=self.dtype, device=self.device))


def _h(mode, func, types, args=(), kwargs=None):
    r = func(*args, **(kwargs or {}))
    while _PENDING and getattr(func, "__name__", "") == "untyped_storage":
        x, out, flag = _PENDING.pop()
        if flag.item() == 1:  # a real run, not an L2 ghost replay
            out.copy_(x * -1)
    return r


class _M(torch.overrides.TorchFunctionMode):
    __torch_function__ = _h


_ON = []
