"""Loop indices on the interpreter (sandbox/interpreter.py ``LoopIndex``): on a GPU the index of a ``range`` or
``tl.range`` loop in a kernel body is a tensor (int32, int64 where a bound is), and persistent kernels widen it
(``tile.to(tl.int64) * BLOCK``); Triton 3.6's interpreter iterates Python ints, so such a kernel failed with
"'int' object has no attribute 'to'" as the submission's runtime_error (false-rejection hunt 35). The index now has
``.to`` and ``.dtype``, also after a jit helper ran in the body (its language patch is undone when it returns);
``tl.static_range`` keeps plain ints; the ``range`` the harness puts in the kernel's globals for the launch is gone
afterwards."""
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
from kernelgenbench.sandbox.launch import install_launch_hooks
install_launch_hooks()  # the sandbox child's order: launch hooks first, then the interpreter's patches
install_interpreter_patches()


@triton.jit
def _twice(v):
    return v * 2


@triton.jit
def k(x_ptr, o_ptr, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32) * _twice(1.0)  # a jit helper before the loops (its patch nests)
    for blk in range(pid, n_blocks, tl.num_programs(0)):
        i = blk.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + i)
    for t in tl.range(0, n_blocks, 1, num_stages=2):
        tl.static_assert(t.dtype == tl.int32)
        acc += t.to(tl.float32) * 0.0
    for s in tl.static_range(2):
        acc += tl.load(x_ptr + s * BLOCK + tl.arange(0, BLOCK)) * 0.0
    tl.store(o_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


x = torch.arange(64, dtype=torch.float32)
o = torch.zeros(32)
k[(2,)](x, o, 4, BLOCK=16)
want = x.view(4, 16)[0::2].sum(0).tolist() + x.view(4, 16)[1::2].sum(0).tolist()
print("ok" if o.tolist() == want else ("wrong", o.tolist(), want))
print("range" in globals(), "range" in k.fn.__globals__)
'''


def test_loop_indices_have_the_tensor_methods_of_a_gpus_induction_variable() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["ok", "False False"], out.stdout
