"""Taking the submission out of a model's reply (issue 4, item 2).

The rule: the **last complete** fenced code block tagged ``python`` (also ``py``, ``python3``;
any case) is the submission. A block is complete when its closing fence is present. Only when the
reply has no tagged block at all, the last complete *untagged* block is taken. A reply with no
complete block is a ``no_code`` failure; a reply the server cut at the token limit with no complete
block is a ``truncated`` failure (a truncated reply whose last complete block precedes the cut is
still graded, and flagged as truncated in ``samples.jsonl``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Failure classes of the LLM track, recorded like the harness's (``verify.failures.FAILURE_CLASSES``).
LLM_FAILURE_CLASSES: dict[str, str] = {
    "no_code": "the reply holds no complete ```python code block",
    "truncated": "the reply was cut at the token limit before a complete ```python code block",
}

_PY_TAGS = {"python", "py", "python3"}
# An opening fence at the start of a line (up to 3 spaces of indent), its info string, the body, and
# a closing fence of at least as many backticks at the start of a line.
_FENCE = re.compile(r"^[ ]{0,3}(?P<fence>`{3,})[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)^[ ]{0,3}(?P=fence)`*[ \t]*$",
                    re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Extraction:
    """The outcome of extracting code from one reply.

    Attributes:
        code: the submission's source (ends with a newline), or None.
        status: ``"ok"``, ``"no_code"`` or ``"truncated"``.
        truncated: the server reported the reply as cut at the token limit.
        blocks: complete fenced blocks found (any tag).
    """

    code: str | None
    status: str
    truncated: bool
    blocks: int


def code_blocks(text: str) -> list[tuple[str, str]]:
    """Every complete fenced block of ``text`` in order, as ``(info tag lower-cased, body)``."""
    return [(m.group("info").strip().split(" ")[0].lower(), m.group("body")) for m in _FENCE.finditer(text or "")]


def extract_code(text: str | None, truncated: bool = False) -> Extraction:
    """Extract the submission from a reply.

    Args:
        text: the reply text (None counts as empty).
        truncated: the server said the reply hit the token limit (``finish_reason == "length"``,
            ``stop_reason == "max_tokens"``).
    """
    blocks = code_blocks(text or "")
    tagged = [body for tag, body in blocks if tag in _PY_TAGS]
    untagged = [body for tag, body in blocks if tag == ""]
    pick = tagged[-1] if tagged else (untagged[-1] if untagged else None)
    if pick is None or not pick.strip():
        return Extraction(None, "truncated" if truncated else "no_code", truncated, len(blocks))
    return Extraction(pick.rstrip() + "\n", "ok", truncated, len(blocks))
