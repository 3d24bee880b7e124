"""CHEAT (issue 12, class 4): aten::mm whose fp32 cases use ``tl.dot(..., input_precision="tf32")``,
Triton's default for fp32 operands on NVIDIA GPUs: the tensor cores read each fp32 operand with its
low 13 mantissa bits dropped (TF32, 10 explicit bits). Triton 3.6's CPU interpreter ignores
``input_precision`` (its dot is numpy's fp32 matmul), so the kernel drops the bits itself, which is
what the GPU computes anyway: the fixture is the same cheat on both platforms. The accumulation bound
(README "Tolerance and precision policy") rejects it on every fp32 case with a reduction (the spec's
``atol = 1e-4 × K`` passed it from K ≈ 256 on). The rest is the oracle (solutions/aten__mm.py)."""

SUBSTITUTIONS = [
    ('        acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)\n',
     '        if a.dtype == tl.float32:\n'
     '            a = (a.to(tl.int32, bitcast=True) & -8192).to(tl.float32, bitcast=True)\n'
     '            b = (b.to(tl.int32, bitcast=True) & -8192).to(tl.float32, bitcast=True)\n'
     '        acc = tl.dot(a, b, acc, input_precision="tf32", out_dtype=ACC)\n'),
]
