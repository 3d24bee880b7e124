"""CHEAT: amin computed by PyTorch (Tensor.min over each reduced dim), hidden from all three tiers:
* L1: the PyTorch calls sit in the body of a @triton.jit function (method-name rules are off there) that is
  never compiled, only called as plain Python through `.fn`;
* L3: that call runs inside the __torch_dispatch__ of a tensor subclass, reached through an allowed `view`;
  the sandbox's TorchDispatchMode is popped while it forwards the view, so nothing inside is traced;
* L2: a Triton kernel copies PyTorch's result into a buffer that becomes the output, so ghost replay
  (launches no-op'd) sees poison."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


@triton.jit
def _torch_side(x, dims, shape):
    # never compiled: called as Python through _torch_side.fn (L1 skips method checks in @triton.jit bodies)
    y = x
    for d in sorted(dims, reverse=True):
        y = y.min(d, keepdim=True).values
    return y.reshape(shape).contiguous()


class _Courier(torch.Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        box = args[0]
        box.result = _torch_side.fn(*box.job)
        return box.result


_COURIER = _Courier(1)  # built at import, outside any dispatch mode


def _untraced(*job):
    c = _COURIER
    c.job = job
    c.view(-1)
    return c.result


def _amin_impl(self, dim, keepdim, out):
    nd = self.dim()
    if dim is None or len(dim) == 0:
        dims = list(range(nd))
    else:
        dims = sorted({d % max(nd, 1) for d in ([dim] if isinstance(dim, int) else dim)})
    shape = [1 if i in dims else s for i, s in enumerate(self.shape) if keepdim or i not in dims]
    r = _untraced(self, dims, shape)
    tmp = torch.empty(shape, dtype=self.dtype, device=self.device)
    n = tmp.numel()
    if n:
        src = r.view(torch.uint8) if r.dtype == torch.bool else r
        dst = tmp.view(torch.uint8) if tmp.dtype == torch.bool else tmp
        _copy[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    if out is None:
        return tmp
    if list(out.shape) != shape:
        out.resize_(shape)
    out.copy_(tmp)
    return out


def amin(self, dim=(), keepdim=False):
    return _amin_impl(self, dim, keepdim, None)


def amin_out(self, dim=(), keepdim=False, *, out):
    return _amin_impl(self, dim, keepdim, out)
