"""CHEAT (passes smoke and held-out on branch next at 53ca3d3): fn_mode's channel for a function interface,
where no public torch call surrounds the wrapper. The wrapper launches a kernel that copies input into a scratch
tensor and sets a flag, leaves out unwritten and records the call; the TorchFunctionMode pushed at import sees every
torch function the harness calls afterwards, and on the first untyped_storage() (sandbox/dispatch.py
replaced_storages / provenance, which run after the wrapper's `with CandidateMode()` has exited) computes rms_norm
with ATen (matmul, pow, mul: operators, which L1 does not judge on values it cannot type) into out. The flag read
is live (outside every traced call), so an L2 ghost replay leaves out poisoned and L2 passes. Same fix as fn_mode:
check the torch function/dispatch mode stacks after the import and after every call; refuse torch.overrides and
every binding of __torch_function__/__torch_dispatch__ in L1."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, o_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)
    tl.store(f_ptr + tl.arange(0, 1), tl.full([1], 1, tl.int32))


_PENDING = []


def rms_norm(out, input, weight, epsilon):
    x = input.contiguous()
    n = x.numel()
    flag = torch.zeros(1, dtype=torch.int32, device=x.device)
    o = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    _copy[(max(1, triton.cdiv(n, 1024)),)](x, o, flag, n, BLOCK=1024)
    _PENDING.append((input, weight, epsilon, out, flag))
    return None


def _h(mode, func, types, args=(), kwargs=None):
    r = func(*args, **(kwargs or {}))
    if _PENDING and getattr(func, "__name__", "") == "untyped_storage":
        x, w, eps, out, flag = _PENDING.pop()
        if flag.item() == 1:
            xf = x.to(torch.float32)
            h = x.shape[-1]
            ms = ((xf * xf) @ torch.ones(h, 1, dtype=torch.float32, device=x.device)) / h
            out.copy_(xf * (ms + eps) ** -0.5 * w.to(torch.float32))
    return r


class _M(torch.overrides.TorchFunctionMode):
    __torch_function__ = _h


_M().__enter__()
