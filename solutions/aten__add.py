"""Oracle Triton solution for aten::add (spec: shared/spec/aten.md, section `aten::add`).

Wrappers: add_Tensor, add_Scalar, add_out, add_Scalar_out.

out = self + alpha * other, with broadcasting and PyTorch type promotion. fp16/bf16 results are
computed in fp32 ("opmath") and rounded once; fp64 in fp64; integer results in int64 (wrapping to
the result width at the store, which is PyTorch's modular arithmetic); bool results are the logical
`self or (alpha and other)`. A Python scalar (add.Scalar, or the 0-d CPU wrapped number that
`torch.add(t, 2.5)` hands to add.Tensor) is read with `.item()` and passed to the kernel as a
scalar argument; it does not raise the result dtype. On CUDA the scalar and alpha are used in
opmath (fp32) precision, as PyTorch's CUDA kernel does; on the CPU (interpreter) they are first
rounded to the fp16/bf16 common dtype, as PyTorch's CPU kernel does.

Kernels: contiguous tensor+tensor and tensor+scalar fast paths with few launch arguments (Triton's
host launch cost grows with the argument count), and a strided N-D kernel (up to 8 coalesced dims)
for broadcasting, non-contiguous inputs/outputs and fp64 scalars.
"""
import torch
import triton
import triton.language as tl

_MAXD = 8
# dtypes of the 0-d CPU tensors PyTorch makes when it wraps a Python number.
_WRAPPED_DTYPES = (torch.float64, torch.int64, torch.bool, torch.complex128)


