"""Oracle Triton solution for aten::full (spec: shared/spec/aten.md, section `aten::full`).

Wrappers: full, full_out (dispatcher); full_names, full_names_out (Dimname overloads PyTorch 2.13
lacks: plain functions).

A contiguous tensor filled with fill_value: torch.empty, then a Triton fill kernel. dtype None: bool
for a bool value, int64 for an int, the default float dtype for a float. The value reaches the
kernel exactly (an int64, or a double's IEEE-754 bits) and is converted there as PyTorch's c10
converts a Scalar: to fp16/bf16 through fp32 (two round-to-nearest-even steps), to integers by
truncation, to bool as value != 0. Values a dtype cannot hold (a finite value beyond a float dtype's
range; NaN, infinities or out-of-range values for integers) raise as CUDA's fill does. full.out
resizes out to size (a no-op when it matches, which keeps out's strides and dtype) and fills it.

Kernels: a contiguous fill (also used for dense outputs in any dim order, through a flat view of
their storage range) with few launch arguments, 16-byte vector stores and about 32 KB per program on
GPUs; a strided kernel (up to six coalesced dims) for non-dense outputs. Empty outputs launch
nothing.
"""
import math

import torch
import triton
import triton.language as tl

_MAXD = 6


@triton.jit
def _as_number(v, IS_FLOAT: tl.constexpr):
    """A Python number passed as an int64 payload: the integer itself, or a double's IEEE-754 bits."""
    x = tl.cast(v, tl.int64)
    if IS_FLOAT:
        x = tl.cast(x, tl.float64, bitcast=True)
    return x


@triton.jit
def _convert(x, IS_BOOL: tl.constexpr, DST: tl.constexpr):
    """One value converted to DST as PyTorch (c10) converts it: nonzero -> 1 for bool (stored as
    uint8); to fp16/bf16 through fp32 (two round-to-nearest-even steps); else a direct cast (floats
    to integers truncate)."""
    if IS_BOOL:
        y = (x != 0).to(DST)
    elif DST.is_fp16() or DST.is_bf16():
        y = x.to(tl.float32).to(DST)
    else:
        y = x.to(DST)
    return y


@triton.jit
def _fill_flat(out_ptr, n, v, IS_FLOAT: tl.constexpr, IS_BOOL: tl.constexpr, BLOCK: tl.constexpr,
               I64: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    DST: tl.constexpr = out_ptr.dtype.element_ty
    val = _convert(_as_number(v, IS_FLOAT), IS_BOOL, DST)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], DST) + val, mask=offs < n)


@triton.jit
def _fill_nd(out_ptr, n, v, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5, IS_FLOAT: tl.constexpr,
             IS_BOOL: tl.constexpr, BLOCK: tl.constexpr, I64: tl.constexpr):
    # six dims, right-aligned (dim 5 innermost); dim 0 takes what is left of the linear index
    pid = tl.program_id(0)
    if I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    i5 = lin % s5
    r = lin // s5
    i4 = r % s4
    r = r // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    off = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5
    DST: tl.constexpr = out_ptr.dtype.element_ty
    val = _convert(_as_number(v, IS_FLOAT), IS_BOOL, DST)
    tl.store(out_ptr + off, tl.zeros([BLOCK], DST) + val, mask=lin < n)


# ----------------------------------------------------------------------------------------------
# host helpers: argument encoding and checks, metadata, views and allocation only


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _launch_cfg(n, esize, on_gpu):
    """(BLOCK, num_warps): on GPUs about 32 KB written per program (16-byte vector stores) and at
    least ~4 programs per SM on large outputs; one small program for tiny ones."""
    if not on_gpu:  # Triton CPU interpreter: few, large programs
        return min(65536, max(16, _next_pow2(n))), 4
    block = min(32768 // esize, max(512, _next_pow2(_cdiv(n, 512))))
    if n <= block:
        block = max(32, _next_pow2(n))
    nbytes = block * esize
    return block, (8 if nbytes >= 16384 else (4 if nbytes >= 2048 else 1))


_COMPLEX = (torch.complex32, torch.complex64, torch.complex128)


def _flat_view(t):
    """t itself when contiguous; a contiguous 1-D view of all of t's elements when t is
    non-overlapping and dense in another order (they then fill the storage range that starts at
    its first element); None otherwise."""
    if t.is_contiguous():
        return t
    dims = sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1)
    expect = 1
    for st, sz in dims:
        if st != expect:
            return None
        expect *= sz
    return t.as_strided((t.numel(),), (1,))


def _coalesce(t):
    """(size, stride) pairs of t with size-1 dims dropped and mergeable neighbours merged."""
    out = []
    for sz, st in zip(t.shape, t.stride()):
        if sz == 1:
            continue
        if out and out[-1][1] == st * sz:
            out[-1] = (out[-1][0] * sz, st)
        else:
            out.append((sz, st))
    return out


