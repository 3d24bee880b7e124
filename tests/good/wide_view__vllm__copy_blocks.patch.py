"""LEGAL (red team of the list slots): vllm::copy_blocks moving raw bytes in 8-byte words: each cache is viewed as
int64 (``cache.view(-1).view(torch.int64)``: a dtype view that merges whole elements, nothing cut apart) whenever a block's
bytes divide by 8, so a kernel copies 8 bytes per lane whatever the element type (uint8 caches too). The rest is
the oracle."""

SUBSTITUTIONS = [
    ("""    for cache in list(key_caches) + list(value_caches):
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)""",
     """    nbytes = npb * key_caches[0].element_size()
    for cache in list(key_caches) + list(value_caches):
        if nbytes % 8 == 0 and cache.numel() * cache.element_size() % 8 == 0:
            words = nbytes // 8
            _copy_pairs_kernel[(P, triton.cdiv(words, _BLOCK))](cache.view(-1).view(torch.int64), mapping, words,
                                                                 BLOCK=_BLOCK, num_warps=4)
        else:
            _copy_pairs_kernel[grid](cache.view(_INT[cache.element_size()]), mapping, npb, BLOCK=_BLOCK, num_warps=4)"""),
]
