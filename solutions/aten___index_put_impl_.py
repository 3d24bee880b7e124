"""Oracle Triton solution for aten::_index_put_impl_ (spec: shared/spec/aten.md, section `aten::_index_put_impl_`).

Wrappers: _index_put_impl_ (dispatcher); _index_put_impl__hacked_twin (TorchScript-only, plain Python).

self[indices] = values in place (+= with accumulate=True; unsafe only skips bounds checks, which the kernels do not make), returning self. The index engine is the one of the index
oracle (see aten__index.py): int64/int32 index tensors (negative values wrap) and bool/uint8 masks (turned
into storage offsets by a Triton stream compaction; their count is read on the host once) become offset
sources that broadcast to B; one 2-D tiled kernel walks (b, r) over the indexed positions and the rest
dims, loading values (of self's dtype, as PyTorch requires) through their broadcast strides and storing into
self through its strides, so strided selves are written in place and nothing outside the indexed
elements is touched. accumulate=True uses atomic adds (fp16/bf16/fp32/fp64/int32/int64): duplicate
positions sum, in an unspecified order; accumulate=False with duplicates leaves one of the written values.
A lone mask (self[mask] = values) takes a fused path: one kernel ranks the True elements and writes
values[k] to the k-th, with no host read (the count of True elements is never needed on the host; values
of the wrong length are not diagnosed there, the kernel only reads values it has). All-None indices raise
RuntimeError; values that do not broadcast raise as PyTorch's expand does.
"""
import torch
import triton
import triton.language as tl


