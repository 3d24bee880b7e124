"""LEGAL (packed-layout rule, Operator.packed_args): vllm::ggml_dequantize reading the GGUF records through dtype
views of W handed straight to the kernel: the fp16 scale of each record as element blk * BPB / 2 of
``w.view(torch.float16)`` (records of 18 and 34 bytes keep it 2-byte aligned), the Q8_0 quants through
``w.view(torch.int8)``, the Q4_0 bytes through W itself. The wrapper first takes a private copy of W exactly as
given (``W.reshape(-1).clone()``: the whole argument in its own order, as a ``.contiguous()`` of a strided W
would be). Views are pointer casts and a copy as given rearranges nothing: no mark. The rest is the oracle."""

SUBSTITUTIONS = [
    ("def _dequant_kernel(w_ptr, out_ptr,", "def _dequant_kernel(w_ptr, wh_ptr, wi_ptr, out_ptr,"),
    ("""    b0 = tl.load(w_ptr + base, mask=bm, other=0).to(tl.uint16)
    b1 = tl.load(w_ptr + base + 1, mask=bm, other=0).to(tl.uint16)
    d = (b0 | (b1 << 8)).to(tl.float16, bitcast=True).to(tl.float32)
""", """    d = tl.load(wh_ptr + blk * (BPB // 2), mask=bm, other=0.0).to(tl.float32)
"""),
    ("        q = tl.load(w_ptr + base[:, None] + 2 + j[None, :], mask=m2, other=0).to(tl.int8, bitcast=True)",
     "        q = tl.load(wi_ptr + base[:, None] + 2 + j[None, :], mask=m2, other=0)"),
    ("""    w = W.reshape(-1)
    _dequant_kernel[(triton.cdiv(nblocks, _BLOCKS),)](w, out,""", """    w = W.reshape(-1).clone()
    _dequant_kernel[(triton.cdiv(nblocks, _BLOCKS),)](w, w.view(torch.float16), w.view(torch.int8), out,"""),
]
