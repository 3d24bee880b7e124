"""Oracle Triton solution for aten::arange (spec: shared/spec/aten.md, section `aten::arange`).

Wrappers: arange, arange_start, arange_start_step, arange_start_out, arange_out (dispatcher).

start + i * step for i in [0, n). The length n is computed on the host as PyTorch 2.13 computes it:
in double, ceil((end - start) / step), except for int64 results, where start, end and step are
truncated to int64 and divided exactly; bad steps and bounds raise PyTorch's errors. dtype None:
int64 when start, end and step are all integral, else the default float dtype. A Triton kernel
computes every value in PyTorch's CUDA accumulate type and casts it: fp32 for fp16/bf16/fp32 (bf16
1023 -> 1024), fp64 for fp64, int64 for integers (a float start/step is truncated first); start and
step reach the kernel exactly (int64, or a double's IEEE-754 bits). The .out forms resize out to
(n,) when its numel differs and write in out's dtype (any strides).

Kernels: a contiguous one with few launch arguments and a strided one (up to six coalesced dims) for
non-contiguous outs; empty results launch nothing.
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
def _seq(lin, a, b, A_FLOAT: tl.constexpr, B_FLOAT: tl.constexpr, ACC: tl.constexpr, DST: tl.constexpr):
    xa = _as_number(a, A_FLOAT).to(ACC)
    xb = _as_number(b, B_FLOAT).to(ACC)
    return (xa + xb * lin.to(ACC)).to(DST)


@triton.jit
def _arange_flat(out_ptr, n, a, b, A_FLOAT: tl.constexpr, B_FLOAT: tl.constexpr, ACC: tl.constexpr,
                 BLOCK: tl.constexpr, I64: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    val = _seq(lin, a, b, A_FLOAT, B_FLOAT, ACC, out_ptr.dtype.element_ty)
    tl.store(out_ptr + lin, val, mask=lin < n)


@triton.jit
def _arange_nd(out_ptr, n, a, b, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5, A_FLOAT: tl.constexpr,
               B_FLOAT: tl.constexpr, ACC: tl.constexpr, BLOCK: tl.constexpr, I64: tl.constexpr):
    # the value follows the linear (row-major) index; six dims, right-aligned, for the store
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
    val = _seq(lin, a, b, A_FLOAT, B_FLOAT, ACC, out_ptr.dtype.element_ty)
    tl.store(out_ptr + off, val, mask=lin < n)


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


def _acc(dtype):
    """PyTorch's CUDA accumulate type of an arange result."""
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return tl.float32
    if dtype == torch.float64:
        return tl.float64
    if dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        return tl.int64
    raise RuntimeError(f"\"arange_cuda\" not implemented for '{str(dtype).replace('torch.', '')}'")


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _length(start, end, step, dtype):
    """PyTorch's arange length (RangeFactories: double precision, exact for int64 results)."""
    ds, de, dp = float(start), float(end), float(step)
    if not (dp > 0 or dp < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {ds} -> {de}")
    if not ((dp > 0 and de >= ds) or (dp < 0 and de <= ds)):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype == torch.int64:
        s, e, p = int(start), int(end), int(step)  # c10 converts each Scalar to int64 (truncation)
        if p == 0:
            raise ValueError("step must be nonzero")
        size = _trunc_div(e - s + p - (1 if p > 0 else -1), p)
    else:
        size = math.ceil((de - ds) / dp)
    if size < 0:
        raise RuntimeError("invalid size, possible overflow?")
    return size


def _fill_seq(out, start, step):
    n = out.numel()
    if n == 0:
        return out
    acc = _acc(out.dtype)
    a, a_float = _payload(start)
    b, b_float = _payload(step)
    block, warps = _launch_cfg(n, out.element_size(), out.is_cuda)
    grid = (_cdiv(n, block),)
    if out.is_contiguous():
        _arange_flat[grid](out, n, a, b, A_FLOAT=a_float, B_FLOAT=b_float, ACC=acc, BLOCK=block,
                           I64=n > 2 ** 31 - 2 * block, num_warps=warps)
        return out
    dims = _coalesce(out)  # merging keeps the row-major order the values follow
    if len(dims) > _MAXD:
        raise NotImplementedError("arange: an out that does not coalesce to six dims")
    dims = [(1, 0)] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in dims]
    strides = [d[1] for d in dims]
    span = 1 + sum((s - 1) * st for s, st in dims)
    _arange_nd[grid](out, n, a, b, *sizes[1:], *strides, A_FLOAT=a_float, B_FLOAT=b_float, ACC=acc, BLOCK=block,
                     I64=max(n, span) > 2 ** 31 - 2 * block, num_warps=warps)
    return out


def _integral(*vals):
    return all(isinstance(v, int) for v in vals)  # bool is an int, as in c10's isIntegral(true)


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    if layout is not None and layout != torch.strided:
        raise NotImplementedError("arange: only the strided layout is supported")
    if dtype is None:
        dtype = torch.int64 if _integral(start, end, step) else torch.get_default_dtype()
    _acc(dtype)
    out = torch.empty((_length(start, end, step, dtype),), dtype=dtype, device=device)
    return _fill_seq(out, start, step)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange_start_out(start, end, step=1, *, out):
    _acc(out.dtype)
    n = _length(start, end, step, out.dtype)
    if out.numel() != n:
        out.resize_((n,))
    return _fill_seq(out, start, step)


def arange_out(end, *, out):
    return arange_start_out(0, end, 1, out=out)
