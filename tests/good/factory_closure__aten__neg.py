"""Legal: aten::neg with kernels made in factory functions that close over their variables: a block size
(as ``tl.constexpr``), a jit function chosen by the factory's caller, a dtype, and a local import of
``triton.language`` (the style of the harness's own L2-flush kernel). Kernels are made once at import and
lazily per dtype through ``functools.lru_cache``. The launch rule compiles each kernel's source in a scope
like its own, so the closure reads compare as closure reads (issue 11)."""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _negate(x):
    return -x


def make_unary(op, block):
    import triton.language as tll

    BLOCK = tl.constexpr(block)

    @triton.jit
    def unary(x_ptr, o_ptr, n):
        offs = tll.program_id(0).to(tll.int64) * BLOCK + tll.arange(0, BLOCK)
        mask = offs < n
        tl.store(o_ptr + offs, op(tl.load(x_ptr + offs, mask=mask, other=0)), mask=mask)

    return unary, block


_NEG_SMALL = make_unary(_negate, 128)


@functools.lru_cache(maxsize=None)
def _kernel_for(dtype_name: str):
    """A kernel per dtype family (floats get wider blocks): made on first use, reused after."""
    return make_unary(_negate, 1024 if "float" in dtype_name else 256)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        kern, block = _NEG_SMALL if n <= 128 else _kernel_for(str(x.dtype))
        kern[(triton.cdiv(n, block),)](xc, res, n)
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
