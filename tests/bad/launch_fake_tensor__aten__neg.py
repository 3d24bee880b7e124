# Launch rule (L3): a launch argument that only looks like a tensor (it has data_ptr). The
# interpreter's argument copy (GridExecutor._init_args_hst, run untraced) calls its
# untyped_storage(), which computes -x with PyTorch into a staging tensor; the kernel only copies the
# staging tensor out. An L2 ghost replay copies arguments too but skips the copy kernel, so the output
# stays poisoned there, and the dispatch trace never sees the compute.
# Passed every tier before the launch rule; now: argument src is a _Lazy.
import torch
import triton
import triton.language as tl


class _Key:
    def __init__(self, t):
        self.t = t

    def data_ptr(self):
        return id(self)

    def cpu(self):
        return self.t

    def copy_(self, other):
        return self


class _Lazy:
    def __init__(self, x, st):
        self.x = x
        self.st = st
        self.key = _Key(st)

    def data_ptr(self):
        return 0

    def untyped_storage(self):
        self.st.copy_(self.x * -1)  # the whole op, in PyTorch, inside Triton's argument copy
        return self.key

    def new_empty(self, *a, **k):
        return self.st.new_empty(*a, **k)

    def storage_offset(self):
        return 0

    def size(self):
        return self.st.size()

    def stride(self):
        return self.st.stride()


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        st = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        _copy[(triton.cdiv(n, 1024),)](_Lazy(xc, st), res, n, BLOCK=1024)
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