def _f64_bits(v):
    """The IEEE-754 bit pattern of the double v as a signed int64. Triton passes Python floats to
    kernels as fp32 (and its interpreter as Python floats), so the exact double travels as bits."""
    if v != v:
        return 0x7FF8000000000000
    neg = math.copysign(1.0, v) < 0
    a = -v if neg else v
    if a == math.inf:
        body = 0x7FF << 52
    elif a == 0.0:
        body = 0
    else:
        m, e = math.frexp(a)  # a = m * 2**e, 0.5 <= m < 1
        if e >= -1021:  # a normal double
            body = ((e + 1022) << 52) | (int(math.ldexp(m, 53)) - (1 << 52))
        else:  # subnormal: an integer multiple of 2**-1074
            body = int(math.ldexp(a, 1074))
    return body - (1 << 63) if neg else body


def _payload(v):
    """(payload, is_float) of a Python Scalar: bools and ints as themselves, floats as their bits."""
    if isinstance(v, bool):
        return int(v), False
    if isinstance(v, int):
        return v, False
    if isinstance(v, float):
        return _f64_bits(v), True
    raise NotImplementedError(f"a fill value of type {type(v).__name__} is not supported")


_INT_RANGE = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int16: (-32768, 32767),
              torch.int32: (-2 ** 31, 2 ** 31 - 1), torch.int64: (-2 ** 63, 2 ** 63 - 1)}
_FLOAT_MAX = {torch.float16: 65504.0, torch.bfloat16: 3.3895313892515355e38, torch.float32: 3.4028234663852886e38}


def _check_convertible(v, dtype):
    """Raise as PyTorch's fill does when the Scalar v cannot be converted to dtype (c10's checked
    conversion, which CUDA's fill always applies): a finite value beyond a floating dtype's largest
    finite value (infinities and NaN pass); for integer dtypes, a value outside the range, NaN or an
    infinity (uint8 wraps negative integers down to -255); bool and fp64 never fail."""
    if dtype == torch.bool or dtype == torch.float64:
        return
    if dtype in _FLOAT_MAX:
        if v == v and abs(v) != math.inf and abs(v) > _FLOAT_MAX[dtype]:
            raise RuntimeError(f"value cannot be converted to type {dtype} without overflow")
        return
    if dtype not in _INT_RANGE:
        raise NotImplementedError(f"dtype {dtype} is not supported")
    lo, hi = _INT_RANGE[dtype]
    if isinstance(v, float):
        bad = v != v or abs(v) == math.inf or v < lo or v > hi
    elif dtype == torch.uint8:
        bad = v > hi or v < -hi
    else:
        bad = v < lo or v > hi
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dtype} without overflow")


def _write(out, v):
    """Write the Python number v into every element of out (any strides; gaps untouched); out."""
    n = out.numel()
    if n == 0:
        return out
    is_bool = out.dtype == torch.bool
    dst = out.view(torch.uint8) if is_bool else out
    if dst.dtype in _COMPLEX:
        raise NotImplementedError("complex outputs are not supported")
    payload, is_float = _payload(v)
    block, warps = _launch_cfg(n, dst.element_size(), dst.is_cuda)
    grid = (_cdiv(n, block),)
    flat = _flat_view(dst)
    if flat is not None:
        _fill_flat[grid](flat, n, payload, IS_FLOAT=is_float, IS_BOOL=is_bool, BLOCK=block,
                         I64=n > 2 ** 31 - 2 * block, num_warps=warps)
        return out
    dims = _coalesce(dst)
    if len(dims) > _MAXD:  # very high rank: one launch per leading index
        for i in range(out.shape[0]):
            _write(out[i], v)
        return out
    dims = [(1, 0)] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in dims]
    strides = [d[1] for d in dims]
    span = 1 + sum((s - 1) * st for s, st in dims)
    _fill_nd[grid](dst, n, payload, *sizes[1:], *strides, IS_FLOAT=is_float, IS_BOOL=is_bool, BLOCK=block,
                   I64=max(n, span) > 2 ** 31 - 2 * block, num_warps=warps)
    return out


def _resize_out(out, size):
    """out resized to size as PyTorch's out= variants do (a no-op when the shape already matches,
    which keeps out's strides; contiguous otherwise)."""
    size = [int(s) for s in size]
    if list(out.shape) != size:
        out.resize_(size)
    return out


def _default_dtype(value):
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    if isinstance(value, float):
        return torch.get_default_dtype()
    raise NotImplementedError(f"full: a fill value of type {type(value).__name__} is not supported")


def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    if layout is not None and layout != torch.strided:
        raise NotImplementedError("full: only the strided layout is supported")
    dtype = _default_dtype(fill_value) if dtype is None else dtype
    _check_convertible(fill_value, dtype)
    return _write(torch.empty(size, dtype=dtype, device=device), fill_value)


def full_out(size, fill_value, *, out):
    _check_convertible(fill_value, out.dtype)
    return _write(_resize_out(out, size), fill_value)


def full_names(size, fill_value, *, names, dtype=None, layout=None, device=None, pin_memory=None):
    if names is not None:
        raise NotImplementedError("named tensors are not supported")
    return full(size, fill_value, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def full_names_out(size, fill_value, *, names, out):
    if names is not None:
        raise NotImplementedError("named tensors are not supported")
    return full_out(size, fill_value, out=out)
