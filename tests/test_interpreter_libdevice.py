"""libdevice on the interpreter (sandbox/interpreter.py ``_libdevice_stand_in``): Triton 3.6's interpreter runs no
libdevice function; ``triton.language.extra.libdevice``'s placeholders returned None, so a kernel failed on the
first line that used the None, as the submission's ``runtime_error`` (false-rejection hunt 31: an int8
quantization kernel rounding with ``libdevice.rint``). The rounding functions (rint, nearbyint, trunc, round) are
exact and now computed with NumPy for fp32/fp64. Since false-rejection hunt 36 the common elementwise ones (tanh, pow,
log1p, isnan, fast_expf, ...: sandbox/interpreter_numerics.py ``_libdevice_table``) are computed with NumPy too,
after Triton's own libdevice wrapper has type-checked and broadcast the operands; any other function (``j0``) raises
Triton's own NotImplementedError at the call, which verify/failures.py reads as an interpreter limit
(``unsupported``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

KERNEL = r'''
import os, traceback
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def k(a, o, MODE: tl.constexpr):
    r = tl.arange(0, 8)
    x = tl.load(a + r)
    if MODE == 0:
        z = libdevice.rint(x)
    elif MODE == 1:
        z = cuda_libdevice.nearbyint(x)
    elif MODE == 2:
        z = libdevice.trunc(x)
    elif MODE == 3:
        z = libdevice.round(x)
    else:
        z = libdevice.j0(x)
    tl.store(o + r, z)

for dt in (torch.float32, torch.float64):
    a = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.6, 2.0 ** 40], dtype=dt)
    for mode in range(4):
        o = torch.empty(8, dtype=dt)
        k[(1,)](a, o, MODE=mode)
        print(str(dt).split(".")[1], mode, o.tolist())
try:
    k[(1,)](torch.ones(8), torch.empty(8), MODE=4)
except Exception as exc:
    cause = exc.__cause__
    print("j0", type(cause).__name__, traceback.extract_tb(cause.__traceback__)[-1].filename)
'''


def test_libdevice_rounding_is_exact_and_other_functions_are_an_interpreter_limit() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {}
    for line in out.stdout.splitlines():
        head, mode, rest = line.split(" ", 2)
        rows[(head, mode)] = rest
    for dt in ("float32", "float64"):
        assert eval(rows[(dt, "0")]) == [0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0, 2.0 ** 40], dt  # noqa: S307 (half to even)
        assert eval(rows[(dt, "1")]) == [0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0, 2.0 ** 40], dt  # noqa: S307
        assert eval(rows[(dt, "2")]) == [0.0, 1.0, 2.0, -0.0, -1.0, 2.0, -2.0, 2.0 ** 40], dt  # noqa: S307
        assert eval(rows[(dt, "3")]) == [1.0, 2.0, 3.0, -1.0, -2.0, 2.0, -3.0, 2.0 ** 40], dt  # noqa: S307 (away)
    where = rows.get(("j0", "NotImplementedError"), "")  # raised by Triton's interpreter, at the call
    assert where.replace("\\", "/").endswith("/triton/runtime/interpreter.py"), rows


MATH = r'''
import os, math
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def k(a, o, MODE: tl.constexpr):
    r = tl.arange(0, 4)
    x = tl.load(a + r)
    if MODE == 0:
        z = libdevice.tanh(x)
    elif MODE == 1:
        z = libdevice.pow(x, 2)
    elif MODE == 2:
        z = libdevice.log1p(x)
    elif MODE == 3:
        z = tl.where(cuda_libdevice.isnan(x), 1.0, 0.0).to(x.dtype)
    elif MODE == 4:
        z = cuda_libdevice.fast_expf(x)
    else:
        z = libdevice.atan2(x, x + 1.0)
    tl.store(o + r, z)

for dt in (torch.float32, torch.float64):
    a = torch.tensor([0.5, -0.25, float("nan"), 3.0], dtype=dt)
    for mode in range(6):
        if mode == 4 and dt == torch.float64:
            continue
        o = torch.empty(4, dtype=dt)
        k[(1,)](a, o, MODE=mode)
        print(str(dt).split(".")[1], mode, [repr(v) for v in o.tolist()])
try:
    k[(1,)](torch.ones(4, dtype=torch.float16), torch.empty(4, dtype=torch.float16), MODE=0)
except Exception as exc:
    print("fp16", "raised", type(exc.__cause__ or exc).__name__)
'''


def test_common_libdevice_math_is_computed_with_numpy_after_tritons_type_checks() -> None:
    """False-rejection hunt 36: a kernel calling ``libdevice.tanh`` (GELU, Mish), ``pow``, ``log1p``, ``isnan`` or
    ``fast_expf`` was ``unsupported`` on the interpreter. They compute now, in the operands' precision, and an
    operand type libdevice does not define (fp16) is still refused by Triton's own wrapper, as on a GPU."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", MATH], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {}
    for line in out.stdout.splitlines():
        head, mode, rest = line.split(" ", 2)
        rows[(head, mode)] = rest
    import math

    import numpy as np
    for dt, np_dt in (("float32", np.float32), ("float64", np.float64)):
        x = np.array([0.5, -0.25, np.nan, 3.0], dtype=np_dt)
        want = {"0": np.tanh(x), "1": x * x, "2": np.log1p(x), "3": np.isnan(x).astype(np_dt),
                "5": np.arctan2(x, x + np_dt(1.0))}
        if dt == "float32":
            want["4"] = np.exp(x)
        for mode, w in want.items():
            got = [float(v) for v in eval(rows[(dt, mode)])]  # noqa: S307
            for g, e in zip(got, w.tolist()):
                assert (math.isnan(g) and math.isnan(e)) or g == e, (dt, mode, got, w)
    assert rows[("fp16", "raised")] == "KeyError", rows  # Triton's libdevice wrapper has no fp16 tanh (as on a GPU)


