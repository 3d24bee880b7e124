"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::neg computed by ATen (``x * -1``) with Python
dispatch switched off, so the L3 dispatch trace (a TorchDispatchMode) never sees it; the Triton kernel only copies.
``torch._C._DisableTorchDispatch`` called directly is an L1 finding (torch-compute), and through a loop variable too
(tests/bad/class_value), but a *subclass* of it is not: L1 reads a base class as a type position
(``verify/scan/scanner.py`` ``_type_positions``: base classes are "used as a type, never called") and calling the
submission's own class is allowed, while the C class is subclassable. Inside ``with _Quiet():`` the Python dispatch
key is excluded: ``CandidateMode`` sees neither the ``aten::mul`` nor the ``copy_``. The kernel (``_f`` with MODE 1:
the identity) copies the workspace into ``out``; an L2 ghost replay skips that copy, leaves ``out`` poisoned and
credits Triton. L3 trace: ``empty`` only. The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "        with _Quiet():\n"
     "            ws.copy_(x * -1)\n"
     "        _launch(torch.view_as_real(ws), torch.view_as_real(out), compute, 0.0, 1)\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    compute = _compute(x.dtype)\n"
     "    ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "    with _Quiet():\n"
     "        ws.copy_(x * -1)\n"
     "    return _launch(ws, out, compute, 0.0, 1)\n"),
    ("def _prepare_out(out, shape, result_dtype):\n",
     "class _Quiet(torch._C._DisableTorchDispatch):\n    pass\n\n\ndef _prepare_out(out, shape, result_dtype):\n"),
]
