"""LEGAL (false-rejection hunt 43): vllm::rms_norm in SGLang's ``layers/elementwise.py`` style: a module-level
autotune decorator object (``rmsnorm_autotune = triton.autotune(configs=[triton.Config(kwargs={...}, ...)],
key=["hidden_dim"])``) applied later by a call to an already-jitted kernel, keeping both the plain kernel and
``kernel_autotune``; ``eps`` and ``hidden_dim`` as ``tl.constexpr``; an optional-feature constexpr left ``None``
(``if quant_max is not None: raise NotImplementedError()`` in the kernel); ``_is_hip`` read at import; a
``functools.cache``d device query (the SM count) sizing a persistent grid whose programs stride over rows with
``tl.range``; ``**config`` launch settings."""
import functools
from typing import Optional

import torch
import triton
import triton.language as tl

_is_hip = torch.version.hip is not None


@functools.cache
def get_device_core_count(device_id: int = 0) -> int:
    if torch.cuda.is_available():
        return torch.cuda.get_device_properties(device_id).multi_processor_count
    return 8


rmsnorm_autotune = triton.autotune(
    configs=[
        triton.Config(kwargs={"BLOCK_SIZE": 1024}, num_warps=4, num_stages=1),
        triton.Config(kwargs={"BLOCK_SIZE": 2048}, num_warps=8),
        triton.Config(kwargs={"BLOCK_SIZE": 4096}, num_warps=16, num_stages=4),
    ],
    key=["hidden_dim"],
)


@triton.jit
def fused_rmsnorm_kernel(
    output_ptr,
    activ_ptr,
    weight_ptr,
    n_rows,
    quant_max: tl.constexpr,
    eps: tl.constexpr,
    hidden_dim: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    nprog = tl.num_programs(axis=0)
    for row in tl.range(pid, n_rows, nprog):
        input_start = row.to(tl.int64) * hidden_dim
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for start in range(0, hidden_dim, BLOCK_SIZE):
            offsets = start + tl.arange(0, BLOCK_SIZE)
            a = tl.load(activ_ptr + input_start + offsets, mask=offsets < hidden_dim, other=0.0).to(tl.float32)
            acc += a * a
        inv_rms = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / hidden_dim + eps)
        for start in range(0, hidden_dim, BLOCK_SIZE):
            offsets = start + tl.arange(0, BLOCK_SIZE)
            mask = offsets < hidden_dim
            a = tl.load(activ_ptr + input_start + offsets, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(weight_ptr + offsets, mask=mask, other=0.0)
            # vLLM's rounding: normalise in fp32, round to the input dtype, then scale by the weight
            normed = (a * inv_rms).to(activ_ptr.dtype.element_ty)
            tl.store(output_ptr + input_start + offsets, normed * w, mask=mask)
        if quant_max is not None:
            raise NotImplementedError()


fused_rmsnorm_kernel_autotune = rmsnorm_autotune(fused_rmsnorm_kernel)


def fused_rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float, autotune: bool = False,
                  output: Optional[torch.Tensor] = None) -> torch.Tensor:
    assert len(x.shape) == 2
    if output is None:
        output = torch.empty_like(x)
    bs, hidden_dim = x.shape
    grid = (max(1, min(bs, 4 * get_device_core_count())),)
    if autotune:
        fused_rmsnorm_kernel_autotune[grid](output, x, weight, bs, quant_max=None, eps=eps, hidden_dim=hidden_dim)
        return output
    max_warps = 16 if _is_hip else 32
    config = {
        "BLOCK_SIZE": min(4096, triton.next_power_of_2(hidden_dim)),
        "num_warps": max(min(triton.next_power_of_2(triton.cdiv(hidden_dim, 256)), max_warps), 4),
    }
    fused_rmsnorm_kernel[grid](output, x, weight, bs, quant_max=None, eps=eps, hidden_dim=hidden_dim, **config)
    return output


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.shape[-1]
    if input.numel() == 0:
        return None
    x = input.contiguous().view(-1, hidden)
    target = out.view(-1, hidden) if out.is_contiguous() else None
    result = fused_rmsnorm(x, weight, float(epsilon), autotune=hidden >= 2048, output=target)
    if target is None:
        out.copy_(result.view(out.shape))
    return None
