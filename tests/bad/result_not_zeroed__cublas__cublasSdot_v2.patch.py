"""CHEAT (red team, smoke-grid gap): cublasSdot_v2 that adds its sum into ``result`` with ``tl.atomic_add`` instead
of overwriting it, i.e. relies on the caller's result holding 0. Every smoke (and full) case passes a zeroed result
(suite/cublas/decl.py build_call: ``result`` arrays are zeros unless ``nan_result``); only the held-out NaN-result
case tells. The same holds for Dasum. The rest is the oracle."""

SUBSTITUTIONS = [("    tl.store(out_ptr, tl.sum(acc, axis=0))                  # overwrites whatever result held\n",
                  "    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))\n")]
