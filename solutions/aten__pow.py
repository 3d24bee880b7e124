"""Oracle Triton solution for aten::pow (spec: shared/spec/aten.md, section `aten::pow`).

Wrappers: pow_Tensor_Tensor, pow_Tensor_Scalar, pow_Scalar, pow_Tensor_Tensor_out, pow_Tensor_Scalar_out,
pow_Scalar_out (dispatcher); pow_int, pow_complex, pow_float, pow_int_float, pow_float_int,
pow_float_complex, pow_complex_float, pow_Scalar_Scalar, pow_int_to_int (JIT-only scalar overloads, plain
Python).

Elementwise base^exponent with broadcasting and PyTorch type promotion, C pow semantics (x^0 = 1 even for
NaN, 1^y = 1, a negative finite base with a non-integer exponent gives NaN, 0^negative gives +inf, -0 and
-inf with odd integer exponents keep the sign). A Python-number exponent (pow.Tensor_Scalar) or base
(pow.Scalar) is converted to the tensor's dtype first (double -> fp32 -> fp16/bf16, in the kernel, as
c10::Scalar::to does), then everything computes in fp32 (fp64 for fp64) and rounds once. On GPUs the
float power is libdevice.pow (CUDA's powf, PyTorch's own); on the CPU interpreter, which has no libdevice
pow, exp2(y * log2|x|) with the sign, integer-exponent and special-value rules above. Exponents exactly
0.5 / -0.5 take PyTorch's sqrt / rsqrt paths (sqrt(-inf) is NaN there), and 2, 3, -2 the products.
Integer tensors: exponentiation by squaring (wrapping like PyTorch's powi); a negative tensor exponent
gives 0 except for bases ±1, a negative Python-number exponent is an error.

Engine (the same in every pointwise-binary oracle): one elementwise kernel body `_f` (the op's math, chosen
by the constexpr OP), a contiguous fast path and a strided path (up to five coalesced dims, right-aligned;
broadcast dims have stride 0). Each operand is a tensor element, a Python number passed as a kernel
argument (wrapped numbers and CPU scalars next to device tensors), or one element broadcast through a
pointer (0-d device tensors, fp64 scalars). Values are converted to the common dtype, computed in fp32
for fp16/bf16 (fp64 for fp64, int32/int64 for integers and bool) and rounded once at the store; int64
offsets when a tensor spans 2^31 elements or more; 0-d tensors are one element, empty ones launch nothing.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

_INF = tl.constexpr(float("inf"))
_NAN = tl.constexpr(float("nan"))


@triton.jit
def _fdiv(a, b, COMPUTE: tl.constexpr):
    # IEEE round-to-nearest division (Triton's fp32 `/` is an approximation on NVIDIA GPUs)
    if COMPUTE == tl.float32:
        q = tl.math.div_rn(a, b)
    else:
        q = a / b
    return q


@triton.jit
def _signbit(v, COMPUTE: tl.constexpr):
    if COMPUTE == tl.float64:
        s = v.to(tl.int64, bitcast=True) < 0
    else:
        s = v.to(tl.int32, bitcast=True) < 0
    return s


@triton.jit
def _sqrt(x, COMPUTE: tl.constexpr):
    if COMPUTE == tl.float32:
        r = tl.math.sqrt_rn(x)
    else:
        r = tl.sqrt(x)
    return r


@triton.jit
def _powf(x, y, COMPUTE: tl.constexpr, ON_CPU: tl.constexpr):
    x, y = tl.broadcast(x, y)
    if ON_CPU:
        ax = tl.abs(x)
        r = tl.exp2(y * tl.log2(ax))
        y_fin = tl.abs(y) != _INF
        y_int = (tl.floor(y) == y) & y_fin
        half = y * 0.5
        y_odd = y_int & (tl.floor(half) != half)
        neg = x < 0
        r = tl.where(neg & y_odd, -r, r)
        r = tl.where(neg & (x != -_INF) & y_fin & (y_int == 0), _NAN, r)
        r = tl.where((x == 0) & _signbit(x, COMPUTE) & y_odd, -r, r)
        r = tl.where((ax == 1) & (y_fin == 0) & (y == y), 1.0, r)
        r = tl.where((x == 1) | (y == 0), 1.0, r)
    else:
        r = libdevice.pow(x, y)
    return r


@triton.jit
def _ipow(b, e, nbits):
    # exponentiation by squaring over the low `nbits` bits of e (wrapping, as PyTorch's powi does)
    b, e = tl.broadcast(b, e)
    r = tl.full(b.shape, 1, b.dtype)
    base = b
    ee = e
    for _ in range(nbits):
        r = tl.where((ee & 1) != 0, r * base, r)
        base = base * base
        ee = ee >> 1
    alt = tl.where(b == 1, 1, tl.where(b == -1, tl.where((e & 1) != 0, -1, 1), 0))
    return tl.where(e < 0, alt, r)


@triton.jit
def _f(x, y, p, OP: tl.constexpr, COMPUTE: tl.constexpr, ON_CPU: tl.constexpr):
    # OP 0: float pow; 1: integer pow (p exponent bits); 2: sqrt; 3: rsqrt; 4: reciprocal; 5: x*x;
    # 6: x*x*x; 7: 1/(x*x)
    if OP == 0:
        r = _powf(x, y, COMPUTE, ON_CPU)
    elif OP == 1:
        r = _ipow(x, y, p)
    elif OP == 2:
        r = _sqrt(x, COMPUTE)
    elif OP == 3:
        r = _fdiv(1.0, _sqrt(x, COMPUTE), COMPUTE)
    elif OP == 4:
        r = _fdiv(1.0, x, COMPUTE)
    elif OP == 5:
        r = x * x
    elif OP == 6:
        r = x * x * x
    else:
        r = _fdiv(1.0, x * x, COMPUTE)
    return r


@triton.jit
def _load(ptr, offs, mask, s, MODE: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr):
    # MODE 0: the tensor's element at offs; 1: a Python number passed as an argument (converted to
    # the common dtype first: pow's scalar semantics); 2: the single element of a tensor broadcast to
    # every position. Values go to the common dtype first, then to the compute type.
    if MODE == 0:
        v = tl.load(ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    elif MODE == 1:
        v = tl.cast(tl.cast(s, COMMON), COMPUTE)  # the scalar is first converted to the dtype
    else:
        v = tl.load(ptr).to(COMMON).to(COMPUTE)
    return v


@triton.jit
def _flat_kernel(x_ptr, y_ptr, o_ptr, n, xs, ys, p0, p_ptr,
                 X_MODE: tl.constexpr, Y_MODE: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr,
                 RES: tl.constexpr, OP: tl.constexpr, P_PTR: tl.constexpr, ON_CPU: tl.constexpr,
                 BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # contiguous output; tensor operands contiguous with the output's shape
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = _load(x_ptr, offs, mask, xs, X_MODE, COMMON, COMPUTE)
    y = _load(y_ptr, offs, mask, ys, Y_MODE, COMMON, COMPUTE)
    if P_PTR:
        p = tl.load(p_ptr)
    else:
        p = p0
    r = _f(x, y, p, OP, COMPUTE, ON_CPU)
    tl.store(o_ptr + offs, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _nd_kernel(x_ptr, y_ptr, o_ptr, n, xs, ys, p0, p_ptr, s1, s2, s3, s4,
               xt0, xt1, xt2, xt3, xt4, yt0, yt1, yt2, yt3, yt4, ot0, ot1, ot2, ot3, ot4,
               X_MODE: tl.constexpr, Y_MODE: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr,
               RES: tl.constexpr, OP: tl.constexpr, P_PTR: tl.constexpr, ON_CPU: tl.constexpr,
               NDIM: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # up to five coalesced dims, right-aligned (dim 4 innermost); broadcast dims have stride 0
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    rem = lin
    i = rem % s4
    rem = rem // s4
    xo = i * xt4
    yo = i * yt4
    oo = i * ot4
    if NDIM >= 2:
        i = rem % s3
        rem = rem // s3
        xo += i * xt3
        yo += i * yt3
        oo += i * ot3
    if NDIM >= 3:
        i = rem % s2
        rem = rem // s2
        xo += i * xt2
        yo += i * yt2
        oo += i * ot2
    if NDIM >= 4:
        i = rem % s1
        rem = rem // s1
        xo += i * xt1
        yo += i * yt1
        oo += i * ot1
    if NDIM >= 5:
        xo += rem * xt0
        yo += rem * yt0
        oo += rem * ot0
    x = _load(x_ptr, xo, mask, xs, X_MODE, COMMON, COMPUTE)
    y = _load(y_ptr, yo, mask, ys, Y_MODE, COMMON, COMPUTE)
    if P_PTR:
        p = tl.load(p_ptr)
    else:
        p = p0
    r = _f(x, y, p, OP, COMPUTE, ON_CPU)
    tl.store(o_ptr + oo, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata, views and allocation only)

_MAXD = 5
_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
       torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8, torch.int16: tl.int16,
       torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1}


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _block(n, device):
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(65536, max(16, _next_pow2(n))), 4
    if n >= (1 << 22):
        return 2048, 8
    if n >= (1 << 16):
        return 1024, 4
    return max(128, min(1024, _next_pow2(n))), 4


def _compute_of(dt):
    """The compute type of a common dtype: fp32 for fp16/bf16/fp32, fp64, int32 for narrow ints and
    bool (truncated back at the store: the same low bits as PyTorch's arithmetic), int64."""
    if dt == torch.float64:
        return tl.float64
    if dt.is_floating_point:
        return tl.float32
    if dt == torch.int64:
        return tl.int64
    if dt.is_complex:
        raise NotImplementedError("complex dtypes are not supported by this Triton solution")
    return tl.int32


def _bcast(s1, s2):
    n = max(len(s1), len(s2))
    p1 = (1,) * (n - len(s1)) + tuple(s1)
    p2 = (1,) * (n - len(s2)) + tuple(s2)
    res = []
    for a, b in zip(p1, p2):
        if a == b or b == 1:
            res.append(a)
        elif a == 1:
            res.append(b)
        else:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at a "
                               f"non-singleton dimension")
    return tuple(res)


