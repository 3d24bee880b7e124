import torch
import triton
import triton.language as tl

_BLOCK = 512


@triton.jit
def _recode_kernel(w_ptr, z_ptr, out_ptr, TOTAL, WN, GS, HAS_Z: tl.constexpr, BLOCK: tl.constexpr):
    # every nibble v of a word becomes v - z if v >= z else 15 - v (z = 8, or the AWQ zero point's nibble)
    off = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < TOTAL
    w = tl.load(w_ptr + off, mask=m, other=0).to(tl.uint32, bitcast=True)
    if HAS_Z:
        k = off // WN
        zw = tl.load(z_ptr + (k // GS) * WN + off % WN, mask=m, other=0).to(tl.uint32, bitcast=True)
    acc = tl.zeros([BLOCK], dtype=tl.uint32)
    for i in tl.static_range(8):
        v = (w >> (4 * i)) & 15
        if HAS_Z:
            z = (zw >> (4 * i)) & 15
        else:
            z = tl.full([BLOCK], 8, tl.uint32)
        nv = tl.where(v >= z, v - z, 15 - v)
        acc = acc | (nv << (4 * i))
    tl.store(out_ptr + off, acc.to(tl.int32, bitcast=True), mask=m)


def marlin_int4_fp8_preprocess(qweight, qzeros_or_none=None, inplace=False):
    out = qweight if inplace else torch.empty_like(qweight)
    total = qweight.numel()
    if total == 0:
        return out
    has_z = qzeros_or_none is not None
    if has_z:
        k, wn = qweight.shape
        gs = k // qzeros_or_none.shape[0]
        z = qzeros_or_none.contiguous()
    else:
        wn, gs, z = 1, 1, qweight
    _recode_kernel[(triton.cdiv(total, _BLOCK),)](qweight, z, out, total, wn, gs, HAS_Z=has_z, BLOCK=_BLOCK,
                                                   num_warps=4)
    return out
