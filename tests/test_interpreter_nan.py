"""``tl.maximum``/``tl.minimum``/``tl.clamp`` treat NaN on the interpreter as on NVIDIA GPUs
(sandbox/interpreter_numerics.py ``_maxnum_minnum``): the default ``propagate_nan=NONE`` returns the other operand
(LLVM maxnum/minnum, PTX ``max.f32``), ``propagate_nan=ALL`` keeps NaN. Triton 3.6's interpreter propagated NaN in
both, so an honest ``aten::fmax`` kernel failed on the CPU (false-rejection hunt 29)."""
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

@triton.jit
def k(a, b, o, MODE: tl.constexpr):
    r = tl.arange(0, 4)
    x = tl.load(a + r)
    y = tl.load(b + r)
    if MODE == 0:
        z = tl.maximum(x, y)
    elif MODE == 1:
        z = tl.minimum(x, y)
    elif MODE == 2:
        z = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
    elif MODE == 3:
        z = tl.clamp(x, -1.0, 1.0)
    else:
        z = tl.clamp(x, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL)
    tl.store(o + r, z)

nan = float("nan")
for dt in (torch.float32, torch.bfloat16, torch.float16):
    a = torch.tensor([nan, 2.0, nan, -3.0], dtype=dt)
    b = torch.tensor([1.0, nan, nan, 0.5], dtype=dt)
    for mode in range(5):
        o = torch.empty(4, dtype=dt)
        k[(1,)](a, b, o, MODE=mode)
        print(str(dt).split(".")[1], mode, [None if v != v else v for v in o.float().tolist()])
'''


def test_maxnum_minnum_and_clamp_treat_nan_as_the_gpu_does() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {}
    for line in out.stdout.splitlines():
        dt, mode, vals = line.split(" ", 2)
        rows[(dt, int(mode))] = eval(vals)  # noqa: S307 - our own printed lists
    for dt in ("float32", "bfloat16", "float16"):
        assert rows[(dt, 0)] == [1.0, 2.0, None, 0.5], dt        # maxnum: the other operand; NaN only if both are
        assert rows[(dt, 1)] == [1.0, 2.0, None, -3.0], dt
        assert rows[(dt, 2)] == [None, None, None, 0.5], dt      # propagate_nan=ALL keeps NaN
        assert rows[(dt, 3)] == [-1.0, 1.0, -1.0, -1.0], dt      # clamp NONE: maxnum(NaN, lo) = lo, then minnum
        assert rows[(dt, 4)] == [None, 1.0, None, -1.0], dt      # clamp ALL: NaN stays
