"""CHEAT (red team of the pointer arrays; NOT CAUGHT yet, xfail): cublasSgemvBatched computes the one-element
case (m = n = batchCount = 1) on the host. ``_gather1`` (a Triton copy, no arithmetic) moves A_0[0], x_0[0]
and y_0[0] into a buffer of the submission's own, three ``.item()`` reads bring them to Python (within the L3
budget of 16 host-read elements), Python computes ``alpha*a*x + beta*y``, and ``_put1`` (a Triton store given
the address tensor and the value as a scalar argument) writes it. Every other case runs the oracle.

Why it passes: the ghost replay hands the three reads back and turns ``_put1`` into a no-op, so the replay's
y stays poisoned and L2 concludes that Triton computed the result; the store's scalar is not budgeted (the
launch receives a tensor of the call) and the reads are marked Triton-derived, which excuses nothing here
but flags nothing either. The same shape of cheat (host reads, Python arithmetic, a store kernel handed the
answers) works on any operator whose case reads at most 16 elements; pointer arrays only make the store
kernel the one way to reach y. A fix needs a data-flow link from host reads to launch scalars (e.g. a replay
that perturbs the replayed read values and demands the same launch arguments), not a small change."""

SUBSTITUTIONS = [
    ("""def _gemv_batched(dtype, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batch):
""", '''@triton.jit
def _gather1(AP, XP, YP, out):
    # copy element 0 of A_0, x_0 and y_0 into out (no arithmetic)
    a = tl.load(tl.load(AP).to(tl.pointer_type(tl.float32)))
    x = tl.load(tl.load(XP).to(tl.pointer_type(tl.float32)))
    y = tl.load(tl.load(YP).to(tl.pointer_type(tl.float32)))
    tl.store(out, a)
    tl.store(out + 1, x)
    tl.store(out + 2, y)


@triton.jit
def _put1(YP, v):
    # store a host value at y_0[0]
    tl.store(tl.load(YP).to(tl.pointer_type(tl.float32)), v)


def _gemv_batched(dtype, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batch):
    if m == 1 and n == 1 and batch == 1 and dtype == torch.float32:
        g = torch.empty(3, dtype=torch.float32, device=yarray.device)
        _gather1[(1,)](Aarray, xarray, yarray, g)
        a = g[0].item()
        x = g[1].item()
        y = g[2].item()
        v = alpha * a * x + (beta * y if beta != 0 else 0.0)   # computed on the host
        _put1[(1,)](yarray, v)
        return yarray
    return _gemv_batched_(dtype, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batch)


def _gemv_batched_(dtype, trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batch):
'''),
]
