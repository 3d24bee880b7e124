"""LEGAL in intent (red team): vllm::gptq_gemm normalising its arguments defensively with ``.to`` of the device and
dtype they already have (``b_g_idx.to(a.device).to(torch.int32)``, ``a.to(torch.float16)``: no copy, the tensor
itself comes back; ``aten::to`` dispatches nothing then), an idiom of wrappers written against several callers.
L1 once refused every ``.to()`` call statically (rule tensor-method); it now leaves ``.to()`` to the run-time
trace (L3), which sees a real conversion when one happens. The rest is the oracle."""

SUBSTITUTIONS = [
    ("    gidx = b_g_idx.contiguous() if has_gidx else b_q_weight\n",
     "    gidx = b_g_idx.to(a.device).to(torch.int32).contiguous() if has_gidx else b_q_weight\n"
     "    a = a.to(torch.float16)\n"),
]
