"""CHEAT (red team): aten::eq that never stores a True result. Its out= buffers and the tensors it
allocates are poisoned with True before the call (the main bool poison), so every element whose
result is True already "holds" it: the kernel stores only the False results (``mask & (r == 0)``)
and passes every comparison as long as the harness never re-runs with the alternate poison (False).
The rest is the oracle (solutions/aten__eq.py)."""

SUBSTITUTIONS = [
    ("    tl.store(o_ptr + offs, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    tl.store(o_ptr + offs, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask & (r == 0))\n"),
    ("    tl.store(o_ptr + oo, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    tl.store(o_ptr + oo, r.to(RES).to(o_ptr.dtype.element_ty), mask=mask & (r == 0))\n"),
]
