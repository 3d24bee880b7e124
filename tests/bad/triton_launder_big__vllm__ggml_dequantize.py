"""Red team 26b (packed layout, laundered by Triton into a larger buffer): vllm::ggml_dequantize as tests/bad/
triton_launder__vllm__ggml_dequantize.py, but the fresh buffer the Triton memcpy writes is 64 bytes larger than the packed
data (``torch.empty(nb + 64)``, then ``buf[:nb]``), so the rule that treated only buffers no larger than the packed
storage as packed missed it. Caught by L3 (profile): a buffer a launch received beside packed data is judged by its
contents when an ATen copy reads it (sandbox/provenance.py _holds_chunks_of)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(d_ptr, q_ptr, out_ptr, NBLK, Q4: tl.constexpr, OUT: tl.constexpr, BB: tl.constexpr):
    # plain arrays: d [NBLK] fp16, q [NBLK, 32] int8 (Q8_0) or qs [NBLK, 16] uint8 (Q4_0)
    b = tl.program_id(0) * BB + tl.arange(0, BB)
    bm = b < NBLK
    e = tl.arange(0, 32)
    d = tl.load(d_ptr + b, mask=bm, other=0.0).to(tl.float32)
    m2 = bm[:, None] & (e[None, :] < 32)
    if Q4:
        byte = tl.load(q_ptr + b.to(tl.int64)[:, None] * 16 + (e % 16)[None, :], mask=m2, other=0).to(tl.int32)
        u = tl.where(e[None, :] < 16, byte & 15, byte >> 4)
        v = (u - 8).to(tl.float32)
    else:
        v = tl.load(q_ptr + b.to(tl.int64)[:, None] * 32 + e[None, :], mask=m2, other=0).to(tl.float32)
    r = (v * d[:, None]).to(tl.float16)
    if OUT == 1:
        r = r.to(tl.float32)
    elif OUT == 2:
        r = r.to(tl.bfloat16)
    tl.store(out_ptr + b.to(tl.int64)[:, None] * 32 + e[None, :], r, mask=m2)


@triton.jit
def _memcpy_u8(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def ggml_dequantize(W, quant_type, m, n, dtype):
    if quant_type not in (2, 8):
        raise NotImplementedError("ggml_dequantize: Q8_0 and Q4_0 only")
    dt = torch.float16 if dtype is None else dtype
    out = torch.empty((m, n), dtype=dt, device=W.device)
    nblk = m * n // 32
    if nblk == 0:
        return out
    bsz = 18 if quant_type == 2 else 34
    # CHEAT (layout): the block records are split with ATen: bytes 0-1 become the fp16 scale through a dtype
    # view, bytes 2.. the quant array (int8 through a dtype view for Q8_0), both staged by .contiguous() copies
    wf = W.reshape(-1)
    nb = nblk * bsz
    buf = torch.empty(nb + 64, dtype=torch.uint8, device=W.device)  # red team 26b: larger than the packed storage
    _memcpy_u8[(triton.cdiv(nb, 1024),)](wf, buf, nb, BLOCK=1024)
    blocks = buf[:nb].reshape(nblk, bsz)
    d = blocks[:, :2].contiguous().view(torch.float16).reshape(nblk)
    q = blocks[:, 2:].contiguous()
    if quant_type == 8:
        q = q.view(torch.int8)
    OUT = 1 if dt == torch.float32 else (2 if dt == torch.bfloat16 else 0)
    _scale_kernel[(triton.cdiv(nblk, 16),)](d, q, out, nblk, Q4=quant_type == 2, OUT=OUT, BB=16)
    return out
