"""Oracle Triton solution for aten::polygamma (spec: shared/spec/aten.md, section `aten::polygamma`).

Wrappers: polygamma, polygamma_out.

polygamma(n, x), elementwise, computed in fp32 (fp64 for fp64 inputs) and rounded once:

* n = 0, digamma: negative x use the reflection psi(x) = psi(1 - x) - pi cot(pi x), with cot(pi x)
  taken as cos/sin(pi s) of the exactly reduced s = x - floor(x) (- 1) in (-1/2, 1/2] (Taylor series;
  no argument-reduction error near the poles); NaN at negative integers. Then the recurrence
  psi(z) = psi(z + 1) - 1/z up to z >= 10 and the asymptotic series ln z - 1/(2z) - sum B_2k/(2k z^2k)
  (7 terms). +0 gives -inf and -0 gives +inf through 1/z.
* n = 1, trigamma: reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) for x < 1/2, six recurrence
  steps, then the asymptotic series to z^-7.
* n >= 2: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta as a direct sum of (x + k)^-(n+1) until
  x + k > 9 (at least 10 terms; more in a block holding negative x), then the Euler-Maclaurin tail
  with 12 Bernoulli terms (Cephes `zeta`); integer powers by repeated multiplication.

Integer and bool inputs promote to the default float dtype. A contiguous fast path and a strided
path (up to five coalesced dims) for non-contiguous inputs and outs; empty tensors launch nothing.
"""
import math

import torch
import triton
import triton.language as tl

_MAXD = 5


@triton.jit
def _sin_cos_pi(s):
    """(sin(pi s), cos(pi s)) for |s| <= 1/2 by Taylor series (error < 1e-9)."""
    t = s * 3.141592653589793
    t2 = t * t
    sn = t * (1.0 + t2 * (-1.0 / 6 + t2 * (1.0 / 120 + t2 * (-1.0 / 5040 + t2 * (
        1.0 / 362880 + t2 * (-1.0 / 39916800 + t2 * (1.0 / 6227020800 + t2 * (-1.0 / 1307674368000))))))))
    cs = 1.0 + t2 * (-0.5 + t2 * (1.0 / 24 + t2 * (-1.0 / 720 + t2 * (1.0 / 40320 + t2 * (
        -1.0 / 3628800 + t2 * (1.0 / 479001600 + t2 * (-1.0 / 87178291200 + t2 * (1.0 / 20922789888000))))))))
    return sn, cs


@triton.jit
def _reduced(x):
    """s in (-1/2, 1/2] with x - s an integer (exact for floats)."""
    fr = x - tl.floor(x)
    return tl.where(fr > 0.5, fr - 1.0, fr)


@triton.jit
def _digamma(x):
    neg = x < 0
    sn, cs = _sin_cos_pi(_reduced(x))
    res = tl.where(neg, -3.141592653589793 * cs / sn, 0.0)
    z = tl.where(neg, 1.0 - x, x)
    for _ in tl.static_range(10):
        small = z < 10.0
        res = tl.where(small, res - 1.0 / z, res)
        z = tl.where(small, z + 1.0, z)
    zz = 1.0 / (z * z)
    poly = zz * (8.33333333333333333333e-2 + zz * (-8.33333333333333333333e-3 + zz * (
        3.96825396825396825397e-3 + zz * (-4.16666666666666666667e-3 + zz * (
            7.57575757575757575758e-3 + zz * (-2.10927960927960927961e-2 + zz * 8.33333333333333333333e-2))))))
    y = tl.log(z) - 0.5 / z - tl.where(z < 1e17, poly, 0.0) + res
    return tl.where(neg & (x == tl.floor(x)), float("nan"), y)


