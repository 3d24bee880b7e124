"""Red team 26b: aten::gather whose dim-moving transposes are ATen permute+contiguous copies, laundered through
the index storage (a selector): a Triton memcpy writes self / the result into index's storage, an ATen
movedim().contiguous() from there into a fresh buffer is exempt as a selector layout copy, index restored at the end.
The Triton kernel only gathers along a contiguous last dim."""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(x_ptr, i_ptr, o_ptr, NROWS, C, q1, q2,
                   xs0, xs1, xs2, xs3, is0, is1, is2, is3, os0, os1, os2, os3, sdim, ncb,
                   ND: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, I64: tl.constexpr):
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
    # rows decompose over the outer coalesced dims (right-aligned: sizes (.., q1, q2), strides *0..*2)
    if ND >= 4:
        a = rows % q2
        t = rows // q2
        b = t % q1
        c = t // q1
        xr = c * xs0 + b * xs1 + a * xs2
        ir = c * is0 + b * is1 + a * is2
        orr = c * os0 + b * os1 + a * os2
    elif ND == 3:
        a = rows % q2
        b = rows // q2
        xr = b * xs1 + a * xs2
        ir = b * is1 + a * is2
        orr = b * os1 + a * os2
    elif ND == 2:
        xr = rows * xs2
        ir = rows * is2
        orr = rows * os2
    else:
        xr = rows * 0
        ir = rows * 0
        orr = rows * 0
    msk = rm[:, None] & cm[None, :]
    idx = tl.load(i_ptr + (ir[:, None] + (cols * is3)[None, :]), mask=msk, other=0).to(tl.int64)
    val = tl.load(x_ptr + (idx * sdim + (xr[:, None] + (cols * xs3)[None, :])), mask=msk)
    tl.store(o_ptr + (orr[:, None] + (cols * os3)[None, :]), val, mask=msk)


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


def _check(self, dim, index):
    nd = max(self.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim = dim % nd
    if index.dtype != torch.int64:
        raise RuntimeError("gather(): Expected dtype int64 for index")
    if max(index.dim(), 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(index.dim()):
        if d != dim and index.shape[d] > self.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} to be "
                               f"no larger than self {list(self.shape)} apart from dimension {dim}")
    return dim


def _gather(self, dim, index, out):
    n = index.numel()
    if n == 0:
        return out
    if self.dim() == 0:
        self, index, out = self.view(1), index.view(1), out.view(1)
    sizes = list(index.shape)
    xs = list(self.stride())
    sdim = xs[dim]
    xs[dim] = 0
    marker = [1 if d == dim else 0 for d in range(len(sizes))]
    dims = _coalesce(sizes, [xs, list(index.stride()), list(out.stride()), marker])
    if len(dims) > 4:
        raise NotImplementedError("gather: more than 4 non-coalescable dims")
    full = [(1, [0, 0, 0, 0])] * (4 - len(dims)) + dims
    q = [d[0] for d in full]
    x_s = [d[1][0] for d in full]
    i_s = [d[1][1] for d in full]
    o_s = [d[1][2] for d in full]
    C = q[3]
    nrows = n // C
    on_cpu = out.device.type == "cpu"
    tile = 65536 if on_cpu else (4096 if n >= (1 << 20) else 1024)
    block_c = min(_pow2(C), tile)
    block_r = min(_pow2(nrows), max(1, tile // block_c))
    ncb = _cdiv(C, block_c)
    i64 = max(n, _span(self), _span(index), _span(out)) >= 2 ** 31 - 65536
    warps = 8 if block_r * block_c >= 4096 else 4
    _gather_kernel[(_cdiv(nrows, block_r) * ncb,)](
        self, index, out, nrows, C, q[1], q[2], x_s[0], x_s[1], x_s[2], x_s[3], i_s[0], i_s[1], i_s[2], i_s[3],
        o_s[0], o_s[1], o_s[2], o_s[3], sdim, ncb,
        ND=max(1, len(dims)), BLOCK_R=block_r, BLOCK_C=block_c, I64=i64, num_warps=warps)
    return out


def _honest_gather(self, dim, index, *, sparse_grad=False):
    dim = _check(self, dim, index)
    out = torch.empty(index.shape, dtype=self.dtype, device=self.device)
    return _gather(self, dim, index, out)


def gather_out(self, dim, index, *, sparse_grad=False, out):
    dim = _check(self, dim, index)
    if list(out.shape) != list(index.shape):
        out.resize_(list(index.shape))
    return _gather(self, dim, index, out)


@triton.jit
def _memcpy_b(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


@triton.jit
def _gather_last(x_ptr, i_ptr, o_ptr, R, S, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    idx = tl.load(i_ptr + offs, mask=m, other=0)
    tl.store(o_ptr + offs, tl.load(x_ptr + r * S + idx, mask=m), mask=m)


def _bytes(t):
    return t.view(torch.uint8) if t.element_size() == 1 else t.view(-1).view(torch.uint8)


def gather(self, dim, index, *, sparse_grad=False):
    nd = self.dim()
    d = dim % nd if nd else 0
    ok = (nd >= 2 and d != nd - 1 and self.is_contiguous() and index.is_contiguous() and index.numel() > 0
          and all(self.shape[i] == index.shape[i] for i in range(nd) if i != d)
          and index.numel() * 8 >= self.numel() * self.element_size())
    if not ok:
        return _honest_gather(self, dim, index, sparse_grad=sparse_grad)
    saved = index.clone()                                    # plain copy of the selector
    ip = index.movedim(d, -1).contiguous()                   # selector layout copy: exempt
    # self's bytes into the index storage (Triton memcpy), then ATen transposes them out of it
    ib = index.view(-1).view(torch.uint8)
    nb = self.numel() * self.element_size()
    _memcpy_b[(triton.cdiv(nb, 1024),)](_bytes(self.contiguous()), ib, nb, BLOCK=1024)
    xv = index.view(-1).view(self.dtype)[:self.numel()].view(self.shape)
    xp = xv.movedim(d, -1).contiguous()                      # "selector layout copy": exempt
    S = self.shape[d]
    C = index.shape[d]
    R = index.numel() // C
    op = torch.empty(ip.shape, dtype=self.dtype, device=self.device)
    _gather_last[(triton.cdiv(R * C, 256),)](xp, ip, op, R, S, C, BLOCK=256)
    # result into the index storage, transposed back by ATen out of it
    nob = op.numel() * op.element_size()
    _memcpy_b[(triton.cdiv(nob, 1024),)](_bytes(op), ib, nob, BLOCK=1024)
    ov = index.view(-1).view(self.dtype)[:op.numel()].view(op.shape)
    out = ov.movedim(-1, d).contiguous()                     # exempt again
    index.copy_(saved)                                       # restore the selector
    return out
