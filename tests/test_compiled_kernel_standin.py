"""The interpreter's stand-in for a compiled kernel (sandbox/launch.py ``InterpretedCompiledKernel``, what
``kernel.warmup(...)`` returns there) launches as Triton 3.6's ``CompiledKernel.__getitem__`` runner does: every
parameter positional, constexprs included, and a grid of exactly three entries read as grid[0], grid[1], grid[2]. A
1-tuple grid, which the stand-in used to accept, raised IndexError on an H100 (gate at 9530296, the legal fixture
warmup_launch); the interpreter must reject what a GPU rejects, or a kernel judged here fails there."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

PROGRAM = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.launch import InterpretedCompiledKernel


@triton.jit
def neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=keep), mask=keep)


x = torch.arange(40, dtype=torch.float32)
o = torch.zeros(40)
k = InterpretedCompiledKernel(neg, (x, o, 40), {"BLOCK": 16, "num_warps": 4, "grid": (1,)})
k._init_handles()
k[(3, 1, 1)](x, o, 40, 16)
print("three", torch.equal(o, -x))
for grid in ((3,), (3, 1), lambda meta: (3,)):
    try:
        k[grid](x, o, 40, 16)
        print("accepted")
    except (IndexError, TypeError) as exc:
        print(type(exc).__name__)
'''


def test_stand_in_launches_like_tritons_compiled_kernel_runner() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["three", "True", "IndexError", "IndexError", "TypeError"], out.stdout