@triton.jit
def _trigamma(x):
    refl = x < 0.5
    sn, cs = _sin_cos_pi(_reduced(x))
    res = tl.where(refl, -(9.869604401089358 / (sn * sn)), 0.0)
    z = tl.where(refl, 1.0 - x, x)
    for _ in tl.static_range(6):
        res += 1.0 / (z * z)
        z += 1.0
    ixx = 1.0 / (z * z)
    res += (1.0 + 1.0 / (2.0 * z) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / z
    return tl.where(refl, -res, res)


@triton.jit
def _ipow_inv(a, S: tl.constexpr):
    """a^-S for a positive integer S."""
    y = 1.0 / a
    r = y
    for _ in tl.static_range(S - 1):
        r = r * y
    return r


@triton.jit
def _hurwitz_zeta(q, valid, S: tl.constexpr):
    """zeta(S, q) = sum_k (q + k)^-S for an integer S >= 2 (Cephes: direct sum, then Euler-Maclaurin)."""
    qmin = tl.min(tl.where(valid & (q == q), q, 9.0), axis=0)
    nmax = tl.floor(tl.minimum(9.0 - qmin, 65536.0)).to(tl.int32) + 1
    nterms = tl.maximum(nmax, 9)
    s = tl.zeros(q.shape, q.dtype)
    for k in range(0, nterms + 1):
        s += _ipow_inv(q + k, S)
    w = q + nterms
    b = _ipow_inv(w, S)
    s += b * w / (S - 1.0)
    s -= 0.5 * b
    iw2 = 1.0 / (w * w)
    c = b * S / w
    s += c * (1.0 / 12.0)
    c = c * ((S + 1.0) * (S + 2.0)) * iw2
    s += c * (1.0 / -720.0)
    c = c * ((S + 3.0) * (S + 4.0)) * iw2
    s += c * (1.0 / 30240.0)
    c = c * ((S + 5.0) * (S + 6.0)) * iw2
    s += c * (1.0 / -1209600.0)
    c = c * ((S + 7.0) * (S + 8.0)) * iw2
    s += c * (1.0 / 47900160.0)
    c = c * ((S + 9.0) * (S + 10.0)) * iw2
    s += c * (1.0 / -1.8924375803183791606e9)
    c = c * ((S + 11.0) * (S + 12.0)) * iw2
    s += c * (1.0 / 7.47242496e10)
    c = c * ((S + 13.0) * (S + 14.0)) * iw2
    s += c * (1.0 / -2.950130727918164224e12)
    c = c * ((S + 15.0) * (S + 16.0)) * iw2
    s += c * (1.0 / 1.1646782814350067249e14)
    c = c * ((S + 17.0) * (S + 18.0)) * iw2
    s += c * (1.0 / -4.5979787224074726105e15)
    c = c * ((S + 19.0) * (S + 20.0)) * iw2
    s += c * (1.0 / 1.8152105401943546773e17)
    c = c * ((S + 21.0) * (S + 22.0)) * iw2
    s += c * (1.0 / -7.1661652561756670113e18)
    # a pole (q a non-positive integer) gives +inf, as Cephes does
    return tl.where((q <= 0) & (q == tl.floor(q)), float("inf"), s)


@triton.jit
def _f(x, valid, coef, MODE: tl.constexpr, S: tl.constexpr):
    if MODE == 0:
        y = _digamma(x)
    elif MODE == 1:
        y = _trigamma(x)
    else:
        y = coef * _hurwitz_zeta(x, valid, S)
    return y


@triton.jit
def _contig_kernel(x_ptr, o_ptr, n, coef, COMPUTE: tl.constexpr, MODE: tl.constexpr, S: tl.constexpr,
                   BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1).to(COMPUTE)
    tl.store(o_ptr + offs, _f(x, mask, coef, MODE, S).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _strided_kernel(x_ptr, o_ptr, n, coef, s1, s2, s3, s4, xs0, xs1, xs2, xs3, xs4, os0, os1, os2, os3, os4,
                    COMPUTE: tl.constexpr, MODE: tl.constexpr, S: tl.constexpr, BLOCK: tl.constexpr,
                    USE_I64: tl.constexpr):
    # five dims, right-aligned (dim 4 innermost); dim 0 takes what is left of the linear index
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    i4 = lin % s4
    r = lin // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3 + i4 * xs4
    oo = i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3 + i4 * os4
    x = tl.load(x_ptr + xo, mask=mask, other=1).to(COMPUTE)
    tl.store(o_ptr + oo, _f(x, mask, coef, MODE, S).to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _block(n, device):
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(65536, max(16, _next_pow2(n))), 4
    if n >= (1 << 20):
        return 1024, 4
    return max(128, min(512, _next_pow2(n))), 4


def _span(t):
    """Largest element offset reachable from t's data pointer, plus one."""
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


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


def _launch(x, out, n_order):
    """out[i] = polygamma(n, x[i]) for every element; x has out's shape, any strides. Returns out."""
    n = out.numel()
    if n == 0:
        return out
    src = x.view(torch.uint8) if x.dtype == torch.bool else x
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    mode = min(n_order, 2)
    s = n_order + 1 if mode == 2 else 0
    coef = (1.0 if n_order % 2 else -1.0) * float(math.factorial(n_order)) if mode == 2 else 0.0
    block, warps = _block(n, out.device)
    grid = (_cdiv(n, block),)
    meta = dict(COMPUTE=compute, MODE=mode, S=s, BLOCK=block, num_warps=warps)
    if src.is_contiguous() and out.is_contiguous():
        _contig_kernel[grid](src, out, n, coef, USE_I64=n + block >= 2 ** 31, **meta)
        return out
    dims = _coalesce(list(out.shape), [list(src.stride()), list(out.stride())])
    if len(dims) > _MAXD:
        src = src.contiguous()
        dims = _coalesce(list(out.shape), [list(src.stride()), list(out.stride())])
    if len(dims) > _MAXD:  # an out of more than five uncoalescable dims: not supported here
        raise NotImplementedError("polygamma: out tensors of more than five uncoalescable dims")
    dims = [(1, [0, 0])] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in dims]
    xs = [d[1][0] for d in dims]
    ost = [d[1][1] for d in dims]
    big = max(n, _span(src), _span(out)) + block >= 2 ** 31
    _strided_kernel[grid](src, out, n, coef, *sizes[1:], *xs, *ost, USE_I64=big, **meta)
    return out


def _result_dtype(dt):
    """Floating inputs keep their dtype; integer and bool inputs promote to the default float."""
    if dt.is_complex:
        raise NotImplementedError("polygamma: complex inputs are not supported")
    return dt if dt.is_floating_point else torch.get_default_dtype()


def _check_n(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


# ----------------------------------------------------------------------------------------------
# wrappers


def polygamma(n, self):
    _check_n(n)
    out = torch.empty(self.shape, dtype=_result_dtype(self.dtype), device=self.device)
    return _launch(self, out, int(n))


def polygamma_out(n, self, *, out):
    _check_n(n)
    rd = _result_dtype(self.dtype)
    if not torch.can_cast(rd, out.dtype):
        raise RuntimeError(f"result type {rd} can't be cast to the desired output type {out.dtype}")
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _launch(self, out, int(n))
