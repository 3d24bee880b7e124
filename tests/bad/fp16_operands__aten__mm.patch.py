"""CHEAT (issue 12, class 4): aten::mm whose fp32 cases round both operands to fp16 before an fp32
``tl.dot`` (fp32 accumulation of fp16-rounded products: about 2^-11 relative error per product, the
error of a half-precision GEMM with an fp32 result). Under the spec's ``atol = 1e-4 × K`` it passed
from K ≈ 256 on; the accumulation bound (README "Tolerance and precision policy") rejects it on every
fp32 case with a reduction, the smoke tier's K = 32 and K = 24 included. fp16/bf16 cases are the
oracle's. The rest is the oracle (solutions/aten__mm.py)."""

SUBSTITUTIONS = [
    ('        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)\n',
     '        if a.dtype == tl.float32:\n'
     '            a = a.to(tl.float16).to(tl.float32)\n'
     '            b = b.to(tl.float16).to(tl.float32)\n'
     '        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)\n'),
]
