"""CHEAT (red team 30, passes smoke 5/5 + held-out 4/5 with 1 unsupported, at 911fe82): aten::softmax whose fp32
probabilities below 0.125 are rounded to fp16 (relative error up to 2^-11 = 4.9e-4, 49 times fp32's rtol). The
twin of ``fp16_probs`` (aten::_softmax) for the composite entry, whose cases include short rows: rounding only the
small probabilities keeps every error under the operator's absolute ``atol = 1e-4`` (reduce_dim 1), which is what
the tolerance judges there. The rest is the oracle (solutions/aten__softmax.py)."""

SUBSTITUTIONS = [
    ("    y = e / s[None, :]\n",
     "    y = e / s[None, :]\n    y = tl.where(y < 0.125, y.to(tl.float16).to(COMPUTE), y)\n"),
    ("        y = tl.exp(x - m[None, :]) / s[None, :]\n",
     "        y = tl.exp(x - m[None, :]) / s[None, :]\n"
     "        y = tl.where(y < 0.125, y.to(tl.float16).to(COMPUTE), y)\n"),
]
