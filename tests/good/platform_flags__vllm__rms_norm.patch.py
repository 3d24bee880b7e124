"""LEGAL (tp38, real third-party kernels): the vllm::rms_norm oracle choosing its warps through a platform object in
the style of vLLM's ``current_platform``: a module-level instance of the file's own class whose methods
``is_cuda()``, ``is_rocm()`` and ``is_xpu()`` answer which backend runs (vLLM's Triton reshape_and_cache_flash picks
num_warps with ``current_platform.is_rocm() or current_platform.is_xpu()``). L1 refused ``current_platform.is_xpu()``
as "the tensor method .is_xpu()": ``is_cuda``/``is_xpu``/... are properties of torch.Tensor, and calling one on a
tensor raises (a bool is not callable), so such a call is never PyTorch's; the scan no longer judges the ``is_*``
properties as tensor methods (verify/scan/policy.py ``_tensor_method_names``). The rest is the oracle
(solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
import torch
import triton
import triton.language as tl
""", """\
import torch
import triton
import triton.language as tl


class _Platform:
    \"\"\"Which backend runs the kernels (a vLLM-style platform object).\"\"\"

    def is_cuda(self):
        return torch.version.hip is None

    def is_rocm(self):
        return torch.version.hip is not None

    def is_xpu(self):
        return False


current_platform = _Platform()
""", 1),
    ("""\
    num_warps = max(1, min(8, BLOCK // 512))
""", """\
    num_warps = max(1, min(8, BLOCK // 512))
    if current_platform.is_rocm() or current_platform.is_xpu():  # LEGAL: the platform object's own methods
        num_warps = min(num_warps, 4)
    elif not current_platform.is_cuda():
        num_warps = 1
""", 1),
]
