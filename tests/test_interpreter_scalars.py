"""Launch scalars on the interpreter are typed as Triton's GPU launcher types them
(sandbox/interpreter_numerics.py ``_fp32_float_args``): a Python ``float`` argument is an fp32 scalar, a ``bool`` an
int1. Triton 3.6's interpreter handed floats over as weakly typed Python floats (an fp64 mean scaled by a float
``1/N`` kept full precision on the CPU and lost it on the GPU: aten::mean's oracle failed the GPU gate of f57781c)
and raised on a runtime ``bool``."""
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
def k(x_ptr, h_ptr, out64_ptr, out16_ptr, flag_ptr, scale, flag, BIG: tl.constexpr):
    tl.store(out64_ptr, tl.load(x_ptr) * scale)          # fp64 * (fp32 scalar) -> fp64
    p = tl.load(h_ptr) * scale                           # fp16 * (fp32 scalar) -> fp32, as on a GPU
    tl.store(out16_ptr, p.to(tl.float64))
    if flag:
        tl.store(flag_ptr, 1)
    else:
        tl.store(flag_ptr, 2)
    tl.store(out64_ptr + 1, tl.load(x_ptr) * BIG)        # a constexpr float: untouched

x = torch.tensor([1.0], dtype=torch.float64)
h = torch.tensor([3.0], dtype=torch.float16)
out64, out16 = torch.zeros(2, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
fl = torch.zeros(1, dtype=torch.int32)
k[(1,)](x, h, out64, out16, fl, 1 / 3, True, BIG=1 / 3)
print(out64[0].item(), out16.item(), fl.item(), out64[1].item())
k[(1,)](x, h, out64, out16, fl, 1e300, False, BIG=1 / 3)
print(out64[0].item(), out16.item(), fl.item(), out64[1].item())
'''


def test_float_arguments_are_fp32_scalars_and_bools_int1() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = ([float(v) for v in line.split()] for line in out.stdout.strip().split("\n"))
    third32 = float(__import__("numpy").float32(1 / 3))
    assert first[0] == third32 and first[0] != 1 / 3      # the fp64 product carries fp32's rounding of 1/3
    assert first[1] == float(__import__("numpy").float32(3.0 * third32))  # fp32 product of an fp16 value
    assert first[2] == 1 and second[2] == 2               # True and False reach the kernel as int1
    assert first[3] == 1 / 3                              # constexpr floats stay Python floats
    assert second[0] == float("inf")                      # beyond fp32's range: infinity, as the GPU's cast


SPELLED = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def k(x_ptr, o_ptr, S: "triton.language.constexpr", BLOCK: "triton.language.constexpr", R):
    offs = tl.arange(0, BLOCK)                       # BLOCK must stay a Python int
    tl.store(o_ptr + offs, tl.load(x_ptr + offs) * S)  # an fp64 product with the exact Python float
    tl.store(o_ptr + BLOCK, tl.load(x_ptr) * R)      # a runtime float: fp32

x = torch.ones(5, dtype=torch.float64)
o = torch.zeros(5, dtype=torch.float64)
k[(1,)](x, o, 1 / 3, 4, 1 / 3)
print(" ".join(repr(v) for v in o.tolist()))
'''


def test_constexpr_spelled_as_gpu_accepts_stays_python_value() -> None:
    """Red team 27: a parameter the GPU's KernelParam takes as constexpr (``"constexpr" in`` the normalized
    annotation, e.g. the string ``"triton.language.constexpr"``) stays a Python value on the interpreter too."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", SPELLED], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    vals = [float(v) for v in out.stdout.split()]
    assert vals[:4] == [1 / 3] * 4                        # constexpr: full double precision
    assert vals[4] == float(__import__("numpy").float32(1 / 3))  # runtime float: fp32, as before


INT1 = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def k(o_ptr, A, B, S):
    tl.store(o_ptr, (A + B).to(tl.int32))                      # int1 + int1: i1 on a GPU, wraps
    tl.store(o_ptr + 1, ((S > 0.5) + (S > 0.25)).to(tl.int32))  # comparisons too
    tl.store(o_ptr + 2, (A - B).to(tl.int32))
    tl.store(o_ptr + 3, (A + (S > 2.0)).to(tl.int32))
    tl.store(o_ptr + 4, (A * 3).to(tl.int32))                   # promoted to int32: no wrap

o = torch.full((5,), -1, dtype=torch.int32)
k[(1,)](o, True, True, 0.75)
print(" ".join(str(v) for v in o.tolist()))
'''


def test_int1_addition_wraps_as_on_a_gpu() -> None:
    """Red team 27: two int1 values add (and subtract) modulo 2 as the GPU's i1 arithmetic does; NumPy's bool
    addition was a logical or (True + True == True) and its bool subtraction raised."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", INT1], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert [int(v) for v in out.stdout.split()] == [0, 0, 0, 1, 3]
