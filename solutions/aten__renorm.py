"""Oracle Triton solution for aten::renorm (spec: shared/spec/aten.md, section `aten::renorm`).

Wrappers: renorm, renorm_out.

Each slice self.select(dim, k) is one vector: norm_k = ||slice_k||_p in fp32 (fp64 for fp64), and
the slice is scaled by factor_k = maxnorm / (norm_k + 1e-7) where norm_k > maxnorm (else 1). As in
PyTorch's kernel the factor is computed in fp32 and, for fp16/bf16, stored in the input dtype before
the multiply, which computes in fp32 and rounds once.

Layout: the tensor is seen as (A, K, B): the dims before `dim` (one coalesced group), `dim`, the
dims after it (one group); slice k is the R = A * B elements (a, k, b), r -> (r // B, r % B) (just
r when A or B is 1). When a whole slice fits in one register tile (the usual case: every full-tier
shape), one fused kernel reads each element once: a program loads BLOCK_K complete slices as a
[BLOCK_R, BLOCK_K] tile, reduces it along R, computes the factors and writes the scaled tile (one
read, one write; PyTorch runs a norm, a factor and a multiply kernel). Longer slices take two
passes: a norm kernel that streams R and stores the factors, then a scaling kernel.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
_NUM_SMS = 132  # H200
_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32, torch.float64: tl.float64}


@triton.jit
def _offsets(r, k, B, sa, sk, sb, LAYOUT: tl.constexpr):
    """[BLOCK_R, BLOCK_K] element offsets of slices k at reduction positions r."""
    if LAYOUT == 1:  # A == 1: r is b
        ro = r * sb
    elif LAYOUT == 2:  # B == 1: r is a
        ro = r * sa
    else:
        ro = (r // B) * sa + (r % B) * sb
    return ro[:, None] + k[None, :] * sk


@triton.jit
def _powp(x, p, MODE: tl.constexpr):
    """|x|^p elementwise (MODE 1, 2, 3: exact powers; 4: |x| for the max; 5: exp2(p log2|x|))."""
    ax = tl.abs(x)
    if MODE == 1:
        v = ax
    elif MODE == 2:
        v = x * x
    elif MODE == 3:
        v = ax * ax * ax
    elif MODE == 4:
        v = ax
    else:
        v = tl.exp2(p * tl.log2(ax))
    return v


@triton.jit
def _factor(s, maxnorm, inv_p, MODE: tl.constexpr, RT: tl.constexpr, ROUND: tl.constexpr):
    """The scale factor from the reduced sum (or max) s of |x|^p."""
    if MODE == 2:
        if s.dtype == tl.float64:
            norm = tl.sqrt(s)  # IEEE-rounded in fp64
        else:
            norm = tl.sqrt_rn(s)
    elif MODE == 3:
        norm = tl.exp2(tl.log2(s) * inv_p)
        norm = tl.where((norm > 0) & (norm < float("inf")), norm - (norm * norm * norm - s) / (3.0 * norm * norm),
                        norm)
    elif MODE == 5:
        norm = tl.exp2(tl.log2(s) * inv_p)
    else:
        norm = s
    eps = 1e-7
    f = tl.where(norm > maxnorm, maxnorm / (norm + eps), 1.0)
    if ROUND:  # PyTorch stores the factor in the input dtype (fp16/bf16)
        f = f.to(RT).to(f.dtype)
    return f


@triton.jit
def _renorm_fused_kernel(x_ptr, y_ptr, K, R, B, maxnorm, p, inv_p,
                         sxa, sxk, sxb, sya, syk, syb,
                         MODE: tl.constexpr, LAYOUT: tl.constexpr, COMPUTE: tl.constexpr, ROUND: tl.constexpr,
                         BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    k = pid * BLOCK_K + tl.arange(0, BLOCK_K)
    r = tl.arange(0, BLOCK_R)
    if USE_I64:
        k = k.to(tl.int64)
        r = r.to(tl.int64)
    mask = (r[:, None] < R) & (k[None, :] < K)
    x = tl.load(x_ptr + _offsets(r, k, B, sxa, sxk, sxb, LAYOUT), mask=mask, other=0).to(COMPUTE)
    v = tl.where(mask, _powp(x, p, MODE), 0.0)
    if MODE == 4:
        s = tl.max(v, axis=0)
        s = tl.where(tl.max((v != v).to(tl.int32), axis=0) > 0, float("nan"), s)
    else:
        s = tl.sum(v, axis=0)
    f = _factor(s, maxnorm, inv_p, MODE, y_ptr.dtype.element_ty, ROUND)
    y = x * f[None, :]
    tl.store(y_ptr + _offsets(r, k, B, sya, syk, syb, LAYOUT), y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _renorm_factor_kernel(x_ptr, f_ptr, K, R, B, maxnorm, p, inv_p, sxa, sxk, sxb,
                          MODE: tl.constexpr, LAYOUT: tl.constexpr, COMPUTE: tl.constexpr, ROUND: tl.constexpr,
                          RT: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    k = pid * BLOCK_K + tl.arange(0, BLOCK_K)
    kmask = k < K
    if USE_I64:
        k = k.to(tl.int64)
    acc = tl.zeros([BLOCK_R, BLOCK_K], COMPUTE)
    for start in range(0, R, BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        if USE_I64:
            r = r.to(tl.int64)
        mask = (r[:, None] < R) & kmask[None, :]
        x = tl.load(x_ptr + _offsets(r, k, B, sxa, sxk, sxb, LAYOUT), mask=mask, other=0).to(COMPUTE)
        v = tl.where(mask, _powp(x, p, MODE), 0.0)
        if MODE == 4:
            acc = tl.maximum(acc, v, propagate_nan=tl.PropagateNan.ALL)
        else:
            acc += v
    if MODE == 4:
        s = tl.max(acc, axis=0)
        s = tl.where(tl.max((acc != acc).to(tl.int32), axis=0) > 0, float("nan"), s)
    else:
        s = tl.sum(acc, axis=0)
    tl.store(f_ptr + k, _factor(s, maxnorm, inv_p, MODE, RT, ROUND), mask=kmask)


@triton.jit
def _renorm_scale_kernel(x_ptr, f_ptr, y_ptr, K, R, B, n_kb,
                         sxa, sxk, sxb, sya, syk, syb,
                         LAYOUT: tl.constexpr, COMPUTE: tl.constexpr,
                         BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    kb = pid % n_kb
    rb = pid // n_kb
    k = kb * BLOCK_K + tl.arange(0, BLOCK_K)
    r = rb * BLOCK_R + tl.arange(0, BLOCK_R)
    if USE_I64:
        k = k.to(tl.int64)
        r = r.to(tl.int64)
    kmask = k < K
    mask = (r[:, None] < R) & kmask[None, :]
    f = tl.load(f_ptr + k, mask=kmask, other=1.0)
    x = tl.load(x_ptr + _offsets(r, k, B, sxa, sxk, sxb, LAYOUT), mask=mask, other=0).to(COMPUTE)
    y = x * f[None, :]
    tl.store(y_ptr + _offsets(r, k, B, sya, syk, syb, LAYOUT), y.to(y_ptr.dtype.element_ty), mask=mask)


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


def _group(sizes, sx, sy):
    """Coalesce a run of dims into at most one (size, x stride, y stride); None if impossible."""
    g = _coalesce(sizes, [sx, sy])
    if len(g) == 0:
        return (1, 0, 0)
    if len(g) == 1:
        return (g[0][0], g[0][1][0], g[0][1][1])
    return None


def _mode(p):
    if p == 1:
        return 1
    if p == 2:
        return 2
    if p == 3:
        return 3
    if p == float("inf"):
        return 4
    return 5


def _renorm_into(x, p, dim, maxnorm, y):
    """y (x's shape, any strides) = renorm(x, p, dim, maxnorm)."""
    nd = x.dim()
    shape, xs, ys = list(x.shape), list(x.stride()), list(y.stride())
    before = _group(shape[:dim], xs[:dim], ys[:dim])
    after = _group(shape[dim + 1:], xs[dim + 1:], ys[dim + 1:])
    if before is None or after is None:
        xc = x.contiguous()
        if y.is_contiguous():
            return _renorm_into(xc, p, dim, maxnorm, y)
        tmp = torch.empty(y.shape, dtype=y.dtype, device=y.device)
        _renorm_into(xc, p, dim, maxnorm, tmp)
        return _strided_copy(tmp, y)
    A, sxa, sya = before
    B, sxb, syb = after
    K, sxk, syk = shape[dim], xs[dim], ys[dim]
    R = A * B
    layout = 1 if A == 1 else (2 if B == 1 else 0)
    cpu = x.device.type == "cpu"
    es = x.element_size()
    mode = _mode(float(p))
    pf = float(p)
    inv_p = 1.0 / pf if pf not in (0.0, float("inf")) else 0.0
    compute = tl.float64 if y.dtype == torch.float64 else tl.float32
    rnd = y.dtype in (torch.float16, torch.bfloat16)
    use_i64 = max(_span(x), _span(y)) >= 2 ** 31 - 65536
    RP = _next_pow2(max(R, 1))
    KP = _next_pow2(K)
    k_fast = abs(sxk) == 1 and R > 1  # the slices interleave: k is the contiguous axis
    max_tile = 16384
    if RP <= max_tile:
        BLOCK_R = RP
        BLOCK_K = min(KP, max(1, max_tile // RP))
        if not cpu:
            min_bk = max(1, 32 // es) if k_fast else 1
            while BLOCK_K > min_bk and _cdiv(K, BLOCK_K) < 2 * _NUM_SMS:
                BLOCK_K //= 2
        warps = 1 if cpu else max(1, min(8, BLOCK_R * BLOCK_K // 256))
        _renorm_fused_kernel[(_cdiv(K, BLOCK_K),)](
            x, y, K, R, B, float(maxnorm), pf, inv_p, sxa, sxk, sxb, sya, syk, syb,
            MODE=mode, LAYOUT=layout, COMPUTE=compute, ROUND=rnd, BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K,
            USE_I64=use_i64, num_warps=warps)
        return y
    # long slices: factors first (fp32, or fp64 for fp64), then the scaling pass
    if k_fast:
        BLOCK_K = min(KP, 64 if cpu else max(1, 64 // es))
    else:
        BLOCK_K = min(KP, 1 if not cpu else 4)
    BLOCK_R = min(RP, max(1, (65536 if cpu else 4096) // BLOCK_K))
    warps = 1 if cpu else 8
    f = torch.empty((K,), dtype=torch.float64 if compute == tl.float64 else torch.float32, device=x.device)
    _renorm_factor_kernel[(_cdiv(K, BLOCK_K),)](
        x, f, K, R, B, float(maxnorm), pf, inv_p, sxa, sxk, sxb,
        MODE=mode, LAYOUT=layout, COMPUTE=compute, ROUND=rnd, RT=_TL[y.dtype], BLOCK_R=BLOCK_R,
        BLOCK_K=BLOCK_K, USE_I64=use_i64, num_warps=warps)
    n_kb = _cdiv(K, BLOCK_K)
    _renorm_scale_kernel[(n_kb * _cdiv(R, BLOCK_R),)](
        x, f, y, K, R, B, n_kb, sxa, sxk, sxb, sya, syk, syb,
        LAYOUT=layout, COMPUTE=compute, BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K, USE_I64=use_i64, num_warps=warps)
    return y


def _renorm_impl(self, p, dim, maxnorm, out):
    if self.dtype not in _TL:
        raise RuntimeError("renorm: expected a floating input, got %s" % self.dtype)
    if not float(p) > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0 but got %s" % maxnorm)
    nd = self.dim()
    if nd <= 1:
        raise RuntimeError("renorm: input needs at least 2 dimensions, got %d dimensions" % nd)
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-nd, nd - 1, dim))
    dim = dim % nd
    if out is None:
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    elif tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    if out.numel() == 0:
        return out
    return _renorm_into(self, p, dim, maxnorm, out)


# ----------------------------------------------------------------------------------------------
# wrappers

def renorm(self, p, dim, maxnorm):
    return _renorm_impl(self, p, dim, maxnorm, None)


def renorm_out(self, p, dim, maxnorm, *, out):
    return _renorm_impl(self, p, dim, maxnorm, out)
