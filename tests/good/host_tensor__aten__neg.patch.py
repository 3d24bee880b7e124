"""Legal (issue 11, item 2.2): the aten::neg oracle whose strided kernel reads the coalesced sizes and
strides from a device table built per call with ``torch.tensor`` from Python ints (a shape/stride
table, a common style in real Triton code). Building a tensor from Python numbers is data movement,
like ``torch.full``, not computation; L1 rejected it as PyTorch compute (``torch-compute``) and now
allows ``torch.tensor``/``torch.as_tensor``/``x.new_tensor`` of data it proves is made of Python
numbers. The dispatch trace sees ``aten::lift_fresh`` for it, which L3 judges (host-built tensor data
counts against a per-call budget: verify/profile.py ``HOST_DATA_BUDGET``). The rest is the oracle
(solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
""", """\
@triton.jit
def _strided_table_kernel(x_ptr, o_ptr, meta_ptr, n, p0, COMPUTE: tl.constexpr, MODE: tl.constexpr,
                          BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # meta: s1..s4, xs0..xs4, os0..os4 (int64), the strided kernel's scalar arguments as a table
    s1 = tl.load(meta_ptr + 0)
    s2 = tl.load(meta_ptr + 1)
    s3 = tl.load(meta_ptr + 2)
    s4 = tl.load(meta_ptr + 3)
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    i4 = lin % s4
    r = lin // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    xo = (i0 * tl.load(meta_ptr + 4) + i1 * tl.load(meta_ptr + 5) + i2 * tl.load(meta_ptr + 6)
          + i3 * tl.load(meta_ptr + 7) + i4 * tl.load(meta_ptr + 8))
    oo = (i0 * tl.load(meta_ptr + 9) + i1 * tl.load(meta_ptr + 10) + i2 * tl.load(meta_ptr + 11)
          + i3 * tl.load(meta_ptr + 12) + i4 * tl.load(meta_ptr + 13))
    x = tl.load(x_ptr + xo, mask=mask, other=0).to(COMPUTE)
    tl.store(o_ptr + oo, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
"""),
    ("""\
    _strided_kernel[grid](src, dst, n, p0, *sizes[1:], *xs, *ost, COMPUTE=compute, MODE=mode, BLOCK=block,
                          USE_I64=big, num_warps=warps)
""", """\
    # LEGAL: a shape/stride table built from Python ints (data movement, like torch.full)
    meta = torch.tensor(sizes[1:] + xs + ost, dtype=torch.int64, device=dst.device)
    _strided_table_kernel[grid](src, dst, meta, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block, USE_I64=big,
                                num_warps=warps)
"""),
]
