"""Oracle Triton solution for aten::binary_cross_entropy_with_logits (spec: shared/spec/aten.md, section
`aten::binary_cross_entropy_with_logits`).

Wrappers: binary_cross_entropy_with_logits, binary_cross_entropy_with_logits_out.

loss = (1 - t)·x - w_p·logsigmoid(x), logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)), w_p = 1 + (pos_weight - 1)·t,
times weight; computed in fp32 (fp64 for fp64 inputs) and rounded once. One fused kernel does the elementwise
loss and, for reduction 1/2, the reduction:

* reduction 0: one element per lane, stored in the result dtype;
* reduction 1/2: each program sums its grid-stride blocks in fp32 and either writes the final value itself
  (a single program: small inputs and the interpreter, one launch) or a partial sum that a second one-program
  kernel adds up (deterministic, no atomics), divides by n for the mean and rounds once.

Inputs are contiguous (flat indexing) or strided/broadcast (weight and pos_weight broadcast against self): up
to four coalesced dims indexed from the strides, with stride 0 on broadcast dims; more dims go through
contiguous copies.
"""
import torch
import triton
import triton.language as tl

_MAXD = 4
_NUM_SMS = 132  # H200
_SINGLE_MAX = 8192  # a reduction over at most this many elements is one program, one launch


@triton.jit
def _log1p(u):
    # log(1 + u) for 0 <= u <= 1, accurate for tiny u: log(w) * u / (w - 1) with w = 1 + u
    w = 1.0 + u
    d = w - 1.0
    return tl.where(d == 0.0, u, tl.log(w) * (u / d))


@triton.jit
def _loss(x, t, w, pw, HAS_W: tl.constexpr, HAS_PW: tl.constexpr):
    ls = tl.minimum(x, 0.0) - _log1p(tl.exp(-tl.abs(x)))
    if HAS_PW:
        ls = ls * (1.0 + (pw - 1.0) * t)
    loss = (1.0 - t) * x - ls
    if HAS_W:
        loss = loss * w
    return loss


@triton.jit
def _load_all(x_ptr, t_ptr, w_ptr, p_ptr, lin, mask, s1, s2, s3,
              xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3, ws0, ws1, ws2, ws3, ps0, ps1, ps2, ps3,
              HAS_W: tl.constexpr, HAS_PW: tl.constexpr, CONTIG: tl.constexpr, COMPUTE: tl.constexpr):
    if CONTIG:
        xo = lin
        to = lin
        wo = lin
        po = lin
    else:
        i3 = lin % s3
        r = lin // s3
        i2 = r % s2
        r = r // s2
        i1 = r % s1
        i0 = r // s1
        xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
        to = i0 * ts0 + i1 * ts1 + i2 * ts2 + i3 * ts3
        wo = i0 * ws0 + i1 * ws1 + i2 * ws2 + i3 * ws3
        po = i0 * ps0 + i1 * ps1 + i2 * ps2 + i3 * ps3
    x = tl.load(x_ptr + xo, mask=mask, other=0.0).to(COMPUTE)
    t = tl.load(t_ptr + to, mask=mask, other=0.0).to(COMPUTE)
    w = x
    pw = x
    if HAS_W:
        w = tl.load(w_ptr + wo, mask=mask, other=0.0).to(COMPUTE)
    if HAS_PW:
        pw = tl.load(p_ptr + po, mask=mask, other=0.0).to(COMPUTE)
    return _loss(x, t, w, pw, HAS_W, HAS_PW)


