"""LEGAL (tp38, real third-party kernels): aten::silu autotuned over configs picked per backend the way Triton's
matmul tutorial picks them: ``is_cuda()`` reads ``triton.runtime.driver.active.get_current_target().backend ==
"cuda"``, the CUDA list holds plain configs and the HIP list adds ``waves_per_eu`` (an AMD launch option). The CPU
interpreter reported a target with backend ``"cpu"``, so the HIP configs were used and the launch failed as
runtime_error ("launch keyword(s) waves_per_eu name no parameter of the kernel and no Triton launch option; a GPU
launch raises KeyError for them"), which no NVIDIA GPU would do. The interpreter now reports the sm_90 target its
device properties and compile check stand for (sandbox/interpreter.py ``_cpu_device_queries``)."""
import torch
import triton
import triton.language as tl


def is_cuda():
    """Whether the active Triton target is an NVIDIA GPU."""
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def _configs():
    if is_cuda():
        return [triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)]
    return [triton.Config({"BLOCK": 256, "waves_per_eu": 2}, num_warps=4)]


@triton.autotune(configs=_configs(), key=["n"])
@triton.jit
def _silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty), mask=keep)


def silu(self):
    x = self.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _silu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y


def silu_out(self, *, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    out.copy_(silu(self))
    return out
