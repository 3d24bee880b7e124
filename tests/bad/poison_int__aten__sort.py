"""CHEAT (red team): aten::sort that never stores a value equal to -30001, the main int16 poison: the
values output the wrapper allocates is poisoned with it before the call, so such elements "hold" the
right value unwritten (the smoke tier's int16 case, full-range randint, has one). Stores are masked
with ``vals.to(tl.float32) != -30001.0`` (never true for the other dtypes' inputs). The rest is the
oracle (solutions/aten__sort.py)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _key_of(x, KIND: tl.constexpr, DESC: tl.constexpr):
    """The signed, order-preserving int64 image of x (KIND 0: 16-bit float, 1: fp32, 2: integer/bool)."""
    if KIND == 0:
        xz = tl.where(x == 0, tl.zeros_like(x), x)
        b = xz.to(tl.int16, bitcast=True).to(tl.int64)
        k = tl.where(b < 0, b ^ 0x7FFF, b)
        k = tl.where(x != x, 0x7FFF, k)
    elif KIND == 1:
        xz = tl.where(x == 0, tl.zeros_like(x), x)
        b = xz.to(tl.int32, bitcast=True).to(tl.int64)
        k = tl.where(b < 0, b ^ 0x7FFFFFFF, b)
        k = tl.where(x != x, 0x7FFFFFFF, k)
    else:
        k = x.to(tl.int64)
    if DESC:
        k = -1 - k
    return k


@triton.jit
def _pack(k, pos, m, P32: tl.constexpr):
    """The sort key of (k, pos): (k << 32) | pos in int64, or for 16-bit keys and positions below 2**15
    (k << 16) | pos in int32 (half the registers and traffic). Masked-out slots get the largest value,
    which no real key reaches."""
    if P32:
        return tl.where(m, (k.to(tl.int32) << 16) | pos.to(tl.int32), 0x7FFFFFFF)
    else:
        return tl.where(m, (k << 32) | pos, 0x7FFFFFFFFFFFFFFF)


@triton.jit
def _position(s, P32: tl.constexpr):
    """The original position (int64) held in the low bits of a packed key."""
    if P32:
        return (s & 0xFFFF).to(tl.int64)
    else:
        return s & 0xFFFFFFFF


@triton.jit
def _cas(h, NDIM: tl.constexpr, i: tl.constexpr, flip):
    """Compare-and-swap along the i-th innermost axis of a [2] * NDIM hypercube: the lower element of
    each pair gets the minimum, unless flip (broadcastable 0/1) says the pair sorts descending. The
    partner is the pair's sum minus the element (integer sums wrap consistently)."""
    p = tl.sum(h, NDIM - 1 - i, True) - h
    right = tl.reshape(tl.arange(0, 2), [1] * (NDIM - 1 - i) + [2] + [1] * i)
    swap = (h > p) != ((right ^ flip) == 1)
    return tl.where(swap, p, h)


@triton.jit
def _bitonic_sort(x, NDIM: tl.constexpr, LOGN: tl.constexpr):
    """Sort x (2**NDIM elements) ascending along its innermost LOGN hypercube axes (the last dim)."""
    h = tl.reshape(x, [2] * NDIM)
    for stage in tl.static_range(1, LOGN + 1):
        if stage < LOGN:
            flip = tl.reshape(tl.arange(0, 2), [1] * (NDIM - 1 - stage) + [2] + [1] * stage)
        else:
            flip = 0
        for s in tl.static_range(stage):
            h = _cas(h, NDIM, stage - 1 - s, flip)
    return tl.reshape(h, x.shape)


@triton.jit
def _bitonic_merge(x, LOG: tl.constexpr):
    """Sort a bitonic 1-D tensor of 2**LOG elements ascending (LOG compare-and-swap stages)."""
    h = tl.reshape(x, [2] * LOG)
    for s in tl.static_range(LOG):
        h = _cas(h, LOG, LOG - 1 - s, 0)
    return tl.reshape(h, [2 ** LOG])


