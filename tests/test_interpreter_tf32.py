"""The interpreter computes ``tl.dot`` of fp32 operands at TF32 input precision as NVIDIA tensor cores do
(sandbox/interpreter.py ``_tf32_dot``): Triton 3.6's interpreter alone computes it in exact fp32, which let a
kernel that keeps Triton's default (TF32) on an fp32 operator pass on the CPU and fail on the GPU."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from kernelgenbench.sandbox.interpreter_numerics import tf32_round

SRC = Path(__file__).resolve().parents[1] / "src"


def test_tf32_rounding_to_nearest_even_keeps_nan_and_inf() -> None:
    x = np.array([1.0, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -10, -(1 + 2.0 ** -12 + 2.0 ** -20),
                  np.inf, -np.inf, 3.4028235e38, 2.0 ** -130], dtype=np.float32)
    got = tf32_round(x)
    assert got.dtype == np.float32
    assert got[:5].tolist() == [1.0, 1.0, 1 + 2.0 ** -9, 1 + 2.0 ** -10, -1.0]
    assert got[5] == np.inf and got[6] == -np.inf and got[7] == np.inf   # fp32's largest rounds past TF32's
    assert got[8] == np.float32(2.0 ** -130)                               # a subnormal with few bits: exact
    assert np.isnan(tf32_round(np.array([np.nan], dtype=np.float32)))[0]
    payload = np.array([0x7F800001], dtype=np.uint32).view(np.float32)    # a NaN whose bits would carry to inf
    assert np.isnan(tf32_round(payload))[0]


KERNEL = r'''
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
from kernelgenbench.sandbox.interpreter_numerics import tf32_round
install_interpreter_patches()

@triton.jit
def k(a, b, c, P: tl.constexpr):
    r = tl.arange(0, 32)
    x = tl.load(a + r[:, None] * 32 + r[None, :])
    y = tl.load(b + r[:, None] * 32 + r[None, :])
    if P == 0:
        z = tl.dot(x, y)
    elif P == 1:
        z = tl.dot(x, y, input_precision="ieee")
    elif P == 2:
        z = tl.dot(x, y, input_precision="tf32x3")
    else:
        z = tl.dot(x.to(tl.float16), y.to(tl.float16))
    tl.store(c + r[:, None] * 32 + r[None, :], z)

g = torch.Generator().manual_seed(3)
a, b = torch.randn(32, 32, generator=g), torch.randn(32, 32, generator=g)
exact = a.double() @ b.double()
emulated = torch.from_numpy(tf32_round(a.numpy())).double() @ torch.from_numpy(tf32_round(b.numpy())).double()
c = torch.empty(32, 32)
for p in range(4):
    k[(1,)](a, b, c, P=p)
    print(p, (c.double() - exact).abs().max().item(), (c.double() - emulated).abs().max().item())
'''


def test_default_dot_of_fp32_operands_is_tf32_and_ieee_stays_exact() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    env.pop("TRITON_F32_DEFAULT", None)
    out = subprocess.run([sys.executable, "-c", KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    err = {int(p): (float(e), float(t)) for p, e, t in (line.split() for line in out.stdout.split("\n") if line)}
    assert err[0][1] < 1e-5 < err[0][0]        # the default: the TF32 product (errors ~1e-3), not fp32's
    assert err[1][0] < 1e-4 and err[2][0] < 1e-4  # "ieee" and "tf32x3": fp32 accuracy
    assert err[3][0] > 1e-4                     # fp16 operands: rounded by the kernel itself, untouched here

