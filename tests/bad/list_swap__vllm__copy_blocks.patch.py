"""Red team (pointer arrays and list slots): vllm::copy_blocks (the project's oracle) that writes no cache the
caller holds: each cache is cloned, the clone gets the block copies (Triton), and the clone replaces the cache
in the caller's list (``key_caches[i] = clone``). The child used to report the list as it stood after the call,
so the judge compared the clones and the case passed; the real operator writes the caches in place. The child
now judges the tensors the case passed (sandbox/child.py ``given_lists``/``as_given``): they are unwritten ->
wrong_result."""

SUBSTITUTIONS = [
    ("""    for cache in list(key_caches) + list(value_caches):
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)
    return None""", """    for caches in (key_caches, value_caches):
        for i in range(len(caches)):
            cache = caches[i].clone()
            it = _INT[cache.element_size()]
            _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)
            caches[i] = cache  # a new tensor in the caller's list: the caller's caches are never written
    return None"""),
]
