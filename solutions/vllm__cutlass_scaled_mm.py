import torch
import triton
import triton.language as tl


@triton.jit
def _scaled_mm_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, bias_ptr, out_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_om,
                      SA_ROW: tl.constexpr, SB_COL: tl.constexpr, HAS_BIAS: tl.constexpr, IS_INT: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # grouped ordering: GROUP_M row blocks share the column blocks of B while they are in L2
    width = GROUP_M * grid_n
    group = pid // width
    first_m = group * GROUP_M
    size_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    rk = tl.arange(0, BLOCK_K)
    mm = rm < M
    mn = rn < N
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    if IS_INT:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        mk = (k0 + rk) < K
        if IS_INT:
            a = tl.load(a_ptrs, mask=mm[:, None] & mk[None, :], other=0)
            b = tl.load(b_ptrs, mask=mk[:, None] & mn[None, :], other=0)
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)  # int8 x int8 -> exact int32
        else:
            a = tl.load(a_ptrs, mask=mm[:, None] & mk[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=mk[:, None] & mn[None, :], other=0.0)
            # fp8: promote the tensor cores' partial sums to fp32 after every BLOCK_K products
            acc = tl.dot(a, b, acc, out_dtype=tl.float32, max_num_imprecise_acc=BLOCK_K)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    f = acc.to(tl.float32)  # int32 -> fp32, round to nearest even
    if SB_COL:
        sb = tl.load(sb_ptr + rn, mask=mn, other=0.0)[None, :]
    else:
        sb = tl.load(sb_ptr)
    if SA_ROW:
        sa = tl.load(sa_ptr + rm, mask=mm, other=0.0)[:, None]
    else:
        sa = tl.load(sa_ptr)
    u = sb * f                                   # rd32(sb * F) first
    if HAS_BIAS:
        bias = tl.load(bias_ptr + rn, mask=mn, other=0.0).to(tl.float32)
        v = tl.fma(sa + tl.zeros_like(u), u, bias[None, :] + tl.zeros_like(u))  # one rounding
    else:
        v = sa * u
    out_ptrs = out_ptr + rm[:, None] * stride_om + rn[None, :]
    tl.store(out_ptrs, v.to(out_ptr.dtype.element_ty), mask=mm[:, None] & mn[None, :])


def _blocks(M, N):
    bm = 16 if M <= 16 else 32 if M <= 32 else 64 if M <= 64 else 128
    bn = 64 if N <= 64 else 128
    return bm, bn


def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
    K = a.shape[-1]
    a2 = a.reshape(-1, K)
    M, N = a2.shape[0], b.shape[1]
    if b.shape[0] != K or a.dtype != b.dtype or a.dtype not in (torch.int8, torch.float8_e4m3fn):
        raise ValueError(f"cutlass_scaled_mm: a {a.dtype} {list(a.shape)} and b {b.dtype} {list(b.shape)} do not fit")
    if scale_a.numel() not in (1, M) or scale_b.numel() not in (1, N):
        raise ValueError("cutlass_scaled_mm: scale_a needs 1 or M elements, scale_b 1 or N")
    out = torch.empty((M, N), dtype=out_dtype, device=a.device)
    if M and N:
        sa = scale_a.reshape(-1).contiguous()
        sb = scale_b.reshape(-1).contiguous()
        bm, bn = _blocks(M, N)
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        _scaled_mm_kernel[grid](
            a2, b, sa, sb, bias if bias is not None else sb, out, M, N, K,
            a2.stride(0), a2.stride(1), b.stride(0), b.stride(1), out.stride(0),
            SA_ROW=sa.numel() == M and M > 1, SB_COL=sb.numel() == N and N > 1, HAS_BIAS=bias is not None,
            IS_INT=a.dtype == torch.int8, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=64, GROUP_M=8,
            num_warps=8 if bm >= 128 else 4, num_stages=3)
    return out.reshape(*a.shape[:-1], N)
