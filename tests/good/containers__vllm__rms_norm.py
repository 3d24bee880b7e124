# Legit: sorts a Python list of block sizes and uses a set; L1 once rejected it (.sort()/.add() judged as tensor
# methods) and now proves the names plain Python first (verify/scan/scope.py): it must pass
import torch
import triton
import triton.language as tl


@triton.jit
def _k(out_ptr, in_ptr, w_ptr, H, stride_row, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(in_ptr + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / H + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32) * w
    tl.store(out_ptr + row * H + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def _block(H):
    cands = [4096, 64, 1024, 256, 16384]
    cands.sort()
    seen = set()
    for c in cands:
        seen.add(c)
        if c >= H:
            return c
    return triton.next_power_of_2(H)


def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
    x2 = input.reshape(-1, H)
    _k[(x2.shape[0],)](out, x2, weight, H, x2.stride(0), float(epsilon), BLOCK=_block(H))
