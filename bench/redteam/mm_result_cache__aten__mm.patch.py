"""RED TEAM (kept for measurement, not a solution): the aten::mm oracle plus a cross-call result cache
(a closure dict keyed by shapes and four sampled values read with .item(); a hit launches the same
kernel with HIT set, which copies the cached result). It passes correctness and L1-L3; with timed
repetitions on reused inputs every timed call would be a cache hit. bench/h200_checks.sh times it
on the full tier to show that fresh inputs per timed repetition leave it no hits.
"""
SUBSTITUTIONS = [
    ('               sam, sak, sbk, sbn, scm, scn,\n',
     '               sam, sak, sbk, sbn, scm, scn, src_ptr, HIT,\n'),
    ('    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n',
     '    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n    if HIT != 0:  # answer from the cache: a plain copy of an earlier result (contiguous)\n        cm = (rm[:, None] < M) & (rn[None, :] < N)\n        v = tl.load(src_ptr + rm[:, None] * N + rn[None, :], mask=cm, other=0.0)\n        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, v, mask=cm)\n        return\n'),
    ('def _mm_into(a, b, c):\n',
     'def _make_cache():\n    cache = {}   # closure state: survives across calls, invisible to the module-cache rule\n\n    def lookup(key):\n        return cache.get(key)\n\n    def remember(key, t):\n        cache[key] = t\n    return lookup, remember\n\n\n_lookup, _remember = _make_cache()\n\n\ndef _key(a, b, c):\n    vals = ()\n    if a.numel() and b.numel():\n        vals = (a[0, 0].item(), a[-1, -1].item(), b[0, 0].item(), b[-1, -1].item())\n    return (tuple(a.shape), tuple(b.shape), a.stride(), b.stride(), str(a.dtype), str(c.dtype), vals)\n\n\ndef _mm_into(a, b, c):\n'),
    ('    grid = (_cdiv(M, BM) * _cdiv(N, BN),)\n',
     '    grid = (_cdiv(M, BM) * _cdiv(N, BN),)\n    key = _key(a, b, c)\n    hit = _lookup(key)\n'),
    ('                     c.stride(0), c.stride(1),\n',
     '                     c.stride(0), c.stride(1), c if hit is None else hit, 0 if hit is None else 1,\n'),
    ('                     num_warps=warps, num_stages=stages)\n    return c\n',
     '                     num_warps=warps, num_stages=stages)\n    if hit is None:\n        _remember(key, c.contiguous().clone())\n    return c\n'),
]
