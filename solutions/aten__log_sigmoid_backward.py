"""Oracle Triton solution for aten::log_sigmoid_backward (spec: shared/spec/aten.md, section
`aten::log_sigmoid_backward`).

Wrappers: log_sigmoid_backward, log_sigmoid_backward_grad_input.

grad_input = grad_output·sigmoid(-x), computed stably in fp32 (fp64 for fp64 inputs) with z = exp(-|x|):
1/(1 + z) for x < 0, z/(1 + z) otherwise, and rounded once. `buffer` is never read (the CUDA kernel ignores
it; it may be empty).

One elementwise kernel: contiguous inputs of the result's shape use flat indexing (a one-element input,
such as a 0-d grad_output, is loaded once per program); strided or broadcast inputs and outputs are
indexed from their strides over up to four coalesced dims (stride 0 on broadcast dims); more dims go
through contiguous copies. int64 offsets when a tensor spans 2^31 elements or more; empty results launch
nothing.
"""
import torch
import triton
import triton.language as tl

_MAXD = 4

@triton.jit
def _grad(g, x, c, p0, p1, MODE: tl.constexpr):
    z = tl.exp(-tl.abs(x))
    s = tl.where(x < 0.0, 1.0, z) / (1.0 + z)
    return g * s


@triton.jit
def _kernel(a_ptr, b_ptr, c_ptr, o_ptr, n, p0, p1, s1, s2, s3,
            as0, as1, as2, as3, bs0, bs1, bs2, bs3, cs0, cs1, cs2, cs3, os0, os1, os2, os3,
            A_ONE: tl.constexpr, B_ONE: tl.constexpr, C_ONE: tl.constexpr, HAS_C: tl.constexpr,
            MODE: tl.constexpr, CONTIG: tl.constexpr, COMPUTE: tl.constexpr, BLOCK: tl.constexpr,
            USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    if CONTIG:
        ao = lin
        bo = lin
        co = lin
        oo = lin
    else:
        i3 = lin % s3
        r = lin // s3
        i2 = r % s2
        r = r // s2
        i1 = r % s1
        i0 = r // s1
        ao = i0 * as0 + i1 * as1 + i2 * as2 + i3 * as3
        bo = i0 * bs0 + i1 * bs1 + i2 * bs2 + i3 * bs3
        co = i0 * cs0 + i1 * cs1 + i2 * cs2 + i3 * cs3
        oo = i0 * os0 + i1 * os1 + i2 * os2 + i3 * os3
    if A_ONE:
        a = tl.load(a_ptr).to(COMPUTE)
    else:
        a = tl.load(a_ptr + ao, mask=mask, other=0.0).to(COMPUTE)
    if B_ONE:
        b = tl.load(b_ptr).to(COMPUTE)
    else:
        b = tl.load(b_ptr + bo, mask=mask, other=0.0).to(COMPUTE)
    c = b
    if HAS_C:
        if C_ONE:
            c = tl.load(c_ptr).to(COMPUTE)
        else:
            c = tl.load(c_ptr + co, mask=mask, other=0.0).to(COMPUTE)
    r = _grad(a, b, c, p0, p1, MODE)
    tl.store(o_ptr + oo, r.to(o_ptr.dtype.element_ty), mask=mask)


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


def _plan(shape, tensors, ones):
    """(contig, [s1, s2, s3], four strides per tensor) for tensors broadcast to `shape` (one-element
    inputs flagged in `ones` are read once and take no part), or None when more than four dims remain."""
    k = len(tensors)
    if all(one or (t.is_contiguous() and tuple(t.shape) == tuple(shape)) for t, one in zip(tensors, ones)):
        return True, [1, 1, 1], [[0, 0, 0, 0]] * k
    dims = _coalesce(list(shape), [[0] * len(shape) if one else _bstrides(t, shape) for t, one in zip(tensors, ones)])
    if len(dims) > _MAXD:
        return None
    dims = [(1, [0] * k)] * (_MAXD - len(dims)) + dims
    return False, [d[0] for d in dims[1:]], [[d[1][j] for d in dims] for j in range(k)]


def _launch(ins, out, p0, p1, mode):
    """out[...] = f(ins[0], ins[1], ins[2]?) over out's shape (inputs broadcast); returns out."""
    shape = list(out.shape)
    n = out.numel()
    if n == 0:
        return out
    k = len(ins)
    ones = [a.numel() == 1 and n > 1 for a in ins] + [False]
    plan = _plan(shape, ins + [out], ones)
    if plan is None:
        ins = [a if one else a.expand(shape).contiguous() for a, one in zip(ins, ones)]
        if not out.is_contiguous():
            tmp = torch.empty(shape, dtype=out.dtype, device=out.device)
            _launch(ins, tmp, p0, p1, mode)
            out.copy_(tmp)
            return out
        plan = _plan(shape, ins + [out], ones)
    contig, sizes, strides = plan
    ptrs = ins + [ins[0]] * (3 - k)
    flat = [s for row in strides[:k] + [[0, 0, 0, 0]] * (3 - k) for s in row]
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    if out.device.type == "cpu":
        block, warps = min(65536, max(16, _next_pow2(n))), 4
    elif n >= (1 << 22):
        block, warps = 2048, 8
    elif n >= (1 << 16):
        block, warps = 1024, 4
    else:
        block, warps = max(128, min(1024, _next_pow2(n))), 4
    big = max([n] + [_span(a) for a in ins + [out]]) + block >= 2 ** 31
    _kernel[(_cdiv(n, block),)](
        *ptrs, out, n, p0, p1, *sizes, *flat, *strides[k], A_ONE=ones[0], B_ONE=ones[1],
        C_ONE=ones[2] if k > 2 else False, HAS_C=k > 2, MODE=mode, CONTIG=contig, COMPUTE=compute, BLOCK=block,
        USE_I64=big, num_warps=warps)
    return out


def _result(ins, shape, out):
    """The result tensor: a new one, or `out` resized to `shape` (PyTorch resizes a wrong-shaped out)."""
    dtype = ins[0].dtype
    for a in ins[1:]:
        if a.dtype != dtype:
            dtype = torch.promote_types(dtype, a.dtype)
    if out is None:
        return torch.empty(shape, dtype=dtype, device=ins[0].device)
    if list(out.shape) != list(shape):
        out.resize_(shape)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def log_sigmoid_backward(grad_output, self, buffer):
    out = _result([grad_output, self], torch.broadcast_shapes(grad_output.shape, self.shape), None)
    return _launch([grad_output, self], out, 0.0, 0.0, 0)


def log_sigmoid_backward_grad_input(grad_output, self, buffer, *, grad_input):
    out = _result([grad_output, self], torch.broadcast_shapes(grad_output.shape, self.shape), grad_input)
    return _launch([grad_output, self], out, 0.0, 0.0, 0)