# ---------------------------------------------------------------------------------------------- kernels
@triton.jit
def _index_kernel(x_ptr, v_ptr, i0, i1, i2, a0, a1, a2, c0, c1, c2, m0, m1, m2, w0, w1, w2,
                  NROWS, NRO, B1, R1, C, vb0, vb1, xr0, xr1, xr2, vr0, vr1, vr2, ncb,
                  K: tl.constexpr, BD: tl.constexpr, RD: tl.constexpr, MODE: tl.constexpr,
                  BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, I64: tl.constexpr):
    # Rows enumerate (b, outer rest dims), columns the innermost rest dim (size C).
    # MODE 0: v[b, r] = x[src(b) + rest(r)]; 1: x[...] = v[b, r]; 2: x[...] += v[b, r] (atomic)
    pid = tl.program_id(0)
    pr = pid // ncb
    pc = pid % ncb
    if I64:
        row = pr.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
        col = pc.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    else:
        row = pr * BLOCK_R + tl.arange(0, BLOCK_R)
        col = pc * BLOCK_C + tl.arange(0, BLOCK_C)
    rowm = row < NROWS
    colm = col < C
    if RD >= 2:
        ro = row % NRO
        b = row // NRO
        if RD == 3:
            xrow = (ro // R1) * xr0 + (ro % R1) * xr1
            vrow = (ro // R1) * vr0 + (ro % R1) * vr1
        else:
            xrow = ro * xr1
            vrow = ro * vr1
    else:
        b = row
        xrow = row * 0
        vrow = row * 0
    if BD == 2:
        bi = b % B1
        bo = b // B1
        j = tl.load(i0 + bo * a0 + bi * c0, mask=rowm, other=0).to(tl.int64)
        src = tl.where(j < 0, j + w0, j) * m0
        if K >= 2:
            j = tl.load(i1 + bo * a1 + bi * c1, mask=rowm, other=0).to(tl.int64)
            src += tl.where(j < 0, j + w1, j) * m1
        if K >= 3:
            j = tl.load(i2 + bo * a2 + bi * c2, mask=rowm, other=0).to(tl.int64)
            src += tl.where(j < 0, j + w2, j) * m2
        vrow += bo * vb0 + bi * vb1
    else:
        j = tl.load(i0 + b * c0, mask=rowm, other=0).to(tl.int64)
        src = tl.where(j < 0, j + w0, j) * m0
        if K >= 2:
            j = tl.load(i1 + b * c1, mask=rowm, other=0).to(tl.int64)
            src += tl.where(j < 0, j + w1, j) * m1
        if K >= 3:
            j = tl.load(i2 + b * c2, mask=rowm, other=0).to(tl.int64)
            src += tl.where(j < 0, j + w2, j) * m2
        vrow += b * vb1
    xo = (src + xrow)[:, None] + (col * xr2)[None, :]
    vo = vrow[:, None] + (col * vr2)[None, :]
    msk = rowm[:, None] & colm[None, :]
    if MODE == 0:
        val = tl.load(x_ptr + xo, mask=msk)
        tl.store(v_ptr + vo, val, mask=msk)
    elif MODE == 1:
        val = tl.load(v_ptr + vo, mask=msk)
        tl.store(x_ptr + xo, val.to(x_ptr.dtype.element_ty), mask=msk)
    else:
        val = tl.load(v_ptr + vo, mask=msk)
        tl.atomic_add(x_ptr + xo, val.to(x_ptr.dtype.element_ty), mask=msk, sem="relaxed")


@triton.jit
def _fold_kernel(o_ptr, i_ptr, n, q1, q2, q3, s0, s1, s2, s3, mult, wrap,
                 ACC: tl.constexpr, ND: tl.constexpr, BLOCK: tl.constexpr):
    # o[lin] (+)= wrap(i[coords(lin)]) * mult, coords over <= 4 dims (right-aligned, inner sizes q1..q3)
    lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    msk = lin < n
    rem = lin
    off = (rem % q3) * s3
    rem = rem // q3
    if ND >= 2:
        off += (rem % q2) * s2
        rem = rem // q2
    if ND >= 3:
        off += (rem % q1) * s1
        rem = rem // q1
    if ND >= 4:
        off += rem * s0
    j = tl.load(i_ptr + off, mask=msk, other=0).to(tl.int64)
    j = tl.where(j < 0, j + wrap, j) * mult
    if ACC:
        j += tl.load(o_ptr + lin, mask=msk, other=0)
    tl.store(o_ptr + lin, j, mask=msk)


@triton.jit
def _nz_count_kernel(m_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = (tl.load(m_ptr + offs, mask=offs < n, other=0) != 0).to(tl.int32)
    tl.store(cnt_ptr + tl.program_id(0), tl.sum(m, axis=0))


@triton.jit
def _nz_scan_kernel(cnt_ptr, start_ptr, tot_ptr, nblk, CH: tl.constexpr):
    carry = tl.zeros([1], dtype=tl.int64)
    for s in range(0, nblk, CH):
        offs = s + tl.arange(0, CH)
        c = tl.load(cnt_ptr + offs, mask=offs < nblk, other=0).to(tl.int64)
        inc = tl.cumsum(c, 0)
        tl.store(start_ptr + offs, carry + inc - c, mask=offs < nblk)
        carry += tl.sum(c, axis=0)
    tl.store(tot_ptr + tl.arange(0, 1), carry)


@triton.jit
def _nz_write_kernel(m_ptr, start_ptr, tot_ptr, out_ptr, n, q1, q2, q3, t0, t1, t2, t3,
                     ND: tl.constexpr, SINGLE: tl.constexpr, BLOCK: tl.constexpr):
    # out[k] = storage offset (strides t*) of the k-th True element of the mask in row-major order
    # (int32 positions: masks hold fewer than 2^31 elements; int64 offsets)
    pid = tl.program_id(0)
    lin = pid * BLOCK + tl.arange(0, BLOCK)
    m = (tl.load(m_ptr + lin, mask=lin < n, other=0) != 0).to(tl.int32)
    inc = tl.cumsum(m, 0)
    if SINGLE:
        base = 0
        tl.store(tot_ptr + tl.arange(0, 1), tl.sum(m, axis=0).to(tl.int64) + tl.zeros([1], dtype=tl.int64))
    else:
        base = tl.load(start_ptr + pid)
    off = _mask_offset(lin, q1, q2, q3, t0, t1, t2, t3, ND)
    tl.store(out_ptr + (base + (inc - m)), off, mask=m != 0)


@triton.jit
def _mask_offset(lin, q1, q2, q3, t0, t1, t2, t3, ND: tl.constexpr):
    # storage offset (int64) of row-major mask position lin over <= 4 coalesced dims (inner sizes q1..q3)
    if ND == 1:
        off = lin.to(tl.int64) * t3
    else:
        rem = lin // q3
        off = (lin % q3).to(tl.int64) * t3
        if ND == 2:
            off += rem.to(tl.int64) * t2
        else:
            off += (rem % q2).to(tl.int64) * t2
            rem = rem // q2
            if ND == 3:
                off += rem.to(tl.int64) * t1
            else:
                off += (rem % q1).to(tl.int64) * t1 + (rem // q1).to(tl.int64) * t0
    return off


@triton.jit
def _mask_kernel(m_ptr, x_ptr, v_ptr, start_ptr, tot_ptr, n, q1, q2, q3, t0, t1, t2, t3, C, xc, vk, vc, nvk,
                 ND: tl.constexpr, MODE: tl.constexpr, SINGLE: tl.constexpr, CT: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    # Fused stream compaction for a lone bool mask over self's leading dims: the k-th True element (row-
    # major) at storage offset off. MODE 0: v[k, c] = x[off + c*xc] (v dense, C columns); 1: x[off + c*xc] =
    # values[k*vk + c*vc]; 2: x[...] += values[...] (mask positions are distinct: no atomics needed).
    pid = tl.program_id(0)
    lin = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    m = (tl.load(m_ptr + lin, mask=lin < n, other=0) != 0).to(tl.int32)
    inc = tl.cumsum(m, 0)
    if SINGLE:
        base = 0
        tl.store(tot_ptr + tl.arange(0, 1), tl.sum(m, axis=0).to(tl.int64) + tl.zeros([1], dtype=tl.int64))
    else:
        base = tl.load(start_ptr + pid)
    rank = base + (inc - m).to(tl.int64)
    off = _mask_offset(lin, q1, q2, q3, t0, t1, t2, t3, ND)
    sel = m != 0
    if MODE != 0:
        sel = sel & ((rank < nvk) | (vk == 0))
    for c0 in range(0, C, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        msk = sel[:, None] & (cols < C)[None, :]
        xo = off[:, None] + (cols * xc)[None, :]
        if MODE == 0:
            val = tl.load(x_ptr + xo, mask=msk)
            tl.store(v_ptr + ((rank * C)[:, None] + cols[None, :]), val, mask=msk)
        else:
            val = tl.load(v_ptr + ((rank * vk)[:, None] + (cols * vc)[None, :]), mask=msk)
            val = val.to(x_ptr.dtype.element_ty)
            if MODE == 2:
                cur = tl.load(x_ptr + xo, mask=msk)
                val = (cur.to(CT) + val.to(CT)).to(x_ptr.dtype.element_ty)
            tl.store(x_ptr + xo, val, mask=msk)


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, q1, q2, q3, s0, s1, s2, s3, d0, d1, d2, d3,
                 ND: tl.constexpr, BLOCK: tl.constexpr):
    lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    msk = lin < n
    rem = lin
    so = (rem % q3) * s3
    do = (rem % q3) * d3
    rem = rem // q3
    if ND >= 2:
        so += (rem % q2) * s2
        do += (rem % q2) * d2
        rem = rem // q2
    if ND >= 3:
        so += (rem % q1) * s1
        do += (rem % q1) * d1
        rem = rem // q1
    if ND >= 4:
        so += rem * s0
        do += rem * d0
    tl.store(dst_ptr + do, tl.load(src_ptr + so, mask=msk), mask=msk)


# ---------------------------------------------------------------------------------------------- host side
_INT_INDEX = (torch.int64, torch.int32)
_MASKS = (torch.bool, torch.uint8)


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _coalesce(sizes, strides):
    """Drop size-1 dims and merge neighbours whose strides agree in every list: [(size, [strides])]."""
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides]
        if dims:
            psz, pst = dims[-1]
            if all(pst[k] == st[k] * sz for k in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _right(dims, nd, nlists):
    """Right-align coalesced dims into nd slots: (sizes, [strides per list])."""
    full = [(1, [0] * nlists)] * (nd - len(dims)) + dims
    return [d[0] for d in full], [[d[1][k] for d in full] for k in range(nlists)]


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _mask_offsets(mask, sizes, strides, device):
    """Storage offsets (int64, row-major order) of the True elements of ``mask`` over self dims with
    ``sizes``/``strides``; the count is read on the host once."""
    if list(mask.shape) != list(sizes):
        raise IndexError(f"The shape of the mask {list(mask.shape)} does not match the shape of the indexed "
                         f"tensor {list(sizes)}")
    m = mask if mask.is_contiguous() else mask.contiguous()
    n = m.numel()
    if n >= 2 ** 31 - 65536:
        raise NotImplementedError("index: masks of 2^31 elements or more")
    out = torch.empty((max(n, 1),), dtype=torch.int64, device=device)
    tot = torch.empty((1,), dtype=torch.int64, device=device)
    dims = _coalesce(list(sizes), [list(strides)])
    if len(dims) > 4:
        raise NotImplementedError("index: a mask over more than 4 non-coalescable dims")
    q, (t,) = _right(dims, 4, 1)
    nd = max(1, len(dims))
    if n == 0:
        return out[:0]
    block = min(_pow2(n), 65536 if device.type == "cpu" else 4096)
    nblk = _cdiv(n, block)
    warps = 8 if block >= 2048 else 4
    if nblk == 1:
        _nz_write_kernel[(1,)](m, tot, tot, out, n, q[1], q[2], q[3], t[0], t[1], t[2], t[3],
                               ND=nd, SINGLE=True, BLOCK=block, num_warps=warps)
    else:
        cnt = torch.empty((nblk,), dtype=torch.int32, device=device)
        start = torch.empty((nblk,), dtype=torch.int64, device=device)
        _nz_count_kernel[(nblk,)](m, cnt, n, BLOCK=block, num_warps=warps)
        _nz_scan_kernel[(1,)](cnt, start, tot, nblk, CH=1024)
        _nz_write_kernel[(nblk,)](m, start, tot, out, n, q[1], q[2], q[3], t[0], t[1], t[2], t[3],
                                  ND=nd, SINGLE=False, BLOCK=block, num_warps=warps)
    k = tot.item()
    return out[:k]


def _lone_mask(indices):
    """The mask when ``indices`` is one bool/uint8 mask followed only by Nones, else None."""
    if indices and indices[0] is not None and indices[0].dtype in _MASKS:
        for i in indices[1:]:
            if i is not None:
                return None
        return indices[0]
    return None


def _compute_type(dt):
    if dt in (torch.float16, torch.bfloat16, torch.float32):
        return tl.float32
    if dt == torch.float64:
        return tl.float64
    if dt.is_floating_point or dt.is_complex:
        return tl.float32
    return tl.int64


def _masked(x, mask, values, mode):
    """Fast path for x[mask] (mode 0: returns the result) and x[mask] = / += values (modes 1, 2: returns
    x): one fused kernel when the mask fits one block (else block counts and a scan first); the index
    count is read on the host only for mode 0, whose output shape depends on it. None when the layout
    does not fit (more than one rest dim after coalescing): the caller takes the general path."""
    k = mask.dim()
    if k > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()} (got {k})")
    if list(mask.shape) != list(x.shape[:k]):
        raise IndexError(f"The shape of the mask {list(mask.shape)} does not match the shape of the indexed "
                         f"tensor {list(x.shape[:k])}")
    rsizes = list(x.shape[k:])
    lists = [list(x.stride()[k:])]
    vk, nvk = 0, 1
    if mode != 0:
        r = len(rsizes)
        if values.dim() > r + 1:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast "
                               f"to indexing result with {r + 1} dimensions")
        vrest = values
        if values.dim() == r + 1:
            nvk = values.shape[0]
            vk = 0 if nvk == 1 else values.stride(0)
            vrest = values.select(0, 0)
        lists.append(list(vrest.expand(rsizes).stride()))
    rdims = _coalesce(rsizes, lists)
    if len(rdims) > 1:
        return None
    C = rdims[0][0] if rdims else 1
    xc = rdims[0][1][0] if rdims else 0
    vc = rdims[0][1][1] if (rdims and mode != 0) else 0
    mdims = _coalesce(list(mask.shape), [list(x.stride()[:k])])
    if len(mdims) > 4:
        return None
    q, (t,) = _right(mdims, 4, 1)
    m = mask if mask.is_contiguous() else mask.contiguous()
    n = m.numel()
    if n >= 2 ** 31 - 65536:
        raise NotImplementedError("index: masks of 2^31 elements or more")
    dev = x.device
    on_cpu = dev.type == "cpu"
    block_c = min(_pow2(C), 65536 if on_cpu else 256)
    block_m = min(_pow2(n), max(64, (65536 if on_cpu else 4096) // block_c))
    nblk = _cdiv(max(n, 1), block_m)
    buf = torch.empty((max(n, 1) * C,), dtype=x.dtype, device=dev) if mode == 0 else values
    tot = torch.empty((1,), dtype=torch.int64, device=dev)
    if n and C:
        args = (q[1], q[2], q[3], t[0], t[1], t[2], t[3], C, xc, vk, vc, nvk)
        ct = _compute_type(x.dtype)
        warps = 8 if block_m * block_c >= 2048 else 4
        if nblk == 1:
            _mask_kernel[(1,)](m, x, buf, tot, tot, n, *args, ND=max(1, len(mdims)), MODE=mode, SINGLE=True,
                               CT=ct, BLOCK_M=block_m, BLOCK_C=block_c, num_warps=warps)
        else:
            cnt = torch.empty((nblk,), dtype=torch.int32, device=dev)
            start = torch.empty((nblk,), dtype=torch.int64, device=dev)
            _nz_count_kernel[(nblk,)](m, cnt, n, BLOCK=block_m, num_warps=8 if block_m >= 2048 else 4)
            _nz_scan_kernel[(1,)](cnt, start, tot, nblk, CH=1024)
            _mask_kernel[(nblk,)](m, x, buf, start, tot, n, *args, ND=max(1, len(mdims)), MODE=mode, SINGLE=False,
                                  CT=ct, BLOCK_M=block_m, BLOCK_C=block_c, num_warps=warps)
    if mode != 0:
        return x
    cnt_true = tot.item() if (n and C) else (0 if n == 0 else _count_only(m, n, dev))
    return buf[:cnt_true * C].view([cnt_true] + rsizes)


def _count_only(m, n, dev):
    """The number of True elements (a result with no columns still has K rows)."""
    block = min(_pow2(n), 65536 if dev.type == "cpu" else 4096)
    nblk = _cdiv(n, block)
    cnt = torch.empty((nblk,), dtype=torch.int32, device=dev)
    start = torch.empty((nblk,), dtype=torch.int64, device=dev)
    tot = torch.empty((1,), dtype=torch.int64, device=dev)
    _nz_count_kernel[(nblk,)](m, cnt, n, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    _nz_scan_kernel[(1,)](cnt, start, tot, nblk, CH=1024)
    return tot.item()


def _plan(x, indices):
    """Sources [(tensor, mult, wrap)], B shape, insert position p, rest dims [(size, self stride)]."""
    if len(indices) == 0:
        raise IndexError("at least one index must be provided")
    nd = x.dim()
    covered = 0
    for ind in indices:
        covered += ind.dim() if (ind is not None and ind.dtype in _MASKS) else 1
    if covered > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {covered})")
    shape, strides = list(x.shape), list(x.stride())
    srcs, rest, where = [], [], []
    d = 0
    for ind in indices:
        if ind is None:
            rest.append(d)
            d += 1
        elif ind.dtype in _MASKS:
            k = ind.dim()
            srcs.append((_mask_offsets(ind, shape[d:d + k], strides[d:d + k], x.device), 1, 0))
            where.extend(range(d, d + k))
            d += k
        elif ind.dtype in _INT_INDEX:
            srcs.append((ind, strides[d], shape[d]))
            where.append(d)
            d += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    rest.extend(range(d, nd))
    if not srcs:
        raise RuntimeError("index: at least one index must be a tensor")
    bshape = _broadcast([list(s[0].shape) for s in srcs])
    adjacent = where[-1] - where[0] + 1 == len(where)
    p = sum(1 for r in rest if r < where[0]) if adjacent else 0
    return srcs, bshape, p, [(shape[r], strides[r]) for r in rest]


def _broadcast(shapes):
    n = max(len(s) for s in shapes)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, n - len(s)):
            if d != 1:
                if out[i] != 1 and out[i] != d:
                    raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with "
                                     f"shapes {[list(x) for x in shapes]}")
                out[i] = d
    return out


def _result_shape(bshape, p, rest):
    sizes = [r[0] for r in rest]
    return sizes[:p] + bshape + sizes[p:]


def _fold(srcs, bshape, device):
    """One int64 offset vector (contiguous over B) from every source (the general path)."""
    nb = 1
    for s in bshape:
        nb *= s
    o = torch.empty(bshape, dtype=torch.int64, device=device)
    ostr = list(o.stride())
    for i, (t, mult, wrap) in enumerate(srcs):
        dims = _coalesce(bshape, [ostr, list(t.expand(bshape).stride())])
        if len(dims) > 4:
            raise NotImplementedError("index: index tensors broadcast over more than 4 dims")
        q, (_, s) = _right(dims, 4, 2)
        block = 1024
        _fold_kernel[(_cdiv(nb, block),)](o, t, nb, q[1], q[2], q[3], s[0], s[1], s[2], s[3], mult, wrap,
                                          ACC=i > 0, ND=max(1, len(dims)), BLOCK=block, num_warps=8)
    return [(o, 1, 0)]


def _run(x, srcs, bshape, p, rest, v, mode):
    """Launch the (b, r) kernel between self ``x`` and ``v`` (shaped like the indexed result)."""
    nb_dims = len(bshape)
    vstr = list(v.stride())
    vb_str = vstr[p:p + nb_dims]
    vr_str = vstr[:p] + vstr[p + nb_dims:]
    blists = [list(s[0].expand(bshape).stride()) for s in srcs]
    bdims = _coalesce(bshape, blists + [vb_str])
    if len(srcs) > 3 or len(bdims) > 2:
        srcs = _fold(srcs, bshape, x.device)
        bdims = _coalesce(bshape, [list(srcs[0][0].stride()), vb_str])
        if len(bdims) > 2:
            if mode == 0:
                raise NotImplementedError("index: the indexed result's broadcast dims do not coalesce")
            v = v.contiguous()  # values broadcast in a pattern that does not coalesce: materialise them
            return _run(x, srcs, bshape, p, rest, v, mode)
    rsizes = [r[0] for r in rest]
    rdims = _coalesce(rsizes, [[r[1] for r in rest], vr_str])
    if len(rdims) > 3:
        raise NotImplementedError("index: more than 3 non-coalescable dims outside the indexed ones")
    k = len(srcs)
    bq, bl = _right(bdims, 2, k + 1)
    rq, (xr, vr) = _right(rdims, 3, 2)
    nb = 1
    for s in bshape:
        nb *= s
    nr = 1
    for s in rsizes:
        nr *= s
    if nb == 0 or nr == 0:
        return
    ptrs = [s[0] for s in srcs] + [srcs[0][0]] * (3 - k)
    mults = [s[1] for s in srcs] + [0] * (3 - k)
    wraps = [s[2] for s in srcs] + [0] * (3 - k)
    a = [bl[i][0] for i in range(k)] + [0] * (3 - k)
    c = [bl[i][1] for i in range(k)] + [0] * (3 - k)
    vb = bl[k]
    C = rq[2]
    nro = nr // C
    nrows = nb * nro
    on_cpu = x.device.type == "cpu"
    total = nb * nr
    tile = 65536 if on_cpu else (4096 if total >= (1 << 22) else (1024 if total >= (1 << 18) else 256))
    block_c = min(_pow2(C), tile)
    block_r = min(_pow2(nrows), max(1, tile // block_c))
    ncb = _cdiv(C, block_c)
    i64 = max(nrows, C, _span(x), _span(v)) >= 2 ** 31 - 65536
    warps = 8 if block_r * block_c >= 4096 else (4 if block_r * block_c >= 1024 else 2)
    _index_kernel[(_cdiv(nrows, block_r) * ncb,)](
        x, v, ptrs[0], ptrs[1], ptrs[2], a[0], a[1], a[2], c[0], c[1], c[2], mults[0], mults[1], mults[2],
        wraps[0], wraps[1], wraps[2], nrows, nro, bq[1], rq[1], C, vb[0], vb[1], xr[0], xr[1], xr[2],
        vr[0], vr[1], vr[2], ncb,
        K=k, BD=max(1, len(bdims)), RD=max(1, len(rdims)), MODE=mode, BLOCK_R=block_r, BLOCK_C=block_c,
        I64=i64, num_warps=warps)


def _strided_copy(src, dst):
    n = dst.numel()
    if n == 0:
        return dst
    dims = _coalesce(list(dst.shape), [list(src.stride()), list(dst.stride())])
    if len(dims) > 4:
        raise NotImplementedError("index: strided copy over more than 4 dims")
    q, (s, d) = _right(dims, 4, 2)
    block = 65536 if dst.device.type == "cpu" else 1024
    block = min(block, _pow2(n))
    _copy_kernel[(_cdiv(n, block),)](src, dst, n, q[1], q[2], q[3], s[0], s[1], s[2], s[3], d[0], d[1], d[2],
                                     d[3], ND=max(1, len(dims)), BLOCK=block, num_warps=8)
    return dst


# ---------------------------------------------------------------------------------------------- wrappers
_ATOMIC = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64)


def _put(self, indices, values, accumulate):
    indices = list(indices)
    if all(i is None for i in indices):
        raise RuntimeError("index_put_: at least one index must be a tensor (all indices are None)")
    if values.dtype != self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {self.dtype} for the "
                           f"destination and {values.dtype} for the source.")
    if values.device != self.device and values.numel() == 1:
        values = torch.full((1,), values.item(), dtype=values.dtype, device=self.device).view(())
    mask = _lone_mask(indices)
    if mask is not None and self.numel():
        # a lone mask: positions are distinct, no atomics and no host read
        if _masked(self, mask, values, 2 if accumulate else 1) is not None:
            return self
    if accumulate and self.dtype not in _ATOMIC:
        raise NotImplementedError(f"index_put_ with accumulate=True on {self.dtype}")
    srcs, bshape, p, rest = _plan(self, indices)
    shape = _result_shape(bshape, p, rest)
    v = values.expand(shape)
    if v.numel() == 0:
        return self
    _run(self, srcs, bshape, p, rest, v, 2 if accumulate else 1)
    return self


def _index_put_impl_(self, indices, values, accumulate=False, unsafe=False):
    return _put(self, indices, values, accumulate)


def _index_put_impl__hacked_twin(self, indices, values, accumulate=False, unsafe=False):
    return _put(self, indices, values, accumulate)
