"""LEGAL (tp38, real third-party kernels): the vllm::rms_norm oracle with Liger-Kernel's tensor-parallel guard: the
module imports ``DTensor`` defensively (``try: from torch.distributed.tensor import DTensor`` / ``except Exception:``
an empty tuple) and the wrapper gathers a DTensor input first (``if isinstance(input, DTensor): input =
input.full_tensor()``). No input the harness passes is a DTensor, so the branch never runs. L1 refused the import and
both reads as rule network ("uses torch.distributed.tensor.DTensor, which reaches the network"); the class is now
type-only like Triton's runtime classes (verify/scan/policy.py TYPE_ONLY_CLASSES): imported by name and read in an
isinstance check it passes, while a call, an attribute or any other read of it stays refused. The rest is the oracle
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

try:  # LEGAL: a class tested with isinstance only
    from torch.distributed.tensor import DTensor as _DTensor
except Exception:
    _DTensor = ()
""", 1),
    ("""\
def rms_norm(out, input, weight, epsilon):
""", """\
def rms_norm(out, input, weight, epsilon):
    if isinstance(input, _DTensor):  # LEGAL: never true for the harness's tensors
        input = input.full_tensor()
""", 1),
]
