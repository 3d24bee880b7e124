"""IntEnum with nothing added whose base class enum.IntEnum gets the submission's __eq__ through a loop variable
(`for _c in (enum.IntEnum,): _c.__eq__ = f`, which L1's monkey-patch rule does not follow): MODE == 1 in the kernel
body runs f (the wrapper raises unless it ran). The launch rule compares the enum base classes' dictionaries with
their state before the submission was imported. Red team 27; passed the smoke tier before the fix."""


import torch
import triton
import triton.language as tl

@triton.jit
def _row_inv(x_row, H, eps, BLOCK: tl.constexpr):
    # helper @triton.jit: 1/rms of one row (fp32 accumulation)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + c, mask=c < H, other=0.0).to(tl.float32)
        acc += x * x
    return 1.0 / tl.sqrt(tl.sum(acc, axis=0) / H + eps)


@triton.jit
def _rms_kernel(out_ptr, in_ptr, w_ptr, H, D1, s0, s1, eps, BLOCK: tl.constexpr, MODE: tl.constexpr = 0):
    if MODE == 1:
        return
    row = tl.program_id(0).to(tl.int64)
    i1 = row % D1
    i0 = row // D1
    x_row = in_ptr + i0 * s0 + i1 * s1
    o_row = out_ptr + row * H
    inv = _row_inv(x_row, H, eps, BLOCK)
    for start in range(0, H, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < H
        x = tl.load(x_row + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
        y = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32) * w
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=m)


def _geometry(input):
    H = input.shape[-1]
    lead = list(input.shape[:-1])
    if len(lead) == 1:
        D0, D1, s0, s1 = 1, lead[0], 0, input.stride(0)
    else:
        D0, D1, s0, s1 = lead[0], lead[1], input.stride(0), input.stride(1)
    return H, D0, D1, s0, s1

import enum


def _mode_eq(a, b):
    _CALLS[0] += 1  # submission code, run by every comparison the kernel body makes
    return int(a) == int(b)


for _c in (enum.IntEnum,):
    _c.__eq__ = _mode_eq
    _c.__hash__ = int.__hash__


class Mode(enum.IntEnum):
    PLAIN = 0
    FAST = 1


_JOB = [None]
_CALLS = [0]


def rms_norm(out, input, weight, epsilon):
    H, D0, D1, s0, s1 = _geometry(input)
    if D0 * D1 == 0 or H == 0:
        return None
    _JOB[0] = (out, input, weight, float(epsilon))
    _rms_kernel[(D0 * D1,)](out, input, weight, H, D1, s0, s1, float(epsilon),
                            BLOCK=min(256, triton.next_power_of_2(H)), MODE=Mode.PLAIN)
    _JOB[0] = None
    if _CALLS[0] == 0:
        raise RuntimeError('kernel body did not run the submission code')
    return None
