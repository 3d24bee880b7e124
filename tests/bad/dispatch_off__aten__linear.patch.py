"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::linear computed by ATen (``x @ w.T + bias`` in
fp32, aten::mm/addmm and dtype conversions) inside ``with _Quiet():``, a subclass of ``torch._C._DisableTorchDispatch``
(read as a base class, which L1 allows, and called as the submission's own class): the Python dispatch key is off, so
the L3 dispatch trace never sees the GEMM; the channel of tests/bad/dispatch_off__aten__neg. The oracle's GEMM kernel
is never launched: ``_scatter4`` copies the workspace into ``y`` (any strides), so an L2 ghost replay (copy skipped)
leaves ``y`` poisoned and credits Triton. L3 trace: ``empty``/``resize_`` only. The rest is the oracle
(solutions/aten__linear.py)."""

SUBSTITUTIONS = [
    ('def _linear_into(x, w, bias, y):\n    """y (the output shape, any strides) = x @ w^T + bias, through strides only (no views)."""\n',
     '''class _Quiet(torch._C._DisableTorchDispatch):
    pass


@triton.jit
def _scatter4(src, dst, n, s1, s2, s3, d0, d1, d2, d3, BLOCK: tl.constexpr):
    lin = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = lin < n
    i3 = lin % s3
    r = lin // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    tl.store(dst + i0 * d0 + i1 * d1 + i2 * d2 + i3 * d3, tl.load(src + lin, mask=m), mask=m)


def _linear_into(x, w, bias, y):
    """y (the output shape, any strides) = x @ w^T + bias, through strides only (no views)."""
    ws = torch.empty(y.shape, dtype=y.dtype, device=y.device)
    with _Quiet():
        r = x.float() @ (w.float().T if w.dim() == 2 else w.float())
        if bias is not None:
            r = r + bias.float()
        ws.copy_(r.to(y.dtype).reshape(ws.shape))
    shape = [1] * (4 - y.dim()) + list(y.shape)
    st = [0] * (4 - y.dim()) + list(y.stride())
    n = ws.numel()
    if n:
        _scatter4[(triton.cdiv(n, 1024),)](ws, y, n, shape[1], shape[2], shape[3], st[0], st[1], st[2], st[3],
                                           BLOCK=1024)
    return
'''),
]
