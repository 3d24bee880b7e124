"""Oracle Triton solution for aten::diff (spec: shared/spec/aten.md, section `aten::diff`).

Wrappers: diff, diff_out.

The n-th forward difference along dim of cat([prepend, self, append], dim), without building the
concatenation: the logical sequence X along dim is read from the three tensors by index arithmetic. The
tensors are viewed as (O, L, I) (dims before dim coalesced to O, after dim to I); one kernel walks the
output (O, L - n, I) in flat order and computes
    out[q] = sum_j (-1)^(n-j) C(n, j) X[q + j]
for small n (n <= 8) in one pass: fp32 accumulation for fp16/bf16/fp32 (fp64 for fp64), rounded once;
integers in int64 then wrapped to the dtype (the same ring result as n rounds of wrapping subtraction);
bool as the xor of the X[q + j] with odd C(n, j). Larger n runs n single differences through fp32
(fp64 / int64) scratch buffers.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _diff_kernel(x_ptr, p_ptr, a_ptr, y_ptr, total, Q, I, P, S,
                 sxo, sxl, sxi, spo, spl, spi, sao, sal, sai, syo, syl, syi,
                 N: tl.constexpr, HAS_P: tl.constexpr, HAS_A: tl.constexpr, KIND: tl.constexpr,
                 BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # KIND: 0 fp32 accumulation, 1 fp64, 2 int64 (wrapping), 3 bool (xor)
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    i = offs % I
    t = offs // I
    q = t % Q
    o = t // Q
    if KIND == 0:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        coef = tl.full([], 1.0 - 2.0 * (N % 2), tl.float32)
    elif KIND == 1:
        acc = tl.zeros([BLOCK], dtype=tl.float64)
        coef = tl.full([], 1.0 - 2.0 * (N % 2), tl.float64)
    elif KIND == 2:
        acc = tl.zeros([BLOCK], dtype=tl.int64)
        coef = tl.full([], 1 - 2 * (N % 2), tl.int64)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.int32)
        coef = tl.full([], 1, tl.int32)
    for j in tl.static_range(N + 1):
        pos = q + j
        if HAS_P:
            in_p = pos < P
            in_s = (pos >= P) & (pos < P + S)
        else:
            in_s = pos < S
        v = tl.load(x_ptr + o * sxo + (pos - P) * sxl + i * sxi, mask=mask & in_s, other=0)
        if HAS_P:
            vp = tl.load(p_ptr + o * spo + pos * spl + i * spi, mask=mask & in_p, other=0)
            v = tl.where(in_p, vp, v)
        if HAS_A:
            in_a = pos >= P + S
            va = tl.load(a_ptr + o * sao + (pos - P - S) * sal + i * sai, mask=mask & in_a, other=0)
            v = tl.where(in_a, va, v)
        if KIND == 0:
            acc += coef * v.to(tl.float32)
            coef = -(coef * (N - j)) / (j + 1)
        elif KIND == 1:
            acc += coef * v.to(tl.float64)
            coef = -(coef * (N - j)) / (j + 1)
        elif KIND == 2:
            acc += coef * v.to(tl.int64)
            coef = -(coef * (N - j)) // (j + 1)
        else:
            if (j & N) == j:  # C(N, j) is odd (Lucas)
                acc = acc ^ (v != 0).to(tl.int32)
    ptr = y_ptr + o * syo + q * syl + i * syi
    if KIND == 3:
        tl.store(ptr, acc != 0, mask=mask)
    else:
        tl.store(ptr, acc.to(y_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)

_MAX_N_ONE_PASS = 8


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _group(sizes, strides):
    """(size, stride) of dims that fold into one, or None."""
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


def _oli(t, d):
    """t viewed as (O, L, I) around dim d: (so, L, sl, si) or None when it does not fold."""
    sh = tuple(t.shape)
    if t.is_contiguous():  # fast path (host time counts for these small tensors)
        inner = 1
        for s in sh[d + 1:]:
            inner *= s
        return sh[d] * inner, sh[d], inner, 1
    st = t.stride()
    before = _group(sh[:d], st[:d])
    after = _group(sh[d + 1:], st[d + 1:])
    if before is None or after is None:
        return None
    return before[1], sh[d], st[d], after[1]


def _kind(dtype):
    if dtype == torch.bool:
        return 3
    if dtype == torch.float64:
        return 1
    if dtype.is_floating_point:
        return 0
    return 2


def _check(x, n, dim, prepend, append):
    if x.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got %d" % n)
    nd = x.dim()
    if not -nd <= dim < nd:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-nd, nd - 1, dim))
    d = dim % nd
    for name, t in (("prepend", prepend), ("append", append)):
        if t is None:
            continue
        if t.dim() != nd or any(t.shape[k] != x.shape[k] for k in range(nd) if k != d):
            raise RuntimeError("diff expects %s to match input's shape except along dim %d" % (name, d))
        if t.dtype != x.dtype:
            raise RuntimeError("diff expects %s to have the input's dtype %s, got %s" % (name, x.dtype, t.dtype))
    if x.dtype.is_complex:
        raise NotImplementedError("diff: complex inputs are not supported")
    return d


def _out_shape(x, n, d, prepend, append):
    L = x.shape[d] + (prepend.shape[d] if prepend is not None else 0) + (append.shape[d] if append is not None else 0)
    shape = list(x.shape)
    shape[d] = max(L - n, 0)
    return shape


def _span(t):
    if t.is_contiguous():
        return t.numel()
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride())) if t.numel() else 0


def _folded(t, d):
    """t and its (so, L, sl, si) geometry; a dense copy first when its layout does not fold."""
    g = _oli(t, d)
    if g is None:
        t = t.contiguous()
        g = _oli(t, d)
    return t, g


def _launch(x, prepend, append, y, ys, d, n, acc_kind):
    """y (the n-th difference; geometry ys) from x with prepend/append along d."""
    total = y.numel()
    x, xs = _folded(x, d)
    ps = as_ = (0, 0, 0, 0)
    if prepend is not None:
        prepend, ps = _folded(prepend, d)
    if append is not None:
        append, as_ = _folded(append, d)
    sh = tuple(x.shape)
    I = 1
    for s in sh[d + 1:]:
        I *= s
    Q = y.shape[d]
    P = prepend.shape[d] if prepend is not None else 0
    S = sh[d]
    use_i64 = max(_span(t) for t in (x, prepend, append, y) if t is not None) >= 2 ** 31 - 65536
    if y.device.type == "cpu":
        BLOCK = min(65536, max(16, _next_pow2(total)))
    else:
        BLOCK = 1024 if total >= (1 << 20) else max(128, min(1024, _next_pow2(total)))
    xv, yv = x, y
    pv = prepend if prepend is not None else x
    av = append if append is not None else x
    if x.dtype == torch.bool:
        xv, pv, av = xv.view(torch.uint8), pv.view(torch.uint8), av.view(torch.uint8)
    _diff_kernel[(_cdiv(total, BLOCK),)](
        xv, pv, av, yv, total, Q, I, P, S,
        xs[0], xs[2], xs[3], ps[0], ps[2], ps[3], as_[0], as_[2], as_[3], ys[0], ys[2], ys[3],
        N=n, HAS_P=prepend is not None, HAS_A=append is not None, KIND=acc_kind, BLOCK=BLOCK,
        USE_I64=use_i64, num_warps=4)


def _diff_into(x, n, d, prepend, append, y):
    if y.numel() == 0:
        return y
    kind = _kind(x.dtype)
    ys = _oli(y, d)
    target = y
    if ys is None:  # an out whose layout does not fold: compute densely, then copy
        target = torch.empty(y.shape, dtype=y.dtype, device=y.device)
        ys = _oli(target, d)
    if n <= _MAX_N_ONE_PASS:
        _launch(x, prepend, append, target, ys, d, n, kind)
    else:
        # n single differences through wide scratch buffers (fp32 / fp64 / int64; bool stays bool)
        wide = {0: torch.float32, 1: torch.float64, 2: torch.int64, 3: torch.bool}[kind]
        cur, p, a = x, prepend, append
        for step in range(n):
            shape = list(cur.shape)
            shape[d] += (p.shape[d] if p is not None else 0) + (a.shape[d] if a is not None else 0) - 1
            nxt = target if step == n - 1 else torch.empty(shape, dtype=wide, device=y.device)
            _launch(cur, p, a, nxt, ys if step == n - 1 else _oli(nxt, d), d, 1, kind if step == 0 else _kind(wide))
            cur, p, a = nxt, None, None
    if target is not y:
        y.copy_(target)
    return y


# ----------------------------------------------------------------------------------------------
# wrappers

def diff(self, n=1, dim=-1, prepend=None, append=None):
    d = _check(self, n, dim, prepend, append)
    y = torch.empty(_out_shape(self, n, d, prepend, append), dtype=self.dtype, device=self.device)
    return _diff_into(self, n, d, prepend, append, y)


def diff_out(self, n=1, dim=-1, prepend=None, append=None, *, out):
    d = _check(self, n, dim, prepend, append)
    shape = _out_shape(self, n, d, prepend, append)
    if list(out.shape) != shape:
        out.resize_(shape)
    _diff_into(self, n, d, prepend, append, out)
    return out
