"""LEGAL (false-rejection hunt 42): aten::mm with the fused-attention tutorial's (06) descriptor helper:
``_maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape)``, a ``@triton.jit`` function that returns its
argument when ``isinstance(desc_or_ptr, tl.tensor_descriptor)`` and builds a device descriptor otherwise, so one
kernel takes either host ``TensorDescriptor``s or raw pointers (``triton.set_allocator`` for the device ones). The
launcher passes host descriptors for A and raw pointers for B and C."""
from typing import Optional

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _alloc(size: int, alignment: int, stream: Optional[int]):
    return torch.empty(size, device="cuda" if torch.cuda.is_available() else "cpu", dtype=torch.int8)


triton.set_allocator(_alloc)


@triton.jit
def _maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def _mm_desc(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_d = _maybe_make_tensor_desc(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = _maybe_make_tensor_desc(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_d = _maybe_make_tensor_desc(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        acc = tl.dot(a_d.load([pm, k0]), b_d.load([k0, pn]), acc, input_precision="ieee")
    c_d.store([pm, pn], acc.to(c_d.dtype))


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
    aligned = all((s * t.element_size()) % 16 == 0 and t.data_ptr() % 16 == 0 for s, t in ((K, a), (N, b), (N, c)))
    if aligned:
        a_desc = TensorDescriptor.from_tensor(a, [BM, BK])
        _mm_desc[grid](a_desc, b, c, M, N, K, BM=BM, BN=BN, BK=BK)
    else:
        _mm_ptr[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK)


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
