"""LEGAL (false-rejection hunt 42): aten::mm in vLLM fused_moe's launch style plus xformers' split-K: a
``get_default_config(M, N, K)`` under ``functools.lru_cache`` returns a dict of ``BLOCK_SIZE_*``/``SPLIT_K`` plus
``num_warps``/``num_stages``, launched as ``kernel[grid](..., **config)`` with a ``lambda META`` grid; the K slices
``tl.atomic_add`` fp32 partial tiles into a workspace that the autotuned kernel's ``triton.Config(pre_hook=
init_to_zero("ws_ptr"))`` zeroes before each launch (the xformers idiom); the K loop is ``tl.range(...,
num_stages=...)``. The result is cast into the output by a second kernel."""
import functools

import torch
import triton
import triton.language as tl


def init_to_zero(*names):
    def hook(nargs):
        for name in names:
            nargs[name].zero_()
    return hook


@triton.autotune(configs=[triton.Config({}, num_warps=4, pre_hook=init_to_zero("ws_ptr"))], key=["M", "N", "K"])
@triton.jit
def _mm_splitk(a_ptr, b_ptr, ws_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
               BLOCK_SIZE_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_n = tl.cdiv(N, BLOCK_SIZE_N)
    rm = (pid // num_n) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    rn = (pid % num_n) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in tl.range(pid_k * BLOCK_SIZE_K, K, SPLIT_K * BLOCK_SIZE_K, num_stages=2):
        rk = k0 + tl.arange(0, BLOCK_SIZE_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.atomic_add(ws_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _cast(ws_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(c_ptr + offs, tl.load(ws_ptr + offs, mask=m).to(c_ptr.dtype.element_ty), mask=m)


@functools.lru_cache(maxsize=64)
def get_default_config(M: int, N: int, K: int) -> dict:
    config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16, "SPLIT_K": 1}
    if K >= 64:
        config["SPLIT_K"] = 2
    if M >= 64 and N >= 64:
        config.update({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64})
    return config


def _launch(a, b, c, M, N, K):
    config = get_default_config(M, N, K)
    ws = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),  # noqa: E731
                         META["SPLIT_K"])
    _mm_splitk[grid](a, b, ws, M, N, K, **config)
    _cast[(triton.cdiv(M * N, 1024),)](ws, c, M * N, BLOCK=1024)


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
