"""Oracle Triton solution for aten::unsafe_split (spec: shared/spec/aten.md, section `aten::unsafe_split`).

Wrappers: unsafe_split_Tensor, unsafe_split_Tensor_out.

The functional form has nothing to compute: the chunks are views of self (self's sizes with the split
dim shortened, self's strides, the storage offset of each chunk's first element), built by PyTorch's
split view op in C++ (a Python as_strided loop costs microseconds per chunk). Tensor_out copies each
chunk into its preallocated out tensor with a 2-D tiled strided-copy kernel (one launch per chunk: out
tensors are separate allocations).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _chunk_copy_kernel(x_ptr, y_ptr, R, C, R1, R2, R3,
                       xs0, xs1, xs2, xs3, xsc, ys0, ys1, ys2, ys3, ysc,
                       NR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, USE_I64: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < R
    cmask = cols < C
    if USE_I64:
        rows = rows.to(tl.int64)
        cols = cols.to(tl.int64)
    rem = rows
    i = rem % R3
    rem = rem // R3
    xo = i * xs3
    yo = i * ys3
    if NR >= 2:
        i = rem % R2
        rem = rem // R2
        xo += i * xs2
        yo += i * ys2
    if NR >= 3:
        i = rem % R1
        rem = rem // R1
        xo += i * xs1
        yo += i * ys1
    if NR >= 4:
        xo += rem * xs0
        yo += rem * ys0
    m = rmask[:, None] & cmask[None, :]
    v = tl.load(x_ptr + xo[:, None] + cols[None, :] * xsc, mask=m)
    tl.store(y_ptr + yo[:, None] + cols[None, :] * ysc, v, mask=m)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _coalesce(sizes, xs, ys):
    dims = []
    for sz, a, b in zip(sizes, xs, ys):
        if sz == 1:
            continue
        if dims:
            psz, pa, pb = dims[-1]
            if pa == a * sz and pb == b * sz:
                dims[-1] = (psz * sz, a, b)
                continue
        dims.append((sz, a, b))
    return dims


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _copy(src, dst):
    """dst[...] = src[...] (same shape, any strides) with one Triton launch; bool as bytes."""
    n = dst.numel()
    if n == 0:
        return dst
    if src.dtype == torch.bool:
        src, dst = src.view(torch.uint8), dst.view(torch.uint8)
    d = _coalesce(list(dst.shape), list(src.stride()), list(dst.stride()))
    if not d:
        d = [(1, 0, 0)]
    if len(d) > 5:
        raise NotImplementedError("copy of more than 5 dims that do not coalesce")
    C, xsc, ysc = d[-1]
    rows = [(1, 0, 0)] * (5 - len(d)) + d[:-1]
    R = 1
    for r in rows:
        R *= r[0]
    use_i64 = max(_span(src), _span(dst), n) >= 2 ** 31 - 65536
    cpu = dst.device.type == "cpu"
    BLOCK_C = min(_next_pow2(C), 4096 if cpu else 256)
    BLOCK_R = max(1, min(_next_pow2(R), (65536 if cpu else 4096) // BLOCK_C))
    _chunk_copy_kernel[(_cdiv(R, BLOCK_R), _cdiv(C, BLOCK_C))](
        src, dst, R, C, rows[1][0], rows[2][0], rows[3][0],
        rows[0][1], rows[1][1], rows[2][1], rows[3][1], xsc,
        rows[0][2], rows[1][2], rows[2][2], rows[3][2], ysc,
        NR=max(1, len(d) - 1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, USE_I64=use_i64, num_warps=4)
    return dst


def _dim(x, dim):
    nd = x.dim()
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-nd, nd - 1, dim))
    return dim % nd


def _views(x, sizes, d):
    """The pieces of x along d with the given sizes: views sharing x's storage and strides."""
    shape = list(x.shape)
    strides = list(x.stride())
    off = x.storage_offset()
    out = []
    start = 0
    for s in sizes:
        shape[d] = s
        out.append(x.as_strided(list(shape), strides, off + start * strides[d]))
        start += s
    return out


def _copy_out(x, sizes, d, out):
    pieces = _views(x, sizes, d)
    if len(out) != len(pieces):
        raise RuntimeError("split_copy_Tensor_out() expected an out= argument of size %d, got size %d"
                           % (len(pieces), len(out)))
    for i, (p, o) in enumerate(zip(pieces, out)):
        if tuple(o.shape) != tuple(p.shape):
            raise RuntimeError("split_copy_Tensor_out(): out[%d] has shape %s, expected %s"
                               % (i, list(o.shape), list(p.shape)))
        if o.dtype != x.dtype:
            raise RuntimeError("split_copy_Tensor_out(): out[%d] has dtype %s, expected %s" % (i, o.dtype, x.dtype))
    for p, o in zip(pieces, out):
        _copy(p, o)


def _sizes(x, split_size, d):
    n = x.shape[d]
    if split_size < 0:
        raise RuntimeError("split expects split_size be non-negative, but got split_size=%d" % split_size)
    if split_size == 0 and n != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension size of %d" % n)
    num = max(-(-n // split_size), 1) if split_size > 0 else 1
    return [split_size] * (num - 1) + [n - split_size * (num - 1)]


# ----------------------------------------------------------------------------------------------
# wrappers

def unsafe_split_Tensor(self, split_size, dim=0):
    # PyTorch's split builds the same views in C++ (no Python loop over chunks); a view op other than
    # unsafe_split itself is allowed (the view rule), and it never reaches unsafe_split.
    return list(self.split(split_size, dim))


def unsafe_split_Tensor_out(self, split_size, dim=0, *, out):
    d = _dim(self, dim)
    _copy_out(self, _sizes(self, int(split_size), d), d, out)
