"""LEGAL (false-rejection hunt 32): aten::hardsigmoid launched through FlagGems' ``LibEntry`` pattern: ``@libentry()``
over ``@triton.jit`` wraps the kernel in ``class LibEntry(triton.KernelInterface)``, whose ``run`` records launches per
argument dtypes and forwards to ``self.fn.run(..., grid=grid, warmup=warmup)``; the wrapper launches with
``kernel[grid](...)`` (KernelInterface's ``__getitem__``) and a grid lambda; NaN kept with
``propagate_nan=tl.PropagateNan.ALL``. Red team 31's rule on library base classes refused the base: "triton.KernelInterface
subclasses triton.KernelInterface ... (rule monkey-patch)" and "uses triton.KernelInterface, Triton's internals outside
its language" (introspection). KernelInterface's own code is only __getitem__ -> self.run and warmup, and the launch
rule admits only Triton's own kernel types as kernel values; it is now a base class a submission may use."""
import torch
import triton
import triton.language as tl


class LibEntry(triton.KernelInterface):
    """A launcher in front of a Triton kernel (FlagGems' pattern): it remembers the grids it was launched with, per
    argument dtypes, and forwards every launch to the kernel."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.launches = {}

    def run(self, *args, grid, warmup=False, **kwargs):
        key = tuple(str(a.dtype) for a in args if isinstance(a, torch.Tensor))
        self.launches[key] = self.launches.get(key, 0) + 1
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)


def libentry():
    def decorator(fn):
        return LibEntry(fn)
    return decorator


@libentry()
@triton.jit
def hardsigmoid_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    xf = x.to(tl.float32) if x.dtype != tl.float64 else x
    y = tl.minimum(tl.maximum(xf + 3.0, 0.0, propagate_nan=tl.PropagateNan.ALL), 6.0,
                   propagate_nan=tl.PropagateNan.ALL) / 6.0
    tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=m)


def hardsigmoid(self):
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"hardsigmoid_out\" not implemented for '{self.dtype}'")
    x = self.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        hardsigmoid_kernel[grid](x, out, n, BLOCK=1024)
    return out


def hardsigmoid_out(self, *, out):
    res = hardsigmoid(self)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
