"""Oracle Triton solution for aten::index_select (spec: shared/spec/aten.md, section
`aten::index_select`).

Wrappers: index_select, index_select_out.

out = self with dim `dim` replaced by self[index[j]]. The source is viewed as (O, D, I) (the
coalesced dims before / after `dim`), the output as (O, N, I) with N = index.numel(). A 1-D
vectorised gather kernel walks the output in flat order (coalesced stores), decomposes the flat
position into (o, n, i), reads index[n] (int32 or int64, any stride) and copies
self[o, index[n], i]. Values are copied bit for bit. An empty index gives a size-0 dim and no launch.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(x_ptr, idx_ptr, y_ptr, total, N, I, D,
                   sxo, sxd, sxi, syo, syn, syi, sidx,
                   BLOCK: tl.constexpr, I_IS_ONE: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < total
    if I_IS_ONE:
        i = lin * 0
        on = lin
    else:
        i = lin % I
        on = lin // I
    n = on % N
    o = on // N
    idx = tl.load(idx_ptr + n * sidx, mask=mask, other=0).to(tl.int64)
    valid = mask & (idx >= 0) & (idx < D)
    if not USE_I64:
        idx = idx.to(tl.int32)
    v = tl.load(x_ptr + o * sxo + idx * sxd + i * sxi, mask=valid)
    tl.store(y_ptr + o * syo + n * syn + i * syi, v, mask=mask)


@triton.jit
def _copy_nd_kernel(src_ptr, dst_ptr, n,
                    s1, s2, s3, s4, s5, s6, s7,
                    sa0, sa1, sa2, sa3, sa4, sa5, sa6, sa7,
                    so0, so1, so2, so3, so4, so5, so6, so7,
                    NDIM: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    rem = lin
    i = rem % s7
    rem = rem // s7
    oa = i * sa7
    oo = i * so7
    if NDIM >= 2:
        i = rem % s6
        rem = rem // s6
        oa += i * sa6
        oo += i * so6
    if NDIM >= 3:
        i = rem % s5
        rem = rem // s5
        oa += i * sa5
        oo += i * so5
    if NDIM >= 4:
        i = rem % s4
        rem = rem // s4
        oa += i * sa4
        oo += i * so4
    if NDIM >= 5:
        i = rem % s3
        rem = rem // s3
        oa += i * sa3
        oo += i * so3
    if NDIM >= 6:
        i = rem % s2
        rem = rem // s2
        oa += i * sa2
        oo += i * so2
    if NDIM >= 7:
        i = rem % s1
        rem = rem // s1
        oa += i * sa1
        oo += i * so1
    if NDIM >= 8:
        oa += rem * sa0
        oo += rem * so0
    v = tl.load(src_ptr + oa, mask=mask)
    tl.store(dst_ptr + oo, v.to(dst_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()

_MAXD = 8

def _coalesce(sizes, strides_list):
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides_list]
        if dims:
            psz, pst = dims[-1]
            if all(pst[k] == st[k] * sz for k in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _strided_copy(src, dst):
    """dst[...] = src[...] (same shape, any strides) with a Triton kernel."""
    n = dst.numel()
    if n == 0:
        return dst
    dims = _coalesce(list(dst.shape), [list(src.stride()), list(dst.stride())])
    if len(dims) > _MAXD:
        raise NotImplementedError("strided copy of rank > 8")
    full = [(1, [0, 0])] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in full]
    use_i64 = max(n, _span(src), _span(dst)) >= 2 ** 31 - 65536
    BLOCK = 65536 if dst.device.type == "cpu" else 1024
    BLOCK = min(BLOCK, max(16, _next_pow2(n)))
    _copy_nd_kernel[(_cdiv(n, BLOCK),)](
        src, dst, n, *sizes[1:], *[d[1][0] for d in full], *[d[1][1] for d in full],
        NDIM=max(1, len(dims)), BLOCK=BLOCK, USE_I64=use_i64, num_warps=4)
    return dst


def _group(sizes, sx, sy):
    g = _coalesce(sizes, [sx, sy])
    if len(g) == 0:
        return (1, 0, 0)
    if len(g) == 1:
        return (g[0][0], g[0][1][0], g[0][1][1])
    return None


def _span(t):
    if t.is_contiguous():
        return t.numel()
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _gather(x, dim, index, y):
    """y (the output shape, any strides) = index_select(x, dim, index)."""
    total = y.numel()
    if total == 0:
        return y
    if x.dim() == 0:
        _gather(x.view(1), 0, index, y.view(1))
        return y
    shape = list(x.shape)
    yshape = list(y.shape)
    xs, ys = list(x.stride()), list(y.stride())
    before = _group(shape[:dim], xs[:dim], ys[:dim])
    after = _group(shape[dim + 1:], xs[dim + 1:], ys[dim + 1:])
    if before is None or after is None:
        # layouts that do not coalesce: dense copy of the source; a dense output would coalesce
        x = x.contiguous()
        xs = list(x.stride())
        before = _group(shape[:dim], xs[:dim], ys[:dim])
        after = _group(shape[dim + 1:], xs[dim + 1:], ys[dim + 1:])
        if before is None or after is None:
            tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
            _gather(x, dim, index, tmp)
            return _strided_copy(tmp, y)
    O, sxo, syo = before
    I, sxi, syi = after
    N = yshape[dim]
    D = shape[dim]
    sxd, syn = xs[dim], ys[dim]
    sidx = index.stride(0) if index.dim() == 1 else 0
    use_i64 = max(total, _span(x), _span(y)) >= 2 ** 31 - 65536
    if x.device.type == "cpu":
        BLOCK = min(65536, max(16, _next_pow2(total)))
        warps = 4
    else:
        BLOCK = 1024 if total >= (1 << 20) else max(128, min(1024, _next_pow2(total)))
        warps = 4
    _gather_kernel[(_cdiv(total, BLOCK),)](
        x, index, y, total, N, I, D, sxo, sxd, sxi, syo, syn, syi, sidx,
        BLOCK=BLOCK, I_IS_ONE=(I == 1), USE_I64=use_i64, num_warps=warps)
    return y


def _check(self, dim, index):
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (torch.int32, torch.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    nd = self.dim()
    rng = max(nd, 1)
    if not -rng <= dim < rng:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-rng, rng - 1, dim))
    dim = dim % rng
    if nd == 0 and index.numel() != 1:
        raise IndexError("index_select(): Index to scalar can have only 1 value, got %d value(s)"
                         % index.numel())
    shape = list(self.shape)
    if nd > 0:
        shape[dim] = index.numel()
    return dim, shape


# ----------------------------------------------------------------------------------------------
# wrappers

def index_select(self, dim, index):
    dim, shape = _check(self, dim, index)
    y = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _gather(self, dim, index, y)


def index_select_out(self, dim, index, *, out):
    dim, shape = _check(self, dim, index)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _gather(self, dim, index, out)
