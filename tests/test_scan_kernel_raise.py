"""L1's kernel-body rule on ``raise`` (tp43, verify/scan/kernel_rules.py ``visit_Raise``): SGLang's kernels keep an
optional feature behind a constexpr left ``None`` (``if quant_max is not None: raise NotImplementedError()``); a builtin
exception written in the ``raise`` with literal arguments is allowed, any other call there stays refused."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

HEAD = "import torch\nimport triton\nimport triton.language as tl\n"


def _kernel(stmt: str, prelude: str = "") -> str:
    return HEAD + prelude + textwrap.dedent(f"""
        @triton.jit
        def k(x_ptr, Q: tl.constexpr):
            if Q is not None:
                {stmt}
            tl.store(x_ptr, 1.0)
        """)


def _rules(source: str) -> list[str]:
    return [f.rule for f in scan_source(source)]


@pytest.mark.parametrize("stmt", [
    "raise NotImplementedError()",
    "raise NotImplementedError",
    "raise ValueError('quantization is not supported here')",
    "raise RuntimeError('bad', 3)",
    "raise AssertionError()",
])
def test_a_builtin_exception_raised_in_a_kernel_body_is_allowed(stmt: str) -> None:
    assert _rules(_kernel(stmt)) == []


@pytest.mark.parametrize("stmt,prelude", [
    # an argument computed in the body: a message carrying loaded values (kernel_error_read's channel)
    ("raise ValueError(tl.load(x_ptr))", ""),
    ("raise ValueError(str(1))", ""),
    ("raise ValueError(msg='x')", ""),
    ("raise ValueError(*('a',))", ""),
    # the iteration protocol's exceptions end a loop around the launch: an error handled without a handler
    ("raise StopIteration()", ""),
    ("raise StopAsyncIteration()", ""),
    # not an Exception: interpreter and process control
    ("raise SystemExit()", ""),
    ("raise KeyboardInterrupt()", ""),
    ("raise GeneratorExit()", ""),
    # the file's own class (its __init__ is Python code) and a shadowed builtin name
    ("raise Boom()", "class Boom(Exception):\n    def __init__(self):\n        super().__init__()\n"),
    ("raise ValueError()", "def ValueError():\n    return Exception()\n"),
    # a call outside the raise statement itself
    ("e = NotImplementedError()", ""),
])
def test_other_calls_in_a_kernel_raise_stay_refused(stmt: str, prelude: str) -> None:
    assert "kernel-body" in _rules(_kernel(stmt, prelude))


def test_a_raise_outside_kernels_is_untouched() -> None:
    assert _rules(HEAD + "def f(x):\n    raise NotImplementedError(x)\n") == []