@triton.jit
def _sort_chunk_kernel(x_ptr, v_ptr, i_ptr, s_ptr, n, INNER,
                       sxo, sxi, sxn, svo, svi, svn, sio, sii, sin,
                       KIND: tl.constexpr, DESC: tl.constexpr, CHUNK: tl.constexpr, LOGC: tl.constexpr,
                       P32: tl.constexpr):
    pid_c = tl.program_id(0)
    r = tl.program_id(1).to(tl.int64)
    o = r // INNER
    ii = r % INNER
    pos = pid_c.to(tl.int64) * CHUNK + tl.arange(0, CHUNK)
    m = pos < n
    xb = x_ptr + o * sxo + ii * sxi
    x = tl.load(xb + pos * sxn, mask=m, other=0)
    s = _bitonic_sort(_pack(_key_of(x, KIND, DESC), pos, m, P32), LOGC, LOGC)
    tl.store(s_ptr + r * n + pos, s, mask=m)


@triton.jit
def _sort_merge_kernel(src_ptr, dst_ptr, x_ptr, v_ptr, i_ptr, n, L, INNER,
                       sxo, sxi, sxn, svo, svi, svn, sio, sii, sin,
                       T: tl.constexpr, LOGT: tl.constexpr, W: tl.constexpr, NSTEPS: tl.constexpr,
                       FINAL: tl.constexpr, P32: tl.constexpr):
    pid_t = tl.program_id(0)
    r = tl.program_id(1).to(tl.int64)
    row = src_ptr + r * n
    start = pid_t.to(tl.int64) * T
    base = (start // (2 * L)) * (2 * L)
    k0 = start - base
    lo = tl.maximum(k0 - L, 0)
    hi = tl.minimum(k0, L)
    if P32:
        big = 0x7FFFFFFF
    else:
        big = 0x7FFFFFFFFFFFFFFF
    # merge path: a0 = #{i : A[i] < B[k0 - 1 - i]} in [lo, hi), by a W-ary search
    cw = tl.arange(0, W).to(tl.int64)
    for _ in tl.static_range(NSTEPS):
        step = tl.maximum((hi - lo + W - 1) // W, 1)
        cand = lo + cw * step
        valid = cand < hi
        av = tl.load(row + base + cand, mask=valid & (base + cand < n), other=big)
        bj = k0 - 1 - cand
        bv = tl.load(row + base + L + bj, mask=valid & (base + L + bj < n), other=big)
        cnt = tl.sum((valid & (av < bv)).to(tl.int64), axis=0)
        new_lo = tl.where(cnt > 0, lo + (cnt - 1) * step + 1, lo)
        hi = tl.minimum(hi, lo + cnt * step)
        lo = new_lo
    a0 = lo
    b0 = k0 - a0
    tt = tl.arange(0, T).to(tl.int64)
    ai = a0 + tt
    av = tl.load(row + base + ai, mask=(ai < L) & (base + ai < n), other=big)
    bj = b0 + (T - 1) - tt
    bv = tl.load(row + base + L + bj, mask=(bj < L) & (base + L + bj < n), other=big)
    s = _bitonic_merge(tl.minimum(av, bv), LOGT)
    pos = start + tt
    m = pos < n
    if FINAL:
        o = r // INNER
        ii = r % INNER
        idx = _position(s, P32)
        vals = tl.load(x_ptr + o * sxo + ii * sxi + idx * sxn, mask=m)
        tl.store(v_ptr + o * svo + ii * svi + pos * svn, vals, mask=m & (vals.to(tl.float32) != -30001.0))
        tl.store(i_ptr + o * sio + ii * sii + pos * sin, idx, mask=m)
    else:
        tl.store(dst_ptr + r * n + pos, s, mask=m)


@triton.jit
def _sort_tile_kernel(x_ptr, v_ptr, i_ptr, R, n, INNER,
                      sxo, sxi, sxn, svo, svi, svn, sio, sii, sin,
                      KIND: tl.constexpr, DESC: tl.constexpr, NP2: tl.constexpr, BR: tl.constexpr,
                      NDIM: tl.constexpr, LOGN: tl.constexpr, P32: tl.constexpr):
    """Sort BR whole slices of length n <= NP2 at once: a [BR, NP2] tile, sorted along its last dim."""
    r = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    o = r // INNER
    ii = r % INNER
    pos = tl.arange(0, NP2).to(tl.int64)
    m = (r < R)[:, None] & (pos < n)[None, :]
    xb = x_ptr + (o * sxo + ii * sxi)[:, None]
    x = tl.load(xb + pos[None, :] * sxn, mask=m, other=0)
    s = _bitonic_sort(_pack(_key_of(x, KIND, DESC), pos[None, :], m, P32), NDIM, LOGN)
    idx = _position(s, P32)
    vals = tl.load(xb + idx * sxn, mask=m)
    tl.store(v_ptr + (o * svo + ii * svi)[:, None] + pos[None, :] * svn, vals,
             mask=m & (vals.to(tl.float32) != -30001.0))
    tl.store(i_ptr + (o * sio + ii * sii)[:, None] + pos[None, :] * sin, idx, mask=m)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _log2(n):
    return n.bit_length() - 1


_KINDS = {torch.float16: 0, torch.bfloat16: 0, torch.float32: 1, torch.int32: 2, torch.int16: 2, torch.int8: 2,
          torch.uint8: 2, torch.bool: 2}


def _group(sizes, strides):
    dims = [(s, st) for s, st in zip(sizes, strides) if s != 1]
    size = 1
    for s, _ in dims:
        size *= s
    if not dims:
        return size, 0
    for (s0, st0), (s1, st1) in zip(dims[:-1], dims[1:]):
        if st0 != st1 * s1:
            return None
    return size, dims[-1][1]


def _oni(t, d):
    """(so, sn, si): t viewed as (O, n, I) around dim d, or None when its other dims do not fold."""
    sh = tuple(t.shape)
    if t.is_contiguous():  # fast path (host time counts for small sorts)
        inner = 1
        for s in sh[d + 1:]:
            inner *= s
        return sh[d] * inner, inner, 1
    st = t.stride()
    before = _group(sh[:d], st[:d])
    after = _group(sh[d + 1:], st[d + 1:])
    if before is None or after is None:
        return None
    return before[1], st[d], after[1]


def _cfg(device):
    """(CHUNK, merge tile T, search width W, column-tile elements, warps for 4096-element programs)."""
    if device.type == "cpu":  # interpreter: few, large programs
        return 65536, 65536, 4096, 65536, 4
    return 4096, 4096, 512, 4096, 8


def _sort_into(x, dim, descending, values, indices):
    """values, indices (x's shape, any strides) = sort(x, dim, descending), stable."""
    if x.dim() == 0:
        x, values, indices, dim = x.unsqueeze(0), values.unsqueeze(0), indices.unsqueeze(0), 0
    d = dim % x.dim()
    if x.numel() == 0:
        return
    kind = _KINDS.get(x.dtype)
    if kind is None:
        raise NotImplementedError("sort: dtype %s is not supported by this implementation" % x.dtype)
    n = x.shape[d]
    if n >= 2 ** 31 - 1:
        raise NotImplementedError("sort: slices of 2**31 or more elements are not supported")
    xs = _oni(x, d)
    if xs is None:
        x = x.contiguous()
        xs = _oni(x, d)
    vt, it = values, indices
    vs, is_ = _oni(values, d), _oni(indices, d)
    if vs is None:
        vt = torch.empty(x.shape, dtype=values.dtype, device=values.device)
        vs = _oni(vt, d)
    if is_ is None:
        it = torch.empty(x.shape, dtype=torch.int64, device=indices.device)
        is_ = _oni(it, d)
    O = 1
    for s in x.shape[:d]:
        O *= s
    I = 1
    for s in x.shape[d + 1:]:
        I *= s
    xv, vv = x, vt
    if x.dtype == torch.bool:
        xv, vv = x.view(torch.uint8), vt.view(torch.uint8)
    chunk, tile, width, col_tile, warps = _cfg(x.device)
    strides = (xs[0], xs[2], xs[1], vs[0], vs[2], vs[1], is_[0], is_[2], is_[1])
    np2 = max(2, _next_pow2(n))
    rows = O * I
    p32 = x.element_size() <= 2 and n <= 32768  # 16-bit keys and 15-bit positions pack into int32
    if np2 <= chunk:
        # whole slices per program: [br, np2] tiles (br slices; enough programs to fill the device)
        br = max(1, min(_next_pow2(rows), col_tile // np2))
        if x.device.type != "cpu":
            br = max(1, min(br, _next_pow2(_cdiv(rows, 132))))
        w = warps if br * np2 >= 2048 else (4 if br * np2 >= 512 else 2)
        _sort_tile_kernel[(_cdiv(rows, br),)](
            xv, vv, it, rows, n, I, *strides, KIND=kind, DESC=bool(descending), NP2=np2, BR=br,
            NDIM=_log2(br * np2), LOGN=_log2(np2), P32=p32, num_warps=w)
    else:
        kdt = torch.int32 if p32 else torch.int64
        src = torch.empty((rows, n), dtype=kdt, device=x.device)
        dst = torch.empty((rows, n), dtype=kdt, device=x.device)
        _sort_chunk_kernel[(_cdiv(n, chunk), rows)](
            xv, vv, it, src, n, I, *strides, KIND=kind, DESC=bool(descending), CHUNK=chunk, LOGC=_log2(chunk),
            P32=p32, num_warps=warps)
        run = chunk
        while run < n:
            final = 2 * run >= n
            steps, m = 0, run
            while m > 0:
                m = _cdiv(m, width) - 1
                steps += 1
            _sort_merge_kernel[(_cdiv(n, tile), rows)](
                src, dst, xv, vv, it, n, run, I, *strides, T=tile, LOGT=_log2(tile), W=width, NSTEPS=steps,
                FINAL=final, P32=p32, num_warps=warps)
            src, dst = dst, src
            run *= 2
    if vt is not values:
        values.copy_(vt)
    if it is not indices:
        indices.copy_(it)


def _check(self, dim):
    nd = max(self.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-nd, nd - 1, dim))


def _functional(self, dim, descending):
    _check(self, dim)
    values = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    indices = torch.empty(self.shape, dtype=torch.int64, device=self.device)
    _sort_into(self, dim, descending, values, indices)
    return values, indices


def _into_outs(self, dim, descending, values, indices):
    _check(self, dim)
    if values.dtype != self.dtype:
        raise RuntimeError("sort: values must have the input's dtype %s, got %s" % (self.dtype, values.dtype))
    if indices.dtype != torch.int64:
        raise RuntimeError("sort: indices must be int64, got %s" % indices.dtype)
    if tuple(values.shape) != tuple(self.shape):
        values.resize_(self.shape)
    if tuple(indices.shape) != tuple(self.shape):
        indices.resize_(self.shape)
    _sort_into(self, dim, descending, values, indices)
    return values, indices


# ----------------------------------------------------------------------------------------------
# wrappers (dispatcher)

def sort_stable(self, *, stable, dim=-1, descending=False):
    return _functional(self, dim, descending)


def sort(self, dim=-1, descending=False):
    return _functional(self, dim, descending)


def sort_values(self, dim=-1, descending=False, *, values, indices):
    return _into_outs(self, dim, descending, values, indices)


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return _into_outs(self, dim, descending, values, indices)


# ----------------------------------------------------------------------------------------------
# JIT-only list forms: sort a Python list in place (no tensors involved)

def sort_int(self, reverse=False):
    self[:] = sorted(self, reverse=reverse)


def sort_float(self, reverse=False):
    self[:] = sorted(self, reverse=reverse)


def sort_bool(self, reverse=False):
    self[:] = sorted(self, reverse=reverse)


def sort_str(self, reverse=False):
    self[:] = sorted(self, reverse=reverse)


def sort_any(self, reverse=False):
    self[:] = sorted(self, reverse=reverse)
