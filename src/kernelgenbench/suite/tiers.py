"""Tiers of cases and tier selections (DESIGN.md "Tiers of cases"; issue 12, class 7).

A *tier selection* names the cases a job runs: one tier (``smoke``, ``full``, ``heldout``), ``all``
(the union of the three) or a comma list (``smoke,heldout``). :meth:`Operator.cases
<kernelgenbench.suite.spec.Operator.cases>` builds its cases; records, configs and resume keys hold
its canonical name (:func:`tier_name`). Nothing here imports torch: the command line reads the
defaults at start-up.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The tiers of cases (DESIGN.md "Tiers of cases"). ``smoke``: a few small cases per wrapper and dtype
#: class; ``full``: the paper's grid (the only tier with timed cases); ``heldout``: shapes, layouts and
#: overloads never shown in prompts or to self-checks.
TIERS = ("smoke", "full", "heldout")
#: The union of every tier (``kgb eval --tier all``): a verdict on it covers every case. Each case keeps
#: its own tier's id, parameters and seed; its timed cases are the full tier's.
ALL_TIERS = "all"
#: The tier final verdicts are judged on unless told otherwise: ``kgb generate`` (every sample's record)
#: and the agent track. A single tier is not a verdict: the full tier follows the original benchmark's
#: grid, which lacks cases the smoke and held-out tiers have (issue 12, class 7).
VERDICT_TIER = ALL_TIERS
#: The tiers whose cases may be shown (prompts, reflection feedback) and run by a submitter's own
#: checks (the agent track's self-check command). Never the held-out tier, nor a selection holding it.
SHOWN_TIERS = ("smoke", "full")


def shown_failure(record: dict) -> str:
    """A job record's first failure as every display of the harness shows it (the eval's tables and failure
    lines, ``kgb summary``, the LLM and agent tracks' summaries): its message, unless it names a case of a tier
    that is never shown (:data:`SHOWN_TIERS`): then the case id only (every display prints the record's class
    beside it), because the message carries the case's parameters (``case heldout/2 (t=4, k=2, ...)``). ``""``
    when the record has no failure. The record on disk keeps the whole message (``kgb repro`` and audits read it)."""
    ff = record.get("first_failure") or {}
    if not isinstance(ff, dict):
        return ""
    cid = ff.get("case_id")
    if cid and str(cid).split("/")[0] not in SHOWN_TIERS:
        return (f"case {cid}: held-out case: parameters and message withheld "
                f"(held-out cases are never shown)")
    return str(ff.get("message") or "")


def tier_parts(tier: str) -> tuple[str, ...]:
    """The single tiers a tier selection covers, in :data:`TIERS` order: ``"all"`` is every tier,
    ``"smoke,heldout"`` (a comma list, any order, repeats ignored) those tiers, ``"full"`` itself.

    Raises:
        ValueError: an empty selection or an unknown tier.
    """
    if not isinstance(tier, str):
        raise ValueError(f"a tier is a string, not {type(tier).__name__}")
    names = [t.strip() for t in tier.split(",")]
    if ALL_TIERS in names:
        names = [n for n in names if n != ALL_TIERS] + list(TIERS)
    bad = [n for n in names if n not in TIERS]
    if bad or not names:
        raise ValueError(f"unknown tier {tier!r}: expected {', '.join(TIERS)}, {ALL_TIERS} (every tier) or a "
                         f"comma list of tiers such as smoke,heldout")
    return tuple(t for t in TIERS if t in names)


def tier_name(tier: str) -> str:
    """The canonical name of a tier selection (what records, configs and resume keys hold): a single
    tier as is, every tier as ``"all"``, others as a comma list in :data:`TIERS` order
    (``"heldout, smoke"`` -> ``"smoke,heldout"``).

    Raises:
        ValueError: as :func:`tier_parts`.
    """
    parts = tier_parts(tier)
    return ALL_TIERS if parts == TIERS else ",".join(parts)


def tier_label(tier: str) -> str:
    """A tier selection for titles: ``"all (smoke + full + heldout)"``, ``"smoke + heldout"``,
    ``"smoke"``. A name that is not a tier selection (a record of another version) is shown as is."""
    try:
        parts = tier_parts(tier)
    except ValueError:
        return str(tier)
    return f"{ALL_TIERS} ({' + '.join(TIERS)})" if parts == TIERS else " + ".join(parts)


def verdict_scope(tier: str, unjudged_cases: int = 0, partly_judged: int = 0) -> str:
    """One sentence for a summary's footer: which tiers the verdicts of a run on ``tier`` cover, and, where passed
    jobs left cases unjudged (``unjudged_cases`` cases of ``partly_judged`` jobs: ``unsupported`` on the platform,
    ``metrics.group_summary``), that those verdicts cover their judged cases only (fresh user 28: "verdicts cover
    every tier" was printed over a passed job with 9 of its 34 cases never run)."""
    try:
        parts = tier_parts(tier)
    except ValueError:
        scope = f"verdicts cover the cases of tier {tier!r}"
    else:
        if parts == TIERS:
            scope = f"verdicts cover every tier ({', '.join(TIERS)})"
        else:
            missing = [t for t in TIERS if t not in parts]
            scope = (f"verdicts cover the {' and '.join(parts)} {'tier' if len(parts) == 1 else 'tiers'} only, not "
                     f"{' or '.join(missing)}: --tier {ALL_TIERS} judges every case")
    if unjudged_cases:
        jobs = f"{partly_judged} passed job{'s' if partly_judged != 1 else ''}"
        scope += (f"; except {unjudged_cases} case{'s' if unjudged_cases != 1 else ''} of {jobs} not judged on this "
                  f"platform (unsupported: a dtype it cannot compute or a case over the interpreter's size budget): "
                  f"those verdicts cover their judged cases only")
    return scope


@dataclass(frozen=True)
class Counts:
    """How many cases each tier of an operator has (the spec's counts with its corrections, as the row
    states them): ``smoke``, ``full`` (of which ``timed`` pass the timing gate) and ``heldout``.
    ``tests/test_rows.py`` checks them against the cases the row generates."""

    smoke: int
    full: int
    timed: int
    heldout: int

    def of(self, tier: str) -> int:
        """The count of one tier (``smoke``, ``full``, ``heldout``).

        Raises:
            KeyError: another tier name.
        """
        if tier not in TIERS:
            raise KeyError(f"no case count for tier {tier!r}; tiers are {', '.join(TIERS)}")
        return getattr(self, tier)
