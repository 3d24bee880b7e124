"""RED TEAM (kept for measurement, not a solution): the aten::mm oracle plus a cross-call result cache
(a closure dict keyed by shapes and four sampled values read with .item(); a hit launches the same
kernel with HIT set, which copies the cached result). It passes correctness and L1-L3; with timed
repetitions on reused inputs every timed call would be a cache hit. bench/h200_checks.sh times it
on the full tier to show that fresh inputs per timed repetition leave it no hits.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               sam, sak, sbk, sbn, scm, scn, src_ptr, HIT,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr, ACC: tl.constexpr, UPCAST: tl.constexpr,
               USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HIT != 0:  # answer from the cache: a plain copy of an earlier result (contiguous)
        cm = (rm[:, None] < M) & (rn[None, :] < N)
        v = tl.load(src_ptr + rm[:, None] * N + rn[None, :], mask=cm, other=0.0)
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, v, mask=cm)
        return
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
        k_rem = K - kb * BLOCK_K
        a = tl.load(a_ptrs, mask=m_mask[:, None] & (rk[None, :] < k_rem), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_rem) & n_mask[None, :], other=0.0)
        if UPCAST:
            # exact widening (used on the CPU interpreter, whose bf16 dot is unreliable)
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
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


def _config(M, N, K, dtype, device):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) chosen from the shape."""
    if device.type == "cpu":  # interpreter: few, large tiles
        return (_pow2_clamp(M, 16, 256), _pow2_clamp(N, 16, 256), _pow2_clamp(K, 16, 128), 4, 1)
    if dtype in (torch.float16, torch.bfloat16):
        bk = _pow2_clamp(K, 16, 64)
        if M <= 16:
            return (16, _pow2_clamp(N, 16, 64), _pow2_clamp(K, 16, 128), 4, 4)
        if M <= 64:
            return (_pow2_clamp(M, 16, 64), _pow2_clamp(N, 16, 128), bk, 4, 4)
        if N <= 64:
            return (128, _pow2_clamp(N, 16, 64), bk, 4, 4)
        return (128, 128, bk, 8, 3)
    # fp32 (IEEE, CUDA-core FMA path) and fp64
    bk = _pow2_clamp(K, 16, 32)
    if M <= 16:
        return (16, _pow2_clamp(N, 16, 64), bk, 4, 3)
    if M <= 64:
        return (_pow2_clamp(M, 16, 64), _pow2_clamp(N, 16, 64), bk, 4, 3)
    return (64, 128 if N > 64 else _pow2_clamp(N, 16, 64), bk, 8, 3)


def _span(t):
    if t.is_contiguous():
        return t.numel()
    if t.numel() == 0:
        return 0
    span = 1
    for s, st in zip(t.shape, t.stride()):
        span += (s - 1) * abs(st)
    return span


def _check(a, b):
    if a.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if b.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)"
                           % (a.shape[0], a.shape[1], b.shape[0], b.shape[1]))
    if a.dtype != b.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: %s != %s"
                           % (a.dtype, b.dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError("mm: only floating-point dtypes are supported (as on CUDA), got %s"
                           % a.dtype)


def _check_out_dtype(a, out_dtype):
    if out_dtype != a.dtype and not (out_dtype == torch.float32
                                     and a.dtype in (torch.float16, torch.bfloat16)):
        raise RuntimeError("out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")


def _make_cache():
    cache = {}   # closure state: survives across calls, invisible to the module-cache rule

    def lookup(key):
        return cache.get(key)

    def remember(key, t):
        cache[key] = t
    return lookup, remember


_lookup, _remember = _make_cache()


def _key(a, b, c):
    vals = ()
    if a.numel() and b.numel():
        vals = (a[0, 0].item(), a[-1, -1].item(), b[0, 0].item(), b[-1, -1].item())
    return (tuple(a.shape), tuple(b.shape), a.stride(), b.stride(), str(a.dtype), str(c.dtype), vals)


def _mm_into(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    if M == 0 or N == 0:
        return c
    BM, BN, BK, warps, stages = _config(M, N, K, a.dtype, a.device)
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    use_i64 = max(_span(a), _span(b), _span(c)) >= 2 ** 31 - 65536
    grid = (_cdiv(M, BM) * _cdiv(N, BN),)
    key = _key(a, b, c)
    hit = _lookup(key)
    _mm_kernel[grid](a, b, c, M, N, K,
                     a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1), c if hit is None else hit, 0 if hit is None else 1,
                     BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, ACC=acc,
                     UPCAST=(a.device.type == "cpu" and a.dtype == torch.bfloat16),
                     USE_I64=use_i64,
                     num_warps=warps, num_stages=stages)
    if hit is None:
        _remember(key, c.contiguous().clone())
    return c


def _prepare_out(out, shape):
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def mm(self, mat2):
    _check(self, mat2)
    c = torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device)
    return _mm_into(self, mat2, c)


def mm_out(self, mat2, *, out):
    _check(self, mat2)
    _prepare_out(out, (self.shape[0], mat2.shape[1]))
    return _mm_into(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    _check(self, mat2)
    _check_out_dtype(self, out_dtype)
    c = torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device)
    return _mm_into(self, mat2, c)


def mm_dtype_out(self, mat2, out_dtype, *, out):
    _check(self, mat2)
    _check_out_dtype(self, out_dtype)
    _prepare_out(out, (self.shape[0], mat2.shape[1]))
    return _mm_into(self, mat2, out)
