"""LEGAL (false-rejection hunt 31): vllm::scaled_int8_quant written from the spec, typed (``Optional``/``Tuple``,
``from __future__ import annotations``), with an ``enum.IntEnum`` mode and a frozen dataclass of launch settings:
a row-statistics kernel (dynamic modes: the row's scale and zero point, and for the symmetric mode the reciprocal
127/max in a workspace) then a quantization kernel reading them from memory. It rounds half to even with
``libdevice.rint``, as CUDA kernels do. Triton 3.6's interpreter runs no libdevice function that tl.math lacks:
``libdevice.rint`` returned None and the kernel failed on the next line, as the submission's runtime_error; the
interpreter now computes rint/nearbyint/trunc/round exactly (sandbox/interpreter.py ``_libdevice_stand_in``) and
makes the other missing functions an interpreter limit at their call. Every division is ``tl.math.div_rn``: the spec
compares scales bit-exactly and Triton's ``/`` is an approximate fp32 division on NVIDIA GPUs (spec vllm.md, notes on
Triton; with ``/`` the asymmetric scale came out 1 ulp off on an H100 at ae9b2b6, a true wrong_result)."""
from __future__ import annotations

import dataclasses
import enum
from typing import Optional, Tuple

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


class Mode(enum.IntEnum):
    STATIC_SYM = 0
    STATIC_ASYM = 1
    DYNAMIC_SYM = 2
    DYNAMIC_ASYM = 3


@dataclasses.dataclass(frozen=True)
class Launch:
    block: int
    num_warps: int = 4

    @classmethod
    def for_row(cls, h: int) -> "Launch":
        return cls(block=min(4096, triton.next_power_of_2(max(h, 1))))


@triton.jit
def _row_stats(x_ptr, scale_ptr, azp_ptr, inv_ptr, H, ASYM: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * H
    if ASYM:
        mn = tl.full((BLOCK,), float("inf"), tl.float32)
        mx = tl.full((BLOCK,), float("-inf"), tl.float32)
        for c0 in range(0, H, BLOCK):
            cols = c0 + tl.arange(0, BLOCK)
            v = tl.load(base + cols, mask=cols < H, other=0.0).to(tl.float32)
            mn = tl.minimum(mn, tl.where(cols < H, v, float("inf")))
            mx = tl.maximum(mx, tl.where(cols < H, v, float("-inf")))
        lo = tl.min(mn, axis=0)
        hi = tl.max(mx, axis=0)
        s = tl.math.div_rn(hi - lo, 255.0)
        zp = libdevice.rint(-128.0 - tl.math.div_rn(lo, s)).to(tl.int32)
        tl.store(scale_ptr + row, s)
        tl.store(azp_ptr + row, zp)
    else:
        a = tl.zeros((BLOCK,), tl.float32)
        for c0 in range(0, H, BLOCK):
            cols = c0 + tl.arange(0, BLOCK)
            v = tl.load(base + cols, mask=cols < H, other=0.0).to(tl.float32)
            a = tl.maximum(a, tl.abs(v))
        amax = tl.max(a, axis=0)
        tl.store(scale_ptr + row, tl.math.div_rn(amax, 127.0))
        tl.store(inv_ptr + row, tl.where(amax == 0.0, 0.0, tl.math.div_rn(127.0, tl.where(amax == 0.0, 1.0, amax))))


@triton.jit
def _quantize(x_ptr, q_ptr, scale_ptr, azp_ptr, inv_ptr, H, PER_ROW: tl.constexpr, MODE: tl.constexpr,
              BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    srow = row if PER_ROW else 0
    scale = tl.load(scale_ptr + srow)
    for c0 in range(0, H, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = cols < H
        x = tl.load(x_ptr + row * H + cols, mask=m, other=0.0).to(tl.float32)
        if MODE == 0:
            q = libdevice.rint(tl.math.div_rn(x, scale))
        elif MODE == 2:
            q = libdevice.rint(x * tl.load(inv_ptr + row))
        else:
            inv = tl.math.div_rn(1.0, scale)
            zp = tl.load(azp_ptr + srow)
            q32 = tl.clamp(libdevice.rint(x * inv), -2147483648.0, 2147483520.0).to(tl.int32) + zp
            q = q32.to(tl.float32)
        q = tl.clamp(q, -128.0, 127.0)
        tl.store(q_ptr + row * H + cols, q.to(tl.int8), mask=m)


def scaled_int8_quant(input: torch.Tensor, scale: Optional[torch.Tensor] = None, azp: Optional[torch.Tensor] = None,
                      symmetric: bool = True) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
    H = input.shape[-1]
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    rows = x.numel() // H if H else 0
    if scale is not None:
        if symmetric != (azp is None):
            raise ValueError("static scaled_int8_quant needs symmetric == (azp is None)")
        mode = Mode.STATIC_SYM if symmetric else Mode.STATIC_ASYM
        scales, azps = scale, azp
    else:
        mode = Mode.DYNAMIC_SYM if symmetric else Mode.DYNAMIC_ASYM
        scales = torch.empty((rows, 1), dtype=torch.float32, device=input.device)
        azps = None if symmetric else torch.empty((rows, 1), dtype=torch.int32, device=input.device)
    if rows == 0:
        return out, scales, azps
    cfg = Launch.for_row(H)
    azp_arg = azps if azps is not None else scales
    inv = torch.empty(rows if mode is Mode.DYNAMIC_SYM else 1, dtype=torch.float32, device=input.device)
    if mode in (Mode.DYNAMIC_SYM, Mode.DYNAMIC_ASYM):
        _row_stats[(rows,)](x, scales, azp_arg, inv, H, ASYM=mode is Mode.DYNAMIC_ASYM, BLOCK=cfg.block,
                            num_warps=cfg.num_warps)
    _quantize[(rows,)](x, out, scales, azp_arg, inv, H, PER_ROW=scale is None, MODE=int(mode), BLOCK=cfg.block,
                       num_warps=cfg.num_warps)
    return out, scales, azps