def _is_host_scalar(v, device):
    """A 0-d CPU tensor next to device tensors: its value is read on the host (a wrapped number)."""
    return isinstance(v, torch.Tensor) and v.dim() == 0 and v.device.type == "cpu" and device.type != "cpu"


def _device_of(*vals):
    ts = [v for v in vals if isinstance(v, torch.Tensor)]
    for t in ts:
        if t.device.type != "cpu":
            return t.device
    return ts[0].device


def _shape_of(*vals):
    device = _device_of(*vals)
    shape = ()
    for v in vals:
        if isinstance(v, torch.Tensor) and not _is_host_scalar(v, device):
            shape = _bcast(shape, tuple(v.shape))
    return shape


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


def _operand(v, shape, device, compute):
    """(tensor for the kernel or None, scalar argument, mode) of one operand (see _load)."""
    if not isinstance(v, torch.Tensor) or _is_host_scalar(v, device):
        s = v.item() if isinstance(v, torch.Tensor) else v
        if compute == tl.float64:  # Triton passes Python floats as fp32: go through memory
            return torch.full((1,), float(s), dtype=torch.float64, device=device), 0, 2
        return None, (float(s) if compute == tl.float32 else int(s)), 1
    if v.dtype == torch.bool:
        v = v.view(torch.uint8)
    if tuple(v.shape) != shape:
        if v.numel() == 1:
            return v, 0, 2
        v = v.expand(shape)
    return v, 0, 0


