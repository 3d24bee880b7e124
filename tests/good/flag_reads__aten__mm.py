"""LEGAL (false-rejection hunt 31): aten::mm following PyTorch's global flags as a drop-in replacement would: the
fp32 operand precision from ``torch.get_float32_matmul_precision()`` ("highest", PyTorch's default: IEEE fp32
products; "high"/"medium" would allow TF32), a warning where determinism is asked for in warn-only mode
(``torch.are_deterministic_algorithms_enabled()``, ``torch.is_deterministic_algorithms_warn_only_enabled()``) or
autocast is on (``torch.is_autocast_enabled()``), and argument checks skipped while torch.compile traces
(``torch.compiler.is_dynamo_compiling()``, the older name of ``is_compiling``). L1 refused these flag reads
(torch-compute, compile) while it passes ``torch.backends.cuda.matmul.allow_tf32`` and the flags of hunt 29."""
import warnings

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               PRECISION: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        km = rk < K
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & km[None, :], other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=km[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    cm = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=cm)


def _precision(dtype: torch.dtype) -> str:
    if dtype == torch.float32 and torch.get_float32_matmul_precision() != "highest":
        return "tf32"
    return "ieee"


def _check_flags() -> None:
    if torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled():
        warnings.warn("mm: this kernel is deterministic; warn-only mode has nothing to warn about")
    if torch.is_autocast_enabled():
        warnings.warn("mm: this kernel ignores autocast and computes in the operands' dtype")


def _mm_into(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    if not torch.compiler.is_dynamo_compiling():
        assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0], "mm: incompatible shapes"
    M, K = a.shape
    N = b.shape[1]
    if M == 0 or N == 0:
        return c
    if K == 0:
        c.zero_()
        return c
    _check_flags()
    BM, BN, BK = 16, 32, 16
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    _mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     PRECISION=_precision(a.dtype), BM=BM, BN=BN, BK=BK)
    return c


def mm(self, mat2):
    return _mm_into(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device))


def mm_out(self, mat2, *, out):
    if out.shape != (self.shape[0], mat2.shape[1]):
        out.resize_((self.shape[0], mat2.shape[1]))
    return _mm_into(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    if out_dtype != self.dtype and not (out_dtype == torch.float32 and self.dtype in (torch.float16, torch.bfloat16)):
        raise RuntimeError("mm.dtype: out_dtype must be the input dtype or float32 for half inputs")
    return _mm_into(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device))


def mm_dtype_out(self, mat2, out_dtype, *, out):
    if out.shape != (self.shape[0], mat2.shape[1]):
        out.resize_((self.shape[0], mat2.shape[1]))
    return _mm_into(self, mat2, out)
