"""L1 on torchao's ``if has_triton():`` guard (false-rejection hunt 44): ``torch.utils._triton.has_triton`` (and
``has_triton_package``) are device queries that return a bool; the rest of ``torch.utils._triton`` stays refused."""
from __future__ import annotations

import pytest

from kernelgenbench.verify.scan import scan_source

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''


def _rules(source: str) -> list[str]:
    return [f.rule for f in scan_source(source, own_ops=frozenset({"neg"}))]


@pytest.mark.parametrize("guard", [
    "from torch.utils._triton import has_triton\nif has_triton():",
    "import torch.utils._triton\nif torch.utils._triton.has_triton():",
    "from torch.utils import _triton\nif _triton.has_triton():",
    "from torch.utils._triton import has_triton_package\nif has_triton_package():",
])
def test_torchao_guard_passes(guard: str) -> None:
    source = "import torch\n" + guard + "\n" + "\n".join("    " + line for line in KERNEL.splitlines()) + '''
    def neg(x):
        y = torch.empty_like(x)
        _neg_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
else:
    def neg(x):
        raise RuntimeError("needs Triton")
'''
    assert _rules(source) == []


@pytest.mark.parametrize("call", [
    "torch.utils._triton.triton_backend()",
    "torch.utils._triton.triton_hash_with_backend()",
    "torch.utils._triton.has_triton_tma_device()",
])
def test_the_rest_of_torch_utils_triton_stays_refused(call: str) -> None:
    source = "import torch\nimport torch.utils._triton\n" + KERNEL + f'''

def neg(x):
    {call}
    y = torch.empty_like(x)
    _neg_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
'''
    assert "torch-compute" in _rules(source)
