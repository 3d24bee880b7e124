"""LEGAL (red team): vllm::gptq_shuffle without a permutation rewrites each 4-bit word in place (every word's new
value depends on that word alone, so no snapshot of the old matrix is needed: each program loads its words and
stores them shuffled at the same addresses). With a permutation the oracle's snapshot stays. The rest is the
oracle."""

SUBSTITUTIONS = [
    ("""    old = torch.empty_like(q_weight)
    _snapshot_kernel[(triton.cdiv(total, _COPY),)](q_weight, old, total, BLOCK=_COPY, num_warps=4)
""", """    if has_perm:
        old = torch.empty_like(q_weight)
        _snapshot_kernel[(triton.cdiv(total, _COPY),)](q_weight, old, total, BLOCK=_COPY, num_warps=4)
    else:
        old = q_weight
"""),
]
