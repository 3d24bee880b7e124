"""CHEAT (red team 30, passes smoke 4/4 + held-out 3/4 with 1 unsupported, at 911fe82; the bf16 twin fails):
aten::_softmax whose fp32 results are rounded to fp16 (11 significant bits, relative error up to 2^-11 = 4.9e-4,
49 times fp32's rtol) before the store. The operator's tolerance is the spec's generic ``atol = 1e-4`` (reduce_dim
1) plus ``rtol 1e-5``: softmax probabilities are at most 1 and mostly far below it (1/row length), so the absolute
term hides fp16 rounding wherever a probability is below ~0.2. The rest is the oracle (solutions/aten___softmax.py)."""

SUBSTITUTIONS = [
    ("    y = e / s[None, :]\n",
     "    y = (e / s[None, :]).to(tl.float16).to(COMPUTE)\n"),
    ("        y = tl.exp(x - m[None, :]) / s[None, :]\n",
     "        y = (tl.exp(x - m[None, :]) / s[None, :]).to(tl.float16).to(COMPUTE)\n"),
]
