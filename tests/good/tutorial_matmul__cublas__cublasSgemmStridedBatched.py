"""LEGAL (tp44): cublas::cublasSgemmStridedBatched written as Triton's matmul tutorial (03) writes its kernel today,
with the batch as the grid's second axis: ``get_autotune_config()`` choosing a config list by backend
(``is_cuda()`` from ``driver.active.get_current_target()``), ``tl.assume`` on program ids and strides,
``tl.swizzle2d`` for L2 grouping, row/column offsets wrapped with ``% M``/``% N`` (loads stay in bounds, so A and B
are read unmasked along M and N), pointers advanced with ``+=`` inside the K loop, ``tl.dot(a, b, acc,
input_precision=...)`` accumulating in place, an ``ACTIVATION`` string constexpr and a grid lambda over ``META``.
Column-major operands: op(A)(i, p) at ``i*s_am + p*s_ak``."""
import triton
import triton.language as tl

_FLAGS = {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 1, "c": 1, 2: 1}


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def get_cuda_autotune_config():
    return [
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=3,
                      num_warps=4),
        triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
                      num_stages=4, num_warps=4),
        triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4},
                      num_stages=5, num_warps=2),
    ]


def get_hip_autotune_config():
    return [triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4,
                           "waves_per_eu": 2}, num_warps=4, num_stages=2)]


def get_autotune_config():
    if is_cuda():
        return get_cuda_autotune_config()
    return get_hip_autotune_config()


@triton.jit
def scale_add(acc, c, alpha, beta, ACTIVATION: tl.constexpr):
    if ACTIVATION == "beta_zero":
        return alpha * acc
    return alpha * acc + beta * c


@triton.autotune(configs=get_autotune_config(), key=["M", "N", "K"])
@triton.jit
def batched_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk,
                          stride_bn, stride_cb, stride_cn, alpha, beta,
                          BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    batch = tl.program_id(axis=1).to(tl.int64)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_pid_n, pid % num_pid_n, num_pid_m, num_pid_n, GROUP_SIZE_M)

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_cn > 0)

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + batch * stride_ab + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + batch * stride_bb + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator, input_precision="ieee")
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + batch * stride_cb + offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    if ACTIVATION == "beta_zero":
        c = accumulator
    else:
        c = tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, scale_add(accumulator, c, alpha, beta, ACTIVATION), mask=c_mask)


@triton.jit
def scale_kernel(c_ptr, M, N, stride_cb, stride_cn, beta, BLOCK: tl.constexpr, BETA_ZERO: tl.constexpr):
    # alpha == 0 or k == 0: A and B are not read; C = beta * C (beta == 0 writes zeros, C not read)
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    col = tl.program_id(1)
    ptrs = c_ptr + tl.program_id(2).to(tl.int64) * stride_cb + col * stride_cn + rows
    if BETA_ZERO:
        tl.store(ptrs, tl.zeros([BLOCK], tl.float32), mask=rows < M)
    else:
        tl.store(ptrs, beta * tl.load(ptrs, mask=rows < M), mask=rows < M)


def cublasSgemmStridedBatched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                               strideC, batchCount):
    ta, tb = _FLAGS[transa], _FLAGS[transb]
    if m <= 0 or n <= 0 or batchCount <= 0:
        return C
    alpha, beta = float(alpha), float(beta)
    if k <= 0 or alpha == 0.0:
        grid = (triton.cdiv(m, 128), n, batchCount)
        scale_kernel[grid](C, m, n, strideC, ldc, beta, BLOCK=128, BETA_ZERO=beta == 0.0)
        return C
    stride_am, stride_ak = (lda, 1) if ta else (1, lda)
    stride_bk, stride_bn = (ldb, 1) if tb else (1, ldb)
    grid = lambda META: (triton.cdiv(m, META["BLOCK_SIZE_M"]) * triton.cdiv(n, META["BLOCK_SIZE_N"]),  # noqa: E731
                         batchCount)
    batched_matmul_kernel[grid](A, B, C, m, n, k, strideA, stride_am, stride_ak, strideB, stride_bk, stride_bn,
                                strideC, ldc, alpha, beta, ACTIVATION="beta_zero" if beta == 0.0 else "")
    return C
