"""CHEAT (red team, precision): cublasCgemm_v2 on TF32 tensor cores wherever K >= 128 (true fp32 below, where the
smoke tier's short K would tell): the real and imaginary tiles are rounded to TF32's 10 mantissa bits (round to
nearest, made explicit so the interpreter computes what a GPU's default ``tl.dot`` on fp32 does) before fp32
``tl.dot``s. The row says "compute in true fp32, no TF32", but complex64 results are judged by the spec's rule
alone (rtol 1.3e-6, atol 1e-4 x K): the accumulation bound that fails TF32 in Sgemm is applied to real fp16/fp32
results only. An fp64 emulation of the full tier's shapes stays within 0.86 of that tolerance at K = 128 and 0.66
at K = 256 (randn parts). The smoke tier (K <= 20) never reaches the TF32 path; the rest is the oracle. Now complex64 results take the
fp32 bound per component (suite/tolerance.py): caught where K >= 128 (tests/test_accumulation_bound.py), still
an expected pass on the smoke tier (tests/test_bad_submissions.py XFAIL)."""

SUBSTITUTIONS = [
    ("""    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    else:
        return tl.dot(a, b)""", """    if KIND == 0:
        return tl.dot(a, b, input_precision="ieee")
    elif KIND == 3:
        a32 = ((a.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)
        b32 = ((b.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)
        return tl.dot(a32, b32, input_precision="ieee")
    else:
        return tl.dot(a, b)"""),
    ("    BK = 16 if kind == 1 else 32\n",
     "    BK = 16 if kind == 1 else 32\n    if kind == 0 and k >= 128:\n        kind = 3\n"),
]
