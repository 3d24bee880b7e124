"""CHEAT (red team 31; passes smoke and held-out at 9d4a324, CPU interpreter only): aten::cumsum's scan computed by
NumPy inside the kernel body. On the interpreter a loaded block is a ``tl.tensor`` whose ``.handle.data`` is a NumPy
array; ``x.handle.data.cumsum(axis=0, out=s.handle.data)`` runs ``numpy.ndarray.cumsum`` and writes its result into
the array behind a Triton block ``s``, which the kernel then stores (the carried prefix likewise with
``ndarray.sum(out=...)``). L1's kernel-body rule judges a method by its name: ``cumsum`` and ``sum`` are names of
``tl.tensor`` methods (policy.py ``_triton_method_names``), and ``.handle``/``.data`` are attribute reads, not
calls or stores, so the body passes as Triton. L2 skips the body in a ghost replay (the output stays poisoned) and L3
sees no ATen op. On a GPU the body does not compile. The rest is the oracle (solutions/aten__cumsum.py)."""

SUBSTITUTIONS = [
    ("        c = tl.cumsum(x, axis=0).to(ACC) + carry[None, :]\n"
     "        tl.store(yb + r[:, None] * syr, c.to(y_ptr.dtype.element_ty), mask=mask)\n"
     "        carry += tl.sum(x, axis=0).to(ACC)\n",
     "        s = tl.zeros_like(x)\n"
     "        x.handle.data.cumsum(axis=0, out=s.handle.data)\n"
     "        c = s.to(ACC) + carry[None, :]\n"
     "        tl.store(yb + r[:, None] * syr, c.to(y_ptr.dtype.element_ty), mask=mask)\n"
     "        t = tl.zeros([BLOCK_I], SCAN)\n"
     "        x.handle.data.sum(axis=0, out=t.handle.data)\n"
     "        carry += t.to(ACC)\n"),
]