def test_every_numpy_libdevice_entry_names_a_libdevice_symbol() -> None:
    """Each name of ``_libdevice_table`` is some CUDA libdevice symbol less ``__nv_`` (and its f/d suffix): a
    misspelt entry (``fast_dividef`` for ``__nv_fast_fdividef``) computed nothing and left the call unsupported."""
    import re

    import triton.language.extra.cuda.libdevice as cuda_libdevice

    from kernelgenbench.sandbox.interpreter_numerics import _libdevice_table

    symbols = set(re.findall(r'"__nv_([a-z0-9_]+)"', Path(cuda_libdevice.__file__).read_text()))
    names = symbols | {s[:-1] for s in symbols if s[-1] in "fd"}
    assert set(_libdevice_table()) <= names, sorted(set(_libdevice_table()) - names)


LLRINT = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from triton.language.extra.cuda import libdevice
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()

@triton.jit
def k(a, o, AWAY: tl.constexpr):
    r = tl.arange(0, 8)
    x = tl.load(a + r)
    if AWAY:
        z = libdevice.llround(x)
    else:
        z = libdevice.llrint(x)
    tl.store(o + r, z)

for dt in (torch.float32, torch.float64):
    a = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.6, 2.0 ** 40], dtype=dt)
    for away in (False, True):
        o = torch.empty(8, dtype=torch.int64)
        k[(1,)](a, o, AWAY=away)
        print(str(dt).split(".")[1], int(away), o.tolist())
'''


def test_libdevice_llrint_and_llround_give_exact_int64() -> None:
    """False-rejection hunt 43: bitsandbytes' int8 quantization rounds with ``libdevice.llrint`` (an int64 result);
    the interpreter raised Triton's NotImplementedError (``unsupported``). Both are exact with NumPy: half to even
    (llrint) and half away from zero (llround), as CUDA's ``__nv_llrintf``/``__nv_llroundf`` return them."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", LLRINT], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {tuple(line.split(" ", 2)[:2]): line.split(" ", 2)[2] for line in out.stdout.splitlines()}
    for dt in ("float32", "float64"):
        assert eval(rows[(dt, "0")]) == [0, 2, 2, 0, -2, 2, -3, 2 ** 40], dt  # noqa: S307 (half to even)
        assert eval(rows[(dt, "1")]) == [1, 2, 3, -1, -2, 2, -3, 2 ** 40], dt  # noqa: S307 (half away)
