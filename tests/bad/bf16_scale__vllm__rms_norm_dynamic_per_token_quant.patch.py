"""CHEAT (precision; red team 32): the int8 path of rms_norm_dynamic_per_token_quant stores every row's scale rounded
to bf16 (8 significant bits, 2^-9 relative: about 65000 units of the fp32 rtol) and quantizes with that scale. The
scale output (fp32 [N, 1]) is compared with Tolerance(), the spec's default: rtol 1e-5 plus atol 1e-4 (reduce_dim 1;
suite/vllm/norms.py _dpt_ref), and the scale is max|y|/127, about 0.02-0.06 for these inputs, so the absolute 1e-4
allows 0.2-0.5 % relative error: a bf16 scale (error at most 0.2 %) always passes; the int8 values, judged by the
upstream rule |q - ref| <= 1 with no bit-exact fraction (_int8_within_one), move by at most 127 * 2^-9 = 0.25. The
fp8 path keeps the oracle's scale (its values need 99.9 % bit-exact). The sibling scaled_fp8_quant judges its
per-token scales with atol 0 (rtol 1e-5 only); this row and rms_norm_per_block_quant kept the default atol. The rounding
bound (suite/vllm/norms.py scale_rule) catches it on the smoke tier's fp32 int8 case, whose 7 nonzero rows hold on every
draw a scale the bf16 rounding moves by more than rtol[fp32] (the fp16 cases allow two fp16 ulps of the row maximum and
missed it on ~6 % of the secret draws while that case had only its zero row). The rest is the oracle
(solutions/vllm__rms_norm_dynamic_per_token_quant.py)."""

SUBSTITUTIONS = [
    ("    scale = tl.maximum(tl.math.div_rn(a, QMAX), MINSF)\n",
     "    scale = tl.maximum(tl.math.div_rn(a, QMAX), MINSF)\n"
     "    if INT8:\n"
     "        scale = _rne_bf16(scale).to(tl.float32)\n"),
]
