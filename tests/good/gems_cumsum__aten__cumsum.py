"""LEGAL (false-rejection hunt 43): aten::cumsum in FlagGems' early ``ops/cumsum.py`` style: the root logger's
``logging.debug("GEMS CUMSUM")`` in the wrapper, ``@triton.heuristics(values={...})`` (the keyword form) under
``@triton.autotune``, a 3-D block ``[BLOCK_M, BLOCK_N, 1]`` scanned with ``tl.cumsum(..., axis=1)``, a mask written
with Python's ``and`` between two block comparisons, an ``assert`` on ``dim`` and the input viewed as (M, N, K)
around the scanned dim (no transposed copy). The accumulator is fp64 for fp64 and int64 for integers (the result
dtype: bool and integers promote to int64), fp32 otherwise."""
import logging

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 8}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 16}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 32}, num_warps=8, num_stages=5),
    ],
    key=["M", "N"],
)
@triton.heuristics(
    values={"BLOCK_N": lambda args: triton.next_power_of_2(args["N"])},
)
@triton.jit
def cumsum_kernel(inp, out, M, N, K, ACC: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    n_offset = tl.arange(0, BLOCK_N)
    offset = m_offset[:, None, None].to(tl.int64) * N * K + n_offset[None, :, None] * K + pid_k
    mask = m_offset[:, None, None] < M and n_offset[None, :, None] < N
    inp_vals = tl.load(inp + offset, mask=mask, other=0).to(ACC)
    result = tl.cumsum(inp_vals, axis=1)
    tl.store(out + offset, result.to(out.dtype.element_ty), mask=mask)


def _acc(dtype):
    if dtype == torch.float64:
        return tl.float64
    if dtype.is_floating_point:
        return tl.float32
    return tl.int64


def _cumsum(inp, dim, dtype, out=None):
    logging.debug("GEMS CUMSUM")
    nd = max(inp.ndim, 1)
    assert -nd <= dim < nd, "Invalid dim"
    shape = list(inp.shape) if inp.ndim else [1]
    dim = dim % nd
    if dtype is None:
        dtype = inp.dtype if inp.dtype.is_floating_point else torch.int64
    res = torch.empty(shape, dtype=dtype, device=inp.device)
    M = 1
    for i in range(dim):
        M *= shape[i]
    N = shape[dim]
    src = inp.contiguous()
    if src.dtype == torch.bool:
        src = src.view(torch.uint8)
    K = src.numel() // M // N if M * N else 0
    if res.numel():
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), K)  # noqa: E731
        cumsum_kernel[grid](src, res, M, N, K, ACC=_acc(dtype))
    res = res.view(inp.shape)
    if out is None:
        return res
    if out.shape != inp.shape:
        out.resize_(inp.shape)
    out.copy_(res)
    return out


def cumsum(self, dim, *, dtype=None):
    return _cumsum(self, dim, dtype)


def cumsum_out(self, dim, *, dtype=None, out):
    return _cumsum(self, dim, dtype, out)
