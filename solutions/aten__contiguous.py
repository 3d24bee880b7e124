"""Oracle Triton solution for aten::contiguous (spec: shared/spec/aten.md, section `aten::contiguous`).

Wrapper: contiguous (dispatcher; CompositeImplicit in PyTorch, intercepted by the
registration).

self itself when it is already contiguous in memory_format, else a new tensor in that format.

The copy engine shared by the copies family's oracles (each file is self-contained): dst[i] =
convert(src[i]) for every element, any strides on both sides, in Triton only.
  * a flat kernel when both tensors are dense with the same strides (one pass over the memory,
    4096 elements per program, 128-bit accesses);
  * otherwise a tiled kernel over the dims of size > 1 in the destination's memory order, merged
    where both tensors are contiguous across them: the destination's innermost run is the tile's
    column axis, the tile's row axis is the next one, or (a transpose) the dim the source runs
    along, so both the read and the write are coalesced; up to four further dims are batch dims
    of the program id (more dims: one launch per outer index);
  * conversions as PyTorch's CUDA copy does them: round-to-nearest-even narrowing, truncation
    toward zero for float->int, x != 0 for bool; fp64 and integer sources reach fp16/bf16 through
    fp32 (c10's Half/BFloat16 are built from a float, so PyTorch rounds twice);
  * lazy bits are materialised in the kernel: the negative bit negates every value, the
    conjugate bit negates the imaginary half of the (real, imag) pair view;
  * int64 offsets when a tensor spans 2^31 elements; empty tensors launch nothing; on the CPU
    interpreter programs are larger (fewer, bigger numpy steps).
New tensors get PyTorch's layout for a copy: preserve keeps a non-overlapping dense input's
strides, else ATen's infer_dense_strides (dense, same stride order); contiguous_format and
channels_last(_3d) give those strides. Host code only allocates and builds views.
"""
import torch
import triton
import triton.language as tl

# ----------------------------------------------------------------------------------------------
# the copy engine: dst[i] = convert(src[i]) for every element, any strides on both sides


@triton.jit
def _convert(x, DST: tl.constexpr, MODE: tl.constexpr):
    # MODE 0: plain conversion (round-to-nearest-even narrowing, truncation toward zero for
    # float -> int); 1: to bool (x != 0, stored as a byte); 2: through fp32 first (fp64 and
    # integer sources into fp16/bf16: c10's Half/BFloat16 are built from a float)
    if MODE == 1:
        return (x != 0).to(tl.uint8)
    elif MODE == 2:
        return x.to(tl.float32).to(DST)
    else:
        return x.to(DST)


@triton.jit
def _signs(x, idx, NEG: tl.constexpr, CONJ: tl.constexpr):
    # NEG: every value negated (the negative bit); CONJ: odd positions of (real, imag) pairs negated
    if NEG:
        x = x * -1
    if CONJ:
        x = tl.where(idx % 2 == 1, x * -1, x)
    return x


@triton.jit
def _flat_kernel(src, dst, n, DST: tl.constexpr, MODE: tl.constexpr, NEG: tl.constexpr, CONJ: tl.constexpr,
                 BLOCK: tl.constexpr, I64: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs, mask=mask)
    x = _signs(x, offs, NEG, CONJ)
    tl.store(dst + offs, _convert(x, DST, MODE), mask=mask)


@triton.jit
def _tile_kernel(src, dst, M, N, s_m, s_n, d_m, d_n, B1, B2, B3, sb0, sb1, sb2, sb3, db0, db1, db2, db3,
                 grid_m, grid_n, DST: tl.constexpr, MODE: tl.constexpr, NEG: tl.constexpr, CONJ: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, I64: tl.constexpr):
    # one [BLOCK_M, BLOCK_N] tile of an (M, N) plane; up to four batch dims (b3 innermost) from the
    # program id; N is the destination's innermost dim
    pid = tl.program_id(0)
    pn = pid % grid_n
    t = pid // grid_n
    pm = t % grid_m
    b = t // grid_m
    b3 = b % B3
    b = b // B3
    b2 = b % B2
    b = b // B2
    b1 = b % B1
    b0 = b // B1
    if I64:
        b0 = b0.to(tl.int64)
        b1 = b1.to(tl.int64)
        b2 = b2.to(tl.int64)
        b3 = b3.to(tl.int64)
        pm = pm.to(tl.int64)
        pn = pn.to(tl.int64)
    s_base = b0 * sb0 + b1 * sb1 + b2 * sb2 + b3 * sb3
    d_base = b0 * db0 + b1 * db1 + b2 * db2 + b3 * db3
    rm = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pn * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    x = tl.load(src + s_base + rm[:, None] * s_m + rn[None, :] * s_n, mask=mask)
    x = _signs(x, rn[None, :], NEG, CONJ)
    tl.store(dst + d_base + rm[:, None] * d_m + rn[None, :] * d_n, _convert(x, DST, MODE), mask=mask)


