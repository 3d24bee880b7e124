"""CHEAT (precision; red team 31; passes smoke and held-out at 9d4a324): soft_margin_loss's mean and sum reductions
add every per-element loss rounded to fp16 (2^-11 relative, about 50 times the fp32 rtol of 1e-5), also for fp32
inputs; reduction 0 (elementwise, judged by atol 1e-4) keeps the oracle's fp32 terms. The losses family compares a
mean or sum with rtol[dtype] * |result| + 1e-4 (reduce_dim 1, suite/aten/losses.py), where the sum is large: the
rounding errors of the terms, of random sign, add up to about sqrt(n) * 2^-12 * |term| (0.04 on the held-out tier's
257 x 129 fp32 sum of about 2.7e4, whose rtol alone allows 0.27). The accumulation bound that catches fp16-rounded
terms in aten::sum/mean (README "Tolerance and precision policy") is not applied to the losses. The rest is the
oracle (solutions/aten__soft_margin_loss.py)."""

SUBSTITUTIONS = [
    ("        acc += tl.where(mask, loss, 0.0)\n",
     "        acc += tl.where(mask, loss.to(tl.float16).to(COMPUTE), 0.0)\n"),
]
