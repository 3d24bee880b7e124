"""tp43: a Triton version fallback to a module the installed Triton lacks (verify/scan/policy.py ``missing_path``,
scope.py ``triton_language_fallback``). xformers' ``rmsnorm_kernels.py`` picks its math module with ``if hasattr(tl,
"libdevice"): tl_math = tl.libdevice`` (Triton 2.0's module) ``else: tl_math = tl.math``; on Triton 3 the first
binding never runs (the attribute does not exist), and the second was refused as a module used as a value."""
from __future__ import annotations

import pytest

from kernelgenbench.verify.scan import scan_source
from kernelgenbench.verify.scan.policy import missing_path

HEAD = "import torch\nimport triton\nimport triton.language as tl\n"
XFORMERS = ("if hasattr(tl, 'libdevice'):\n    tl_math = tl.libdevice\nelse:\n    tl_math = tl.math\n"
            "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, tl_math.sqrt(tl.load(x_ptr)))\n")


def test_missing_path_names_only_what_the_installed_package_lacks() -> None:
    assert missing_path("triton.language.libdevice")
    assert missing_path("triton.language.no_such_module")
    for present in ("triton.language.math", "triton.language.extra.cuda.libdevice", "triton.language.load",
                    "torch.cuda", "triton.language"):
        assert not missing_path(present), present
    # a submodule not loaded yet is not missing, nor is an attribute of a non-module (a class may compute it)
    assert not missing_path("torch.onnx")
    assert not missing_path("torch.Tensor.no_such_method")
    assert not missing_path("no_such_root.x")


def test_a_fallback_to_a_module_of_another_triton_version_passes() -> None:
    assert scan_source(HEAD + XFORMERS) == []


@pytest.mark.parametrize("old,new,rule", [
    ("tl_math = tl.math\n", "tl_math = torch\n", "dynamic-import"),                  # a PyTorch module
    ("tl_math = tl.math\n", "tl_math = torch.cuda\n", "dynamic-import"),
    ("tl_math = tl.libdevice\n", "tl_math = torch.no_such_module\n", "dynamic-import"),  # missing, not Triton's
    ("@triton.jit", "tl_math.sqrt = abs\n@triton.jit", "monkey-patch"),            # a store through the name
    ("@triton.jit", "for tl_math in (torch,):\n    pass\n@triton.jit", "dynamic-import"),  # another binding form
])
def test_the_fallback_still_refuses_other_modules_and_stores(old: str, new: str, rule: str) -> None:
    src = HEAD + XFORMERS
    assert old in src
    found = [f.rule for f in scan_source(src.replace(old, new, 1))]
    assert rule in found, found
