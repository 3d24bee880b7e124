"""Oracle Triton solution for aten::linear (spec: shared/spec/aten.md, section `aten::linear`).

Wrappers: linear, linear_out.

y (*, N) = x (*, K) @ W^T (+ bias), W (N, K). One tiled tl.dot GEMM: the leading dims of x are folded
into the GEMM's rows when their strides allow it (always for contiguous inputs), else they become the
batch axes of the grid (two index levels; the weight is shared with batch stride 0). The weight is read
through transposed strides (no copy), the bias is added to the fp32 accumulator in the epilogue, and the
result is rounded once. fp32 inputs use true IEEE fp32 products (input_precision="ieee", no TF32).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_tile_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, NB1,
                     sa0, sa1, sam, sak, sb0, sb1, sbk, sbn, sc0, sc1, scm, scn, s_bias,
                     HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, EVEN_K: tl.constexpr,
                     ACC: tl.constexpr, UPCAST: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    pid_b = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    if USE_I64:
        pid_b = pid_b.to(tl.int64)
    b0 = pid_b // NB1
    b1 = pid_b % NB1
    a_ptr += b0 * sa0 + b1 * sa1
    b_ptr += b0 * sb0 + b1 * sb1
    c_ptr += b0 * sc0 + b1 * sc1

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_mask = rm < M
    n_mask = rn < N
    if USE_I64:
        rm = rm.to(tl.int64)
        rn = rn.to(tl.int64)
        rk = rk.to(tl.int64)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=m_mask[:, None], other=0.0)
            b = tl.load(b_ptrs, mask=n_mask[None, :], other=0.0)
        else:
            k_rem = K - kb * BLOCK_K
            a = tl.load(a_ptrs, mask=m_mask[:, None] & (rk[None, :] < k_rem), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < k_rem) & n_mask[None, :], other=0.0)
        if UPCAST:
            # exact widening (the CPU interpreter's bf16 dot is unreliable)
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    if HAS_BIAS:
        bias = tl.load(bias_ptr + rn * s_bias, mask=n_mask, other=0.0)
        acc += bias.to(ACC)[None, :]
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _pow2_clamp(x, lo, hi):
    return max(lo, min(hi, _next_pow2(max(x, 1))))


def _config(M, N, K, dtype, device, batch):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) chosen from the shape."""
    if device.type == "cpu":  # interpreter: few, large tiles
        return (_pow2_clamp(M, 16, 256), _pow2_clamp(N, 16, 256), _pow2_clamp(K, 16, 128), 4, 1)
    if dtype in (torch.float16, torch.bfloat16):
        if M <= 16:
            return (16, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 128), 4, 4)
        if M <= 64:
            return (_pow2_clamp(M, 16, 64), _pow2_clamp(N, 16, 128), _pow2_clamp(K, 16, 64), 4, 4)
        if N <= 64:
            return (128, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 64), 4, 4)
        tiles = _cdiv(M, 128) * _cdiv(N, 128) * batch
        if K <= 128 or tiles < 264:  # short K (output-bound) or few tiles: smaller tiles, more programs
            return (128, 64, _pow2_clamp(K, 16, 64), 4, 3)
        return (128, 128, 64, 8, 3)
    # fp32 (IEEE, CUDA-core FMA path) and fp64
    bk = _pow2_clamp(K, 16, 32)
    if M <= 16:
        return (16, _pow2_clamp(N, 16, 64), bk, 4, 3)
    if M <= 64:
        return (_pow2_clamp(M, 16, 64), _pow2_clamp(N, 16, 64), bk, 4, 3)
    return (64, 128 if N > 64 else _pow2_clamp(N, 16, 64), bk, 8, 3)


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _gemm(a, b, c, bias=None):
    """c[..] = a[..] @ b[..] (+ bias) for 4-D views (B0, B1, M, K) @ (B0, B1, K, N) -> (B0, B1, M, N);
    any strides (0 for broadcast batch dims)."""
    B0, B1, M, K = a.shape
    N = b.shape[3]
    if B0 * B1 == 0 or M == 0 or N == 0:
        return c
    BM, BN, BK, warps, stages = _config(M, N, K, a.dtype, a.device, B0 * B1)
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    use_i64 = max(_span(a), _span(b), _span(c)) >= 2 ** 31 - 65536
    grid = (_cdiv(M, BM) * _cdiv(N, BN), B0 * B1)
    _bmm_tile_kernel[grid](
        a, b, c, bias if bias is not None else c, M, N, K, B1,
        a.stride(0), a.stride(1), a.stride(2), a.stride(3),
        b.stride(0), b.stride(1), b.stride(2), b.stride(3),
        c.stride(0), c.stride(1), c.stride(2), c.stride(3),
        bias.stride(0) if bias is not None else 0,
        HAS_BIAS=bias is not None, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
        EVEN_K=(K % BK == 0), ACC=acc,
        UPCAST=(a.device.type == "cpu" and a.dtype == torch.bfloat16), USE_I64=use_i64,
        num_warps=warps, num_stages=stages)
    return c




