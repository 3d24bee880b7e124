"""Oracle Triton solution for aten::zeros (spec: shared/spec/aten.md, section `aten::zeros`).

Wrappers: zeros, zeros_out (dispatcher); zeros_names, zeros_names_out (Dimname overloads PyTorch
2.13 lacks: plain functions).

A contiguous tensor of zeros from torch.empty, written by a Triton fill kernel (dtype None: the
default float dtype). zeros.out resizes out to size (a no-op when the shape matches, which keeps
out's strides) and fills it. torch.zeros/full/fill_ would be PyTorch doing the work (and dispatch
recursion).

Kernels: a contiguous fill (also used for dense outputs in any dim order, through a flat view of
their storage range) with few launch arguments, 16-byte vector stores and about 32 KB per program on
GPUs; a strided kernel (up to six coalesced dims) for non-dense outputs. Empty outputs launch
nothing.
"""
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


def _payload(v):
    return int(v), False


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


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    if layout is not None and layout != torch.strided:
        raise NotImplementedError("zeros: only the strided layout is supported")
    dtype = torch.get_default_dtype() if dtype is None else dtype
    return _write(torch.empty(size, dtype=dtype, device=device), 0)


def zeros_out(size, *, out):
    return _write(_resize_out(out, size), 0)


def zeros_names(size, *, names, dtype=None, layout=None, device=None, pin_memory=None):
    if names is not None:
        raise NotImplementedError("named tensors are not supported")
    return zeros(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def zeros_names_out(size, *, names, out):
    if names is not None:
        raise NotImplementedError("named tensors are not supported")
    return zeros_out(size, out=out)
