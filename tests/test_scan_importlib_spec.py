"""L1 on bitsandbytes' ``is_triton_available()`` guard (false-rejection hunt 44): ``import importlib`` passes when every
read of the module is ``importlib.util.find_spec("<top-level name>") is (not) None``; any other use keeps the import
a dynamic-import finding (stdlib_rules.importlib_spec_tests_only)."""
from __future__ import annotations

import pytest

from kernelgenbench.verify.scan import scan_source

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def neg(x):
    y = torch.empty_like(x)
    _neg_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
'''


def _rules(head: str) -> list[str]:
    return [f.rule for f in scan_source(head + KERNEL, own_ops=frozenset({"neg"}))]


@pytest.mark.parametrize("head", [
    'import importlib\n\n\ndef is_triton_available():\n    return importlib.util.find_spec("triton") is not None\n',
    'import importlib.util\n\nif importlib.util.find_spec("triton") is None:\n    raise ImportError("needs triton")\n',
    'import importlib\nimport importlib.util\nHAS = importlib.util.find_spec("triton") is not None\n',
])
def test_installed_package_tests_pass(head: str) -> None:
    assert _rules(head) == []


@pytest.mark.parametrize("head", [
    # the spec itself reaches the file: its loader runs any module's code
    'import importlib\nSPEC = importlib.util.find_spec("triton")\n',
    'import importlib\nL = importlib.util.find_spec("numpy").loader\n',
    'import importlib\nOK = importlib.util.find_spec("triton") == None\n',
    # find_spec of a dotted name imports its parent package
    'import importlib\nOK = importlib.util.find_spec("numpy.linalg") is not None\n',
    'import importlib\nNAME = "triton"\nOK = importlib.util.find_spec(NAME) is not None\n',
    # any other use of the module beside a legal test
    'import importlib\nOK = importlib.util.find_spec("triton") is not None\nnp = importlib.import_module("numpy")\n',
    # other import forms, aliases and rebindings
    'import importlib as il\nOK = il.util.find_spec("triton") is not None\n',
    'from importlib.util import find_spec\nOK = find_spec("triton") is not None\n',
    'from importlib import util\nOK = util.find_spec("triton") is not None\n',
    'import importlib\nimportlib = importlib\nOK = importlib.util.find_spec("triton") is not None\n',
    # a string holding the name may be evaluated as code (a string annotation)
    'import importlib\nOK = importlib.util.find_spec("triton") is not None\nX: "importlib.util" = None\n',
])
def test_other_uses_stay_refused(head: str) -> None:
    assert "dynamic-import" in _rules(head)
