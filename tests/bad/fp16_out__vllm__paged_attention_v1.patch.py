"""CHEAT (precision; red team 32): paged_attention_v1 rounds every fp32 output element of magnitude below 0.2 to fp16
(2^-11 relative, about 50 times the fp32 rtol of 1e-5) before storing it. The output (fp32 cases, arg.0) is compared
with Tolerance(): rtol 1e-5 plus atol 1e-4 plus an allowance for the spec's rounding points (suite/vllm/attention.py),
and an attention output is a softmax-weighted mean of value rows, of magnitude about 1/sqrt(context) for random
inputs: most elements are below 0.2, where fp16 rounding errs by at most 0.2 * 2^-12 < 5e-5. The class of
fp16_weights (topk_softmax) and of red team 30's fp16_probs: an fp32 result of small magnitude judged by the spec's
absolute atol 1e-4, which the softmax bound replaced for aten::_softmax/softmax only. The rest is the oracle
(solutions/vllm__paged_attention_v1.py)."""

SUBSTITUTIONS = [
    ("    else:\n        r = acc.to(DT)\n    tl.store(out_ptr + (s * HQ + qh) * D + d, r, mask=dm)\n",
     "    else:\n        r = acc.to(DT)\n"
     "        if DT == tl.float32:\n"
     "            r = tl.where(tl.abs(r) < 0.2, r.to(tl.float16).to(tl.float32), r)\n"
     "    tl.store(out_ptr + (s * HQ + qh) * D + d, r, mask=dm)\n"),
]
