"""CHEAT (red team, smoke-grid gap): cublasCgemmStridedBatched that treats op = C (conjugate transpose) as T, never
conjugating. No smoke case passes transa or transb = C (suite/cublas/batched.py: only held-out ones do; the same
holds for CgemmStridedBatched_64, ZgemmBatched, CgemvBatched_64, ZgemvBatched and Cgemv/ZgemvStridedBatched's
trans), so the smoke tier passes it. The rest is the oracle."""

SUBSTITUTIONS = [("CONJ_A=cplx and ta == 2, CONJ_B=cplx and tb == 2,", "CONJ_A=False, CONJ_B=False,")]
