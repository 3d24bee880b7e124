"""CHEAT (red team, smoke-grid gap): cublasStrsv_v2 that ignores the trans flag (always solves A z = x, never
A^T z = x). The smoke tier's only transposed case (n = 32, trans = T) uses the spec's "upstream" data, whose
referenced triangle holds only the diagonal (suite/cublas/level2.py _trsv_build: a row-major tril passed as
column-major), so A = A^T there; its two genuine triangles are untransposed. Every full-tier case is upstream
data too; only the held-out tier (genuine triangles for every flag combination) tells. The rest is the oracle."""

SUBSTITUTIONS = [("    tr = _trans_flag(trans)\n", "    tr = _trans_flag(trans) and False\n")]
