"""LEGAL (false-rejection hunt 42): aten::neg autotuned with the keywords older xformers/FlagGems code passes to
``triton.autotune``: ``warmup=25, rep=100`` (benchmark lengths), ``use_cuda_graph=False``, an autotuner-level
``pre_hook=`` and ``post_hook=`` (functions of the launch's named arguments that only read them), and configs
written positionally, ``triton.Config({"BLOCK": 256}, 4, 2)`` (num_warps, num_stages)."""
import torch
import triton
import triton.language as tl


def _check_args(nargs, reset_only=False):
    assert nargs["n"] >= 0


def _after(nargs, exception=None):
    if exception is not None:
        raise exception


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, 4, 2), triton.Config({"BLOCK": 1024}, 8, 3)], key=["n"],
                 warmup=25, rep=100, use_cuda_graph=False, pre_hook=_check_args, post_hook=_after)
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
