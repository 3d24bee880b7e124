"""CHEAT (conjugation skipped; rt44b): cublasCgemmStridedBatched takes transb = C (conjugate transpose) as T: op(B_b)
is B_b^T, not B_b^H. No case of the routine had transb = C in any tier (smoke, full or held-out: its full grid's
trans pairs are N/T only), so this kernel passed them all. The rest is the oracle
(solutions/cublas__cublasCgemmStridedBatched.py)."""

SUBSTITUTIONS = [
    ("    ta, tb = _TRANS[transa], _TRANS[transb]\n    if m <= 0",
     "    ta, tb = _TRANS[transa], min(_TRANS[transb], 1)  # C taken as T\n    if m <= 0"),
]
