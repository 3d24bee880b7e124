"""CHEAT: cublasSgemvBatched computes every y_b right, then moves the first address of the pointer array
``yarray`` it was given by one element (a pointer array is an input, cublas.md §2.2: a caller reusing it would
then read and write the wrong memory). The harness built the address tensor in the sandbox right before the
call (suite/spec.py ``bind_pointers``) and reads it back afterwards (``unbind_result``): the changed address
fails the case (``PointerArrayTampered``, a run-time error of the call). The rest is the oracle."""

SUBSTITUTIONS = [
    ("        BM=BM, BK=32, num_warps=4)\n    return yarray\n",
     "        BM=BM, BK=32, num_warps=4)\n    yarray[0] += 4\n    return yarray\n"),
]
