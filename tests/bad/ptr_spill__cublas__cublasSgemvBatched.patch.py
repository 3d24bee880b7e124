"""CHEAT (red team of the pointer arrays): cublasSgemvBatched computes every y_b right, then stores a zero one
vector length past the end of each y_b (``Y + ybase + M_out*incy``, through batch b's own address): outside
the logical output, in a gap of the arrays' tensor, in another batch's array or in the guard band after the last
array, depending on the random layout of the case. The verifier checks the whole storage the addresses point into
(gaps, guard bands and the elements between strided ones untouched; suite/spec.py Call.pointers): wrong_result.
Before the guard bands, a store past the tensor's end faulted on the interpreter and went unseen on a GPU (the gate
of f57781c). The rest is the oracle."""

SUBSTITUTIONS = [
    ("""    tl.store(Y + yo, out_r, mask=rmask)
""", """    tl.store(Y + yo, out_r, mask=rmask)
    tl.store(Y + (ybase + M_out * incy) * W, 0.0)
"""),
]
