"""LEGAL (tp44): vllm::cutlass_scaled_mm written as torchao writes its Triton kernel modules (torchao/prototype/
quantized_training/int8_mm.py, custom_fp_utils.py): ``from torch.utils._triton import has_triton`` and every kernel,
config table and wrapper defined under ``if has_triton():``, with an ``else`` branch defining a wrapper that raises
(torchao keeps a PyTorch fallback there; this one does not compute). Inside: a module config table of tuples turned
into ``triton.Config(dict(...), num_stages=, num_warps=)`` by a comprehension, ``@triton.autotune(key=[...,
"stride_ak", "stride_bk"])`` over ``@triton.heuristics({"EVEN_K": ...})``, constexpr defaults, ``tl.max_contiguous(
tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)``, a K loop counting down (``range(K, 0, -BLOCK_K)``), the accumulator type
picked from a dict keyed by torch dtype (``tl.int32`` for int8, ``tl.float32`` for fp8) and passed as a constexpr,
``tl.broadcast_to(xindex, mask.shape)`` in the store, and ``*A.stride()`` unpacked into the launch."""
import torch
from torch.utils._triton import has_triton

if has_triton():
    import triton
    import triton.language as tl

    # (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)
    configs = [
        (64, 64, 64, 3, 4),
        (128, 128, 64, 3, 8),
        (64, 128, 128, 4, 4),
        (32, 64, 64, 5, 2),
    ]
    configs = [
        triton.Config(dict(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K), num_stages=num_stages,
                      num_warps=num_warps)
        for BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps in configs
    ]
    _ACC_TYPE = {torch.int8: tl.int32, torch.float8_e4m3fn: tl.float32}

    @triton.autotune(configs=configs, key=["M", "N", "K", "stride_ak", "stride_bk"])
    @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
    @triton.jit
    def _scaled_mm_kernel(A_ptr, B_ptr, C_ptr, row_scale_ptr, col_scale_ptr, bias_ptr, M, N, K, stride_am,
                          stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          ACC_TYPE: tl.constexpr, GROUP_M: tl.constexpr = 8, EVEN_K: tl.constexpr = True,
                          ROW_SCALE_SCALAR: tl.constexpr = False, COL_SCALE_SCALAR: tl.constexpr = False,
                          HAS_BIAS: tl.constexpr = False):
        pid = tl.program_id(0)
        grid_m = (M + BLOCK_M - 1) // BLOCK_M
        grid_n = (N + BLOCK_N - 1) // BLOCK_N
        width = GROUP_M * grid_n
        group_id = pid // width
        group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
        pid_m = group_id * GROUP_M + (pid % group_size)
        pid_n = (pid % width) // group_size

        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
        rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        A = A_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
        B = B_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
        for k in range(K, 0, -BLOCK_K):
            if EVEN_K:
                a = tl.load(A)
                b = tl.load(B)
            else:
                a = tl.load(A, mask=rk[None, :] < k, other=0.0)
                b = tl.load(B, mask=rk[:, None] < k, other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=ACC_TYPE)
            A += BLOCK_K * stride_ak
            B += BLOCK_K * stride_bk

        idx_m = rm[:, None]
        idx_n = rn[None, :]
        mask = (idx_m < M) & (idx_n < N)
        if ROW_SCALE_SCALAR:
            row_scale = tl.load(row_scale_ptr)
        else:
            row_scale = tl.load(row_scale_ptr + idx_m, mask=idx_m < M, other=0.0)
        if COL_SCALE_SCALAR:
            col_scale = tl.load(col_scale_ptr)
        else:
            col_scale = tl.load(col_scale_ptr + idx_n, mask=idx_n < N, other=0.0)
        scaled = col_scale * acc.to(tl.float32)
        if HAS_BIAS:
            bias = tl.load(bias_ptr + idx_n, mask=idx_n < N, other=0.0).to(tl.float32)
            out = tl.fma(tl.broadcast_to(row_scale, mask.shape), scaled, tl.broadcast_to(bias, mask.shape))
        else:
            out = row_scale * scaled
        xindex = idx_m * stride_cm + idx_n * stride_cn
        tl.store(C_ptr + tl.broadcast_to(xindex, mask.shape), out.to(C_ptr.dtype.element_ty), mask)

    def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
        assert a.dtype is b.dtype and a.dtype in _ACC_TYPE
        K = a.shape[-1]
        A = a.reshape(-1, K)
        M, N = A.shape[0], b.shape[1]
        assert b.shape[0] == K
        assert scale_a.numel() in (1, M) and scale_b.numel() in (1, N)
        C = torch.empty(M, N, device=a.device, dtype=out_dtype)
        if M > 0 and N > 0:
            grid = lambda meta: (triton.cdiv(meta["M"], meta["BLOCK_M"]) * triton.cdiv(meta["N"], meta["BLOCK_N"]),)  # noqa: E731
            _scaled_mm_kernel[grid](
                A, b, C, scale_a, scale_b, bias, M, N, K, *A.stride(), *b.stride(), *C.stride(),
                ACC_TYPE=_ACC_TYPE[a.dtype],
                ROW_SCALE_SCALAR=scale_a.numel() == 1,
                COL_SCALE_SCALAR=scale_b.numel() == 1,
                HAS_BIAS=bias is not None,
            )
        return C.view(*a.shape[:-1], N)

else:

    def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
        raise RuntimeError("cutlass_scaled_mm needs Triton and a GPU it supports")
