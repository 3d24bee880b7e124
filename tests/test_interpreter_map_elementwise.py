"""``tl.map_elementwise`` on the CPU interpreter (sandbox/interpreter.py ``_map_elementwise``, false-rejection hunt 36):
Triton 3.6's interpreter cannot build the op's region ("'InterpreterBuilder' object has no attribute 'new_block'"), so
an honest kernel failed as ``runtime_error``; the harness runs the scalar jit function once per element."""
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
import struct, tempfile
from kernelgenbench.sandbox.interpreter import install_interpreter_patches, install_interpreter_progress
install_interpreter_patches()
progress = os.path.join(tempfile.mkdtemp(), "progress")
install_interpreter_progress(progress)

@triton.jit
def clip_scalar(x):
    if x <= -3.0:
        return 0.0
    if x >= 3.0:
        return 1.0
    return x / 6.0 + 0.5

@triton.jit
def pair(x, y):
    return x + y, x * y

def host_fn(x):
    return x

@triton.jit
def k(x_ptr, o_ptr, s_ptr, p_ptr, MODE: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    if MODE == 0:
        tl.store(o_ptr + r, tl.map_elementwise(clip_scalar, x))
        s, p = tl.map_elementwise(pair, x, 2.0 + tl.zeros([N], tl.float32))
        tl.store(s_ptr + r, s)
        tl.store(p_ptr + r, p)
    else:
        tl.store(o_ptr + r, tl.map_elementwise(host_fn, x))

x = torch.tensor([-4.0, -3.0, 0.0, 1.5, 3.0, 5.0, 2.0, -1.0])
o, s, p = torch.empty(8), torch.empty(8), torch.empty(8)
k[(1,)](x, o, s, p, MODE=0, N=8)
print("clip", o.tolist())
print("sum", s.tolist())
print("prod", p.tolist())
with open(progress, "rb") as f:
    print("steps", struct.unpack("<4q", f.read(32))[2])
try:
    k[(1,)](x, o, s, p, MODE=1, N=8)
    print("host", "ran")
except Exception as exc:
    print("host", "raised")
'''


def test_map_elementwise_runs_its_scalar_jit_function_per_element() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    xs = [-4.0, -3.0, 0.0, 1.5, 3.0, 5.0, 2.0, -1.0]
    want = [0.0 if v <= -3 else 1.0 if v >= 3 else v / 6 + 0.5 for v in xs]
    assert [round(v, 6) for v in eval(rows["clip"])] == [round(v, 6) for v in want]  # noqa: S307
    assert eval(rows["sum"]) == [v + 2 for v in xs]  # noqa: S307 (a tuple of results)
    assert eval(rows["prod"]) == [v * 2 for v in xs]  # noqa: S307
    assert int(rows["steps"]) >= 16  # 2 maps of 8 elements: progress, so a large case times out as slow, not stuck
    assert rows["host"] == "raised"  # a host function is not run per element: Triton's own op raises, as before
