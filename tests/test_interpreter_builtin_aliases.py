"""Triton builtins under a kernel's own global names on the interpreter (sandbox/interpreter.py ``_builtin_aliases``):
Unsloth writes ``triton_cast = tl.cast`` and calls ``triton_cast(x, dtype)`` in kernels. A GPU compiles that (the code
generator admits builtins as globals); Triton 3.6's interpreter patches builtins only as attributes of the
``triton.language`` modules, so the alias raised "Did you forget to add @triton.jit?" and the submission failed as
``runtime_error`` (false-rejection hunt 32, tests/good/builtin_alias__aten__rsqrt). The aliases now run with the
interpreter's semantic while a kernel runs, and the module's globals are the originals again afterwards."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

KERNEL = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from triton.language import maximum as _max
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

triton_cast = tl.cast
_exp = tl.math.exp


@triton.jit
def _helper(x):
    return _max(x, 0.0)


@triton.jit
def k(a, o):
    r = tl.arange(0, 4)
    x = triton_cast(tl.load(a + r), tl.float32)
    tl.store(o + r, triton_cast(_exp(_helper(x)), o.dtype.element_ty))

a = torch.tensor([-1.0, 0.0, 1.0, 2.0], dtype=torch.float16)
o = torch.empty(4, dtype=torch.float64)
k[(1,)](a, o)
print(o.tolist())
print(triton_cast is tl.cast, _exp is tl.math.exp, _max is tl.maximum)
'''


def test_builtin_aliases_run_on_the_interpreter_and_are_restored() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    values, restored = out.stdout.splitlines()[-2:]
    assert values.startswith("[1.0, 1.0, 2.71828") and "7.389" in values, values
    assert restored == "True True True"


NAMED_ONLY = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton
from triton.language import arange, constexpr, exp, float32, load, store
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()


@triton.jit
def k(a, o, N: constexpr):
    r = arange(0, N)
    store(o + r, exp(load(a + r).to(float32)))

a = torch.zeros(4, dtype=torch.float16)
o = torch.empty(4)
k[(1,)](a, o, N=4)
print(o.tolist())
'''


def test_a_kernel_with_only_names_imported_from_triton_language_runs() -> None:
    """A module that imports only names from triton.language (no ``tl`` module among its globals) failed Triton's
    "triton.language must be visible from within jit'd function" on the interpreter; a GPU compiles it."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", NAMED_ONLY], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[-1] == "[1.0, 1.0, 1.0, 1.0]"
