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
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid = tl.program_id(0)  # one grid axis (no 65535 limit): batch-major, then the tiles of one problem
    pid_b = pid // (num_pid_m * num_pid_n)
    pid = pid % (num_pid_m * num_pid_n)
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


def _config(M, N, K, dtype, device, aligned):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) chosen from the shape. ``aligned``: every row
    stride and base offset is a multiple of 16 bytes, so tiles load with async copies; otherwise loads go
    through registers and the configs stay small enough not to spill (checked with ptxas for sm_90)."""
    if device.type == "cpu":  # interpreter: few, large tiles
        return (_pow2_clamp(M, 16, 256), _pow2_clamp(N, 16, 256), _pow2_clamp(K, 16, 128), 4, 1)
    if dtype in (torch.float16, torch.bfloat16):
        if M <= 16:
            if aligned:
                return (16, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 128), 4, 4)
            return (16, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 64), 4, 3)
        if M <= 64:
            if aligned:
                return (64, _pow2_clamp(N, 16, 128), _pow2_clamp(K, 16, 64), 4, 4)
            return (64, _pow2_clamp(N, 16, 128), _pow2_clamp(K, 16, 32), 8, 3)
        if not aligned:
            return (64, _pow2_clamp(N, 16, 128), _pow2_clamp(K, 16, 32), 8, 3)
        if N <= 64:
            return (128, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 64), 4, 3)
        if K <= 128:  # short K (output-bound): 32-deep k-steps
            return (128, 128, _pow2_clamp(K, 16, 32), 8, 3)
        return (128, 128, 64, 8, 3)
    # fp32 (IEEE, CUDA-core FMA path) and fp64
    bk = _pow2_clamp(K, 16, 32)
    if M <= 16:
        return (16, _pow2_clamp(N, 16, 64), bk, 4, 3)
    if M <= 64:
        return (_pow2_clamp(M, 16, 64), _pow2_clamp(N, 16, 64), bk, 4, 3)
    return (64, 128 if N > 64 else _pow2_clamp(N, 16, 64), bk, 8, 3)


def _aligned(tensors, strides):
    """Whether every base address is 16-byte aligned and every stride is 0, 1 or a multiple of 16 elements
    (what Triton's argument specialisation can prove, so tiles load with vectorised async copies)."""
    v = 16 // tensors[0].element_size()
    return (all(t.storage_offset() % v == 0 for t in tensors)
            and all(s in (0, 1) or s % 16 == 0 for st in strides for s in st))


def _span(sizes, strides):
    if any(s == 0 for s in sizes):
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(sizes, strides))


def _gemm(a, b, c, bias, B0, B1, M, N, K, sa, sb, sc, s_bias=0):
    """c = a @ b (+ bias) over a (B0, B1) batch of (M, K) @ (K, N) -> (M, N) problems. sa, sb, sc are the
    4 strides (batch 0, batch 1, row, column) of each operand in elements (0 for broadcast dims); no
    views are built (each would be a dispatcher call on the host)."""
    if B0 * B1 == 0 or M == 0 or N == 0:
        return
    BM, BN, BK, warps, stages = _config(M, N, K, a.dtype, a.device, _aligned((a, b, c), (sa, sb, sc)))
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    use_i64 = max(_span((B0, B1, M, K), sa), _span((B0, B1, K, N), sb),
                  _span((B0, B1, M, N), sc)) >= 2 ** 31 - 65536
    grid = (_cdiv(M, BM) * _cdiv(N, BN) * B0 * B1,)
    _bmm_tile_kernel[grid](
        a, b, c, bias if bias is not None else c, M, N, K, B1, *sa, *sb, *sc, s_bias,
        HAS_BIAS=bias is not None, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
        EVEN_K=(K % BK == 0), ACC=acc,
        UPCAST=(a.device.type == "cpu" and a.dtype == torch.bfloat16), USE_I64=use_i64,
        num_warps=warps, num_stages=stages)


def _fold(sizes, strides):
    """(rows, row_stride) when dims fold into one (size-1 dims ignored), else None."""
    rows, last = 1, None
    for sz, st in zip(sizes, strides):
        if sz == 1:
            continue
        if last is not None and last[1] != st * sz:
            return None
        rows *= sz
        last = (sz, st)
    return rows, (last[1] if last is not None else 0)


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
    """y (the output shape, any strides) = x @ w^T + bias, through strides only (no views)."""
    K = x.shape[-1]
    xs, ys = list(x.shape), list(x.stride())
    yshape, ystr = list(y.shape), list(y.stride())
    if w.dim() == 2:
        N, swn, swk = w.shape[0], w.stride(0), w.stride(1)
    else:  # a weight vector: one output column
        N, swn, swk = 1, 0, w.stride(0)
        yshape, ystr = yshape + [1], ystr + [0]
    if len(xs) == 1:
        xs, ys = [1] + xs, [0] + ys
        yshape, ystr = [1] + yshape, [0] + ystr
    s_bias = 0
    if bias is not None:
        if bias.numel() != 1 and (bias.dim() != 1 or bias.shape[0] != N):
            raise RuntimeError("linear: bias of shape %s does not broadcast to %d outputs" % (tuple(bias.shape), N))
        s_bias = bias.stride(0) if bias.numel() != 1 and bias.dim() == 1 else 0
    sw = (0, 0, swk, swn)
    fx, fy = _fold(xs[:-1], ys[:-1]), _fold(yshape[:-1], ystr[:-1])
    if fx is not None and fy is not None:
        _gemm(x, w, y, bias, 1, 1, fx[0], N, K, (0, 0, fx[1], ys[-1]), sw, (0, 0, fy[1], ystr[-1]), s_bias)
        return
    if len(xs) > 4:
        raise NotImplementedError("linear: inputs of more than 4 dims whose leading dims do not fold")
    pad = 4 - len(xs)
    xs, ys = [1] * pad + xs, [0] * pad + ys
    yshape, ystr = [1] * pad + yshape, [0] * pad + ystr
    _gemm(x, w, y, bias, xs[0], xs[1], xs[2], N, K, (ys[0], ys[1], ys[2], ys[3]), sw,
          (ystr[0], ystr[1], ystr[2], ystr[3]), s_bias)


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
