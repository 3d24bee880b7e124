"""The kinds of baseline a vLLM operator can be timed against (issue 14 item 4; README "Baselines"). Nothing
here imports torch: the command line and the summaries read it.

* ``vllm``: vLLM's own kernel (``vllm._custom_ops``), the paper's baseline;
* ``native-compiled``: the operator's native PyTorch reference under ``torch.compile`` (compiled before the
  timed loop), used where vLLM does not import;
* ``native-eager``: the native reference run eagerly (where compilation fails for that operator, or forced).
"""
from __future__ import annotations

#: Best first; ``kgb eval --baseline KIND`` forces one.
BASELINE_KINDS = ("vllm", "native-compiled", "native-eager")


def baseline_kind(label: str | None) -> str | None:
    """The kind (one of :data:`BASELINE_KINDS`) that a recorded baseline label starts with, or None (another
    source's baseline, or no label)."""
    head = (label or "").split(" ", 1)[0].rstrip(";")
    return head if head in BASELINE_KINDS else None
