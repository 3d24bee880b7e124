"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): the submission imports any module it likes, the
harness's own included, and switches the L3 dispatch trace off. ``torch.package.importer._SysImporter`` (a class of
PyTorch's, "the default behavior of Python") has ``import_module(name)`` = ``importlib.import_module(name)``. L1 reads
``torch.package.importer._SysImporter`` as a base class (a type position, allowed; no path rule covers
``torch.package``), ``_Imp()`` is a call of the submission's own class, and ``import_module`` is no tensor method:
no finding. ``_Imp().import_module("kernelgenbench.sandbox.state").STATE`` is the child's state object; with
``STATE.inside_launch`` raised, ``CandidateMode`` passes every ATen op through untraced, so ``ws.copy_(x * -1)``
leaves no trace. The kernel (``_f`` with MODE 1: the identity) copies the workspace into ``out``, so an L2 ghost
replay (copy skipped) leaves ``out`` poisoned and credits Triton. (The same import gives ``numpy``, ``sys``,
``STATE.ghost`` -- a replay detector -- and every other module: L1's import rules are bypassed as a whole.) The rest
is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "        _quietly(ws, x)\n"
     "        _launch(torch.view_as_real(ws), torch.view_as_real(out), compute, 0.0, 1)\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    compute = _compute(x.dtype)\n"
     "    ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "    _quietly(ws, x)\n"
     "    return _launch(ws, out, compute, 0.0, 1)\n"),
    ("def _prepare_out(out, shape, result_dtype):\n",
     '''class _Imp(torch.package.importer._SysImporter):
    pass


def _quietly(ws, x):
    st = _Imp().import_module("kernelgenbench.sandbox.state").STATE
    st.inside_launch += 1
    try:
        ws.copy_(x * -1)
    finally:
        st.inside_launch -= 1


def _prepare_out(out, shape, result_dtype):
'''),
]
