"""LEGAL (red team of the pointer arrays): cublasSgemvBatched copies the three address tensors with a Triton
kernel into one int64 buffer of its own (``torch.empty``) and launches the GEMV kernel with slices of that buffer:
the addresses now live in memory a launch wrote, not in the harness's tensors. The interpreter's bounds checks
admit what the call's pointer arrays point into for every launch of the call. The rest is the oracle."""

SUBSTITUTIONS = [
    ("def _gemv_batched(", '''@triton.jit
def _copy_addresses(AP, XP, YP, out, NB, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < NB
    tl.store(out + i, tl.load(AP + i, mask=m), mask=m)
    tl.store(out + NB + i, tl.load(XP + i, mask=m), mask=m)
    tl.store(out + 2 * NB + i, tl.load(YP + i, mask=m), mask=m)


def _gemv_batched('''),
    ("""    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), batch)](
        Aarray, xarray, yarray, m_out,""", """    ptrs = torch.empty(3 * batch, dtype=torch.int64, device=Aarray.device)
    _copy_addresses[(1,)](Aarray, xarray, yarray, ptrs, batch, BLOCK=triton.next_power_of_2(batch))
    _gemv_ptr_kernel[(triton.cdiv(m_out, BM), batch)](
        ptrs[:batch], ptrs[batch:2 * batch], ptrs[2 * batch:], m_out,"""),
]
