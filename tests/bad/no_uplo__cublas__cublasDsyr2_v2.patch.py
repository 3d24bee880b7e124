"""CHEAT (red team, smoke-grid gap): cublasDsyr2_v2 that ignores uplo and always updates the upper triangle. Every
smoke and full-tier case passes uplo = 1 (upper; the spec's upstream flags), so the smoke tier passes it; only
the held-out tier's uplo = 0 cases tell. The same gap holds for Dsbmv (smoke/full uplo = 1) and Csymv (smoke/full
uplo = 0). The rest is the oracle."""

SUBSTITUTIONS = [("LOWER=_UPLO[uplo] == 0,", "LOWER=False,")]
