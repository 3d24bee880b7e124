"""Oracle Triton solution for aten::bmm (spec: shared/spec/aten.md, section `aten::bmm`).

Wrappers: bmm, bmm_out, bmm_dtype, bmm_dtype_out.

C[b] (M, N) = A[b] (M, K) @ B[b] (K, N). A tiled tl.dot GEMM; the grid walks the batch (two index
levels, so broadcast batch dims need no copies), then the tiles of each problem. Tiles are ordered in
groups of GROUP_M rows for L2 reuse. Operands are addressed through their strides (transposed or column-
major inputs and strided outputs need no copies). Accumulation is fp32 (fp64 for fp64); fp32 inputs use
true IEEE fp32 products (input_precision="ieee", no TF32); the result is rounded once to the output
dtype (the input dtype, or fp32 for bmm.dtype from fp16/bf16).
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


def _check(a, b):
    if a.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: "
                           "[%d, %d]." % (a.shape[0], a.shape[2], b.shape[0], b.shape[1]))
    if a.dtype != b.dtype:
        raise RuntimeError("expected scalar type %s but found %s" % (a.dtype, b.dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError("bmm: only floating-point dtypes are supported (as on CUDA), got %s" % a.dtype)


def _check_out_dtype(a, out_dtype):
    if out_dtype != a.dtype and not (out_dtype == torch.float32 and a.dtype in (torch.float16, torch.bfloat16)):
        raise RuntimeError("out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")


def _bmm_into(a, b, c):
    B, M, K = a.shape
    N = b.shape[2]
    sa, sb, sc = a.stride(), b.stride(), c.stride()
    _gemm(a, b, c, None, 1, B, M, N, K, (0, sa[0], sa[1], sa[2]), (0, sb[0], sb[1], sb[2]),
          (0, sc[0], sc[1], sc[2]))


def _out_shape(a, b):
    return (a.shape[0], a.shape[1], b.shape[2])


def _prepare_out(out, shape):
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def bmm(self, mat2):
    _check(self, mat2)
    c = torch.empty(_out_shape(self, mat2), dtype=self.dtype, device=self.device)
    _bmm_into(self, mat2, c)
    return c


def bmm_out(self, mat2, *, out):
    _check(self, mat2)
    _prepare_out(out, _out_shape(self, mat2))
    _bmm_into(self, mat2, out)
    return out


def bmm_dtype(self, mat2, out_dtype):
    _check(self, mat2)
    _check_out_dtype(self, out_dtype)
    c = torch.empty(_out_shape(self, mat2), dtype=out_dtype, device=self.device)
    _bmm_into(self, mat2, c)
    return c


def bmm_dtype_out(self, mat2, out_dtype, *, out):
    _check(self, mat2)
    _check_out_dtype(self, out_dtype)
    _prepare_out(out, _out_shape(self, mat2))
    _bmm_into(self, mat2, out)
    return out
