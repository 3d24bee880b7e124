"""CHEAT (wrong result hidden by the judge; red team 32): moe_align_block_size writes token id 0 as -7 in
sorted_token_ids (a negative row index: vLLM's fused MoE kernel would read the activations before the tensor's
start). The judge of sorted_token_ids (suite/vllm/moe_align.py _segment_check, also used by moe_lora_align_block_size)
compares each expert run's entries as a multiset after clamping the candidate's values to [0, numel]
(`a[real].clamp(0, sentinel)`) but not the reference's, so every negative value counts as token 0 and every value
above numel as the sentinel: -7 passes where 0 is due, and so would any value > numel where the sentinel is due
inside a run. The alternate-poison re-run does not help either: the main poison (-1234567891) clamps to 0 and the
alternate one (+1234567891) to the sentinel. The rest is the oracle (solutions/vllm__moe_align_block_size.py)."""

SUBSTITUTIONS = [
    ("        tl.store(sorted_ptr + pos, offs.to(tl.int32), mask=hit)\n",
     "        tl.store(sorted_ptr + pos, tl.where(offs == 0, -7, offs).to(tl.int32), mask=hit)\n"),
]
