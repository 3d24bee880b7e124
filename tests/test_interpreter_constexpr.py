"""A Python number on the left of a global ``tl.constexpr`` in a kernel body on the CPU interpreter
(sandbox/interpreter.py ``_constexpr_reflected_operators``, false-rejection hunt 36): ``1 << LOG2``, ``256 >> SH``,
``0xFF & M``, ``1 | M``, ``5 ^ M``, ``17 % M``. Triton 3.6's ``constexpr`` lacks these reflected operators; a GPU
never needs them, and the interpreter raised TypeError (``runtime_error``)."""
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
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
SH = tl.constexpr(3)
M = tl.constexpr(6)

@triton.jit
def k(o_ptr):
    r = tl.arange(0, 1 << SH)
    tl.store(o_ptr + r, r * 0 + (256 >> SH))
    tl.store(o_ptr + 8 + r, r * 0 + (0xFF & M) + (1 | M) * 100 + (5 ^ M) * 10000 + (17 % M) * 1000000)

o = torch.zeros(16, dtype=torch.int32)
k[(1,)](o)
print(o.tolist())
'''


def test_python_numbers_on_the_left_of_a_global_constexpr() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    want = [256 >> 3] * 8 + [(0xFF & 6) + (1 | 6) * 100 + (5 ^ 6) * 10000 + (17 % 6) * 1000000] * 8
    assert eval(out.stdout.strip()) == want  # noqa: S307
