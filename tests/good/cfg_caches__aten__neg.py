"""Legal: the aten::neg oracle with its launch configuration cached across calls in four forms.

Red-team regression (L1 consistency): a module-level dict that caches launch configurations was
rejected by L1's module-cache rule while the same cache held in a closure, an lru_cache or a mutable
default argument passed. All four hold configuration only (block sizes, warps, coalesced dims, grids),
derived from shapes and strides, never from tensor values or results, and must pass:

* ``_BLOCKS``: a module-level dict, (n, device type) -> (block, warps);
* ``_next_pow2``: ``functools.lru_cache``;
* ``_coalesce``: a dict held in a closure, (shape, strides) -> coalesced dims;
* ``_grid``: a mutable default argument, (n, block) -> launch grid.

The kernels and wrappers are the oracle's (solutions/aten__neg.py).
"""

import functools

import torch
import triton
import triton.language as tl

_MAXD = 5


@triton.jit
def _f(x, p0, MODE: tl.constexpr):
    return x * -1


@triton.jit
def _contig_kernel(x_ptr, o_ptr, n, p0, COMPUTE: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr,
                   USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)
    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _strided_kernel(x_ptr, o_ptr, n, p0, s1, s2, s3, s4, xs0, xs1, xs2, xs3, xs4, os0, os1, os2, os3, os4,
                    COMPUTE: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # five dims, right-aligned (dim 4 innermost); dim 0 takes what is left of the linear index
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    i4 = lin % s4
    r = lin // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3 + i4 * xs4
    oo = i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3 + i4 * os4
    x = tl.load(x_ptr + xo, mask=mask, other=0).to(COMPUTE)
    tl.store(o_ptr + oo, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)


def _cdiv(a, b):
    return -(-a // b)


@functools.lru_cache(maxsize=None)
def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


_BLOCKS = {}


def _block(n, device):
    key = (n, device.type)
    if key not in _BLOCKS:
        _BLOCKS[key] = _block_uncached(n, device)
    return _BLOCKS[key]


def _grid(n, block, _memo={}):
    if (n, block) not in _memo:
        _memo[(n, block)] = (_cdiv(n, block),)
    return _memo[(n, block)]


def _block_uncached(n, device):
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(65536, max(16, _next_pow2(n))), 4
    if n >= (1 << 22):
        return 2048, 8
    if n >= (1 << 16):
        return 1024, 4
    return max(128, min(1024, _next_pow2(n))), 4


def _span(t):
    """Largest element offset reachable from t's data pointer, plus one."""
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _make_coalesce():
    plans = {}

    def coalesce(shape, strides):
        key = (tuple(shape), tuple(tuple(s) for s in strides))
        if key not in plans:
            plans[key] = _coalesce_uncached(shape, strides)
        return list(plans[key])
    return coalesce


def _coalesce_uncached(shape, strides):
    dims = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        st = [s[d] for s in strides]
        if dims and all(p == q * size for p, q in zip(dims[-1][1], st)):
            dims[-1] = (dims[-1][0] * size, st)
        else:
            dims.append((size, st))
    return dims


_coalesce = _make_coalesce()


def _launch(x, out, compute, p0=0.0, mode=0):
    """out[i] = f(x[i]) for every element; x has out's shape, any strides. Returns out itself."""
    n = out.numel()
    if n == 0:
        return out
    # bool tensors travel as their 0/1 bytes
    src = x.view(torch.uint8) if x.dtype == torch.bool else x
    dst = out.view(torch.uint8) if out.dtype == torch.bool else out
    block, warps = _block(n, out.device)
    grid = _grid(n, block)
    if src.is_contiguous() and dst.is_contiguous():
        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,
                             USE_I64=n + block >= 2 ** 31, num_warps=warps)
        return out
    dims = _coalesce(list(dst.shape), [list(src.stride()), list(dst.stride())])
    if len(dims) > _MAXD:
        src = src.contiguous()
        dims = _coalesce(list(dst.shape), [list(src.stride()), list(dst.stride())])
    if len(dims) > _MAXD:  # an out of more than five uncoalescable dims: through a dense buffer
        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)
        _launch(src, tmp, compute, p0, mode)
        dst.copy_(tmp)
        return out
    dims = [(1, [0, 0])] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in dims]
    xs = [d[1][0] for d in dims]
    ost = [d[1][1] for d in dims]
    big = max(n, _span(src), _span(dst)) + block >= 2 ** 31
    _strided_kernel[grid](src, dst, n, p0, *sizes[1:], *xs, *ost, COMPUTE=compute, MODE=mode, BLOCK=block,
                          USE_I64=big, num_warps=warps)
    return out


def _prepare_out(out, shape, result_dtype):
    if not torch.can_cast(result_dtype, out.dtype):
        raise RuntimeError(f"result type {result_dtype} can't be cast to the desired output type {out.dtype}")
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


def _compute(dt):
    if dt == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    if dt.is_floating_point:
        return tl.float64 if dt == torch.float64 else tl.float32
    return tl.int64


def _run(x, out):
    if x.is_complex():
        if not out.is_complex():
            raise RuntimeError(f"result type {x.dtype} can't be cast to the desired output type {out.dtype}")
        if out.dtype != x.dtype:
            raise NotImplementedError("neg: complex out of another dtype is not supported")
        compute = tl.float64 if x.dtype == torch.complex128 else tl.float32
        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)
        return out
    return _launch(x, out, _compute(x.dtype))


# ----------------------------------------------------------------------------------------------
# wrappers


def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    _compute(self.dtype)
    return _run(self, _prepare_out(out, self.shape, self.dtype))


# ----------------------------------------------------------------------------------------------
# JIT-only scalar overloads (TorchScript; never dispatched): Python unary minus


def neg_int(a):
    return -int(a)


def neg_float(a):
    return -float(a)


def neg_complex(a):
    return -complex(a)


def neg_Scalar(a):
    return -a
