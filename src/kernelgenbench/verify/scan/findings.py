"""L1 findings: one rule violation (:class:`Finding`), and how a rejection ranks and reports them."""
from __future__ import annotations

from dataclasses import dataclass

from .policy import RULE_RELEVANCE


@dataclass(frozen=True)
class Finding:
    """One rule violation.

    ``line`` (1-based) and ``col`` (0-based) locate the offending node; ``rule`` is a key of
    :data:`.policy.RULES`; ``message`` is one sentence that quotes the offending code of that line and ends
    with ``(rule <id>)``, e.g. ``line 12: torch.sum(x) computes with PyTorch; ... (rule torch-compute)``.
    """

    line: int
    col: int
    rule: str
    message: str


#: At most this many findings are listed in a rejection's message (the console, a reflection prompt),
#: and kept in a job record's ``anti_hack.L1.findings`` (which also counts them all).
MESSAGE_FINDINGS_MAX = 20
RECORD_FINDINGS_MAX = 100


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """``findings`` with the most relevant first: by rule (:data:`RULE_RELEVANCE`), then by position."""
    order = {rule: i for i, rule in enumerate(RULE_RELEVANCE)}
    return sorted(findings, key=lambda f: (order.get(f.rule, len(order)), f.line, f.col, f.message))


def _rule_counts(findings: list[Finding]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in rank_findings(findings):
        counts[f.rule] = counts.get(f.rule, 0) + 1
    return counts


def describe_findings(findings: list[Finding], header: str = "L1 static scan",
                      limit: int = MESSAGE_FINDINGS_MAX) -> str:
    """The message of a rejection: every finding (at most ``limit``), one a line, the most relevant
    first (:func:`rank_findings`), each naming its line and rule. One finding reads ``<header>:
    <finding>``; several read ``<header> (N findings, the most relevant first): <first>`` followed by
    the others, and, past ``limit``, a last line counting the rest by rule."""
    ranked = rank_findings(findings)
    if not ranked:
        return f"{header}: no finding"
    if len(ranked) == 1:
        return f"{header}: {ranked[0].message}"
    shown = ranked[:max(limit, 1)]
    lines = [f"{header} ({len(ranked)} findings, the most relevant first): {shown[0].message}"]
    lines += [f.message for f in shown[1:]]
    rest = ranked[len(shown):]
    if rest:
        counts = ", ".join(f"{rule} x{n}" for rule, n in _rule_counts(rest).items())
        lines.append(f"... and {len(rest)} more ({counts}); the job record keeps up to {RECORD_FINDINGS_MAX}")
    return "\n".join(lines)


def findings_record(findings: list[Finding], limit: int = RECORD_FINDINGS_MAX) -> dict[str, object]:
    """The L1 entry of a job record: ``ok``, ``count`` (all findings), ``rules`` (rule -> count, the most
    relevant first) and ``findings`` (the messages of at most ``limit``, the most relevant first)."""
    ranked = rank_findings(findings)
    return {"ok": not ranked, "count": len(ranked), "rules": _rule_counts(ranked),
            "findings": [f.message for f in ranked[:limit]]}
