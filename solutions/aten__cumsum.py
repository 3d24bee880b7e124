"""Oracle Triton solution for aten::cumsum (spec: shared/spec/aten.md, section `aten::cumsum`).

Wrappers: cumsum, cumsum_out.

Inclusive prefix sum along `dim`. The tensor is viewed as (O, R, I): R is the scan dim, O and I
the coalesced dims before and after it; I (the group with the smaller stride, so that a row scan
puts whole rows side by side) is vectorised. A program owns BLOCK_I columns of one o and walks R in
chunks of BLOCK_R: tl.cumsum inside the chunk plus the carried prefix of the previous chunks
(a chunked scan with a carried prefix), so rows of any length (40999 here) need one program per
column block. When there are too few column blocks to fill the GPU and the rows are long, a
three-launch scan is used instead: chunk totals, an exclusive scan of the totals, then the chunk
scans seeded with their prefix.

dtypes: result = `dtype`, else out's dtype (out variant), else int64 for integer/bool inputs and
the input dtype for floats. The input is cast to the result dtype, accumulated in fp32
(half/bf16/fp32), fp64 or int64, and each output is rounded once. For 8/16-bit integer values the
in-chunk scan runs in int32 (a chunk's partial sums provably fit), with the carry in int64.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, p_ptr, R, I, n_ib, SPLIT, CHUNK,
                   sxo, sxr, sxi, syo, syr, syi,
                   RES: tl.constexpr, ACC: tl.constexpr, SCAN: tl.constexpr,
                   HAS_PREFIX: tl.constexpr,
                   BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, USE_I64: tl.constexpr):
    # Scan rows [sp*CHUNK, min(R, (sp+1)*CHUNK)) of columns (o, i-block), seeded with the
    # prefix p[o, sp, i] when HAS_PREFIX. SCAN is the in-chunk scan dtype: int32 instead of int64
    # when a chunk's partial sums provably fit (8/16-bit integer values), which is much faster.
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
    if HAS_PREFIX:
        carry = tl.load(p_ptr + (o * SPLIT + sp) * I + i, mask=imask, other=0).to(ACC)
    else:
        carry = tl.zeros([BLOCK_I], ACC)
    xb = x_ptr + o * sxo + i[None, :] * sxi
    yb = y_ptr + o * syo + i[None, :] * syi
    for start in range(r_lo, r_hi, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        mask = (r[:, None] < r_hi) & imask[None, :]
        x = tl.load(xb + r[:, None] * sxr, mask=mask, other=0).to(RES).to(SCAN)
        c = tl.cumsum(x, axis=0).to(ACC) + carry[None, :]
        tl.store(yb + r[:, None] * syr, c.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0).to(ACC)


@triton.jit
def _chunk_sum_kernel(x_ptr, ws_ptr, R, I, n_ib, SPLIT, CHUNK, sxo, sxr, sxi,
                      RES: tl.constexpr, ACC: tl.constexpr,
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
    xb = x_ptr + o * sxo + i[None, :] * sxi
    acc = tl.zeros([BLOCK_R, BLOCK_I], ACC)
    for start in range(r_lo, r_hi, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        mask = (r[:, None] < r_hi) & imask[None, :]
        acc += tl.load(xb + r[:, None] * sxr, mask=mask, other=0).to(RES).to(ACC)
    tl.store(ws_ptr + (o * SPLIT + sp) * I + i, tl.sum(acc, axis=0), mask=imask)


@triton.jit
def _exclusive_scan_kernel(ws_ptr, I, SPLIT, BLOCK_S: tl.constexpr, BLOCK_I: tl.constexpr):
    # In place: ws[o, :, i] <- exclusive prefix sums of ws[o, :, i] (SPLIT <= BLOCK_S).
    o = tl.program_id(0)
    ib = tl.program_id(1)
    i = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    s = tl.arange(0, BLOCK_S)
    mask = (s[:, None] < SPLIT) & (i[None, :] < I)
    ptrs = ws_ptr + (o.to(tl.int64) * SPLIT + s[:, None]) * I + i[None, :]
    v = tl.load(ptrs, mask=mask, other=0)
    c = tl.cumsum(v, axis=0) - v
    tl.store(ptrs, c, mask=mask)


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
    return {
        torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
        torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
        torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
    }[dt]


def _acc(dt):
    if dt == torch.float64:
        return tl.float64, torch.float64
    if dt.is_floating_point:
        return tl.float32, torch.float32
    return tl.int64, torch.int64


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
    g = _coalesce(sizes, [sx, sy])
    if len(g) == 0:
        return (1, 0, 0)
    if len(g) == 1:
        return (g[0][0], g[0][1][0], g[0][1][1])
    return None


def _cumsum_into(x, dim, y, res_dtype):
    """y (x's shape, any strides, dtype of the result) = cumsum(x.to(res_dtype), dim)."""
    if y.numel() == 0:
        return y
    nd = x.dim()
    if nd == 0:
        _cumsum_into(x.view(1), 0, y.view(1), res_dtype)
        return y
    shape = list(x.shape)
    xs, ys = list(x.stride()), list(y.stride())
    before = _group(shape[:dim], xs[:dim], ys[:dim])
    after = _group(shape[dim + 1:], xs[dim + 1:], ys[dim + 1:])
    if before is None or after is None:
        xc = x.contiguous()
        if y.is_contiguous():
            return _cumsum_into(xc, dim, y, res_dtype)
        tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
        _cumsum_into(xc, dim, tmp, res_dtype)
        return _strided_copy(tmp, y)
    R = shape[dim]
    sxr, syr = xs[dim], ys[dim]
    O, sxo, syo = before
    I, sxi, syi = after
    if I == 1 or (O > 1 and abs(sxo) < abs(sxi)):
        O, sxo, syo, I, sxi, syi = I, sxi, syi, O, sxo, syo

    res = _tl_dtype(res_dtype)
    acc, acc_torch = _acc(res_dtype)
    cpu = x.device.type == "cpu"
    RP = _next_pow2(R)
    IP = _next_pow2(I)
    row_like = I == 1 or abs(sxr) <= abs(sxi)
    max_tile = 65536 if cpu else 4096
    if row_like:
        BLOCK_R = min(RP, max_tile if cpu else 1024)
        BLOCK_I = min(IP, max(1, max_tile // BLOCK_R))
    else:
        BLOCK_I = min(IP, 256 if cpu else max(4, 128 // x.element_size()))
        BLOCK_R = min(RP, max(1, max_tile // BLOCK_I))
    n_ib = _cdiv(I, BLOCK_I)
    nprog = O * n_ib
    small_int = (x.dtype in (torch.bool, torch.int8, torch.uint8, torch.int16)
                 or res_dtype in (torch.bool, torch.int8, torch.uint8, torch.int16))
    scan = tl.int32 if (acc == tl.int64 and small_int and BLOCK_R <= 32768) else acc
    use_i64 = max(_span(x), _span(y)) >= 2 ** 31 - 65536
    warps = 1 if cpu else (8 if BLOCK_R * BLOCK_I >= 4096 else 4)
    n_chunks = _cdiv(R, BLOCK_R)
    target = 4 if cpu else 2 * _NUM_SMS
    if nprog >= target or n_chunks <= 8:
        _cumsum_kernel[(nprog,)](x, y, y, R, I, n_ib, 1, R, sxo, sxr, sxi, syo, syr, syi,
                                 RES=res, ACC=acc, SCAN=scan, HAS_PREFIX=False,
                                 BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, USE_I64=use_i64,
                                 num_warps=warps)
        return y
    # long rows, few columns: chunk totals -> exclusive scan of totals -> seeded chunk scans
    split = min(n_chunks, _cdiv(2 * target, nprog), 1024)
    chunk = _cdiv(_cdiv(R, split), BLOCK_R) * BLOCK_R
    split = _cdiv(R, chunk)
    ws = torch.empty((O, split, I), dtype=acc_torch, device=x.device)
    use_i64 = use_i64 or O * split * I >= 2 ** 31 - 65536
    grid = (nprog * split,)
    _chunk_sum_kernel[grid](x, ws, R, I, n_ib, split, chunk, sxo, sxr, sxi,
                            RES=res, ACC=acc, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I,
                            USE_I64=use_i64, num_warps=warps)
    BS = _next_pow2(split)
    BI = min(IP, max(1, 4096 // BS))
    _exclusive_scan_kernel[(O, _cdiv(I, BI))](ws, I, split, BLOCK_S=BS, BLOCK_I=BI,
                                                    num_warps=4)
    _cumsum_kernel[grid](x, y, ws, R, I, n_ib, split, chunk, sxo, sxr, sxi, syo, syr, syi,
                         RES=res, ACC=acc, SCAN=scan, HAS_PREFIX=True,
                         BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, USE_I64=use_i64, num_warps=warps)
    return y


def _result_dtype(x, dtype, out):
    if dtype is not None:
        return dtype
    if out is not None:
        return out.dtype
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x.dtype
    return torch.int64


def _cumsum_impl(self, dim, dtype, out):
    nd = self.dim()
    rng = max(nd, 1)
    if not -rng <= dim < rng:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-rng, rng - 1, dim))
    dim = dim % rng
    res = _result_dtype(self, dtype, out)
    if res.is_complex:
        raise NotImplementedError("cumsum: complex dtypes are not supported by this Triton solution")
    if out is None:
        out = torch.empty(self.shape, dtype=res, device=self.device)
    elif tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _cumsum_into(self, dim, out, res)


# ----------------------------------------------------------------------------------------------
# wrappers

def cumsum(self, dim, *, dtype=None):
    return _cumsum_impl(self, dim, dtype, None)


def cumsum_out(self, dim, *, dtype=None, out):
    return _cumsum_impl(self, dim, dtype, out)