def _launch(x, y, out, common, op, p0=0, res=None, compute=None):
    """out[i] = f(x[i], y[i]) over out's shape. x, y: tensors broadcastable to it (any strides, 0-d
    device tensors included) or Python numbers; values are converted to `common`, computed in its
    compute type, rounded once to `res` (default `common`) and stored in out's dtype. Returns out."""
    n = out.numel()
    if n == 0:
        return out
    device = out.device
    shape = tuple(out.shape)
    compute = compute if compute is not None else _compute_of(common)
    res = res if res is not None else common
    xt, xs, xm = _operand(x, shape, device, compute)
    yt, ys, ym = _operand(y, shape, device, compute)
    dst = out.view(torch.uint8) if out.dtype == torch.bool else out
    p_ptr, p_is_ptr = dst, False
    if compute == tl.float64 and isinstance(p0, float):
        p_ptr, p_is_ptr, p0 = torch.full((1,), p0, dtype=torch.float64, device=device), True, 0
    elif not p_is_ptr:
        p0 = float(p0) if compute in (tl.float32, tl.float64) else int(p0)
    xt = xt if xt is not None else dst
    yt = yt if yt is not None else dst
    meta = dict(X_MODE=xm, Y_MODE=ym, COMMON=_TL[common], COMPUTE=compute, RES=_TL[res], OP=op, P_PTR=p_is_ptr,
                ON_CPU=device.type == "cpu")
    block, warps = _block(n, device)
    grid = (_cdiv(n, block),)
    if dst.is_contiguous() and (xm != 0 or xt.is_contiguous()) and (ym != 0 or yt.is_contiguous()):
        _flat_kernel[grid](xt, yt, dst, n, xs, ys, p0, p_ptr, **meta, BLOCK=block, USE_I64=n + block >= 2 ** 31,
                           num_warps=warps)
        return out
    zeros = [0] * len(shape)
    xst = list(xt.stride()) if xm == 0 else zeros
    yst = list(yt.stride()) if ym == 0 else zeros
    dims = _coalesce(shape, [xst, yst, list(dst.stride())])
    if len(dims) > _MAXD:  # more than five dims that do not merge: dense copies of the inputs
        if xm == 0:
            xt = xt.contiguous()
            xst = list(xt.stride())
        if ym == 0:
            yt = yt.contiguous()
            yst = list(yt.stride())
        dims = _coalesce(shape, [xst, yst, list(dst.stride())])
    if len(dims) > _MAXD:  # an out of more than five uncoalescable dims: through a dense buffer
        tmp = torch.empty(shape, dtype=out.dtype, device=device)
        _launch(xt if xm == 0 else x, yt if ym == 0 else y, tmp, common, op, p0, res, compute)
        out.copy_(tmp)
        return out
    nd = max(1, len(dims))
    dims = [(1, [0, 0, 0])] * (_MAXD - len(dims)) + dims
    sizes = [d[0] for d in dims]
    big = max(n, _span(dst), _span(xt) if xm == 0 else 0, _span(yt) if ym == 0 else 0) + block >= 2 ** 31
    _nd_kernel[grid](xt, yt, dst, n, xs, ys, p0, p_ptr, *sizes[1:], *[d[1][0] for d in dims],
                     *[d[1][1] for d in dims], *[d[1][2] for d in dims], **meta, NDIM=nd, BLOCK=block,
                     USE_I64=big, num_warps=warps)
    return out


