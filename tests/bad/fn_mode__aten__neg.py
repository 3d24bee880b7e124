"""CHEAT (passes smoke and held-out on branch next at 53ca3d3): aten::neg computed by PyTorch in a
TorchFunctionMode the submission pushes at import and never pops. The wrapper's Triton kernel copies x (not the
answer) and sets a one-element flag; the mode's handler sees the harness's own public call (torch.neg(x) on the
interpreter: func is the public API, above the dispatcher), lets it run (the candidate's traced wrapper), then,
after the wrapper's trace has ended, writes out.copy_(x * -1) with ATen, untraced. An L2 ghost replay leaves the
flag 0 (the launch is a no-op, and the handler's .item() runs outside every traced call, so it is live, not
replayed), so the replay's output stays wrong ("no-op output rejected") and L2 passes. L1 sees no class that
*defines* __torch_function__ (it is assigned, not def'd) and torch.overrides is not a forbidden path; L3's trace
has only allocations (the handler's aten::mul/copy_ run outside CandidateMode); nothing checks the torch function
mode stack. Proposed fix (class): the harness checks, after the import and after every call (before it touches
the results), that the torch function and dispatch mode stacks hold exactly the harness's own modes
(torch._C._len_torch_function_stack() == 0 outside the harness's modes), failing as profile; and L1 refuses
torch.overrides / torch.utils._python_dispatch and any binding of the names __torch_function__/__torch_dispatch__
(assignment, setattr, type(...) dicts), not just a def."""
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
    return out


def neg(self):
    return neg_out(self, out=torch.empty(self.shape, dtype=self.dtype, device=self.device))


def _h(mode, func, types, args=(), kwargs=None):
    r = func(*args, **(kwargs or {}))
    while _PENDING:
        x, out, flag = _PENDING.pop()
        if flag.item() == 1:  # a real run, not an L2 ghost replay
            out.copy_(x * -1)
    return r


class _M(torch.overrides.TorchFunctionMode):
    __torch_function__ = _h


_M().__enter__()
