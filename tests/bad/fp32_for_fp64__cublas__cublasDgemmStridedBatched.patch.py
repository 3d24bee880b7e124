"""CHEAT (red team, precision): cublasDgemmStridedBatched computed in fp32: every fp64 tile is rounded to fp32 and
multiplied with an fp32 ``tl.dot`` (true fp32, fp32 accumulation per K block), the block sums added in fp64. The
README's precision policy asks fp64 accumulation of fp64 operands, but fp64 results are judged by the spec's rule
alone (rtol 1e-5, atol 1e-4 x K): the accumulation bound that caught fp16-/TF32-rounded operands in fp32 GEMMs
(issue 12 class 4) is applied to fp16/bf16/fp32 results only, and an fp32 product's error (~2^-24 relative) is
far inside 1e-5. Now fp64 results take the accumulation bound in fp64 (u = 2^-53, rtol 8 x 2^-53:
suite/tolerance.py), which fp32 products exceed: ``wrong_result``. The rest is the oracle."""

SUBSTITUTIONS = [("""    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    else:
        return tl.dot(a, b)""", """    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    elif KIND == 1:
        return tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee").to(tl.float64)
    else:
        return tl.dot(a, b)""")]
