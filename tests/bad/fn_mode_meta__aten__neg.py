"""CHEAT (passes smoke on branch next at 53ca3d3): fn_mode with the handler put into the class namespace by a
metaclass function under a computed name ("__torch_" + "function__"), so that no identifier, attribute or string
literal of the file spells __torch_function__: an L1 rule that matches the handler names (a def, an assignment, a
string key) does not see it. Only refusing torch.overrides itself in L1, or the run-time check of the mode stacks
(see fn_mode), catches this form."""
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


def _meta(name, bases, ns):
    ns["__torch_" + "function__"] = _h
    return type(bases[0])(name, bases, ns)


class _M(torch.overrides.TorchFunctionMode, metaclass=_meta):
    pass


_M().__enter__()
