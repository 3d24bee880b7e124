"""Oracle Triton solution for aten::scatter (spec: shared/spec/aten.md, section `aten::scatter`).

Wrappers: scatter_src, scatter_value, scatter_reduce, scatter_value_reduce and their _out forms
(scatter_src_out, scatter_value_out, scatter_reduce_out, scatter_value_reduce_out).

out = self.clone(); out[index[i][j][k]][j][k] = src[i][j][k] for dim=0 (likewise for other dims), or
+= / *= with reduce='add' / 'multiply'; the .value forms write a Scalar (converted to self's dtype once,
into a one-element device tensor, so fp64 and int64 values stay exact).

Two kernels: a copy of self into the output (a flat copy when both are dense, else a strided one over at
most four coalesced dims), then a 2-D tiled scatter over index's shape (dims coalesced jointly over the
strides of index, src and out, the out stride of `dim` taken from the index value; innermost dim as
columns). Without reduction the scatter stores (duplicate targets: one of the values wins); 'add' uses
atomic adds where the hardware has them (fp16/bf16/fp32/fp64/int32/int64) and a compare-and-swap loop on the
containing 32-bit word otherwise; 'multiply' always uses the compare-and-swap loop (there is no atomic
multiply), so duplicate targets multiply correctly. fp16/bf16 compute in fp32 and round once per update.
The compare-and-swap forms work on a fresh word-aligned buffer; an out= tensor then receives a strided copy.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, q1, q2, q3, s0, s1, s2, s3, d0, d1, d2, d3,
                 ND: tl.constexpr, BLOCK: tl.constexpr, I64: tl.constexpr):
    if I64:
        lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = lin < n
    if ND == 0:  # both dense
        so = lin
        do = lin
    elif ND == 1:
        so = lin * s3
        do = lin * d3
    else:
        rem = lin // q3
        so = (lin % q3) * s3
        do = (lin % q3) * d3
        if ND == 2:
            so += rem * s2
            do += rem * d2
        else:
            so += (rem % q2) * s2
            do += (rem % q2) * d2
            rem = rem // q2
            if ND == 3:
                so += rem * s1
                do += rem * d1
            else:
                so += (rem % q1) * s1 + (rem // q1) * s0
                do += (rem % q1) * d1 + (rem // q1) * d0
    tl.store(dst_ptr + do, tl.load(src_ptr + so, mask=msk), mask=msk)


@triton.jit
def _cas_update(w_ptr, e, v, live, OP: tl.constexpr, ESIZE: tl.constexpr, DT: tl.constexpr, CT: tl.constexpr):
    # element e (offset in the word-aligned buffer) <- element OP v, by compare-and-swap on its word
    if ESIZE == 2:
        word = tl.where(live, e >> 1, 0)
        sh = ((e & 1) * 16).to(tl.int32)
    elif ESIZE == 1:
        word = tl.where(live, e >> 2, 0)
        sh = ((e & 3) * 8).to(tl.int32)
    else:
        word = tl.where(live, e, 0)
        sh = (e * 0).to(tl.int32)
    old = tl.load(w_ptr + word)
    pending = live
    while tl.max(pending.to(tl.int32)) > 0:  # (a scalar over every dim of the tile)
        if ESIZE == 2:
            cur = ((old >> sh) & 0xFFFF).to(tl.int16).to(DT, bitcast=True)
        elif ESIZE == 1:
            cur = ((old >> sh) & 0xFF).to(tl.int8).to(DT, bitcast=True)
        else:
            cur = old.to(DT, bitcast=True)
        if OP == 0:
            new = (cur.to(CT) + v).to(DT)
        else:
            new = (cur.to(CT) * v).to(DT)
        if ESIZE == 2:
            nb = new.to(tl.int16, bitcast=True).to(tl.int32) & 0xFFFF
            nw = (old & ~(0xFFFF << sh)) | (nb << sh)
        elif ESIZE == 1:
            nb = new.to(tl.int8, bitcast=True).to(tl.int32) & 0xFF
            nw = (old & ~(0xFF << sh)) | (nb << sh)
        else:
            nw = new.to(w_ptr.dtype.element_ty, bitcast=True)
        nw = tl.where(pending, nw, old)
        prev = tl.atomic_cas(w_ptr + word, old, nw)
        pending = pending & (prev != old)
        old = prev


@triton.jit
def _scatter_kernel(o_ptr, w_ptr, i_ptr, s_ptr, NROWS, C, q1, q2,
                    ss0, ss1, ss2, ss3, is0, is1, is2, is3, os0, os1, os2, os3, odim, ncb,
                    ND: tl.constexpr, MODE: tl.constexpr, SCALAR: tl.constexpr, ESIZE: tl.constexpr,
                    CT: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, I64: tl.constexpr):
    # MODE 0: store; 1: atomic add; 2: compare-and-swap add; 3: compare-and-swap multiply
    pid = tl.program_id(0)
    pr = pid // ncb
    pc = pid % ncb
    if I64:
        rows = pr.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
        cols = pc.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    else:
        rows = pr * BLOCK_R + tl.arange(0, BLOCK_R)
        cols = pc * BLOCK_C + tl.arange(0, BLOCK_C)
    rm = rows < NROWS
    cm = cols < C
    if ND >= 4:
        a = rows % q2
        t = rows // q2
        b = t % q1
        c = t // q1
        sr = c * ss0 + b * ss1 + a * ss2
        ir = c * is0 + b * is1 + a * is2
        orr = c * os0 + b * os1 + a * os2
    elif ND == 3:
        a = rows % q2
        b = rows // q2
        sr = b * ss1 + a * ss2
        ir = b * is1 + a * is2
        orr = b * os1 + a * os2
    elif ND == 2:
        sr = rows * ss2
        ir = rows * is2
        orr = rows * os2
    else:
        sr = rows * 0
        ir = rows * 0
        orr = rows * 0
    msk = rm[:, None] & cm[None, :]
    idx = tl.load(i_ptr + (ir[:, None] + (cols * is3)[None, :]), mask=msk, other=0).to(tl.int64)
    dst = idx * odim + (orr[:, None] + (cols * os3)[None, :])
    if SCALAR:
        val = tl.load(s_ptr + (idx * 0))
    else:
        val = tl.load(s_ptr + (sr[:, None] + (cols * ss3)[None, :]), mask=msk, other=0)
    if MODE == 0:
        tl.store(o_ptr + dst, val, mask=msk)
    elif MODE == 1:
        tl.atomic_add(o_ptr + dst, val, mask=msk, sem="relaxed")
    else:
        _cas_update(w_ptr, dst, val.to(CT), msk, MODE - 2, ESIZE, o_ptr.dtype.element_ty, CT)


# ---------------------------------------------------------------------------------------------- host side
_ATOMIC_ADD = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64)
_WORD = {1: torch.int32, 2: torch.int32, 4: torch.int32, 8: torch.int64}


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _coalesce(sizes, strides):
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


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _compute_type(dt):
    if dt in (torch.float16, torch.bfloat16, torch.float32):
        return tl.float32
    if dt == torch.float64:
        return tl.float64
    if dt == torch.int64:
        return tl.int64
    return tl.int32


def _copy(src, dst):
    n = dst.numel()
    if n == 0:
        return
    dims = _coalesce(list(dst.shape), [list(src.stride()), list(dst.stride())])
    if len(dims) > 4:
        raise NotImplementedError("scatter: strided copy over more than 4 dims")
    dense = len(dims) <= 1 and (not dims or dims[0][1] == [1, 1])
    full = [(1, [0, 0])] * (4 - len(dims)) + dims
    q = [d[0] for d in full]
    s = [d[1][0] for d in full]
    d = [d[1][1] for d in full]
    on_cpu = dst.device.type == "cpu"
    block = min(65536 if on_cpu else 2048, _pow2(n))
    i64 = max(n, _span(src), _span(dst)) >= 2 ** 31 - 65536
    _copy_kernel[(_cdiv(n, block),)](src, dst, n, q[1], q[2], q[3], s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3],
                                     ND=0 if dense else len(dims), BLOCK=block, I64=i64,
                                     num_warps=8 if (block >= 2048 or not dense) else 4)


def _check(self, dim, index, src):
    nd = max(self.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim = dim % nd
    if index.dtype != torch.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index")
    if src is not None and src.dtype != self.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() and max(index.dim(), 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    return dim


def _scatter(self, dim, index, src, value, reduce, out):
    """out (None: a new tensor) <- scatter of src (or the Scalar value) into a copy of self."""
    src_t = src if value is None else None
    dim = _check(self, dim, index, src_t)
    if reduce is None:
        mode = 0
    elif reduce == "add":
        mode = 1 if self.dtype in _ATOMIC_ADD else 2
    elif reduce == "multiply":
        mode = 3
    else:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    if mode >= 2 and self.dtype == torch.bool:
        raise NotImplementedError("scatter: reduce on bool tensors")
    if out is not None and list(out.shape) != list(self.shape):
        out.resize_(list(self.shape))
    n = self.numel()
    esize = self.element_size()
    if mode >= 2 or out is None:
        per_word = 4 // esize if esize < 4 else 1
        buf = torch.empty((_cdiv(max(n, 1), per_word) * per_word,), dtype=self.dtype, device=self.device)
        res = buf[:n].view(self.shape)
        words = buf.view(_WORD[esize]) if mode >= 2 else buf
    else:
        buf = None
        res = out
        words = out
    _copy(self, res)
    m = index.numel()
    if m:
        if value is not None:
            vals = torch.full((1,), value, dtype=self.dtype, device=self.device)
        else:
            vals = src
        x, idx, o = vals, index, res
        if idx.dim() == 0:
            idx, o = idx.view(1), o.view(1)
            x = x.view(1) if value is None else x
        sizes = list(idx.shape)
        os_ = list(o.stride())
        odim = os_[dim]
        os_[dim] = 0
        ss = list(x.stride()) if value is None else [0] * len(sizes)
        marker = [1 if d == dim else 0 for d in range(len(sizes))]
        dims = _coalesce(sizes, [ss, list(idx.stride()), os_, marker])
        if len(dims) > 4:
            raise NotImplementedError("scatter: more than 4 non-coalescable dims")
        full = [(1, [0, 0, 0, 0])] * (4 - len(dims)) + dims
        q = [dd[0] for dd in full]
        s_s = [dd[1][0] for dd in full]
        i_s = [dd[1][1] for dd in full]
        o_s = [dd[1][2] for dd in full]
        C = q[3]
        nrows = m // C
        on_cpu = self.device.type == "cpu"
        tile = 65536 if on_cpu else (2048 if m >= (1 << 20) else 1024)
        block_c = min(_pow2(C), tile)
        block_r = min(_pow2(nrows), max(1, tile // block_c))
        ncb = _cdiv(C, block_c)
        i64 = max(m, _span(o), _span(idx), 0 if value is not None else _span(x)) >= 2 ** 31 - 65536
        _scatter_kernel[(_cdiv(nrows, block_r) * ncb,)](
            o, words, idx, x, nrows, C, q[1], q[2], s_s[0], s_s[1], s_s[2], s_s[3], i_s[0], i_s[1], i_s[2],
            i_s[3], o_s[0], o_s[1], o_s[2], o_s[3], odim, ncb,
            ND=max(1, len(dims)), MODE=mode, SCALAR=value is not None, ESIZE=esize,
            CT=_compute_type(self.dtype), BLOCK_R=block_r, BLOCK_C=block_c, I64=i64,
            num_warps=4)
    if out is None:
        return res
    if res is not out:
        _copy(res, out)
    return out


# ---------------------------------------------------------------------------------------------- wrappers
def scatter_src(self, dim, index, src):
    return _scatter(self, dim, index, src, None, None, None)


def scatter_value(self, dim, index, value):
    return _scatter(self, dim, index, None, value, None, None)


def scatter_reduce(self, dim, index, src, *, reduce):
    return _scatter(self, dim, index, src, None, reduce, None)


def scatter_value_reduce(self, dim, index, value, *, reduce):
    return _scatter(self, dim, index, None, value, reduce, None)


def scatter_src_out(self, dim, index, src, *, out):
    return _scatter(self, dim, index, src, None, None, out)


def scatter_value_out(self, dim, index, value, *, out):
    return _scatter(self, dim, index, None, value, None, out)


def scatter_reduce_out(self, dim, index, src, *, reduce, out):
    return _scatter(self, dim, index, src, None, reduce, out)


def scatter_value_reduce_out(self, dim, index, value, *, reduce, out):
    return _scatter(self, dim, index, None, value, reduce, out)
