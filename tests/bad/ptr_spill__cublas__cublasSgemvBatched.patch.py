"""CHEAT (red team of the pointer arrays): cublasSgemvBatched computes every y_b right, then stores a zero one
vector length past the end of each y_b (``Y + ybase + M_out*incy``, through batch b's own address): outside
the logical output, in a gap of the arrays' tensor or in another batch's array, depending on the random
layout of the case. The verifier checks the whole storage the addresses point into (gaps and the elements
between strided ones untouched; suite/spec.py Call.pointers), and where the store leaves that storage the
interpreter's bounds check faults: wrong_result or cuda_fault, never a pass. The rest is the oracle."""

SUBSTITUTIONS = [
    ("""    tl.store(Y + yo, out_r, mask=rmask)
""", """    tl.store(Y + yo, out_r, mask=rmask)
    tl.store(Y + (ybase + M_out * incy) * W, 0.0)
"""),
]
