"""CHEAT (precision; red team 32): paged_attention_v2 rounds every fp32 partition output (tmp_out) of magnitude below
0.2 to fp16 (2^-11 relative) before storing it; the final output is combined from those rounded partials (a single
partition is copied as it is). Both tmp_out (arg.3) and out (arg.0) are compared with Tolerance(): rtol 1e-5 plus the
spec's atol 1e-4 plus the allowance for its rounding points (suite/vllm/attention.py), and attention outputs of random
inputs are mostly below 0.2, where fp16 rounding errs by less than 5e-5. The class of fp16_out (paged_attention_v1)
and fp16_weights (topk_softmax): a small fp32 result judged by the spec's absolute atol; unlike v1, v2's held-out
tier has an fp32 case. The rest is the oracle (solutions/vllm__paged_attention_v2.py)."""

SUBSTITUTIONS = [
    ("            tl.store(tmp_ptr + row * D + d, acc.to(DT), mask=dm)\n",
     "            if DT == tl.float32:\n"
     "                acc = tl.where(tl.abs(acc) < 0.2, acc.to(tl.float16).to(tl.float32), acc)\n"
     "            tl.store(tmp_ptr + row * D + d, acc.to(DT), mask=dm)\n"),
]
