"""fp8 on the CPU interpreter (sandbox/interpreter.py ``_exact_fp8_conversions``): conversions to fp8 round to
nearest even and saturate as the GPU's ``cvt.rn.satfinite`` does, conversions from fp8 are exact. Triton 3.6's
own interpreter rounded ties up (1.0625 -> 1.125 in e4m3), made 465 into 480 (a NaN code), inf into 256 and NaN
into 384, which is why fp8 cases were judged on GPUs only."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from kernelgenbench.sandbox.interpreter_numerics import FP8_TYPES, fp8_decode_table, fp8_encode

TORCH = {"fp8e4nv": torch.float8_e4m3fn, "fp8e5": torch.float8_e5m2}

SRC = Path(__file__).resolve().parents[1] / "src"


def _nearest_even(x: np.ndarray, name: str) -> np.ndarray:
    """Brute force: each x to the nearest finite value of the fp8 type (ties: the even code), beyond the top
    the top with x's sign, NaN to NaN; decoded to fp64. Independent of torch's own conversion."""
    dtype, top = TORCH[name], FP8_TYPES[name][3]
    codes = torch.arange(128, dtype=torch.uint8)          # the non-negative codes, in increasing value
    vals = codes.view(dtype).double().numpy()
    finite = np.isfinite(vals)
    codes, vals = codes.numpy()[finite], vals[finite]
    out = np.empty(x.shape, dtype=np.float64)
    for i, v in enumerate(x.astype(np.float64)):
        if np.isnan(v):
            out[i] = np.nan
            continue
        a = min(abs(v), top)
        d = np.abs(vals - a)
        best = np.flatnonzero(d == d.min())
        pick = best[0] if len(best) == 1 else best[codes[best] % 2 == 0][0]
        out[i] = np.copysign(vals[pick], v)
    return out


def _probe(name: str) -> np.ndarray:
    """Every finite fp16 value, the midpoints of consecutive fp8 values (ties) and their neighbours one fp32
    ulp away, values beyond the top, infinities and NaN: fp32."""
    dtype, top = TORCH[name], FP8_TYPES[name][3]
    h = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16).float()
    pos = torch.arange(128, dtype=torch.uint8).view(dtype).float()
    pos = pos[torch.isfinite(pos)].sort().values
    mid = (pos[1:] + pos[:-1]) / 2
    up, down = torch.nextafter(mid, torch.full_like(mid, np.inf)), torch.nextafter(mid, torch.zeros_like(mid))
    extra = torch.tensor([top * 1.03, top * 1.07, 1e30, np.inf, -np.inf, np.nan, 3e-45, -3e-45])
    x = torch.cat([h, mid, -mid, up, -up, down, extra, -extra])
    return x[torch.isfinite(x) | torch.isnan(x) | torch.isinf(x)].numpy()


@pytest.mark.parametrize("name", sorted(FP8_TYPES))
def test_the_decode_table_is_torch_s(name: str) -> None:
    want = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(TORCH[name]).float().numpy()
    got = fp8_decode_table(name)
    assert ((got == want) | (np.isnan(got) & np.isnan(want))).all()
    assert np.isnan(got).sum() == (2 if name == "fp8e4nv" else 6)


@pytest.mark.parametrize("name", sorted(FP8_TYPES))
def test_fp8_encode_is_round_to_nearest_even_with_saturation(name: str) -> None:
    x = _probe(name)
    codes = fp8_encode(x, name)
    assert codes.dtype == np.uint8 and codes.shape == x.shape
    got = fp8_decode_table(name)[codes].astype(np.float64)
    want = _nearest_even(x, name)
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), list(zip(x[bad][:5], got[bad][:5], want[bad][:5]))
    # and torch's own conversion (round to nearest even, not saturating) agrees wherever it does not overflow
    inside = np.isfinite(x) & (np.abs(np.nan_to_num(x)) <= FP8_TYPES[name][3])  # (NaN: any NaN code)
    ref = torch.from_numpy(x[inside]).to(TORCH[name]).view(torch.uint8).numpy()
    assert (codes[inside] == ref).all()
    dec = fp8_decode_table("fp8e4nv")
    assert dec[fp8_encode(np.array([1.0625, 1.1875, np.inf, -500.0, -0.0]), "fp8e4nv")].tolist() == \
        [1.0, 1.25, 448.0, -448.0, -0.0]
    assert np.signbit(dec[fp8_encode(np.array([-0.0]), "fp8e4nv")][0])


KERNELS = r'''
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, torch, triton, triton.language as tl
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
from kernelgenbench.sandbox.interpreter_numerics import fp8_encode
install_interpreter_patches()

@triton.jit
def down(x, y, n, E5: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(x + o, mask=m)
    if E5:
        tl.store(y + o, v.to(tl.float8e5), mask=m)
    else:
        tl.store(y + o, v.to(tl.float8e4nv), mask=m)

@triton.jit
def up(x, y, h, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    v = tl.load(x + o, mask=m)
    tl.store(y + o, v.to(tl.float32), mask=m)
    tl.store(h + o, v.to(tl.float16), mask=m)

bad = 0
for name, dt, e5 in (("fp8e4nv", torch.float8_e4m3fn, False), ("fp8e5", torch.float8_e5m2, True)):
    for src in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16).to(src)
        y = torch.empty(x.numel(), dtype=dt)
        down[(triton.cdiv(x.numel(), 4096),)](x, y, x.numel(), E5=e5, BLOCK=4096)
        want = torch.from_numpy(fp8_encode(x.float().numpy(), name)).view(dt)
        same = (y.view(torch.uint8) == want.view(torch.uint8)) | (torch.isnan(y.float()) & torch.isnan(want.float()))
        bad += int((~same).sum())
        print(name, src, "down mismatches", int((~same).sum()))
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dt)
    f, h = torch.empty(256), torch.empty(256, dtype=torch.float16)
    up[(1,)](codes, f, h, 256, BLOCK=256)
    for got in (f.float(), h.float()):
        want = codes.float()
        same = (got == want) | (torch.isnan(got) & torch.isnan(want))
        bad += int((~same).sum())
        print(name, "up mismatches", int((~same).sum()))
print("BAD", bad)
'''


def test_interpreted_kernels_convert_fp8_exactly() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", KERNELS], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("BAD 0"), out.stdout
    assert out.stdout.count("mismatches 0") == 10, out.stdout