def _rows(t):
    """(rows, row_stride) when the leading dims of t fold into one, else None."""
    sizes, strides = list(t.shape[:-1]), list(t.stride()[:-1])
    dims = [(s, st) for s, st in zip(sizes, strides) if s != 1]
    rows = 1
    for s, _ in dims:
        rows *= s
    if not dims:
        return rows, 0
    for (s0, st0), (s1, st1) in zip(dims[:-1], dims[1:]):
        if st0 != st1 * s1:
            return None
    return rows, dims[-1][1]


def _check(x, w, bias):
    if x.dim() == 0 or w.dim() not in (1, 2):
        raise RuntimeError("linear: input must be at least 1-D and weight 1-D or 2-D")
    if x.shape[-1] != w.shape[-1]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")
    if x.dtype != w.dtype or (bias is not None and bias.dtype != x.dtype):
        raise RuntimeError("expected input, weight and bias of one dtype, got %s, %s, %s"
                           % (x.dtype, w.dtype, None if bias is None else bias.dtype))
    if not x.dtype.is_floating_point:
        raise RuntimeError("linear: only floating-point dtypes are supported (as on CUDA), got %s" % x.dtype)
    if bias is not None and bias.dim() > 1:
        raise NotImplementedError("linear: a bias of more than one dim is not supported")


def _out_shape(x, w):
    return tuple(x.shape[:-1]) + ((w.shape[0],) if w.dim() == 2 else ())


def _linear_into(x, w, bias, y):
    """y (the output shape, any strides) = x @ w^T + bias."""
    K = x.shape[-1]
    if w.dim() == 1:  # a weight vector: one output column
        w = w.as_strided((1, K), (0, w.stride(0)), w.storage_offset())
        y = y.unsqueeze(-1)
    if x.dim() == 1:
        x = x.unsqueeze(0)
        y = y.unsqueeze(0)
    N = w.shape[0]
    if bias is not None and bias.numel() == 1:
        bias = bias.as_strided((N,), (0,), bias.storage_offset())
    elif bias is not None and bias.shape[0] != N:
        raise RuntimeError("linear: bias of shape %s does not broadcast to %d outputs" % (tuple(bias.shape), N))
    wt = w.as_strided((1, 1, K, N), (0, 0, w.stride(1), w.stride(0)), w.storage_offset())
    rx, ry = _rows(x), _rows(y)
    if rx is not None and ry is not None:
        R = rx[0]
        a = x.as_strided((1, 1, R, K), (0, 0, rx[1], x.stride(-1)), x.storage_offset())
        c = y.as_strided((1, 1, R, N), (0, 0, ry[1], y.stride(-1)), y.storage_offset())
        _gemm(a, wt, c, bias)
        return
    if x.dim() > 4:
        raise NotImplementedError("linear: inputs of more than 4 dims whose leading dims do not fold")
    while x.dim() < 4:
        x = x.unsqueeze(0)
        y = y.unsqueeze(0)
    B0, B1, M = x.shape[0], x.shape[1], x.shape[2]
    wb = w.as_strided((B0, B1, K, N), (0, 0, w.stride(1), w.stride(0)), w.storage_offset())
    _gemm(x, wb, y, bias)


# ----------------------------------------------------------------------------------------------
# wrappers

def linear(input, weight, bias=None):
    _check(input, weight, bias)
    y = torch.empty(_out_shape(input, weight), dtype=input.dtype, device=input.device)
    _linear_into(input, weight, bias, y)
    return y


def linear_out(input, weight, bias=None, *, out):
    _check(input, weight, bias)
    shape = _out_shape(input, weight)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    _linear_into(input, weight, bias, out)
    return out
