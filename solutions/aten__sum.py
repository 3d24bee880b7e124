"""Oracle Triton solution for aten::sum (spec: shared/spec/aten.md, section `aten::sum`).

Wrappers: sum, sum_dim_IntList, sum_IntList_out, sum_out.

The input is viewed as (O, R, I): R is the (coalesced) set of reduced dims, O and I the kept dims
(at most two coalesced groups; I is the one with the smaller stride and is vectorised). A program
sums a [BLOCK_R, BLOCK_I] tile stream along R into a register accumulator and reduces it once at
the end. When there are too few (o, i-block) tiles to fill the GPU, R is split over several
programs that write partial sums to a workspace (in the accumulation dtype), and a second launch
of the same kernel reduces the partials: a deterministic two-pass tree, no atomics. A whole-tensor
sum over dense memory is one contiguous run (R = numel) and uses wide [8192, 1] tiles.

dtypes: result = `dtype`, else out's dtype (out variants), else the input dtype for floats and
int64 for integer/bool inputs. The input is cast to the result dtype first (as PyTorch does), then
accumulated in fp32 (half/bf16/fp32 results), fp64 or int64, and rounded once at the store.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200


@triton.jit
def _sum_kernel(x_ptr, y_ptr, R, I, n_ib, SPLIT, CHUNK,
                sxo, sxr, sxi, syo, sys, syi,
                RES: tl.constexpr, ACC: tl.constexpr, CAST_IN: tl.constexpr,
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
    base = x_ptr + o * sxo + i[None, :] * sxi
    acc = tl.zeros([BLOCK_R, BLOCK_I], ACC)
    for start in range(r_lo, r_hi, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        mask = (r[:, None] < r_hi) & imask[None, :]
        x = tl.load(base + r[:, None] * sxr, mask=mask, other=0)
        if CAST_IN:
            x = x.to(RES)
        acc += x.to(ACC)
    s = tl.sum(acc, axis=0)
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
    return {
        torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
        torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
        torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
    }[dt]


def _acc_dtype(dt):
    if dt == torch.float64:
        return tl.float64
    if dt.is_floating_point:
        return tl.float32
    return tl.int64


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
    # (no builtin `sum` here: this module defines a wrapper of that name)
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


def _result_dtype(x, dtype, out):
    if dtype is not None:
        return dtype
    if out is not None:
        return out.dtype
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x.dtype
    return torch.int64


def _out_shape(shape, red, keepdim):
    if keepdim:
        return [1 if d in red else s for d, s in enumerate(shape)]
    return [s for d, s in enumerate(shape) if d not in red]


def _plan(x, red, y_kept_strides):
    """Return (O, R, I, sxo, sxr, sxi, syo, syi) or None when the layout needs a copy."""
    shape = list(x.shape)
    xs = list(x.stride())
    kept = [d for d in range(len(shape)) if d not in red]
    kgroups = _coalesce([shape[d] for d in kept], [[xs[d] for d in kept], y_kept_strides])
    # reduced dims: order is free, merge by stride
    rdims = sorted([(xs[d], shape[d]) for d in red if shape[d] != 1], key=lambda p: -p[0])
    R = 1
    for _, sz in rdims:
        R *= sz
    rgroups = []
    for st, sz in rdims:
        if rgroups and rgroups[-1][1] == st * sz:
            rgroups[-1] = (rgroups[-1][0] * sz, st)
        else:
            rgroups.append((sz, st))
    if R == 0:
        rgroups = [(0, 0)]
    if len(kgroups) > 2 or len(rgroups) > 1:
        return None
    sxr = rgroups[0][1] if rgroups else 0
    groups = [(g[0], g[1][0], g[1][1]) for g in kgroups]
    while len(groups) < 2:
        groups.insert(0, (1, 0, 0))
    (O, sxo, syo), (I, sxi, syi) = groups
    if I == 1 or (O > 1 and abs(sxo) < abs(sxi)):
        O, sxo, syo, I, sxi, syi = I, sxi, syi, O, sxo, syo
    return O, R, I, sxo, sxr, sxi, syo, syi


def _launch(x, y, O, R, I, sxo, sxr, sxi, syo, sys, syi, res, acc, cast_in, allow_split):
    cpu = x.device.type == "cpu"
    RP = _next_pow2(max(R, 1))
    IP = _next_pow2(I)
    row_like = I == 1 or abs(sxr) <= abs(sxi)
    max_tile = 65536 if cpu else 4096
    if I == 1 and not cpu:
        # one long contiguous run (full reductions): wide tiles keep enough bytes in flight
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
    target = 4 if cpu else (2 if I == 1 else 4) * _NUM_SMS
    split = 1
    if allow_split and nprog < target and R > 2 * BLOCK_R:
        split = min(_cdiv(R, BLOCK_R), _cdiv(target, nprog), 1024)
    chunk = _cdiv(_cdiv(max(R, 1), split), BLOCK_R) * BLOCK_R
    split = max(1, _cdiv(R, chunk))
    use_i64 = max(_span(x), _span(y), O * I * split) >= 2 ** 31 - 65536
    warps = 1 if cpu else (8 if BLOCK_R * BLOCK_I >= 4096 else 4)
    if split == 1:
        _sum_kernel[(nprog,)](x, y, R, I, n_ib, 1, chunk, sxo, sxr, sxi, syo, 0, syi,
                              RES=res, ACC=acc, CAST_IN=cast_in, BLOCK_R=BLOCK_R,
                              BLOCK_I=BLOCK_I, USE_I64=use_i64, num_warps=warps)
        return
    ws_dt = {tl.float32: torch.float32, tl.float64: torch.float64, tl.int64: torch.int64}[acc]
    ws = torch.empty((O, split, I), dtype=ws_dt, device=x.device)
    _sum_kernel[(nprog * split,)](x, ws, R, I, n_ib, split, chunk, sxo, sxr, sxi,
                                  split * I, I, 1,
                                  RES=res, ACC=acc, CAST_IN=cast_in, BLOCK_R=BLOCK_R,
                                  BLOCK_I=BLOCK_I, USE_I64=use_i64, num_warps=warps)
    # second pass: reduce the partials (O, split, I) -> y
    _launch(ws, y, O, split, I, split * I, I, 1, syo, 0, syi, res, acc, False, False)


def _sum_into(x, red, keepdim, y, res_dtype):
    """y (shape = reduced shape, any strides) = sum of x over dims `red`."""
    if y.numel() == 0:
        return y
    if res_dtype.is_complex or y.dtype.is_complex:
        raise NotImplementedError("sum: complex dtypes are not supported by this Triton solution")
    nd = x.dim()
    kept = [d for d in range(nd) if d not in red]
    if keepdim:
        ys = [y.stride(d) for d in kept]
    else:
        ys = list(y.stride())
    plan = _plan(x, red, ys)
    if plan is None:
        perm = kept + list(red)
        xc = x.permute(perm).contiguous()
        red2 = list(range(len(kept), nd))
        plan = _plan(xc, red2, ys)
        if plan is None:
            tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
            _sum_into(xc, red2, keepdim=False, y=tmp.view([x.shape[d] for d in kept]),
                      res_dtype=res_dtype)
            return _strided_copy(tmp, y)
        x = xc
    O, R, I, sxo, sxr, sxi, syo, syi = plan
    _launch(x, y, O, R, I, sxo, sxr, sxi, syo, 0, syi,
            _tl_dtype(res_dtype), _acc_dtype(res_dtype), True, True)
    return y


def _sum_impl(self, dim, keepdim, dtype, out):
    nd = self.dim()
    red = _normalize_dims(dim, nd)
    res = _result_dtype(self, dtype, out)
    shape = _out_shape(list(self.shape), red, keepdim)
    if out is None:
        out = torch.empty(shape, dtype=res, device=self.device)
    elif list(out.shape) != shape:
        out.resize_(shape)
    _sum_into(self, red, keepdim, out, res)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def sum(self, *, dtype=None):
    return _sum_impl(self, None, False, dtype, None)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    return _sum_impl(self, dim, keepdim, dtype, None)


def sum_IntList_out(self, dim, keepdim=False, *, dtype=None, out):
    return _sum_impl(self, dim, keepdim, dtype, out)


def sum_out(self, *, dtype=None, out):
    return _sum_impl(self, None, False, dtype, out)