def _check_cast(result, dtype):
    if not torch.can_cast(result, dtype):
        raise RuntimeError(f"result type {result} can't be cast to the desired output type {dtype}")


def _prepare_out(out, shape, result):
    """An out= tensor: castable from the result dtype, resized when its shape differs."""
    _check_cast(result, out.dtype)
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


def _check_inplace(self, shape, result):
    """An in-place self keeps its shape and dtype."""
    if tuple(self.shape) != tuple(shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}")
    _check_cast(result, self.dtype)


# ----------------------------------------------------------------------------------------------
# wrappers

_NUMBER = (bool, int, float)


def _int_bits(common):
    return 63 if common == torch.int64 else 31


def _pow(base, exp, out=None):
    device = _device_of(base, exp)
    shape = _shape_of(base, exp)
    common = torch.result_type(base, exp)
    if common == torch.bool:
        raise RuntimeError("\"pow\" not implemented for 'Bool'")
    if common.is_complex:
        raise NotImplementedError("pow: complex dtypes are not supported by this Triton solution")
    op, p = (0, 0) if common.is_floating_point else (1, _int_bits(common))
    if isinstance(exp, _NUMBER) and not isinstance(base, _NUMBER):  # pow.Tensor_Scalar
        if not common.is_floating_point:
            if exp < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            p = max(1, int(exp).bit_length())
        elif exp == 0.5:  # PyTorch's sqrt / rsqrt / reciprocal paths (the unconverted scalar)
            op = 2
        elif exp == -0.5:
            op = 3
        elif exp == -1:
            op = 4
        else:
            conv = {2: 5, 3: 6, -2: 7}  # the converted exponent (exact in every float dtype)
            op = conv.get(exp, 0) if isinstance(exp, int) or float(exp).is_integer() else 0
    if out is None:
        out = torch.empty(shape, dtype=common, device=device)
    else:
        _prepare_out(out, shape, common)
    return _launch(base, exp, out, common, op, p)


def pow_Tensor_Tensor(self, exponent):
    return _pow(self, exponent)


def pow_Tensor_Scalar(self, exponent):
    return _pow(self, exponent)


def pow_Scalar(self, exponent):
    return _pow(self, exponent)


def pow_Tensor_Tensor_out(self, exponent, *, out):
    return _pow(self, exponent, out)


def pow_Tensor_Scalar_out(self, exponent, *, out):
    return _pow(self, exponent, out)


def pow_Scalar_out(self, exponent, *, out):
    return _pow(self, exponent, out)


# ----------------------------------------------------------------------------------------------
# JIT-only overloads (TorchScript; never dispatched): plain Python, C pow semantics


def _cpow(a, b):
    a, b = float(a), float(b)
    if b == 0 or a == 1:
        return 1.0
    if a == 0 and b < 0:
        return float("inf")
    try:
        r = a ** b
    except OverflowError:
        return float("inf")
    return float("nan") if isinstance(r, complex) else r


def pow_int(a, b):
    return _cpow(a, b)


def pow_float(a, b):
    return _cpow(a, b)


def pow_int_float(a, b):
    return _cpow(a, b)


def pow_float_int(a, b):
    return _cpow(a, b)


def pow_Scalar_Scalar(a, b):
    return _cpow(a, b)


def pow_complex(a, b):
    return complex(a) ** complex(b)


def pow_float_complex(a, b):
    return complex(a) ** b


def pow_complex_float(a, b):
    return a ** complex(b)


def pow_int_to_int(a, b):
    if b < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return a ** b
