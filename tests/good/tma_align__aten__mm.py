"""LEGAL (false-rejection hunt 31): aten::mm with device-side tensor descriptors (``tl.make_tensor_descriptor``), the
Hopper TMA idiom: Triton needs a global-memory allocator for them (``triton.set_allocator``, set once at import), and
TMA needs 16-byte aligned strides and base addresses, so the wrapper takes the descriptor kernel only where
``t.data_ptr() % _TMA_ALIGN == 0`` (a module constant; and ``(t.data_ptr() & 15) == 0``, as CUDA code writes it) and
the row strides allow, a pointer kernel elsewhere. L1
accepted the alignment check only with a literal modulus (``% 16``) and refused ``% _TMA_ALIGN`` and ``& 15`` (rule
raw-storage); a module-level int constant and a low-bit mask below 1024 now read as the literal does."""
from typing import Optional

import torch
import triton
import triton.language as tl


def _alloc(size: int, alignment: int, stream: Optional[int]):
    return torch.empty(size, device="cuda" if torch.cuda.is_available() else "cpu", dtype=torch.int8)


triton.set_allocator(_alloc)
_TMA_ALIGN = 16


@triton.jit
def _mm_desc(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = a_d.load([pm, k0])
        b = b_d.load([k0, pn])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_d.store([pm, pn], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def _mm_ptr(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(a, b, c, M, N, K):
    BM, BN, BK = 16, 32, 16
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    aligned = all((s * t.element_size()) % 16 == 0 and t.data_ptr() % _TMA_ALIGN == 0 and (t.data_ptr() & 15) == 0
                  for s, t in ((K, a), (N, b), (N, c)))
    kernel = _mm_desc if aligned else _mm_ptr
    kernel[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK)


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
