"""Legal (session 25's second red team, a false rejection of the packed-input rule): vllm::ggml_moe_a8 (the
project's oracle) that first stages the packed GGUF weights expert by expert, ``Wc[e].copy_(W[e])`` into a buffer
of the same dtype: every byte lands where it was in its own storage, so nothing is unpacked (the copy's sides
are slices, a mapping of the candidate's making, but ggml_moe_a8 is not a data-movement operator)."""

SUBSTITUTIONS = [
    ("""    x = X[:tokens].contiguous()
    xq, xd, xs = _quantize_q8_1(x)
""", """    Wc = torch.empty_like(W)
    for e in range(W.shape[0]):
        Wc[e].copy_(W[e])
    W = Wc
    x = X[:tokens].contiguous()
    xq, xd, xs = _quantize_q8_1(x)
"""),
]
