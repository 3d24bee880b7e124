"""LEGAL in intent (red team of the list slots): vllm::copy_blocks in one launch for every cache of both lists by
stacking their addresses, as vLLM's own CUDA op does (``key_cache_ptrs[l] = key_caches[l].data_ptr()``): an int64
tensor of ``data_ptr()`` values built with ``torch.tensor`` (Python ints), loaded in the kernel and cast to
pointers of the element type. The kernel computes nothing on the host; the addresses only locate the caches the
call was given. The README refuses any ``data_ptr`` use beyond an alignment check (a raw pointer reaches kernels
unseen); the legal route is a tuple of tensors (tests/good/list_tuple_launch). The rest is the oracle."""

SUBSTITUTIONS = [
    ("""@triton.jit
def _copy_pairs_kernel(""", """@triton.jit
def _copy_stacked_kernel(ptrs_ptr, map_ptr, NPB, ELEM: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    layer = tl.program_id(2)
    base = tl.load(ptrs_ptr + layer).to(tl.pointer_type(ELEM))
    s = tl.load(map_ptr + 2 * i).to(tl.int64)
    d = tl.load(map_ptr + 2 * i + 1).to(tl.int64)
    off = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = off < NPB
    tl.store(base + d * NPB + off, tl.load(base + s * NPB + off, mask=m), mask=m)


@triton.jit
def _copy_pairs_kernel("""),
    ("""    for cache in list(key_caches) + list(value_caches):
        it = _INT[cache.element_size()]
        _copy_pairs_kernel[grid](cache.view(it), mapping, npb, BLOCK=_BLOCK, num_warps=4)
    return None""", """    caches = list(key_caches) + list(value_caches)
    ptrs = torch.tensor([c.data_ptr() for c in caches], dtype=torch.int64, device=mapping.device)
    elem = {1: tl.uint8, 2: tl.int16, 4: tl.int32, 8: tl.int64}[caches[0].element_size()]
    _copy_stacked_kernel[grid + (len(caches),)](ptrs, mapping, npb, ELEM=elem, BLOCK=_BLOCK, num_warps=4)
    return None"""),
]
