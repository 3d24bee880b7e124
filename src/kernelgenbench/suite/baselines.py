"""The kinds of baseline a vLLM operator can be timed against (issue 14 item 4; README "Baselines"). Nothing
here imports torch: the command line and the summaries read it.

* ``vllm``: vLLM's own kernel (``vllm._custom_ops``), the paper's baseline;
* ``native-compiled``: the operator's native PyTorch reference under ``torch.compile`` (compiled before the
  timed loop), used where vLLM does not import;
* ``native-eager``: the native reference run eagerly (where compilation fails for that operator, or forced).
"""
from __future__ import annotations

import contextlib
from typing import Iterator

#: Best first; ``kgb eval --baseline KIND`` forces one.
BASELINE_KINDS = ("vllm", "native-compiled", "native-eager")


def baseline_kind(label: str | None) -> str | None:
    """The kind (one of :data:`BASELINE_KINDS`) that a recorded baseline label starts with, or None (another
    source's baseline, or no label)."""
    head = (label or "").split(" ", 1)[0].rstrip(";")
    return head if head in BASELINE_KINDS else None


#: set while the sandbox child makes a case's baseline ahead of the job's timing (:func:`making_ahead`)
_AHEAD = [False]


@contextlib.contextmanager
def making_ahead() -> Iterator[None]:
    """While the sandbox child makes a case's baseline before the job's first timed case (sandbox/child.py
    ``run_ahead``): a compiled baseline that cannot keep its graphs apart from the other cases' raises
    :class:`NotIsolated` instead of dropping theirs (suite/vllm/common.py ``_compiled``)."""
    _AHEAD[0] = True
    try:
        yield
    finally:
        _AHEAD[0] = False


def ahead() -> bool:
    """Whether a baseline is being made ahead (:func:`making_ahead`)."""
    return _AHEAD[0]


class NotIsolated(RuntimeError):
    """A compiled baseline made ahead whose reference compiles into frames other than its case's own (a graph break:
    dynamo compiles the rest of the reference as frames whose code, and so whose cache and recompile limit, every
    case shares), so that it cannot live beside the other cases' baselines: the job's baselines are made in their
    cases instead, each after a ``torch._dynamo.reset()`` as before."""
