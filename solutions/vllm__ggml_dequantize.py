import torch
import triton
import triton.language as tl

_BLOCKS = 64   # GGUF blocks (32 elements each) per program


@triton.jit
def _dequant_kernel(w_ptr, out_ptr, nblocks, BPB: tl.constexpr, IS_Q4: tl.constexpr, BLOCKS: tl.constexpr):
    pid = tl.program_id(0)
    blk = pid.to(tl.int64) * BLOCKS + tl.arange(0, BLOCKS)
    bm = blk < nblocks
    j = tl.arange(0, 32)
    base = blk * BPB
    # fp16 scale: two little-endian bytes at the block start (2-byte aligned at best: load bytes)
    b0 = tl.load(w_ptr + base, mask=bm, other=0).to(tl.uint16)
    b1 = tl.load(w_ptr + base + 1, mask=bm, other=0).to(tl.uint16)
    d = (b0 | (b1 << 8)).to(tl.float16, bitcast=True).to(tl.float32)
    m2 = bm[:, None]
    if IS_Q4:
        # element j < 16: low nibble of byte j; element j + 16: high nibble of byte j
        byte = tl.load(w_ptr + base[:, None] + 2 + (j[None, :] % 16), mask=m2, other=0).to(tl.int32)
        q = ((byte >> ((j[None, :] // 16) * 4)) & 15) - 8
    else:
        q = tl.load(w_ptr + base[:, None] + 2 + j[None, :], mask=m2, other=0).to(tl.int8, bitcast=True).to(tl.int32)
    # q * d is exact in fp32; one rounding to fp16 (overflow to +-inf), then the output dtype
    v = (q.to(tl.float32) * d[:, None]).to(tl.float16)
    tl.store(out_ptr + blk[:, None] * 32 + j[None, :], v.to(out_ptr.dtype.element_ty), mask=m2)


def ggml_dequantize(W, quant_type, m, n, dtype):
    if quant_type not in (2, 8):
        raise ValueError(f"ggml_dequantize: quant_type {quant_type} not supported (2 = Q4_0, 8 = Q8_0)")
    if n % 32:
        raise ValueError(f"ggml_dequantize: n = {n} is not a multiple of 32")
    out = torch.empty((m, n), dtype=dtype or torch.float16, device=W.device)
    nblocks = m * n // 32
    if nblocks == 0:
        return out
    w = W.reshape(-1)
    _dequant_kernel[(triton.cdiv(nblocks, _BLOCKS),)](w, out, nblocks, BPB=18 if quant_type == 2 else 34,
                                                       IS_Q4=quant_type == 2, BLOCKS=_BLOCKS, num_warps=4)
    return out
