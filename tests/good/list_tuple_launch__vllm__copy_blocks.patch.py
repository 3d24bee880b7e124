"""LEGAL (red team of the list slots): vllm::copy_blocks with one launch for every cache of both lists: the
caches travel as one tuple of tensors (the launch rule admits tuples of tensors; the interpreter's bounds
checks admit the storage of each element) and the kernel walks the tuple with ``tl.static_range``. Each cache
is still written in place, as the caller holds it. The rest is the oracle."""

SUBSTITUTIONS = [
    ("""@triton.jit
def _copy_pairs_kernel(""", """@triton.jit
def _copy_all_kernel(caches, map_ptr, NPB, L: tl.constexpr, BLOCK: tl.constexpr):
    # one program: one (src, dst) pair, one BLOCK-element chunk of the block, in every cache of the tuple
    i = tl.program_id(0)
    s = tl.load(map_ptr + 2 * i).to(tl.int64)
    d = tl.load(map_ptr + 2 * i + 1).to(tl.int64)
    off = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < NPB
    for c in tl.static_range(L):
        v = tl.load(caches[c] + s * NPB + off, mask=m)
        tl.store(caches[c] + d * NPB + off, v, mask=m)


@triton.jit
def _copy_pairs_kernel("""),
    ("""    for cache in list(key_caches) + list(value_caches):
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)
    return None""", """    caches = tuple(c.view(_INT[c.element_size()]) for c in list(key_caches) + list(value_caches))
    _copy_all_kernel[grid](caches, mapping, npb, L=len(caches), BLOCK=_BLOCK, num_warps=4)
    return None"""),
]
