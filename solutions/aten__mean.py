"""Oracle Triton solution for aten::mean (spec: shared/spec/aten.md, section `aten::mean`).

Wrappers: mean, mean_dim, mean_out, mean_dtype_out.

The input is viewed as (O, R, I): O and I are the (coalesced) kept dims, I the one with the smaller
stride (vectorised); R the reduced dims, as one or two coalesced groups (r -> (r // R2, r % R2), so
reductions over non-adjacent dims such as [0, 2] need no copy). A program sums a [BLOCK_R, BLOCK_I]
tile stream along R into an fp32 register accumulator (fp64 for fp64 results), reduces it once and
stores sum / N (divided in the accumulation dtype) rounded once. When the programs would each stream a lot of memory and there are
too few of them to fill the GPU, R is split: partial sums (unscaled, in the accumulation dtype) go to
a workspace and a second launch of the same kernel reduces them and scales (a deterministic two-pass
tree, no atomics). A whole-tensor mean over dense memory is one contiguous run with wide tiles.

dtypes: result = `dtype`, else out's dtype (out variants), else the input dtype; integer inputs
need a floating `dtype`. With `dtype` the input is cast first (as PyTorch does), then accumulated.
The mean of an empty set is NaN (0 * (1/0)).
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200


@triton.jit
def _mean_kernel(x_ptr, y_ptr, R, R2, I, n_ib, SPLIT, CHUNK, count,
                 sxo, sr1, sr2, sxi, syo, sys, syi,
                 RES: tl.constexpr, ACC: tl.constexpr, CAST_IN: tl.constexpr, DIVIDE: tl.constexpr, TWO_R: tl.constexpr,
                 EVEN_I: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, USE_I64: tl.constexpr):
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
    base = x_ptr + o * sxo + i[None, :] * sxi
    acc = tl.zeros([BLOCK_R, BLOCK_I], ACC)
    # full tiles: no mask along R (only along I when I is ragged), so contiguous runs load as vectors
    n_full = (r_hi - r_lo) // BLOCK_R
    for j in range(0, n_full):
        r = r_lo + j * BLOCK_R + tl.arange(0, BLOCK_R)
        if TWO_R:
            off = (r // R2) * sr1 + (r % R2) * sr2
        else:
            off = r * sr2
        if EVEN_I:
            x = tl.load(base + off[:, None])
        else:
            x = tl.load(base + off[:, None], mask=imask[None, :], other=0)
        if CAST_IN:
            x = x.to(RES)
        acc += x.to(ACC)
    # the ragged tail (empty when the chunk is a whole number of tiles)
    r = r_lo + n_full * BLOCK_R + tl.arange(0, BLOCK_R)
    mask = (r[:, None] < r_hi) & imask[None, :]
    if TWO_R:
        off = (r // R2) * sr1 + (r % R2) * sr2
    else:
        off = r * sr2
    x = tl.load(base + off[:, None], mask=mask, other=0)
    if CAST_IN:
        x = x.to(RES)
    acc += x.to(ACC)
    s = tl.sum(acc, axis=0)
    if DIVIDE:
        # divided in the accumulation dtype (a Python float argument would arrive as fp32 and cost an fp64
        # result its precision); the mean of an empty set is 0 / 0 = NaN
        s = s / count
    tl.store(y_ptr + o * syo + sp * sys + i * syi, s.to(y_ptr.dtype.element_ty), mask=imask)


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


def _tl_dtype(dt):
    return {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
            torch.float64: tl.float64}[dt]


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


def _normalize_dims(dim, nd):
    if dim is None:
        return list(range(nd))
    if isinstance(dim, int):
        dim = [dim]
    dim = list(dim)
    if len(dim) == 0:
        return list(range(nd))
    rng = max(nd, 1)
    res = []
    for d in dim:
        if not -rng <= d < rng:
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (-rng, rng - 1, d))
        d = d % rng
        if d in res:
            raise RuntimeError("dim %d appears multiple times in the list of dims" % d)
        res.append(d)
    if nd == 0:
        return []
    return sorted(res)


def _out_shape(shape, red, keepdim):
    if keepdim:
        return [1 if d in red else s for d, s in enumerate(shape)]
    return [s for d, s in enumerate(shape) if d not in red]


def _plan(x, red, y_kept_strides):
    """(O, I, sxo, sxi, syo, syi, R, R2, sr1, sr2), or None when the layout needs a copy."""
    shape = list(x.shape)
    xs = list(x.stride())
    kept = [d for d in range(len(shape)) if d not in red]
    kgroups = _coalesce([shape[d] for d in kept], [[xs[d] for d in kept], y_kept_strides])
    rdims = sorted([(xs[d], shape[d]) for d in red if shape[d] != 1], key=lambda p: -abs(p[0]))
    R = 1
    for _, sz in rdims:
        R *= sz
    rgroups = []
    for st, sz in rdims:
        if rgroups and rgroups[-1][1] == st * sz:
            rgroups[-1] = (rgroups[-1][0] * sz, st)
        else:
            rgroups.append((sz, st))
    if len(kgroups) > 2 or len(rgroups) > 2:
        return None
    if R == 0 or not rgroups:
        rgroups = [(max(R, 1), 0)]
    if len(rgroups) == 1:
        (R1, sr1), (R2, sr2) = (1, 0), rgroups[0]
    else:
        (R1, sr1), (R2, sr2) = rgroups
    groups = [(g[0], g[1][0], g[1][1]) for g in kgroups]
    while len(groups) < 2:
        groups.insert(0, (1, 0, 0))
    (O, sxo, syo), (I, sxi, syi) = groups
    if I == 1 or (O > 1 and abs(sxo) < abs(sxi)):
        O, sxo, syo, I, sxi, syi = I, sxi, syi, O, sxo, syo
    return O, I, sxo, sxi, syo, syi, R, R2, sr1, sr2


def _launch(x, y, O, I, sxo, sxi, syo, syi, R, R2, sr1, sr2, count, res, acc, cast_in, allow_split):
    cpu = x.device.type == "cpu"
    RP = _next_pow2(max(R, 1))
    IP = _next_pow2(I)
    row_like = I == 1 or abs(sr2) <= abs(sxi)
    max_tile = 65536 if cpu else 4096
    if I == 1 and not cpu:
        # one long run (full reductions): wide tiles keep enough bytes in flight
        BLOCK_R = min(RP, 8192)
        BLOCK_I = 1
    elif row_like:
        BLOCK_R = min(RP, max_tile if cpu else 2048)
        BLOCK_I = min(IP, max(1, max_tile // BLOCK_R))
    else:
        BLOCK_I = min(IP, 256 if cpu else max(16, 128 // x.element_size()))
        BLOCK_R = min(RP, max(1, max_tile // BLOCK_I))
    n_ib = _cdiv(I, BLOCK_I)
    nprog = O * n_ib
    split = 1
    if allow_split and R > 2 * BLOCK_R:
        if cpu:
            split = min(_cdiv(R, BLOCK_R), 4) if nprog < 4 else 1
        elif nprog < 4 * _NUM_SMS:
            split = min(_cdiv(R, BLOCK_R), _cdiv(4 * _NUM_SMS, nprog), 1024)
    chunk = _cdiv(_cdiv(max(R, 1), split), BLOCK_R) * BLOCK_R
    split = max(1, _cdiv(R, chunk))
    use_i64 = max(_span(x), _span(y), O * I * split) >= 2 ** 31 - 65536
    warps = 1 if cpu else (8 if BLOCK_R * BLOCK_I >= 4096 else 4)
    two_r = R2 != R
    meta = dict(RES=res, ACC=acc, CAST_IN=cast_in, TWO_R=two_r, EVEN_I=I % BLOCK_I == 0, BLOCK_R=BLOCK_R,
                BLOCK_I=BLOCK_I, USE_I64=use_i64, num_warps=warps)
    if split == 1:
        _mean_kernel[(nprog,)](x, y, R, R2, I, n_ib, 1, chunk, count, sxo, sr1, sr2, sxi, syo, 0, syi,
                               DIVIDE=True, **meta)
        return
    ws = torch.empty((O, split, I), dtype=torch.float64 if acc == tl.float64 else torch.float32,
                     device=x.device)
    _mean_kernel[(nprog * split,)](x, ws, R, R2, I, n_ib, split, chunk, count, sxo, sr1, sr2, sxi,
                                   split * I, I, 1, DIVIDE=False, **meta)
    # second pass: reduce the partials (O, split, I) -> y, and scale
    _launch(ws, y, O, I, split * I, 1, syo, syi, split, split, 0, I, count, res, acc, False, False)


def _mean_into(x, red, keepdim, y, res_dtype, count):
    """y (shape = reduced shape, any strides) = mean of x over dims `red`."""
    if y.numel() == 0:
        return y
    nd = x.dim()
    kept = [d for d in range(nd) if d not in red]
    ys = [y.stride(d) for d in kept] if keepdim else list(y.stride())
    plan = _plan(x, red, ys)
    if plan is None:
        perm = kept + list(red)
        xc = x.permute(perm).contiguous()
        red2 = list(range(len(kept), nd))
        plan = _plan(xc, red2, ys)
        if plan is None:  # the out's strides do not coalesce: reduce into a dense buffer, then copy
            tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
            _mean_into(xc, red2, False, tmp.view([x.shape[d] for d in kept]), res_dtype, count)
            return _strided_copy(tmp, y)
        x = xc
    O, I, sxo, sxi, syo, syi, R, R2, sr1, sr2 = plan
    acc = tl.float64 if res_dtype == torch.float64 else tl.float32
    _launch(x, y, O, I, sxo, sxi, syo, syi, R, R2, sr1, sr2, count,
            _tl_dtype(res_dtype), acc, x.dtype != res_dtype, True)
    return y


def _mean_impl(self, dim, keepdim, dtype, out):
    if self.dtype.is_complex:
        raise NotImplementedError("mean: complex dtypes are not supported by this Triton solution")
    nd = self.dim()
    red = _normalize_dims(dim, nd)
    if dtype is not None:
        res = dtype
    elif out is not None:
        res = out.dtype
    else:
        res = self.dtype
    if not res.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           "point or complex dtype. Got: %s" % str(res).replace("torch.", ""))
    count = 1
    for d in red:
        count *= self.shape[d]
    shape = _out_shape(list(self.shape), red, keepdim)
    if out is None:
        out = torch.empty(shape, dtype=res, device=self.device)
    elif list(out.shape) != shape:
        out.resize_(shape)
    if out.dtype != res:
        tmp = torch.empty(shape, dtype=res, device=self.device)
        _mean_into(self, red, keepdim, tmp, res, count)
        _strided_copy(tmp, out)
        return out
    _mean_into(self, red, keepdim, out, res, count)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def mean(self, *, dtype=None):
    return _mean_impl(self, None, False, dtype, None)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    return _mean_impl(self, dim, keepdim, dtype, None)


def mean_out(self, dim, keepdim=False, *, dtype=None, out):
    return _mean_impl(self, dim, keepdim, dtype, out)


def mean_dtype_out(self, *, dtype=None, out):
    return _mean_impl(self, None, False, dtype, out)
