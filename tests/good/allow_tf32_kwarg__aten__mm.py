"""LEGAL (false-rejection hunt 42): aten::mm written for Triton 2.x and kept: ``tl.dot(a, b, allow_tf32=ALLOW_TF32)``
with a constexpr the wrapper sets from ``torch.backends.cuda.matmul.allow_tf32`` (False by default, as PyTorch's own
mm: IEEE fp32 products), the keyword Triton 3 still accepts beside ``input_precision``."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ALLOW_TF32: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(a, b, c, M, N, K):
    allow_tf32 = bool(torch.backends.cuda.matmul.allow_tf32) and a.dtype == torch.float32
    _mm_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 32))](a, b, c, M, N, K, ALLOW_TF32=allow_tf32, BM=16, BN=32, BK=16)


def mm(self, mat2):
    assert self.dim() == 2 and mat2.dim() == 2, "mm: 2-D operands"
    assert self.shape[1] == mat2.shape[0], f"mm: shapes {tuple(self.shape)} and {tuple(mat2.shape)}"
    a = self.contiguous()
    b = mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if K == 0:
        c.zero_()
        return c
    _launch(a, b, c, M, N, K)
    return c


def mm_out(self, mat2, *, out):
    res = mm(self, mat2)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out


def mm_dtype(self, mat2, out_dtype):
    if out_dtype != self.dtype and not (out_dtype == torch.float32 and self.dtype in (torch.float16, torch.bfloat16)):
        raise RuntimeError("mm.dtype: out_dtype must be the input dtype or float32 for half inputs")
    a = self.contiguous()
    b = mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=out_dtype, device=a.device)
    if M and N:
        if K == 0:
            c.zero_()
        else:
            _launch(a, b, c, M, N, K)
    return c


def mm_dtype_out(self, mat2, out_dtype, *, out):
    res = mm_dtype(self, mat2, out_dtype)
    if out.shape != res.shape:
        out.resize_(res.shape)
    out.copy_(res)
    return out
