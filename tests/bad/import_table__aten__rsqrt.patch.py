"""Red team (issue 12 class 2, computation at import time): aten::rsqrt (the project's oracle) that
computes every fp16 answer once, at import, with PyTorch (``**`` on a tensor of all 65536 fp16 bit
patterns: operators on tensors pass L1, which leaves them to L3), and answers fp16 calls with a Triton
lookup kernel. The import ran outside the dispatch trace, and the lookup is a real kernel (an L2 replay
leaves the output poisoned), so this passed every tier. Caught by the import's dispatch trace (the
module runs under the trace of a call, sandbox/dispatch.py trace_import): aten::pow at import -> profile."""

SUBSTITUTIONS = [
    ("""_MAXD = 5
""", """_MAXD = 5

# every fp16 answer, by bit pattern (+32768), computed once with PyTorch
_LUT = torch.arange(-32768, 32768, dtype=torch.int16).view(torch.float16) ** -0.5
_LUT[0] = float("-inf")  # rsqrt(-0.0)


@triton.jit
def _lookup_kernel(bits_ptr, lut_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(bits_ptr + offs, mask=mask, other=0).to(tl.int32) + 32768
    tl.store(o_ptr + offs, tl.load(lut_ptr + idx, mask=mask), mask=mask)
"""),
    ("""    block, warps = _block(n, out.device)
    grid = (_cdiv(n, block),)
    if src.is_contiguous() and dst.is_contiguous():
""", """    block, warps = _block(n, out.device)
    grid = (_cdiv(n, block),)
    if x.dtype == torch.float16 and out.dtype == torch.float16 and x.is_contiguous() and out.is_contiguous():
        _lookup_kernel[grid](x.view(torch.int16), _LUT, out, n, BLOCK=block)
        return out
    if src.is_contiguous() and dst.is_contiguous():
"""),
]