@triton.jit
def _elementwise_kernel(x_ptr, t_ptr, w_ptr, p_ptr, o_ptr, n, s1, s2, s3,
                        xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3, ws0, ws1, ws2, ws3, ps0, ps1, ps2, ps3,
                        os0, os1, os2, os3,
                        HAS_W: tl.constexpr, HAS_PW: tl.constexpr, CONTIG: tl.constexpr, COMPUTE: tl.constexpr,
                        BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    loss = _load_all(x_ptr, t_ptr, w_ptr, p_ptr, lin, mask, s1, s2, s3, xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3,
                     ws0, ws1, ws2, ws3, ps0, ps1, ps2, ps3, HAS_W, HAS_PW, CONTIG, COMPUTE)
    if CONTIG:
        oo = lin
    else:
        i3 = lin % s3
        r = lin // s3
        i2 = r % s2
        r = r // s2
        i1 = r % s1
        i0 = r // s1
        oo = i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3
    tl.store(o_ptr + oo, loss.to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _reduce_kernel(x_ptr, t_ptr, w_ptr, p_ptr, o_ptr, n, denom, s1, s2, s3,
                   xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3, ws0, ws1, ws2, ws3, ps0, ps1, ps2, ps3,
                   HAS_W: tl.constexpr, HAS_PW: tl.constexpr, CONTIG: tl.constexpr, COMPUTE: tl.constexpr,
                   FINAL: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # FINAL: one program writes sum / denom into the 0-d result; else program p writes its partial sum
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.zeros([BLOCK], COMPUTE)
    if USE_I64:
        first = pid.to(tl.int64) * BLOCK
        step = nprog.to(tl.int64) * BLOCK
    else:
        first = pid * BLOCK
        step = nprog * BLOCK
    for start in range(first, n, step):
        lin = start + tl.arange(0, BLOCK)
        mask = lin < n
        loss = _load_all(x_ptr, t_ptr, w_ptr, p_ptr, lin, mask, s1, s2, s3, xs0, xs1, xs2, xs3, ts0, ts1, ts2, ts3,
                         ws0, ws1, ws2, ws3, ps0, ps1, ps2, ps3, HAS_W, HAS_PW, CONTIG, COMPUTE)
        acc += tl.where(mask, loss, 0.0)
    s = tl.sum(acc, axis=0)
    if FINAL:
        tl.store(o_ptr, (s / denom).to(o_ptr.dtype.element_ty))
    else:
        tl.store(o_ptr + pid, s)


@triton.jit
def _finish_kernel(part_ptr, o_ptr, m, denom, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.sum(tl.load(part_ptr + offs, mask=offs < m, other=0.0), axis=0)
    tl.store(o_ptr, (s / denom).to(o_ptr.dtype.element_ty))


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _span(t):
    """Largest element offset reachable from t's data pointer, plus one."""
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _bstrides(t, shape):
    """t's strides broadcast to `shape` (right-aligned; 0 where t has size 1 or no dim)."""
    nd = len(shape)
    st = [0] * nd
    off = nd - t.dim()
    for i in range(t.dim()):
        if t.shape[i] != 1:
            st[off + i] = t.stride(i)
    return st


def _coalesce(shape, strides):
    dims = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        st = [s[d] for s in strides]
        if dims and all(p == q * size for p, q in zip(dims[-1][1], st)):
            dims[-1] = (dims[-1][0] * size, st)
        else:
            dims.append((size, st))
    return dims


def _plan(shape, tensors):
    """(contig, [s1, s2, s3], four strides per tensor) for tensors broadcast to `shape`, or None when
    more than four dims remain after coalescing."""
    k = len(tensors)
    if all(t.is_contiguous() and tuple(t.shape) == tuple(shape) for t in tensors):
        return True, [1, 1, 1], [[0, 0, 0, 0]] * k
    dims = _coalesce(list(shape), [_bstrides(t, shape) for t in tensors])
    if len(dims) > _MAXD:
        return None
    dims = [(1, [0] * k)] * (_MAXD - len(dims)) + dims
    return False, [d[0] for d in dims[1:]], [[d[1][j] for d in dims] for j in range(k)]


def _compute(dt):
    return tl.float64 if dt == torch.float64 else tl.float32


def _bce(x, t, w, pw, reduction, out):
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    shape = list(x.shape)
    res_shape = shape if reduction == 0 else []
    if out is None:
        out = torch.empty(res_shape, dtype=x.dtype, device=x.device)
    elif list(out.shape) != res_shape:
        out.resize_(res_shape)
    n = x.numel()
    if reduction == 0 and n == 0:
        return out
    has_w, has_pw = w is not None, pw is not None
    ins = [x, t] + ([w] if has_w else []) + ([pw] if has_pw else [])
    outs = [out] if reduction == 0 else []
    plan = _plan(shape, ins + outs)
    if plan is None:
        ins = [a.expand(shape).contiguous() for a in ins]
        if reduction == 0 and not out.is_contiguous():
            tmp = torch.empty(shape, dtype=out.dtype, device=out.device)
            _bce(ins[0], ins[1], ins[2] if has_w else None, ins[-1] if has_pw else None, 0, tmp)
            out.copy_(tmp)
            return out
        plan = _plan(shape, ins + outs)
    contig, sizes, strides = plan
    ptrs = ins[:2] + [ins[2] if has_w else x, ins[-1] if has_pw else x]
    st = strides[:2] + [strides[2] if has_w else [0] * 4, strides[len(ins) - 1] if has_pw else [0] * 4]
    flat = [s for row in st for s in row]
    compute = _compute(x.dtype)
    cpu = x.device.type == "cpu"
    big = max([n] + [_span(a) for a in ins + outs]) + 65536 >= 2 ** 31
    if reduction == 0:
        if cpu:
            block, warps = min(65536, max(16, _next_pow2(n))), 4
        elif n >= (1 << 16):
            block, warps = 1024, 4
        else:
            block, warps = max(128, min(1024, _next_pow2(n))), 4
        _elementwise_kernel[(_cdiv(n, block),)](
            *ptrs, out, n, *sizes, *flat, *strides[-1], HAS_W=has_w, HAS_PW=has_pw, CONTIG=contig,
            COMPUTE=compute, BLOCK=block, USE_I64=big, num_warps=warps)
        return out
    denom = float(n) if reduction == 1 else 1.0
    if cpu or n <= _SINGLE_MAX:
        block = min(65536 if cpu else 4096, max(16, _next_pow2(n)))
        _reduce_kernel[(1,)](*ptrs, out, n, denom, *sizes, *flat, HAS_W=has_w, HAS_PW=has_pw, CONTIG=contig,
                             COMPUTE=compute, FINAL=True, BLOCK=block, USE_I64=big,
                             num_warps=8 if block >= 2048 else 4)
        return out
    block = 2048
    nprog = min(_cdiv(n, block), 2 * _NUM_SMS)
    part = torch.empty((nprog,), dtype=torch.float64 if compute == tl.float64 else torch.float32, device=x.device)
    _reduce_kernel[(nprog,)](*ptrs, part, n, denom, *sizes, *flat, HAS_W=has_w, HAS_PW=has_pw, CONTIG=contig,
                             COMPUTE=compute, FINAL=False, BLOCK=block, USE_I64=big, num_warps=8)
    _finish_kernel[(1,)](part, out, nprog, denom, BLOCK=max(16, _next_pow2(nprog)), num_warps=4)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    return _bce(self, target, weight, pos_weight, reduction, None)


def binary_cross_entropy_with_logits_out(self, target, weight=None, pos_weight=None, reduction=1, *, out):
    return _bce(self, target, weight, pos_weight, reduction, out)
