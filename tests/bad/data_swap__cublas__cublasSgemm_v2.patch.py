"""Red team (session 25, memory): cuBLAS Sgemm (the project's oracle) whose wrapper moves the caller's ``C`` onto
a fresh copy of its storage through the ``.data`` setter before the kernel writes it, then returns ``C`` (the
output argument itself, as the interface asks): the values are right, the caller's storage is never written.
Caught by L3's memory provenance (sandbox/dispatch.py replaced_storages) -> profile."""

SUBSTITUTIONS = [
    ("""def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
""", """def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    C.data = C.clone()
"""),
]
