"""CHEAT (red team, precision): cublasDgemmStridedBatched on TF32 tensor cores: every fp64 tile is rounded to fp32
with its mantissa cut to TF32's 10 bits (made explicit, so the interpreter computes what a GPU's default
``tl.dot`` on fp32 does) and multiplied with an fp32 accumulator. fp64 results are judged by the spec's rule alone
(rtol 1e-5, atol 1e-4 x K); the accumulation bound that catches TF32 in fp32 GEMMs was not applied to fp64
then. Now fp64 results take it in fp64 (suite/tolerance.py): ``wrong_result``. The rest is the oracle."""

SUBSTITUTIONS = [("""    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    else:
        return tl.dot(a, b)""", """    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    elif KIND == 1:
        a32 = (a.to(tl.float32).to(tl.uint32, bitcast=True) & 0xFFFFE000).to(tl.float32, bitcast=True)
        b32 = (b.to(tl.float32).to(tl.uint32, bitcast=True) & 0xFFFFE000).to(tl.float32, bitcast=True)
        return tl.dot(a32, b32, input_precision="ieee").to(tl.float64)
    else:
        return tl.dot(a, b)""")]
