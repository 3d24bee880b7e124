"""LEGAL (false-rejection hunt 43): aten::_softmax with the configuration machinery of Triton's fused-attention
tutorial (06): ``DEVICE = triton.runtime.driver.active.get_active_torch_device()``, ``is_hip()``/``is_cuda()`` from
``get_current_target().backend``, configs made by a comprehension over block sizes, stages and warps, ``configs =
list(filter(keep, configs))`` with a ``keep(conf)`` reading ``conf.kwargs`` and ``torch.cuda.get_device_capability()``,
``prune_configs_by={"early_config_prune": prune_invalid_configs}`` reading ``named_args``, an annotated module
constexpr (``LOG2E = tl.constexpr(1.4426950408889634)``),
``tl.math.exp2``, ``tl.range(..., loop_unroll_factor=...)``, ``extra_kern_args`` filled on HIP only, and the
autograd Function's ``apply`` bound to a module name (``softmax = _softmax_fn.apply``) that the wrapper calls."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
LOG2E = tl.constexpr(1.4426950408889634)


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


NUM_STAGES_OPTIONS = [1, 2] if is_hip() else [2, 3]
configs = [
    triton.Config({"BLOCK_N": BN}, num_stages=s, num_warps=w)
    for BN in [64, 256, 1024]
    for s in NUM_STAGES_OPTIONS
    for w in [4, 8]
]


def keep(conf):
    BLOCK_N = conf.kwargs["BLOCK_N"]
    return not (is_cuda() and torch.cuda.get_device_capability()[0] == 9 and BLOCK_N < 256 and conf.num_warps == 8)


def prune_invalid_configs(configs, named_args, **kwargs):
    n_cols = kwargs["n_cols"] if "n_cols" in kwargs else named_args["n_cols"]
    kept = [conf for conf in configs if conf.kwargs.get("BLOCK_N", 0) <= max(64, triton.next_power_of_2(n_cols))]
    return kept or configs[:1]


@triton.autotune(list(filter(keep, configs)), key=["n_cols"], prune_configs_by={"early_config_prune": prune_invalid_configs})
@triton.jit
def _softmax_fwd(Out, X, stride_x, stride_o, n_cols, FP64: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_x
    o_row = Out + row * stride_o
    acc_ty = tl.float64 if FP64 else tl.float32
    m_i = tl.full([BLOCK_N], float("-inf"), acc_ty)
    l_i = tl.zeros([BLOCK_N], acc_ty)
    # online max and rescaled sum, as the attention kernel keeps them
    for start in tl.range(0, n_cols, BLOCK_N, loop_unroll_factor=1):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(acc_ty)
        m_new = tl.maximum(m_i, x)
        alpha = tl.where(m_new == float("-inf"), 1.0, tl.exp(m_i - m_new))
        l_i = l_i * alpha + tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        m_i = m_new
    m = tl.max(m_i, axis=0)
    scale = tl.where(m_i == float("-inf"), 0.0, tl.exp(m_i - m))
    total = tl.sum(l_i * scale, axis=0)
    for start in tl.range(0, n_cols, BLOCK_N, loop_unroll_factor=1):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(acc_ty)
        if FP64:
            p = tl.exp(x - m) / total
        else:
            p = tl.math.exp2((x - m) * LOG2E) / total
        tl.store(o_row + cols, p.to(Out.dtype.element_ty), mask=cols < n_cols)


class _softmax_fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        extra_kern_args = {}
        if is_hip():
            extra_kern_args["waves_per_eu"] = 2
        grid = (n_rows, 1, 1)
        _softmax_fwd[grid](y, x, x.stride(0), y.stride(0), n_cols, FP64=x.dtype == torch.float64,
                           **extra_kern_args)
        ctx.grid = grid
        return y


softmax = _softmax_fn.apply


def _softmax(self, dim, half_to_float):
    if half_to_float:
        raise RuntimeError("half_to_float is not supported")
    if self.numel() == 0:
        return torch.empty_like(self)
    if self.dim() == 0:
        return softmax(self.reshape(1, 1)).reshape(())
    dim = dim % self.dim()
    moved = self.movedim(dim, -1).contiguous()
    y2 = softmax(moved.view(-1, moved.shape[-1]))
    return y2.view(moved.shape).movedim(-1, dim)


def _softmax_out(self, dim, half_to_float, *, out):
    res = _softmax(self, dim, half_to_float)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
