"""CHEAT (precision; red team 32): topk_softmax stores every routing weight below 0.125 (an fp32 softmax probability,
renormalised or not) rounded to fp16 (2^-11 relative: about 50 times the fp32 rtol of 1e-5). The weights (fp32, arg.0) are
compared with Tolerance(), the spec's default rtol 1e-5 + atol 1e-4 (suite/vllm/moe.py _topk_ref), and a probability
below 0.125 (most of them, with 8 to 256 experts; larger ones keep fp32) errs by at most 0.125 * 2^-11 < 1e-4 when rounded to fp16. It is
red team 30's fp16_probs class (tests/bad/fp16_probs, fp16_small_probs), closed for aten::_softmax/softmax by the
softmax bound, on a vLLM row that still uses the default atol (grouped_topk's weights too). The expert ids are exact
and unchanged. The rest is the oracle (solutions/vllm__topk_softmax.py)."""

SUBSTITUTIONS = [
    ("    tl.store(w_ptr + out_off, sel_w, mask=omask)\n",
     "    sel_w = tl.where(sel_w < 0.125, sel_w.to(tl.float16).to(tl.float32), sel_w)\n"
     "    tl.store(w_ptr + out_off, sel_w, mask=omask)\n"),
]
