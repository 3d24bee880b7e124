"""LEGAL (false-rejection hunt 32): vllm::scaled_int8_quant (a tuple result: out, scale, azp) with a parameter
holder, ``@dataclasses.dataclass class QuantParams`` whose ``to(self, device)`` moves scale and zero point together
(the static scale and azp come back as the same objects: ``Tensor.to`` of their own device), and a ``NamedTuple``
launch config with a classmethod; one kernel per row: dynamic row statistics with ``hi.max(axis=0)`` /
``lo.min(axis=0)``, IEEE divisions with ``tl.math.div_rn``, round-half-even with ``libdevice.rint``. L1 refused every
``.to(...)`` in the kernel body: "tl.program_id(0).to(tl.int64) calls .to(), a name the submission gives its own
objects or classes" (rule kernel-body, 7 findings), because the host class defines ``to``. A receiver rooted in a
tensor argument or a Triton result cannot be the submission's object; one rooted in a tl.constexpr parameter, a
global or an alias of those is still refused (the launch rule admits only Triton values there anyway)."""
import dataclasses
from typing import NamedTuple, Optional

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@dataclasses.dataclass
class QuantParams:
    """The scale and zero point of a quantized tensor, kept together when they move between devices."""
    scale: torch.Tensor
    azp: Optional[torch.Tensor] = None

    def to(self, device) -> "QuantParams":
        return QuantParams(self.scale.to(device), None if self.azp is None else self.azp.to(device))


class Launch(NamedTuple):
    block: int
    num_warps: int

    @classmethod
    def for_row(cls, H: int) -> "Launch":
        block = min(4096, triton.next_power_of_2(max(H, 16)))
        return cls(block, 8 if block >= 2048 else 4)


@triton.jit
def _int8_rows(x_ptr, q_ptr, scale_ptr, azp_ptr, H, DYNAMIC: tl.constexpr, ASYM: tl.constexpr,
               BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * H
    if DYNAMIC:
        hi = tl.full([BLOCK], float("-inf"), tl.float32)
        lo = tl.full([BLOCK], float("inf"), tl.float32)
        for c0 in range(0, H, BLOCK):
            cols = c0 + tl.arange(0, BLOCK)
            v = tl.load(base + cols, mask=cols < H, other=0.0).to(tl.float32)
            if ASYM:
                hi = tl.maximum(hi, tl.where(cols < H, v, float("-inf")))
                lo = tl.minimum(lo, tl.where(cols < H, v, float("inf")))
            else:
                hi = tl.maximum(hi, tl.abs(v))
        top = hi.max(axis=0)
        if ASYM:
            bottom = lo.min(axis=0)
            scale = tl.math.div_rn(top - bottom, 255.0)
            zp = libdevice.rint(-128.0 - tl.math.div_rn(bottom, scale)).to(tl.int32)
            mult = tl.math.div_rn(1.0, scale)
            tl.store(azp_ptr + row, zp)
        else:
            scale = tl.math.div_rn(top, 127.0)
            mult = tl.where(top == 0.0, 0.0, tl.math.div_rn(127.0, tl.where(top == 0.0, 1.0, top)))
            zp = 0
        tl.store(scale_ptr + row, scale)
    else:
        scale = tl.load(scale_ptr)
        mult = tl.math.div_rn(1.0, scale)
        zp = tl.load(azp_ptr) if ASYM else 0
    for c0 in range(0, H, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = cols < H
        x = tl.load(base + cols, mask=m, other=0.0).to(tl.float32)
        if ASYM:
            q32 = tl.clamp(libdevice.rint(x * mult), -2147483648.0, 2147483520.0).to(tl.int32) + zp
            q = q32.to(tl.float32)
        elif DYNAMIC:
            q = libdevice.rint(x * mult)
        else:
            q = libdevice.rint(tl.math.div_rn(x, scale))
        tl.store(q_ptr + row * H + cols, tl.clamp(q, -128.0, 127.0).to(tl.int8), mask=m)


def scaled_int8_quant(input, scale=None, azp=None, symmetric=True):
    H = input.shape[-1]
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    rows = x.numel() // H if H else 0
    if scale is not None:
        if symmetric != (azp is None):
            raise ValueError("static scaled_int8_quant needs symmetric == (azp is None)")
        params = QuantParams(scale, azp).to(input.device)
    else:
        params = QuantParams(torch.empty((rows, 1), dtype=torch.float32, device=input.device),
                             None if symmetric else torch.empty((rows, 1), dtype=torch.int32, device=input.device))
    if rows:
        cfg = Launch.for_row(H)
        _int8_rows[(rows,)](x, out, params.scale, params.azp if params.azp is not None else params.scale, H,
                            DYNAMIC=scale is None, ASYM=not symmetric, BLOCK=cfg.block, num_warps=cfg.num_warps)
    return out, params.scale, params.azp
