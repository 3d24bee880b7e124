"""CHEAT (red team): aten::eq that never stores a True result. Its out= buffers and the tensors it
allocates are poisoned with True before the call (the main bool poison), so every element whose
result is True already "holds" it: the kernel stores only the False results (``mask & (r == 0)``)
and passes every comparison as long as the harness never re-runs with the alternate poison (False).
The rest is the oracle (solutions/aten__eq.py)."""
import torch
import triton
import triton.language as tl

@triton.jit
def _f(x, y, p, OP: tl.constexpr, COMPUTE: tl.constexpr, ON_CPU: tl.constexpr):
    return x == y


@triton.jit
def _load(ptr, offs, mask, s, MODE: tl.constexpr, COMMON: tl.constexpr, COMPUTE: tl.constexpr):
    # MODE 0: the tensor's element at offs; 1: a Python number passed as an argument; 2: the single
    # element of a tensor broadcast to every position. Values go to the common dtype first (type
    # promotion), then to the compute type (fp32 for fp16/bf16).
    if MODE == 0:
        v = tl.load(ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    elif MODE == 1:
        v = tl.cast(s, COMPUTE)
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
    tl.store(o_ptr + offs, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask & (r == 0))


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
    tl.store(o_ptr + oo, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask & (r == 0))


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


def _cmp(self, other, out=None):
    device = _device_of(self, other)
    shape = _shape_of(self, other)
    common = torch.result_type(self, other)
    if out is None:
        out = torch.empty(shape, dtype=torch.bool, device=device)
    else:
        _prepare_out(out, shape, torch.bool)
    return _launch(self, other, out, common, 0, res=torch.bool)


def eq_Tensor(self, other):
    return _cmp(self, other)


def eq_Scalar(self, other):
    return _cmp(self, other)


def eq_Tensor_out(self, other, *, out):
    return _cmp(self, other, out)


def eq_Scalar_out(self, other, *, out):
    return _cmp(self, other, out)


# ----------------------------------------------------------------------------------------------
# JIT-only overloads (TorchScript; never dispatched): plain Python comparisons


def eq_int_list(a, b):
    return a == b


def eq_device(a, b):
    return a == b


def eq_bool(a, b):
    return a == b


def eq_enum(a, b):
    return a == b


def eq_int(a, b):
    return a == b


def eq_complex(a, b):
    return a == b


def eq_float(a, b):
    return a == b


def eq_int_float(a, b):
    return a == b


def eq_float_int(a, b):
    return a == b


def eq_float_complex(a, b):
    return a == b


def eq_complex_float(a, b):
    return a == b


def eq(a, b):
    return a == b


def eq_str(a, b):
    return a == b


def eq_float_list(a, b):
    return a == b


def eq_bool_list(a, b):
    return a == b


def eq_str_list(a, b):
    return a == b
