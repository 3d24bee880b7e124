"""Legal (red-team regression): the aten::huber_loss oracle with its operands broadcast by
``torch.broadcast_tensors``, which makes expanded views only (aten::expand, no copy, no compute).
L1 once rejected it as PyTorch compute; it must pass. The rest is the oracle
(solutions/aten__huber_loss.py)."""

SUBSTITUTIONS = [
    ("    shape = list(torch.broadcast_shapes(*(a.shape for a in ins)))\n",
     "    ins = list(torch.broadcast_tensors(*ins))  # LEGAL: expanded views only (aten::expand)\n"
     "    shape = list(ins[0].shape)\n"),
]
