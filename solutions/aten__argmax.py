"""Oracle Triton solution for aten::argmax (spec: shared/spec/aten.md, section `aten::argmax`).

Wrappers: argmax, argmax_out.

The input is viewed as (O, R, I): R is the reduced dim (or, for dim=None, the whole tensor as one
row-major run), O and I the (coalesced) kept dims around it, I the one with the smaller stride
(vectorised). A program streams [BLOCK_R, BLOCK_I] tiles along R; per tile and column it finds the
maximum with plain tree reductions (tl.max, then the lowest index holding it via tl.min over the
indices), where a column holding NaN takes its lowest NaN index (NaN beats every number), and
merges that with the running (value, index) pair: a larger value wins, and among equal values the
lower index, so the first occurrence wins as PyTorch specifies. Floating values compare in fp32
(fp64 for fp64; exact), integers in int32/int64 (bool is an error, as in PyTorch). When each
program would stream a lot of memory and there are too few programs to fill the GPU, R is split:
partial (value, index) pairs go to a workspace and a second launch of the same kernel merges them.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200


@triton.jit
def _better(v1, i1, v2, i2):
    """Where (v1, i1) beats (v2, i2): NaN beats numbers, a larger value wins, ties go to the lower index."""
    n1 = v1 != v1
    n2 = v2 != v2
    gt = (v1 > v2) | (n1 & (n2 == 0))
    eq = (v1 == v2) | (n1 & n2)
    return gt | (eq & (i1 < i2))


@triton.jit
def _merge_tile(x, ridx, best_v, best_i, IS_FLOAT: tl.constexpr, BIG: tl.constexpr):
    """Merge a [BLOCK_R, BLOCK_I] tile (values, indices; padding holds the lowest value and index BIG) into the
    running (value, index) pair per column: the tile's maximum and the lowest index holding it, found with
    plain tree reductions (a column holding NaN takes its lowest NaN index)."""
    mx = tl.max(x, axis=0)
    hit = x == mx[None, :]
    if IS_FLOAT:
        isn = x != x
        has_nan = tl.max(isn.to(tl.int32), axis=0) > 0
        hit = tl.where(has_nan[None, :], isn, hit)
        mx = tl.where(has_nan, float("nan"), mx)
    ti = tl.min(tl.where(hit, ridx, BIG), axis=0)
    take = _better(mx, ti, best_v, best_i)
    return tl.where(take, mx, best_v), tl.where(take, ti, best_i)


@triton.jit
def _argmax_kernel(x_ptr, xi_ptr, v_ptr, i_ptr, R, I, n_ib, SPLIT, CHUNK,
                   sxo, sxr, sxi, syo, sys, syi,
                   ACC: tl.constexpr, LOW: tl.constexpr, IS_FLOAT: tl.constexpr, IDX: tl.constexpr,
                   BIG: tl.constexpr, FROM_WS: tl.constexpr, TO_WS: tl.constexpr, EVEN_I: tl.constexpr,
                   BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    sp = pid % SPLIT
    t = pid // SPLIT
    o = t // n_ib
    ib = t % n_ib
    i = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    imask = i < I
    if USE_I64:
        o = o.to(tl.int64)
        i = i.to(tl.int64)
        sp = sp.to(tl.int64)
    r_lo = sp * CHUNK
    r_hi = tl.minimum(r_lo + CHUNK, R)
    best_v = tl.full([BLOCK_I], LOW, ACC)
    best_i = tl.full([BLOCK_I], BIG, IDX)
    # full tiles: no mask along R (only along I when I is ragged), so contiguous runs load as vectors
    n_full = (r_hi - r_lo) // BLOCK_R
    for j in range(0, n_full):
        r = r_lo + j * BLOCK_R + tl.arange(0, BLOCK_R)
        offs = o * sxo + r[:, None] * sxr + i[None, :] * sxi
        if EVEN_I:
            x = tl.load(x_ptr + offs).to(ACC)
            if FROM_WS:
                ridx = tl.load(xi_ptr + offs).to(IDX)
            else:
                ridx = r.to(IDX)[:, None] + tl.zeros([BLOCK_R, BLOCK_I], IDX)
        else:
            x = tl.load(x_ptr + offs, mask=imask[None, :], other=0).to(ACC)
            x = tl.where(imask[None, :], x, LOW)
            if FROM_WS:
                ridx = tl.load(xi_ptr + offs, mask=imask[None, :], other=0).to(IDX)
            else:
                ridx = r.to(IDX)[:, None] + tl.zeros([BLOCK_R, BLOCK_I], IDX)
            ridx = tl.where(imask[None, :], ridx, BIG)
        best_v, best_i = _merge_tile(x, ridx, best_v, best_i, IS_FLOAT, BIG)
    # the ragged tail (empty when the chunk is a whole number of tiles)
    r = r_lo + n_full * BLOCK_R + tl.arange(0, BLOCK_R)
    mask = (r[:, None] < r_hi) & imask[None, :]
    offs = o * sxo + r[:, None] * sxr + i[None, :] * sxi
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(ACC)
    x = tl.where(mask, x, LOW)
    if FROM_WS:
        ridx = tl.load(xi_ptr + offs, mask=mask, other=0).to(IDX)
    else:
        ridx = r.to(IDX)[:, None] + tl.zeros([BLOCK_R, BLOCK_I], IDX)
    ridx = tl.where(mask, ridx, BIG)
    best_v, best_i = _merge_tile(x, ridx, best_v, best_i, IS_FLOAT, BIG)
    yoff = o * syo + sp * sys + i * syi
    if TO_WS:
        tl.store(v_ptr + yoff, best_v, mask=imask)
    tl.store(i_ptr + yoff, best_i.to(tl.int64), mask=imask)


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


def _span(t):
    if t.is_contiguous():
        return t.numel()
    if t.numel() == 0:
        return 0
    span = 1
    for s, st in zip(t.shape, t.stride()):
        span += (s - 1) * abs(st)
    return span


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


def _acc_of(dt):
    """(Triton compare dtype, torch workspace dtype, is_float, sentinel below every value)."""
    if dt == torch.float64:
        return tl.float64, torch.float64, True, float("-inf")
    if dt.is_floating_point:
        return tl.float32, torch.float32, True, float("-inf")
    if dt == torch.int64:
        return tl.int64, torch.int64, False, -2 ** 63
    return tl.int32, torch.int32, False, -2 ** 31


def _launch(x, xi, y, O, I, R, sxo, sxr, sxi, syo, syi, allow_split):
    """y[o, i] (int64, strides syo/syi) = argmax over r of x[o, r, i]; xi: workspace indices or None."""
    cpu = x.device.type == "cpu"
    RP = _next_pow2(max(R, 1))
    IP = _next_pow2(I)
    row_like = I == 1 or abs(sxr) <= abs(sxi)
    max_tile = 65536 if cpu else 4096
    if I == 1 and not cpu:
        BLOCK_R = min(RP, 4096)
        BLOCK_I = 1
    elif row_like:
        BLOCK_R = min(RP, max_tile if cpu else 2048)
        BLOCK_I = min(IP, max(1, max_tile // BLOCK_R))
    else:
        BLOCK_I = min(IP, 256 if cpu else max(16, 64 // x.element_size()))
        BLOCK_R = min(RP, max(1, max_tile // BLOCK_I))
    n_ib = _cdiv(I, BLOCK_I)
    nprog = O * n_ib
    split = 1
    if allow_split and R > 2 * BLOCK_R:
        if cpu:
            split = min(_cdiv(R, BLOCK_R), 4) if nprog < 4 else 1
        elif nprog < 2 * _NUM_SMS and R * BLOCK_I * x.element_size() > 65536:
            # each program would stream > 64 KB: spread R over more programs (second pass below)
            split = min(_cdiv(R, BLOCK_R), _cdiv(2 * _NUM_SMS, nprog), 1024)
    chunk = _cdiv(_cdiv(max(R, 1), split), BLOCK_R) * BLOCK_R
    split = max(1, _cdiv(R, chunk))
    use_i64 = max(_span(x), _span(y), O * I * split, R) >= 2 ** 31 - 65536
    idx, big = (tl.int64, 2 ** 62) if use_i64 else (tl.int32, 2 ** 31 - 1)
    warps = 1 if cpu else (8 if BLOCK_R * BLOCK_I >= 4096 else 4)
    acc, ws_dt, is_float, low = _acc_of(x.dtype)
    meta = dict(ACC=acc, LOW=low, IS_FLOAT=is_float, IDX=idx, BIG=big, FROM_WS=xi is not None,
                EVEN_I=I % BLOCK_I == 0, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, USE_I64=use_i64, num_warps=warps)
    xi_arg = x if xi is None else xi
    if split == 1:
        _argmax_kernel[(nprog,)](x, xi_arg, y, y, R, I, n_ib, 1, chunk, sxo, sxr, sxi, syo, 0, syi,
                                 TO_WS=False, **meta)
        return
    ws_v = torch.empty((O, split, I), dtype=ws_dt, device=x.device)
    ws_i = torch.empty((O, split, I), dtype=torch.int64, device=x.device)
    _argmax_kernel[(nprog * split,)](x, xi_arg, ws_v, ws_i, R, I, n_ib, split, chunk, sxo, sxr, sxi,
                                     split * I, I, 1, TO_WS=True, **meta)
    # second pass: merge the partial (value, index) pairs (O, split, I) -> y
    _launch(ws_v, ws_i, y, O, I, split, split * I, I, 1, syo, syi, False)


def _group(sizes, sx, sy):
    """Coalesce a run of dims into at most one (size, x stride, y stride); None if impossible."""
    g = _coalesce(sizes, [sx, sy])
    if len(g) == 0:
        return (1, 0, 0)
    if len(g) == 1:
        return (g[0][0], g[0][1][0], g[0][1][1])
    return None


def _argmax_impl(self, dim, keepdim, out):
    if self.dtype.is_complex or self.dtype == torch.bool:
        raise RuntimeError("argmax(): does not support %s input" % str(self.dtype).replace("torch.", ""))
    nd = self.dim()
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("argmax(): Expected reduction dim to be specified for input.numel() == 0.")
        shape = [1] * nd if keepdim else []
    else:
        rng = max(nd, 1)
        if not -rng <= dim < rng:
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (-rng, rng - 1, dim))
        dim = dim % rng
        if nd and self.shape[dim] == 0:
            raise IndexError("argmax(): Expected reduction dim %d to have non-zero size." % dim)
        if nd == 0:
            shape = []
        elif keepdim:
            shape = [1 if d == dim else s for d, s in enumerate(self.shape)]
        else:
            shape = [s for d, s in enumerate(self.shape) if d != dim]
    if out is None:
        out = torch.empty(shape, dtype=torch.int64, device=self.device)
    elif list(out.shape) != shape:
        out.resize_(shape)
    if out.dtype != torch.int64:
        raise RuntimeError("argmax(): Expected out tensor to have dtype long int, but got %s instead" % out.dtype)
    if out.numel() == 0:
        return out
    x = self
    if dim is None or nd == 0:
        if not x.is_contiguous():
            x = x.contiguous()  # the flat index is the row-major position
        _launch(x, None, out, 1, 1, x.numel(), 0, 1, 0, 0, 0, True)
        return out
    R, sxr = x.shape[dim], x.stride(dim)
    ys = list(out.stride())
    if keepdim:
        ys = ys[:dim] + ys[dim + 1:]
    ys_before, ys_after = ys[:dim], ys[dim:]
    before = _group(list(x.shape[:dim]), list(x.stride()[:dim]), ys_before)
    after = _group(list(x.shape[dim + 1:]), list(x.stride()[dim + 1:]), ys_after)
    if before is None or after is None:
        xc = x.contiguous()
        if before is None or after is None:
            before = _group(list(xc.shape[:dim]), list(xc.stride()[:dim]), ys_before)
            after = _group(list(xc.shape[dim + 1:]), list(xc.stride()[dim + 1:]), ys_after)
        if before is None or after is None:  # the out's strides do not coalesce: dense buffer, then copy
            tmp = torch.empty(out.shape, dtype=torch.int64, device=out.device)
            _argmax_impl(xc, dim, keepdim, tmp)
            _strided_copy(tmp, out)
            return out
        x = xc
        sxr = x.stride(dim)
    O, sxo, syo = before
    I, sxi, syi = after
    if I == 1 or (O > 1 and abs(sxo) < abs(sxi)):
        O, sxo, syo, I, sxi, syi = I, sxi, syi, O, sxo, syo
    _launch(x, None, out, O, I, R, sxo, sxr, sxi, syo, syi, True)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def argmax(self, dim=None, keepdim=False):
    return _argmax_impl(self, dim, keepdim, None)


def argmax_out(self, dim=None, keepdim=False, *, out):
    return _argmax_impl(self, dim, keepdim, out)