@triton.jit
def _operand(ptr, offs, mask, scal, scal_ptr, MODE: tl.constexpr, COMMON: tl.constexpr,
             COMPUTE: tl.constexpr, ROUND_SCALARS: tl.constexpr):
    # MODE 0: tensor element; 1: scalar argument; 2: scalar read from a 1-element tensor.
    if MODE == 0:
        v = tl.load(ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    elif MODE == 1:
        if ROUND_SCALARS:
            v = tl.cast(tl.cast(scal, COMMON), COMPUTE)
        else:
            v = tl.cast(scal, COMPUTE)
    else:
        v = tl.load(scal_ptr).to(COMPUTE)
    return v


@triton.jit
def _combine(a, b, alpha, alpha_ptr, ALPHA_PTR: tl.constexpr, COMMON: tl.constexpr,
             COMPUTE: tl.constexpr, IS_BOOL: tl.constexpr, ROUND_SCALARS: tl.constexpr):
    if ALPHA_PTR:
        al = tl.load(alpha_ptr).to(COMPUTE)
    elif ROUND_SCALARS:
        al = tl.cast(tl.cast(alpha, COMMON), COMPUTE)
    else:
        al = tl.cast(alpha, COMPUTE)
    r = a + al * b
    if IS_BOOL:
        r = r != 0
    return r


@triton.jit
def _add_tt_kernel(a_ptr, b_ptr, o_ptr, n, alpha,
                   COMMON: tl.constexpr, COMPUTE: tl.constexpr, IS_BOOL: tl.constexpr,
                   ROUND_SCALARS: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # contiguous tensor + tensor (few runtime arguments: the launch cost is per argument)
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    b = tl.load(b_ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    r = _combine(a, b, alpha, o_ptr, False, COMMON, COMPUTE, IS_BOOL, ROUND_SCALARS)
    tl.store(o_ptr + offs, r.to(COMMON).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _add_ts_kernel(t_ptr, o_ptr, n, scal, alpha, SCALAR_FIRST: tl.constexpr,
                   COMMON: tl.constexpr, COMPUTE: tl.constexpr, IS_BOOL: tl.constexpr,
                   ROUND_SCALARS: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # contiguous tensor + scalar (or scalar + tensor when SCALAR_FIRST)
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask, other=0).to(COMMON).to(COMPUTE)
    sv = _operand(o_ptr, offs, mask, scal, o_ptr, 1, COMMON, COMPUTE, ROUND_SCALARS)
    if SCALAR_FIRST:
        r = _combine(sv, t, alpha, o_ptr, False, COMMON, COMPUTE, IS_BOOL, ROUND_SCALARS)
    else:
        r = _combine(t, sv, alpha, o_ptr, False, COMMON, COMPUTE, IS_BOOL, ROUND_SCALARS)
    tl.store(o_ptr + offs, r.to(COMMON).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _add_nd_kernel(a_ptr, b_ptr, o_ptr, n, a_scal, b_scal, alpha, a_sptr, b_sptr, alpha_ptr,
                   s1, s2, s3, s4, s5, s6, s7,
                   sa0, sa1, sa2, sa3, sa4, sa5, sa6, sa7,
                   sb0, sb1, sb2, sb3, sb4, sb5, sb6, sb7,
                   so0, so1, so2, so3, so4, so5, so6, so7,
                   NDIM: tl.constexpr,
                   A_MODE: tl.constexpr, B_MODE: tl.constexpr, ALPHA_PTR: tl.constexpr,
                   COMMON: tl.constexpr, COMPUTE: tl.constexpr, IS_BOOL: tl.constexpr,
                   ROUND_SCALARS: tl.constexpr, BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # Dims are right-aligned: dim 7 is the innermost; dims 0 .. 7-NDIM are padding.
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    rem = lin
    i = rem % s7
    rem = rem // s7
    oa = i * sa7
    ob = i * sb7
    oo = i * so7
    if NDIM >= 2:
        i = rem % s6
        rem = rem // s6
        oa += i * sa6
        ob += i * sb6
        oo += i * so6
    if NDIM >= 3:
        i = rem % s5
        rem = rem // s5
        oa += i * sa5
        ob += i * sb5
        oo += i * so5
    if NDIM >= 4:
        i = rem % s4
        rem = rem // s4
        oa += i * sa4
        ob += i * sb4
        oo += i * so4
    if NDIM >= 5:
        i = rem % s3
        rem = rem // s3
        oa += i * sa3
        ob += i * sb3
        oo += i * so3
    if NDIM >= 6:
        i = rem % s2
        rem = rem // s2
        oa += i * sa2
        ob += i * sb2
        oo += i * so2
    if NDIM >= 7:
        i = rem % s1
        rem = rem // s1
        oa += i * sa1
        ob += i * sb1
        oo += i * so1
    if NDIM >= 8:
        oa += rem * sa0
        ob += rem * sb0
        oo += rem * so0
    a = _operand(a_ptr, oa, mask, a_scal, a_sptr, A_MODE, COMMON, COMPUTE, ROUND_SCALARS)
    b = _operand(b_ptr, ob, mask, b_scal, b_sptr, B_MODE, COMMON, COMPUTE, ROUND_SCALARS)
    r = _combine(a, b, alpha, alpha_ptr, ALPHA_PTR, COMMON, COMPUTE, IS_BOOL, ROUND_SCALARS)
    tl.store(o_ptr + oo, r.to(COMMON).to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()

def _tl_dtype(dt):
    if dt == torch.float16:
        return tl.float16
    if dt == torch.float32:
        return tl.float32
    if dt == torch.bfloat16:
        return tl.bfloat16
    return {
        torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
        torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64, torch.bool: tl.int1,
    }[dt]


def _compute_dtype(dt):
    if dt == torch.float64:
        return tl.float64
    if dt.is_floating_point:
        return tl.float32
    return tl.int64


def _is_wrapped_scalar(t, other):
    """A 0-d CPU tensor standing for a Python number (PyTorch's wrapped number)."""
    if not isinstance(t, torch.Tensor) or t.dim() != 0 or t.device.type != "cpu":
        return False
    if not isinstance(other, torch.Tensor):
        return False
    if other.device.type != "cpu":
        # CPU scalar next to a device tensor: its value must be read on the host.
        return True
    if t.dtype not in _WRAPPED_DTYPES:
        return False
    # two 0-d wrapped-like CPU tensors: treat both as ordinary tensors
    return not (other.dim() == 0 and other.dtype in _WRAPPED_DTYPES)


def _coalesce(sizes, strides_list):
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides_list]
        if dims:
            psz, pst = dims[-1]
            if all(pst[k] == st[k] * sz for k in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _broadcast(s1, s2):
    if s1 == s2:
        return s1
    n = max(len(s1), len(s2))
    p1 = (1,) * (n - len(s1)) + s1
    p2 = (1,) * (n - len(s2)) + s2
    res = []
    for x, y in zip(p1, p2):
        if x == y or y == 1:
            res.append(x)
        elif x == 1:
            res.append(y)
        else:
            return tuple(torch.broadcast_shapes(s1, s2))  # raises PyTorch's error
    return tuple(res)


def _block_and_warps(n, device):
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(65536, max(16, _next_pow2(n))), 4
    if n >= (1 << 22):
        return 2048, 8
    if n >= (1 << 16):
        return 1024, 4
    return max(128, min(1024, _next_pow2(n))), 4


def _span(t):
    """Largest element offset reachable from t's data pointer, plus one."""
    if t.is_contiguous():
        return t.numel()
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _launch(a, b, a_val, b_val, alpha, out, common):
    """a / b are tensors (expanded to out's shape) or None (then a_val / b_val is a Python number)."""
    n = out.numel()
    if n == 0:
        return out
    device = out.device
    compute = _compute_dtype(common)
    is_bool = common == torch.bool
    common_tl = _tl_dtype(common)
    use_ptr_scalars = common == torch.float64  # Triton passes Python floats as fp32
    # PyTorch's CUDA kernels use the scalar and alpha in opmath (fp32) precision (its CPU kernels first
    # convert them to the reduced common dtype). The task is the GPU operator (aten.md: fp16/bf16 compute
    # a + alpha*b in fp32 and round once), and the reference follows it on every platform, the CPU
    # interpreter included: never round the scalars (ROUND_SCALARS stays for the record of that choice).
    round_scalars = False
    dummy = out
    a_mode = 0 if a is not None else (2 if use_ptr_scalars else 1)
    b_mode = 0 if b is not None else (2 if use_ptr_scalars else 1)
    a_sptr = dummy
    b_sptr = dummy
    alpha_ptr = dummy
    if a_mode == 2:
        a_sptr = torch.full((1,), a_val, dtype=torch.float64, device=device)
    if b_mode == 2:
        b_sptr = torch.full((1,), b_val, dtype=torch.float64, device=device)
    if use_ptr_scalars:
        alpha_ptr = torch.full((1,), alpha, dtype=torch.float64, device=device)
    if is_bool:
        alpha = int(bool(alpha))
        a_val = int(bool(a_val)) if a_val is not None else 0
        b_val = int(bool(b_val)) if b_val is not None else 0
    a_val = 0 if a_val is None or a_mode != 1 else a_val
    b_val = 0 if b_val is None or b_mode != 1 else b_val
    if compute == tl.int64:
        a_val, b_val, alpha = int(a_val), int(b_val), int(alpha)
    else:
        a_val, b_val, alpha = float(a_val), float(b_val), float(alpha)
    a_t = a if a is not None else dummy
    b_t = b if b is not None else dummy

    BLOCK, warps = _block_and_warps(n, device)
    grid = (_cdiv(n, BLOCK),)

    flat = (not use_ptr_scalars and out.is_contiguous() and (a is None or a.is_contiguous())
            and (b is None or b.is_contiguous()))
    if flat:
        use_i64 = n >= 2 ** 31 - 65536
        if a is not None and b is not None:
            _add_tt_kernel[grid](a, b, out, n, alpha, COMMON=common_tl, COMPUTE=compute,
                                 IS_BOOL=is_bool, ROUND_SCALARS=round_scalars, BLOCK=BLOCK,
                                 USE_I64=use_i64, num_warps=warps)
        else:
            _add_ts_kernel[grid](a if a is not None else b, out, n,
                                 b_val if a is not None else a_val, alpha,
                                 SCALAR_FIRST=a is None, COMMON=common_tl, COMPUTE=compute,
                                 IS_BOOL=is_bool, ROUND_SCALARS=round_scalars, BLOCK=BLOCK,
                                 USE_I64=use_i64, num_warps=warps)
        return out

    big = max(n, _span(out), _span(a) if a is not None else 0, _span(b) if b is not None else 0)
    use_i64 = big >= 2 ** 31 - 65536
    shape = list(out.shape)
    zeros = [0] * len(shape)
    sa = list(a.stride()) if a is not None else zeros
    sb = list(b.stride()) if b is not None else zeros
    dims = _coalesce(shape, [sa, sb, list(out.stride())])
    if len(dims) > _MAXD:
        # very high rank: materialise the (broadcast) inputs densely in out's shape.
        if a is not None:
            a = a.contiguous()
        if b is not None:
            b = b.contiguous()
        a_t = a if a is not None else dummy
        b_t = b if b is not None else dummy
        sa = list(a.stride()) if a is not None else zeros
        sb = list(b.stride()) if b is not None else zeros
        dims = _coalesce(shape, [sa, sb, list(out.stride())])
        if len(dims) > _MAXD:
            raise NotImplementedError("add: output layout of rank > 8 that cannot be coalesced")
    nd = max(1, len(dims))
    pad = [(1, [0, 0, 0])] * (_MAXD - len(dims))
    full = pad + dims
    sizes = [d[0] for d in full]
    st_a = [d[1][0] for d in full]
    st_b = [d[1][1] for d in full]
    st_o = [d[1][2] for d in full]
    _add_nd_kernel[grid](a_t, b_t, out, n, a_val, b_val, alpha, a_sptr, b_sptr, alpha_ptr,
                         *sizes[1:], *st_a, *st_b, *st_o, NDIM=nd,
                         A_MODE=a_mode, B_MODE=b_mode, ALPHA_PTR=use_ptr_scalars,
                         COMMON=common_tl, COMPUTE=compute, IS_BOOL=is_bool, ROUND_SCALARS=round_scalars,
                         BLOCK=BLOCK, USE_I64=use_i64, num_warps=warps)
    return out


def _check_alpha(common, alpha):
    if common == torch.bool:
        if not isinstance(alpha, bool) and alpha not in (0, 1):
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif not common.is_floating_point and not common.is_complex:
        if isinstance(alpha, float):
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if common.is_complex:
        raise NotImplementedError("add: complex dtypes are not supported by this Triton solution")


def _plan_tensor(self, other):
    """Resolve (a, a_val, b, b_val, common dtype, shape, device) for add.Tensor / add.out.

    A Python number (how the dispatcher hands a wrapped number to a Python kernel) or a 0-d CPU
    tensor next to a device tensor is read on the host and passed to the kernel as a scalar.
    """
    if not isinstance(self, torch.Tensor):
        return None, self, other, None, torch.result_type(other, self), tuple(other.shape), other.device
    if not isinstance(other, torch.Tensor):
        return self, None, None, other, torch.result_type(self, other), tuple(self.shape), self.device
    a_scalar = _is_wrapped_scalar(self, other)
    b_scalar = (not a_scalar) and _is_wrapped_scalar(other, self)
    if a_scalar:
        a_val = self.item()
        common = (torch.result_type(self, other) if other.device.type != "cpu"
                  else torch.result_type(other, a_val))
        return None, a_val, other, None, common, tuple(other.shape), other.device
    if b_scalar:
        b_val = other.item()
        common = (torch.result_type(self, other) if self.device.type != "cpu"
                  else torch.result_type(self, b_val))
        return self, None, None, b_val, common, tuple(self.shape), self.device
    common = torch.result_type(self, other)
    shape = _broadcast(tuple(self.shape), tuple(other.shape))
    return self, None, other, None, common, shape, self.device


def _run(a, a_val, b, b_val, common, shape, alpha, out):
    _check_alpha(common, alpha)
    if a is not None and tuple(a.shape) != shape:
        a = a.expand(shape)
    if b is not None and tuple(b.shape) != shape:
        b = b.expand(shape)
    return _launch(a, b, a_val, b_val, alpha, out, common)


def _prepare_out(out, shape):
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def add_Tensor(self, other, *, alpha=1):
    a, a_val, b, b_val, common, shape, device = _plan_tensor(self, other)
    out = torch.empty(shape, dtype=common, device=device)
    return _run(a, a_val, b, b_val, common, shape, alpha, out)


def add_Scalar(self, other, alpha=1):
    common = torch.result_type(self, other)
    shape = tuple(self.shape)
    out = torch.empty(shape, dtype=common, device=self.device)
    return _run(self, None, None, other, common, shape, alpha, out)


def add_out(self, other, *, alpha=1, out):
    a, a_val, b, b_val, common, shape, device = _plan_tensor(self, other)
    _prepare_out(out, shape)
    return _run(a, a_val, b, b_val, common, shape, alpha, out)


def add_Scalar_out(self, other, alpha=1, *, out):
    common = torch.result_type(self, other)
    shape = tuple(self.shape)
    _prepare_out(out, shape)
    return _run(self, None, None, other, common, shape, alpha, out)
