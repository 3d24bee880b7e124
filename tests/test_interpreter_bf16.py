"""bf16 on the CPU interpreter (sandbox/interpreter_numerics.py ``_bf16_arithmetic``): Triton 3.6's interpreter
stores bf16 as bit patterns and computed on the patterns as integers (bf16 + bf16 was an integer sum), converted
fp32 to bf16 by truncation and had no bf16 constants (``x + 3.0`` on a bf16 tile raised). Each operation now
computes on the values and rounds to bf16 to nearest even, as the GPU does; these tests hold it to torch's own
bf16 arithmetic (fp32 compute, one rounding), element for element."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from kernelgenbench.sandbox.interpreter_numerics import bf16_decode, bf16_encode, bf16_encode_f64, bf16_truncate

SRC = Path(__file__).resolve().parents[1] / "src"


def test_bf16_encodings_round_to_nearest_even_as_torch_does() -> None:
    x = torch.cat([torch.randn(20000, generator=torch.Generator().manual_seed(1)) * 1e3,
                   torch.tensor([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 3.4e38, -3.4e38, float("inf"),
                                 float("nan"), 1e-40, -0.0, 0.0])])
    want = x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    got = bf16_encode(x.numpy())
    nan = np.isnan(x.numpy())
    assert (got[~nan] == want[~nan]).all() and np.isnan(bf16_decode(got[nan])).all()
    assert (bf16_decode(got[~nan]) == x.to(torch.bfloat16).float().numpy()[~nan]).all()
    # from fp64: one rounding (1 + 2**-8 + 2**-30 is above the tie: up, where rounding through fp32 would tie down)
    assert bf16_decode(bf16_encode_f64(np.array([1 + 2 ** -8 + 2 ** -30, 1 + 2 ** -8, -2.5])) ).tolist() == \
        [1 + 2 ** -7, 1.0, -2.5]
    assert bf16_decode(bf16_truncate(np.array([1.99], dtype=np.float32)))[0] == np.float32(1.984375)


KERNELS = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, torch, triton, triton.language as tl
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def ew(x, y, o, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    a = tl.load(x + i, mask=m, other=1.0)
    b = tl.load(y + i, mask=m, other=1.0)
    if OP == 0:
        r = a + b
    elif OP == 1:
        r = a * b
    elif OP == 2:
        r = a - b
    elif OP == 3:
        r = tl.where(a < b, a, b)
    elif OP == 4:
        r = tl.maximum(a, b)
    elif OP == 5:
        r = a + 3.0
    else:
        r = a.to(tl.float32).to(tl.bfloat16)
    tl.store(o + i, r, mask=m)

@triton.jit
def cast(x, o, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o + i, tl.load(x + i, mask=i < n).to(tl.bfloat16), mask=i < n)

@triton.jit
def dot(a, b, c, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(a + r[:, None] * BLOCK + r[None, :])
    y = tl.load(b + r[:, None] * BLOCK + r[None, :])
    tl.store(c + r[:, None] * BLOCK + r[None, :], tl.dot(x, y))

@triton.jit
def red(x, s, mx, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    v = tl.load(x + i, mask=i < n, other=-float("inf"))
    tl.store(mx, tl.max(v))
    tl.store(s, tl.sum(tl.where(i < n, v, 0.0).to(tl.bfloat16)))

@triton.jit
def atom(x, idx, o, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.atomic_add(o + tl.load(idx + i, mask=i < n), tl.load(x + i, mask=i < n), mask=i < n)

g = torch.Generator().manual_seed(0)
n = 4000
x = (torch.randn(n, generator=g) * 10).bfloat16()
y = (torch.randn(n, generator=g) * 10).bfloat16()
bad = 0
refs = [x + y, x * y, x - y, torch.where(x < y, x, y), torch.maximum(x, y), x + 3.0, x]
for op, ref in enumerate(refs):
    o = torch.empty(n, dtype=torch.bfloat16)
    ew[(triton.cdiv(n, 1024),)](x, y, o, n, OP=op, BLOCK=1024)
    miss = int((o.view(torch.int16) != ref.view(torch.int16)).sum())
    print("op", op, "mismatches", miss); bad += miss
for src in (torch.float32, torch.float16, torch.int32):
    v = (torch.randn(n, generator=g) * 300).to(src)
    o = torch.empty(n, dtype=torch.bfloat16)
    cast[(triton.cdiv(n, 1024),)](v, o, n, BLOCK=1024)
    miss = int((o.view(torch.int16) != v.to(torch.bfloat16).view(torch.int16)).sum())
    print("cast", src, "mismatches", miss); bad += miss
a = torch.randn(32, 32, generator=g).bfloat16(); b = torch.randn(32, 32, generator=g).bfloat16()
c = torch.empty(32, 32)
dot[(1,)](a, b, c, BLOCK=32)
err = (c.double() - a.double() @ b.double()).abs().max().item()
print("dot err", err); bad += err > 1e-4
s = torch.empty(1, dtype=torch.bfloat16); mx = torch.empty(1, dtype=torch.bfloat16)
red[(1,)](x, s, mx, 1000, BLOCK=1024)
print("max", mx.item(), x[:1000].max().item(), "sum", s.item(), x[:1000].double().sum().item())
bad += mx.item() != x[:1000].max().item()
bad += abs(s.item() - x[:1000].double().sum().item()) > 0.05 * x[:1000].double().abs().sum().item()
idx = torch.tensor([0, 1, 0, 2, 0, 1] * 10, dtype=torch.int32)
v = torch.full((60,), 0.5, dtype=torch.bfloat16)
o = torch.zeros(3, dtype=torch.bfloat16)
atom[(1,)](v, idx, o, 60, BLOCK=64)
print("atomic", o.tolist()); bad += o.tolist() != [15.0, 10.0, 5.0]
print("BAD", bad)
'''


def test_interpreted_bf16_kernels_compute_what_the_gpu_does() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNELS], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("BAD 0"), out.stdout
    assert out.stdout.count("mismatches 0") == 10, out.stdout