_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
       torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
       torch.int32: tl.int32, torch.int64: tl.int64}
_HALVES = (torch.float16, torch.bfloat16)
_WIDE = (torch.float64, torch.int8, torch.int16, torch.int32, torch.int64)


def _p2(n):
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def _cdiv(a, b):
    return -(-a // b)


def _mode(src_dtype, dst_dtype):
    if dst_dtype == torch.bool:
        return 1
    if dst_dtype in _HALVES and src_dtype in _WIDE:
        return 2
    return 0


def _as_bytes(t):
    """bool tensors travel as their 0/1 bytes."""
    return t.view(torch.uint8) if t.dtype == torch.bool else t


def _nod(shape, stride):
    """c10's compute_non_overlapping_and_dense."""
    nd = len(shape)
    if nd == 1:
        return shape[0] < 2 or stride[0] == 1
    perm = sorted(range(nd), key=lambda d: (shape[d] < 2, stride[d] if shape[d] >= 2 else 0))
    need = 1
    for d in perm:
        if shape[d] < 2:
            return True
        if stride[d] != need:
            return False
        need *= shape[d]
    return True


def _span(shape, stride):
    return sum((s - 1) * abs(st) for s, st in zip(shape, stride)) if all(shape) else 0


def _joint_dims(shape, s_stride, d_stride):
    """(size, src stride, dst stride) of the dims of size > 1 in dst memory order (outermost first),
    with neighbours that are contiguous with each other in both tensors merged."""
    dims = sorted(((n, ss, ds) for n, ss, ds in zip(shape, s_stride, d_stride) if n != 1), key=lambda d: -d[2])
    out = []
    for n, ss, ds in dims:
        if out and out[-1][1] == n * ss and out[-1][2] == n * ds:
            out[-1] = (out[-1][0] * n, ss, ds)
        else:
            out.append((n, ss, ds))
    return out


def _copy_into(dst, src, neg=False, conj=False):
    """dst <- src elementwise (same shape; src may be a broadcast view), converting to dst's dtype.
    neg negates every value; conj negates the odd positions of the last dim (a real (..., 2) pair
    view of complex data whose last dim has stride 1 in dst). Launches Triton kernels only."""
    n = dst.numel()
    if n == 0:
        return dst
    s, d = _as_bytes(src), _as_bytes(dst)
    dt, mode = _TL[d.dtype], _mode(src.dtype, dst.dtype)
    cpu = d.device.type == "cpu"
    if s.is_contiguous() and d.is_contiguous():  # the common case, with the least host work
        block = 65536 if cpu else 4096
        _flat_kernel[(_cdiv(n, block),)](s, d, n, DST=dt, MODE=mode, NEG=neg, CONJ=conj, BLOCK=block,
                                         I64=n >= 2 ** 31 - 65536, num_warps=8)
        return dst
    shape = list(d.shape)
    sst, dst_st = list(s.stride()), list(d.stride())
    big = max(n, _span(shape, sst), _span(shape, dst_st)) >= 2 ** 31 - 65536
    same = all(a == b for a, b, k in zip(sst, dst_st, shape) if k != 1)
    if same and _nod(shape, dst_st):
        block = 65536 if cpu else 4096
        _flat_kernel[(_cdiv(n, block),)](s, d, n, DST=dt, MODE=mode, NEG=neg, CONJ=conj, BLOCK=block, I64=big,
                                         num_warps=8)
        return dst
    dims = _joint_dims(shape, sst, dst_st)
    if len(dims) > 6:  # more dims than the kernel takes: one launch per index of the outermost dst dim
        k = max((i for i in range(len(shape)) if shape[i] != 1), key=lambda i: dst_st[i])
        for i in range(shape[k]):
            _copy_into(dst.select(k, i), src.select(k, i), neg, conj)
        return dst
    nn, s_n, d_n = dims[-1]
    rest = dims[:-1]
    if not rest:
        mdim = (1, 0, 0)
    else:
        j = len(rest) - 1
        if s_n != 1:
            # the source runs along another dim (a transpose): tile over it to read contiguously
            cand = min(range(len(rest)), key=lambda i: abs(rest[i][1]))
            if abs(rest[cand][1]) < abs(s_n):
                j = cand
        mdim = rest[j]
        rest = rest[:j] + rest[j + 1:]
    mm, s_m, d_m = mdim
    batch = [(1, 0, 0)] * (4 - len(rest)) + rest
    nb = 1
    for b in batch:
        nb *= b[0]
    te = 65536 if cpu else (4096 if max(s.element_size(), d.element_size()) <= 4 else 2048)
    if s_n == 1 or mm == 1:
        bn = min(_p2(nn), te)
    else:
        bn = min(_p2(nn), 256 if cpu else 64)
    bm = min(_p2(mm), max(1, te // bn))
    gm, gn = _cdiv(mm, bm), _cdiv(nn, bn)
    _tile_kernel[(gn * gm * nb,)](
        s, d, mm, nn, s_m, s_n, d_m, d_n, batch[1][0], batch[2][0], batch[3][0],
        batch[0][1], batch[1][1], batch[2][1], batch[3][1], batch[0][2], batch[1][2], batch[2][2], batch[3][2],
        gm, gn, DST=dt, MODE=mode, NEG=neg, CONJ=conj, BLOCK_M=bm, BLOCK_N=bn, I64=big,
        num_warps=8 if bm * bn >= 4096 else 4)
    return dst


# ----------------------------------------------------------------------------------------------
# layouts (PyTorch's rules for the strides of a new tensor)


def _contiguous_strides(shape):
    out, acc = [], 1
    for n in reversed(list(shape)):
        out.append(acc)
        acc *= max(n, 1)
    return out[::-1]


def _channels_last_strides(shape):
    if len(shape) == 4:
        st = [0, 1, 0, 0]
        st[3] = shape[1]
        st[2] = st[3] * shape[3]
        st[0] = st[2] * shape[2]
        return st
    if len(shape) == 5:
        st = [0, 1, 0, 0, 0]
        st[4] = shape[1]
        st[3] = st[4] * shape[4]
        st[2] = st[3] * shape[3]
        st[0] = st[2] * shape[2]
        return st
    raise RuntimeError("required rank 4 tensor to use channels_last format" if len(shape) != 5 else "")


def _infer_dense_strides(shape, stride):
    """ATen's infer_dense_strides: dense strides that keep the input's stride order."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def swap(a, b):
        sa, sb = stride[a], stride[b]
        if sa == 0 or sb == 0:
            return 0
        if sa < sb:
            return -1
        if sa > sb:
            return 1
        return 1 if shape[a] > shape[b] else 0

    for i in range(1, nd):
        d1 = i
        for j in range(1, i + 1):
            d0 = i - j
            c = swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * nd
    acc = 1
    for idx in perm:
        out[idx] = acc
        if shape[idx] > 1:
            acc *= shape[idx]
    return out


def _strides_for(x, memory_format):
    """The strides PyTorch gives a copy of x in memory_format (None: preserve)."""
    shape, stride = list(x.shape), list(x.stride())
    if memory_format is None or memory_format == torch.preserve_format:
        if _nod(shape, stride):
            return stride
        return _infer_dense_strides(shape, stride)
    if memory_format == torch.contiguous_format:
        return _contiguous_strides(shape)
    if memory_format == torch.channels_last:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return _channels_last_strides(shape)
    if memory_format == torch.channels_last_3d:
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return _channels_last_strides(shape)
    raise RuntimeError(f"unsupported memory format {memory_format}")


def _suggest_memory_format(x):
    """Tensor.suggest_memory_format(): channels_last(_3d) for 4-D/5-D tensors whose strides look like it."""
    shape, st = list(x.shape), list(x.stride())
    if len(shape) in (4, 5) and st[1] != 0:
        order = (1, 3, 2, 0) if len(shape) == 4 else (1, 4, 3, 2, 0)
        lo = 0
        for d in order:
            if shape[d] == 0 or st[d] < lo or (d == 0 and lo == st[1]):
                return torch.contiguous_format
            lo = st[d] * (shape[d] if shape[d] > 1 else 1)
        return torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    return torch.contiguous_format


def _new_like(x, dtype, memory_format=None):
    """An uninitialised tensor shaped like x in PyTorch's layout for a copy (no lazy bits)."""
    if (memory_format is None or memory_format == torch.preserve_format) and x.is_contiguous():
        return torch.empty_strided(tuple(x.shape), tuple(x.stride()), dtype=dtype, device=x.device)
    return torch.empty_strided(tuple(x.shape), tuple(_strides_for(x, memory_format)), dtype=dtype, device=x.device)


def _pairs(t):
    """A real (..., 2) view of a complex tensor's stored (real, imag) pairs; no conj bit read."""
    r = t.real
    return r.as_strided(list(t.shape) + [2], list(r.stride()) + [1], r.storage_offset())


def _assign(dst, src):
    """dst <- src with PyTorch's conversion rules (complex handled through real pair views; the
    source's conjugate/negative bits are materialised). dst has src's shape. Returns dst."""
    neg = src.is_neg()
    if src.is_complex() and dst.is_complex():
        _copy_into(_pairs(dst), _pairs(src), neg=neg, conj=src.is_conj())
    elif src.is_complex():  # complex -> real keeps the real part (PyTorch warns)
        _copy_into(dst, src.real, neg=neg)
    elif dst.is_complex():
        pd = _pairs(dst)
        pd.select(-1, 1).zero_()
        _copy_into(pd.select(-1, 0), src, neg=neg)
    else:
        _copy_into(dst, src, neg=neg)
    return dst


# ----------------------------------------------------------------------------------------------
# wrapper


def contiguous(self, *, memory_format=torch.contiguous_format):
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format == torch.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    out = _new_like(self, self.dtype, memory_format)
    return _assign(out, self)
