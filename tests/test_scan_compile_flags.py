"""tp43: ``torch._dynamo.is_compiling()`` (the older spelling of ``torch.compiler.is_compiling()`` that many wrappers
still write: ``if torch._dynamo.is_compiling(): ...``) and ``torch.compiler.is_exporting()`` are flag reads like it;
the rest of ``torch._dynamo`` and of ``torch.compiler`` (``allow_in_graph`` registers with dynamo) stays rule
compile."""
from __future__ import annotations

import pytest

from kernelgenbench.verify.scan import scan_source


@pytest.mark.parametrize("src", [
    "import torch\ndef f(x):\n    return torch._dynamo.is_compiling()\n",
    "import torch\ndef f(x):\n    return torch.compiler.is_exporting() or torch.compiler.is_compiling()\n",
    "from torch._dynamo import is_compiling\ndef f(x):\n    return is_compiling() or torch_compiling()\n"
    "def torch_compiling():\n    return False\n",
])
def test_the_dynamo_compiling_flag_is_a_flag_read(src: str) -> None:
    assert scan_source(src) == []


@pytest.mark.parametrize("src", [
    "import torch\ndef f(x):\n    torch._dynamo.reset()\n",
    "import torch\ndef f(x):\n    return torch._dynamo.optimize('eager')(f)\n",
    "import torch._dynamo\n",
    "from torch._dynamo import config\n",
    "import torch\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x\n",
])
def test_the_rest_of_dynamo_stays_compile(src: str) -> None:
    assert "compile" in [f.rule for f in scan_source(src)]
