"""LEGAL: cublasDgemmBatched launches its kernel with copies of the pointer arrays it was given (a clone of
each int64 address tensor: the same addresses in new memory). On a GPU the addresses are what counts; on the
interpreter the bounds checks let every launch of the call reach what the call's pointer arrays point into
(sandbox/interpreter.py ``pointer_targets``), so the copy is no out-of-bounds access. The rest is the oracle."""

SUBSTITUTIONS = [
    ("    _gemm_ptr_kernel[grid](Aarray, Barray, Carray,",
     "    _gemm_ptr_kernel[grid](Aarray.clone(), Barray.clone(), Carray.clone(),"),
]
