"""LEGAL (false-rejection hunt 42): aten::neg autotuned the way xformers' and Triton's old matmul ops were: configs
built by a ``gen_config`` helper, ``prune_configs_by={"early_config_prune": ..., "perf_model": None,
"top_k": None}`` where the prune function drops configs whose block exceeds the problem, and the grid a lambda of
``META``."""
import torch
import triton
import triton.language as tl


def gen_config(block: int, warps: int, stages: int = 1) -> triton.Config:
    return triton.Config({"BLOCK": block}, num_warps=warps, num_stages=stages)


def _prune(configs, named_args, **kwargs):
    n = named_args["n"]
    kept = [c for c in configs if c.kwargs["BLOCK"] <= max(triton.next_power_of_2(n), 128)]
    return kept or configs[:1]


@triton.autotune(configs=[gen_config(128, 2), gen_config(512, 4), gen_config(2048, 8)], key=["n"],
                 prune_configs_by={"early_config_prune": _prune, "perf_model": None, "top_k": None})
@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _launch(x, out):
    n = out.numel()
    if n == 0:
        return out
    src = x.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    _neg_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](src, dst, n)
    if dst is not out:
        out.copy_(dst)
    return out


def neg(self):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    if self.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _launch(self, out)
