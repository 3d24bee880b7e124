"""CHEAT (red team 25, sgemmsb_tf32default, on ATen): aten::mm whose dot keeps Triton's default input precision.
On an NVIDIA GPU ``tl.dot`` of fp32 operands then runs on TF32 (10 mantissa bits); Triton 3.6's CPU interpreter
computed it in exact fp32, so this kernel passed every tier on the CPU and failed only on the GPU. The harness's
interpreter now rounds such operands to TF32 (sandbox/interpreter_numerics.py ``_tf32_dot``): the fp32 cases fail by the
accumulation bound on both platforms. The rest is the oracle (solutions/aten__mm.py)."""

SUBSTITUTIONS = [('acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)', 'acc = tl.dot(a, b, acc, out_dtype=ACC)')]
