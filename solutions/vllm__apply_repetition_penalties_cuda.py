import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _rne_bf16(v):
    # fp32 -> bf16 round-to-nearest-even on the bits (the CPU interpreter's cast truncates)
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _penalty_kernel(logits_ptr, pm_ptr, om_ptr, pen_ptr, V, BLOCK: tl.constexpr, SOFT_BF16: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inb = cols < V
    off = row * V + cols
    pm = tl.load(pm_ptr + off, mask=inb, other=0)
    om = tl.load(om_ptr + off, mask=inb, other=0)
    hit = inb & ((pm != 0) | (om != 0))
    x_raw = tl.load(logits_ptr + off, mask=hit, other=0.0)
    x = x_raw.to(tl.float32)
    p = tl.load(pen_ptr + row).to(tl.float32)
    # IEEE division for positive logits (not a multiply by 1/p), one product otherwise
    y = tl.where(x > 0.0, tl.math.div_rn(x, tl.zeros_like(x) + p), x * p)
    if SOFT_BF16:
        yt = _rne_bf16(y)
    else:
        yt = y.to(logits_ptr.dtype.element_ty)
    tl.store(logits_ptr + off, yt, mask=hit)


def apply_repetition_penalties_cuda(logits, prompt_mask, output_mask, repetition_penalties):
    S, V = logits.shape
    if S == 0 or V == 0:
        return None
    soft = logits.dtype == torch.bfloat16 and logits.device.type == "cpu"
    # the CPU interpreter runs one program at a time: few large programs there
    block = min(triton.next_power_of_2(V), 1 << 16) if logits.device.type == "cpu" else _BLOCK
    grid = (S, triton.cdiv(V, block))
    _penalty_kernel[grid](logits, prompt_mask.view(torch.uint8), output_mask.view(torch.uint8),
                          repetition_penalties, V, BLOCK=block, SOFT_BF16=soft, num_warps=4)
    return None

