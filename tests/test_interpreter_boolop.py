"""``and``/``or`` in kernel bodies on the interpreter evaluate as Triton's code generator does (tp43, sandbox/folded.py
``boolop``): tensor operands combine elementwise (``logical_and``/``logical_or``), an operand that is no tensor
decides the expression or drops out, and operands after a deciding constexpr are never evaluated. Python's ``and``
took one tensor whole (its truth is ``all()``): FlagGems' ``mask = rows < M and cols < N`` kept one comparison and
loaded out of bounds, failing an honest kernel as ``cuda_fault``.

Triton must be imported with TRITON_INTERPRET=1: the kernels run in one child interpreter that reports as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r'''
import json
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.state import STATE


@triton.jit
def mask2d(x_ptr, o_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = rows[:, None] < M and cols[None, :] < N
    v = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=-1.0)
    tl.store(o_ptr + rows[:, None] * BN + cols[None, :], v)


@triton.jit
def either(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    keep = x < 0.25 or x > 0.75
    tl.store(o_ptr + offs, tl.where(keep, 1.0, 0.0))


@triton.jit
def guarded(x_ptr, o_ptr, b_ptr, HAS_B: tl.constexpr, FLAG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if HAS_B and tl.load(b_ptr) > 0:  # b_ptr is None: the load is never evaluated (nor compiled)
        x = x + 100.0
    sel = FLAG and x > 0.5  # a truthy constexpr drops out: the tensor
    tl.store(o_ptr + offs, tl.where(sel, 1.0, 0.0))


@triton.jit
def negate(x_ptr, o_ptr, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    low = not (x > 0.5)  # elementwise, as the GPU's __not__
    if not FLAG:
        low = x > 2.0
    tl.store(o_ptr + offs, tl.where(low, 1.0, 0.0))


@triton.jit
def clamp_py(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, min(max(x, 0.25), 0.75) + max(BLOCK, 2) * 0.0)


@triton.jit
def loop_atomic(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, 3):
        # rb43: on a GPU i is a tensor, so i < 1 is one: both operands are compiled and the atomic runs every iteration
        seen = (i < 1) and (tl.atomic_add(o_ptr + offs, 1.0) > 0.0)
        seen = seen or (i > 5)


install_launch_hooks()
out = {}
x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
o = torch.zeros(4, 8)
mask2d[(1,)](x, o, 3, 4, BM=4, BN=8)
out["mask2d"] = o.tolist()
y = torch.tensor([0.1, 0.5, 0.9, 0.3, 0.8, 0.2, 0.6, 0.76])
o1 = torch.zeros(8)
either[(1,)](y, o1, BLOCK=8)
out["either"] = o1.tolist()
o2 = torch.zeros(8)
guarded[(1,)](y, o2, None, HAS_B=False, FLAG=True, BLOCK=8)
out["guarded"] = o2.tolist()
o3 = torch.zeros(8)
negate[(1,)](y, o3, BLOCK=8, FLAG=True)
out["negate"] = o3.tolist()
o4 = torch.zeros(8)
clamp_py[(1,)](y, o4, BLOCK=8)
out["clamp"] = o4.tolist()
o5 = torch.full((8,), -1.0)
loop_atomic[(1,)](o5, BLOCK=8)
out["loop_atomic"] = o5.tolist()
out["violations"] = list(STATE.launch_violations)
print("RESULT " + json.dumps(out))
'''


def test_and_or_not_min_max_act_on_tensors_elementwise_and_constexprs_short_circuit(tmp_path: Path) -> None:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    (tmp_path / "kernels.py").write_text(SCRIPT)  # Triton's JIT reads a kernel's source from its file
    proc = subprocess.run([sys.executable, str(tmp_path / "kernels.py")], env=env, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    got = json.loads(line[-1][len("RESULT "):])
    want = [[float(4 * r + c) if r < 3 and c < 4 else -1.0 for c in range(8)] for r in range(4)]
    assert got["mask2d"] == want
    assert got["either"] == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert got["guarded"] == [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    assert got["negate"] == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert got["clamp"] == pytest.approx([0.25, 0.5, 0.75, 0.3, 0.75, 0.25, 0.6, 0.75])
    assert got["loop_atomic"] == [2.0] * 8  # -1 + 3 iterations (rb43: the interpreter ran the first only, 0.0)
    assert got["violations"] == []
