"""Oracle Triton solution for aten::matmul (spec: shared/spec/aten.md, section `aten::matmul`).

Wrappers: matmul, matmul_out.

NumPy-style matmul on one tiled tl.dot GEMM kernel: 1-D operands get a unit dim (removed from the
result again), batch dims broadcast through stride-0 views (no copies), and a batched left operand
times a matrix is folded into one GEMM over all its rows when its strides allow it (as PyTorch folds
it), which keeps small-M problems on full tiles. Remaining batch dims are coalesced into at most two
grid index levels. Accumulation is fp32 (fp64 for fp64), true IEEE fp32 for fp32 inputs (no TF32),
rounded once to the dtype.
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




def _coalesce(sizes, strides_list):
    """Merge adjacent batch dims whose strides agree in every tensor; drop size-1 dims."""
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides_list]
        if dims:
            psz, pst = dims[-1]
            if all(pst[i] == st[i] * sz for i in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _check(a, b):
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are %dD and %dD"
                           % (a.dim(), b.dim()))
    kb = b.shape[0] if b.dim() == 1 else b.shape[-2]
    if a.shape[-1] != kb:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")
    if a.dtype != b.dtype:
        raise RuntimeError("expected both operands of one dtype, got %s and %s" % (a.dtype, b.dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError("matmul: only floating-point dtypes are supported (as on CUDA), got %s" % a.dtype)


def _plan(a, b):
    """(a2, b2, batch, M, N, out_shape): operands with at least 2 dims and the result's shape."""
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    batch = tuple(torch.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
    M, N = a2.shape[-2], b2.shape[-1]
    out_shape = batch + ((M,) if a.dim() > 1 else ()) + ((N,) if b.dim() > 1 else ())
    return a2, b2, batch, M, N, out_shape


def _matmul_into(a, b, c):
    """c (the result, any strides) = matmul(a, b)."""
    a2, b2, batch, M, N, _ = _plan(a, b)
    K = a2.shape[-1]
    c2 = c
    if a.dim() == 1:
        c2 = c2.unsqueeze(-2 if b.dim() > 1 else -1)
    if b.dim() == 1:
        c2 = c2.unsqueeze(-1)
    nb = len(batch)
    if b2.dim() == 2 and nb:
        # fold the batch of a into its rows when a's and c's strides allow it
        fa = _coalesce(list(a2.shape[:-1]), [list(a2.stride()[:-1]), list(c2.stride()[:-1])])
        if len(fa) <= 1:
            R = fa[0][0] if fa else 1
            sa, sc = (fa[0][1][0], fa[0][1][1]) if fa else (0, 0)
            av = a2.as_strided((1, 1, R, K), (0, 0, sa, a2.stride(-1)), a2.storage_offset())
            bv = b2.as_strided((1, 1, K, N), (0, 0, b2.stride(0), b2.stride(1)), b2.storage_offset())
            cv = c2.as_strided((1, 1, R, N), (0, 0, sc, c2.stride(-1)), c2.storage_offset())
            _gemm(av, bv, cv)
            return c
    ae = a2.expand(batch + (M, K))
    be = b2.expand(batch + (K, N))
    dims = _coalesce(list(batch), [list(ae.stride()[:nb]), list(be.stride()[:nb]), list(c2.stride()[:nb])])
    while len(dims) < 2:
        dims.insert(0, (1, [0, 0, 0]))
    if len(dims) > 2:
        raise NotImplementedError("matmul: more than two batch dims that do not coalesce")
    (B0, s0), (B1, s1) = dims
    av = ae.as_strided((B0, B1, M, K), (s0[0], s1[0], ae.stride(-2), ae.stride(-1)), ae.storage_offset())
    bv = be.as_strided((B0, B1, K, N), (s0[1], s1[1], be.stride(-2), be.stride(-1)), be.storage_offset())
    cv = c2.as_strided((B0, B1, M, N), (s0[2], s1[2], c2.stride(-2), c2.stride(-1)), c2.storage_offset())
    _gemm(av, bv, cv)
    return c


# ----------------------------------------------------------------------------------------------
# wrappers

def matmul(self, other):
    _check(self, other)
    out_shape = _plan(self, other)[5]
    c = torch.empty(out_shape, dtype=self.dtype, device=self.device)
    return _matmul_into(self, other, c)


def matmul_out(self, other, *, out):
    _check(self, other)
    out_shape = _plan(self, other)[5]
    if tuple(out.shape) != tuple(out_shape):
        out.resize_(out_shape)
    _matmul_into(self, other, out)
    return out
