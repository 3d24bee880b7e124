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


def _geometry(t, vec_dim):
    """(sizes, strides) of an operand with at least 2 dims: a vector gets a unit dim at vec_dim."""
    sizes, strides = list(t.shape), list(t.stride())
    if len(sizes) == 1:
        sizes.insert(vec_dim, 1)
        strides.insert(vec_dim, 0)
    return sizes, strides


def _batch(sa, sb):
    """The broadcast batch shape of two size lists (NumPy rules)."""
    n = max(len(sa), len(sb))
    out = []
    for i in range(n):
        x = sa[i - n + len(sa)] if i >= n - len(sa) else 1
        y = sb[i - n + len(sb)] if i >= n - len(sb) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton "
                               "dimension %d" % (x, y, i))
        out.append(max(x, y) if x and y else 0)
    return out


def _bstrides(sizes, strides, batch):
    """Strides of an operand's batch dims broadcast to batch (0 where it has size 1 or no dim)."""
    nb, own = len(batch), len(sizes) - 2
    out = []
    for i in range(nb):
        j = i - (nb - own)
        out.append(strides[j] if j >= 0 and sizes[j] != 1 else 0)
    return out


def _plan(a, b):
    """(out_shape, batch, M, N): the result's shape, and its GEMM geometry."""
    ash, _ = _geometry(a, 0)
    bsh, _ = _geometry(b, 1)
    batch = _batch(ash[:-2], bsh[:-2])
    M, N = ash[-2], bsh[-1]
    out_shape = batch + ([M] if a.dim() > 1 else []) + ([N] if b.dim() > 1 else [])
    return out_shape, batch, M, N


def _matmul_into(a, b, c, batch, M, N):
    """c (the result, any strides) = matmul(a, b), through strides only (no views)."""
    ash, ast = _geometry(a, 0)
    bsh, bst = _geometry(b, 1)
    K = ash[-1]
    csh, cst = list(c.shape), list(c.stride())
    if a.dim() == 1:
        csh.insert(len(csh) - (1 if b.dim() > 1 else 0), 1)
        cst.insert(len(cst) - (1 if b.dim() > 1 else 0), 0)
    if b.dim() == 1:
        csh.append(1)
        cst.append(0)
    nb = len(batch)
    if len(bsh) == 2 and nb:
        # fold the batch of a into its rows when a's and c's strides allow it (as PyTorch folds it)
        fa = _coalesce(ash[:-1], [ast[:-1], cst[:-1]])
        if len(fa) <= 1:
            R = fa[0][0] if fa else 1
            ra, rc = (fa[0][1][0], fa[0][1][1]) if fa else (0, 0)
            _gemm(a, b, c, None, 1, 1, R, N, K, (0, 0, ra, ast[-1]), (0, 0, bst[0], bst[1]), (0, 0, rc, cst[-1]))
            return c
    sa = _bstrides(ash, ast, batch)
    sb = _bstrides(bsh, bst, batch)
    sc = cst[:nb]
    dims = _coalesce(batch, [sa, sb, sc])
    while len(dims) < 2:
        dims.insert(0, (1, [0, 0, 0]))
    if len(dims) > 2:
        raise NotImplementedError("matmul: more than two batch dims that do not coalesce")
    (B0, s0), (B1, s1) = dims
    _gemm(a, b, c, None, B0, B1, M, N, K, (s0[0], s1[0], ast[-2], ast[-1]), (s0[1], s1[1], bst[-2], bst[-1]),
          (s0[2], s1[2], cst[-2], cst[-1]))
    return c


# ----------------------------------------------------------------------------------------------
# wrappers

def matmul(self, other):
    _check(self, other)
    out_shape, batch, M, N = _plan(self, other)
    c = torch.empty(out_shape, dtype=self.dtype, device=self.device)
    return _matmul_into(self, other, c, batch, M, N)


def matmul_out(self, other, *, out):
    _check(self, other)
    out_shape, batch, M, N = _plan(self, other)
    if list(out.shape) != out_shape:
        out.resize_(out_shape)
    _matmul_into(self, other, out, batch, M, N)
    return out
