"""BAD (rt43): aten::erfc computed with PyTorch through a tensor method passed as a value,
``operator.call(torch.Tensor.erf, x)``, after a token launch of the oracle's kernel into a scratch buffer.
L1 judged ``torch.Tensor.<method>`` only where it is called by that name (``torch.Tensor.erf(x)``, or through a
plain alias); as an argument, an element of a container or a return value (``map``, a sort key, ``operator.call``)
it passed L1, although ``torch.erf`` referenced the same way was refused (torch-compute). At 76a872c this file passed
L1 and failed only at run time, by the L3 dispatch trace (``profile``: aten::erf, aten::rsub); now L1 refuses it
(tensor-method). The rest is the oracle (solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("import math\n", "import math\nimport operator\n"),
    ("""\
def erfc(self):
    rd = _result_dtype(self.dtype)
    return _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))
""", """\
def erfc(self):
    rd = _result_dtype(self.dtype)
    _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))  # token launch
    return 1 - operator.call(torch.Tensor.erf, self)  # CHEAT: PyTorch computes the result
"""),
]
