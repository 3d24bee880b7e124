"""Oracle Triton solution for aten::softmax (spec: shared/spec/aten.md, section `aten::softmax`).

Wrappers: softmax_int, softmax_int_out.

softmax.int(x, dim, dtype=None) is the CompositeImplicit entry of F.softmax: with `dtype` the input
is cast to it first (each element is rounded to `dtype` in registers, as x.to(dtype) would), then
y = exp(x - max) / sum(exp(x - max)) along `dim`, accumulated in fp32 (fp64 for fp64 results) and
rounded once at the store. The tensor is viewed as (O, R, I): R is the softmax dim, O and I are the
(coalesced) dims around it. One program owns a [BLOCK_R, BLOCK_I] tile of columns that share o and
reduces along R (axis 0). When the row is contiguous (I == 1) the roles swap: the rows become the I
axis, so the same kernel serves both "row" and "strided" softmax. Rows that fit in one tile are done
in a single pass; longer ones use an online (running max / rescaled sum) pass followed by a write
pass, split over several programs per column block when there are too few columns to fill the GPU.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200
_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32, torch.float64: tl.float64}


@triton.jit
def _softmax_single_kernel(x_ptr, y_ptr, R, I, n_ib,
                           sxo, sxr, sxi, syo, syr, syi,
                           BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, MID: tl.constexpr,
                           COMPUTE: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    o = pid // n_ib
    ib = pid % n_ib
    i = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    r = tl.arange(0, BLOCK_R)
    imask = i < I
    if USE_I64:
        o = o.to(tl.int64)
        i = i.to(tl.int64)
        r = r.to(tl.int64)
    mask = (r[:, None] < R) & imask[None, :]
    x = tl.load(x_ptr + o * sxo + r[:, None] * sxr + i[None, :] * sxi, mask=mask,
                other=float("-inf")).to(MID).to(COMPUTE)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m[None, :])
    s = tl.sum(e, axis=0)
    y = e / s[None, :]
    tl.store(y_ptr + o * syo + r[:, None] * syr + i[None, :] * syi,
             y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_stats(x_ptr, o, i, imask, r_lo, r_hi, sxo, sxr, sxi,
                   BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, MID: tl.constexpr, COMPUTE: tl.constexpr,
                   USE_I64: tl.constexpr):
    # Online max / rescaled sum over rows [r_lo, r_hi) of the columns i.
    m = tl.full([BLOCK_I], float("-inf"), COMPUTE)
    s = tl.zeros([BLOCK_I], COMPUTE)
    base = x_ptr + o * sxo + i[None, :] * sxi
    for start in range(r_lo, r_hi, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        if USE_I64:
            r = r.to(tl.int64)
        mask = (r[:, None] < r_hi) & imask[None, :]
        x = tl.load(base + r[:, None] * sxr, mask=mask, other=float("-inf")).to(MID).to(COMPUTE)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[None, :]), axis=0)
        m = m_new
    return m, s


@triton.jit
def _softmax_write(x_ptr, y_ptr, o, i, imask, r_lo, r_hi, m, s, sxo, sxr, sxi, syo, syr, syi,
                   BLOCK_R: tl.constexpr, MID: tl.constexpr, COMPUTE: tl.constexpr, USE_I64: tl.constexpr):
    xb = x_ptr + o * sxo + i[None, :] * sxi
    yb = y_ptr + o * syo + i[None, :] * syi
    for start in range(r_lo, r_hi, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        if USE_I64:
            r = r.to(tl.int64)
        mask = (r[:, None] < r_hi) & imask[None, :]
        x = tl.load(xb + r[:, None] * sxr, mask=mask, other=float("-inf")).to(MID).to(COMPUTE)
        y = tl.exp(x - m[None, :]) / s[None, :]
        tl.store(yb + r[:, None] * syr, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_online_kernel(x_ptr, y_ptr, R, I, n_ib,
                           sxo, sxr, sxi, syo, syr, syi,
                           BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, MID: tl.constexpr,
                           COMPUTE: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    o = pid // n_ib
    ib = pid % n_ib
    i = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    imask = i < I
    if USE_I64:
        o = o.to(tl.int64)
        i = i.to(tl.int64)
    m, s = _softmax_stats(x_ptr, o, i, imask, 0, R, sxo, sxr, sxi,
                          BLOCK_R, BLOCK_I, MID, COMPUTE, USE_I64)
    _softmax_write(x_ptr, y_ptr, o, i, imask, 0, R, m, s, sxo, sxr, sxi, syo, syr, syi,
                   BLOCK_R, MID, COMPUTE, USE_I64)


@triton.jit
def _softmax_split_stats_kernel(x_ptr, ws_m, ws_s, R, I, n_ib, SPLIT, CHUNK,
                                sxo, sxr, sxi,
                                BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, MID: tl.constexpr,
                                COMPUTE: tl.constexpr, USE_I64: tl.constexpr):
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
    r_lo = sp * CHUNK
    r_hi = tl.minimum(r_lo + CHUNK, R)
    m, s = _softmax_stats(x_ptr, o, i, imask, r_lo, r_hi, sxo, sxr, sxi,
                          BLOCK_R, BLOCK_I, MID, COMPUTE, USE_I64)
    w = (o * SPLIT + sp) * I + i
    tl.store(ws_m + w, m, mask=imask)
    tl.store(ws_s + w, s, mask=imask)


@triton.jit
def _softmax_split_write_kernel(x_ptr, y_ptr, ws_m, ws_s, R, I, n_ib, SPLIT, CHUNK,
                                sxo, sxr, sxi, syo, syr, syi,
                                BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr,
                                BLOCK_S: tl.constexpr, MID: tl.constexpr,
                                COMPUTE: tl.constexpr, USE_I64: tl.constexpr):
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
    js = tl.arange(0, BLOCK_S)
    wmask = (js[:, None] < SPLIT) & imask[None, :]
    w = (o * SPLIT + js[:, None]) * I + i[None, :]
    mj = tl.load(ws_m + w, mask=wmask, other=float("-inf"))
    sj = tl.load(ws_s + w, mask=wmask, other=0.0)
    m = tl.max(mj, axis=0)
    m_safe = tl.where(m == float("-inf"), 0.0, m)
    s = tl.sum(sj * tl.exp(mj - m_safe[None, :]), axis=0)
    r_lo = sp * CHUNK
    r_hi = tl.minimum(r_lo + CHUNK, R)
    _softmax_write(x_ptr, y_ptr, o, i, imask, r_lo, r_hi, m, s, sxo, sxr, sxi, syo, syr, syi,
                   BLOCK_R, MID, COMPUTE, USE_I64)


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
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


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
    """Coalesce a run of dims into at most one (size, x stride, y stride); None if impossible."""
    g = _coalesce(sizes, [sx, sy])
    if len(g) == 0:
        return (1, 0, 0)
    if len(g) == 1:
        return (g[0][0], g[0][1][0], g[0][1][1])
    return None


def _softmax_into(x, dim, y):
    """y (same shape as x, any strides) = softmax(x, dim)."""
    if y.numel() == 0:
        return y
    nd = x.dim()
    if nd == 0:
        if dim not in (0, -1):
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got %d)"
                             % dim)
        _softmax_into(x.view(1), 0, y.view(1))
        return y
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-nd, nd - 1, dim))
    dim = dim % nd
    shape = list(x.shape)
    R = shape[dim]
    sxr, syr = x.stride(dim), y.stride(dim)
    before = _group(shape[:dim], list(x.stride())[:dim], list(y.stride())[:dim])
    after = _group(shape[dim + 1:], list(x.stride())[dim + 1:], list(y.stride())[dim + 1:])
    if before is None or after is None:
        xc = x.contiguous()
        if y.is_contiguous():
            return _softmax_into(xc, dim, y)
        tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
        _softmax_into(xc, dim, tmp)
        return _strided_copy(tmp, y)
    # Vectorised axis I: the non-reduced group with the smaller input stride.
    O, sxo, syo = before
    I, sxi, syi = after
    if I == 1 or (O > 1 and abs(sxo) < abs(sxi)):
        O, sxo, syo, I, sxi, syi = I, sxi, syi, O, sxo, syo

    compute = tl.float64 if y.dtype == torch.float64 else tl.float32
    mid = _TL[y.dtype]  # softmax(x, dtype=...) casts x first
    use_i64 = max(_span(x), _span(y)) >= 2 ** 31 - 65536
    cpu = x.device.type == "cpu"
    RP = _next_pow2(R)
    IP = _next_pow2(I)
    max_tile = 65536 if cpu else 16384
    row_like = sxr == 1 or abs(sxr) < abs(sxi)  # rows contiguous along R
    if RP <= max_tile:
        BLOCK_R = RP
        BLOCK_I = min(IP, max(1, max_tile // RP))
        if not cpu:
            # keep a reasonable number of programs on the GPU
            min_bi = 1 if row_like else max(1, 32 // x.element_size())
            while (BLOCK_I > min_bi and BLOCK_I * BLOCK_R > 2048
                   and O * _cdiv(I, BLOCK_I) < 2 * _NUM_SMS):
                BLOCK_I //= 2
        tile = BLOCK_R * BLOCK_I
        warps = 1 if cpu else max(1, min(16, tile // 512))
        n_ib = _cdiv(I, BLOCK_I)
        _softmax_single_kernel[(O * n_ib,)](
            x, y, R, I, n_ib, sxo, sxr, sxi, syo, syr, syi,
            BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, MID=mid, COMPUTE=compute, USE_I64=use_i64,
            num_warps=warps)
        return y

    # long reduction: online statistics then a write pass
    if row_like:
        BLOCK_I = min(IP, 1 if cpu else 4)
    else:
        BLOCK_I = min(IP, 64 if cpu else max(4, 64 // x.element_size()))
    BLOCK_R = min(RP, max(1, (max_tile if cpu else 4096) // BLOCK_I))
    n_ib = _cdiv(I, BLOCK_I)
    nprog = O * n_ib
    warps = 1 if cpu else 8
    target = 4 if cpu else 2 * _NUM_SMS
    if nprog >= target or _cdiv(R, BLOCK_R) <= 2:
        _softmax_online_kernel[(nprog,)](
            x, y, R, I, n_ib, sxo, sxr, sxi, syo, syr, syi,
            BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, MID=mid, COMPUTE=compute, USE_I64=use_i64,
            num_warps=warps)
        return y
    split = min(_cdiv(R, BLOCK_R), _cdiv(2 * target, nprog), 256)
    chunk = _cdiv(_cdiv(R, split), BLOCK_R) * BLOCK_R
    split = _cdiv(R, chunk)
    ws_dtype = torch.float64 if compute == tl.float64 else torch.float32
    ws_m = torch.empty((O, split, I), dtype=ws_dtype, device=x.device)
    ws_s = torch.empty((O, split, I), dtype=ws_dtype, device=x.device)
    grid = (nprog * split,)
    _softmax_split_stats_kernel[grid](
        x, ws_m, ws_s, R, I, n_ib, split, chunk, sxo, sxr, sxi,
        BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, MID=mid, COMPUTE=compute, USE_I64=use_i64, num_warps=warps)
    _softmax_split_write_kernel[grid](
        x, y, ws_m, ws_s, R, I, n_ib, split, chunk, sxo, sxr, sxi, syo, syr, syi,
        BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, BLOCK_S=_next_pow2(split),
        MID=mid, COMPUTE=compute, USE_I64=use_i64, num_warps=warps)
    return y


def _check(x, dtype):
    if dtype is not None and dtype not in _TL:
        raise RuntimeError("softmax: unsupported dtype %s for this Triton solution" % dtype)
    if dtype is None and x.dtype not in _TL:
        raise RuntimeError("softmax: expected a floating input, got %s" % x.dtype)
    return dtype if dtype is not None else x.dtype


# ----------------------------------------------------------------------------------------------
# wrappers

def softmax_int(self, dim, dtype=None):
    y = torch.empty(self.shape, dtype=_check(self, dtype), device=self.device)
    return _softmax_into(self, dim, y)


def softmax_int_out(self, dim, dtype=None, *, out):
    _check(self, dtype)
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    if dtype is not None and out.dtype != dtype:
        raise RuntimeError("softmax: expected out dtype %s, got %s" % (dtype, out.dtype))
    return _softmax_into(self, dim, out)
