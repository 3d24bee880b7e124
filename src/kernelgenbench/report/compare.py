"""``kgb compare RUN_A RUN_B``: each operator's verdict and speedup in two runs side by side, and what changed.

Changes (from A to B):

* ``newly passing`` / ``newly failing``: the status moved between failed (or unsupported) and passed;
* ``faster`` / ``slower``: passed in both, and the speedup ratio B / A is beyond the noise: above
  ``1 + noise`` or below ``1 / (1 + noise)``, where ``noise`` is the larger of ``--threshold`` (default 5 %)
  and each run's run-to-run timing spread of the operator (the median over its timed cases of the larger of
  the baseline's and the candidate's IQR / median, as the records carry it);
* ``same speed`` (passed in both, within the noise), ``passing`` (passed in both, untimed), ``still failing``
  (with the classes when they differ), ``unsupported``, ``only in A`` / ``only in B``.
"""
from __future__ import annotations

from typing import Any

from .load import OpResult, Run
from .model import Column, Report, Table, check_tiers

#: The order changes are listed in (the summary table; the operators table sorts by it).
CHANGES = ("newly failing", "slower", "newly passing", "faster", "still failing", "same speed", "passing",
           "unsupported", "only in A", "only in B")
DEFAULT_THRESHOLD = 0.05


def change(a: OpResult | None, b: OpResult | None, threshold: float = DEFAULT_THRESHOLD) -> tuple[str, float | None,
                                                                                                   float | None]:
    """What changed for one operator from ``a`` to ``b``: ``(change, ratio B/A or None, noise used or None)``."""
    if a is None:
        return "only in B", None, None
    if b is None:
        return "only in A", None, None
    if a.solved and not b.solved:
        return ("newly failing" if b.status == "failed" else "unsupported"), None, None
    if b.solved and not a.solved:
        return "newly passing", None, None
    if not a.solved:
        if a.status == "failed" and b.status == "failed":
            return "still failing", None, None
        return "unsupported", None, None
    if not (a.speedup and b.speedup):
        return "passing", None, None
    ratio = b.speedup / a.speedup
    noise = max([threshold] + [s for s in (a.spread, b.spread) if s is not None])
    if ratio > 1 + noise:
        return "faster", ratio, noise
    if ratio < 1 / (1 + noise):
        return "slower", ratio, noise
    return "same speed", ratio, noise


def _status(o: OpResult | None) -> str | None:
    if o is None:
        return None
    if o.status == "failed":
        return f"failed: {o.failure_class or 'unknown'}" + (f" ({o.failure_case})" if o.failure_case else "")
    return o.status


def compare_runs(a: Run, b: Run, threshold: float = DEFAULT_THRESHOLD, allow_mixed_tiers: bool = False,
                 one_sided: bool = False) -> Report:
    """The comparison as a :class:`~.model.Report` of two tables (``changes``: the counts; ``compare``: the
    operators), rendered like ``kgb report``'s.

    ``one_sided``: list operators that only one run holds as rows of ``compare`` too. By default they are only
    counted (in ``changes`` and a note of ``compare``), so that comparing a run of a few operators with a run of the
    whole suite does not open with hundreds of "only in" rows (fresh user 35).

    Raises:
        RunDirError: the runs' verdicts cover different tiers and ``allow_mixed_tiers`` is False.
    """
    from ..suite.tiers import tier_label

    banners = check_tiers([a, b], allow_mixed_tiers)
    if a.platform != b.platform:
        banners.append(f"the runs were judged on different platforms ({a.platform}, {b.platform}): speedups are "
                       f"against each platform's own baseline")
    rows: list[dict[str, Any]] = []
    for op in sorted(set(a.ops) | set(b.ops)):
        oa, ob = a.ops.get(op), b.ops.get(op)
        what, ratio, noise = change(oa, ob, threshold)
        if what == "still failing" and oa and ob and oa.failure_class != ob.failure_class:
            what_text = f"still failing ({oa.failure_class} -> {ob.failure_class})"
        else:
            what_text = what
        rows.append({"op": op, "source": (oa or ob).source, "status_a": _status(oa), "status_b": _status(ob),  # type: ignore[union-attr]
                     "speedup_a": oa.speedup if oa else None, "speedup_b": ob.speedup if ob else None,
                     "ratio": ratio, "noise": noise, "change": what, "change_text": what_text})
    rows.sort(key=lambda r: (CHANGES.index(r["change"]), r["op"]))
    counts = [{"change": c, "operators": sum(1 for r in rows if r["change"] == c),
               "which": [r["op"] for r in rows if r["change"] == c]} for c in CHANGES]
    counts = [c for c in counts if c["operators"]]
    sided = {c: sum(1 for r in rows if r["change"] == c) for c in ("only in A", "only in B")}
    if not one_sided and any(sided.values()):
        rows = [r for r in rows if r["change"] not in sided]
        for c in counts:
            if c["change"] in sided:
                c["which"] = c["which"][:8] + ([f"... {c['operators'] - 8} more"] if c["operators"] > 8 else [])
    la = f"A = {a.path} ({a.kind}, {a.platform}, tier {tier_label(a.tier) if a.tier else 'mixed'})"
    lb = f"B = {b.path} ({b.kind}, {b.platform}, tier {tier_label(b.tier) if b.tier else 'mixed'})"
    notes = [la, lb, f"faster/slower: speedup B/A beyond the noise = max(--threshold {threshold:.0%}, each run's "
                     "timing spread of the operator: median over its timed cases of "
                     "max(baseline, candidate) IQR/median)",
             "failed: the failure class and the case it first failed on (case ids only: parameters are not shown)"]
    if rows and all(r["speedup_a"] is None and r["speedup_b"] is None for r in rows):
        notes.append(f"speedups, B/A and noise: no value, neither run timed an operator (only full-tier cases on a GPU "
                     f"are timed; A: {a.platform}, tier {tier_label(a.tier) if a.tier else 'mixed'}; B: {b.platform}, "
                     f"tier {tier_label(b.tier) if b.tier else 'mixed'}): the comparison is of verdicts only")
    if not one_sided and any(sided.values()):
        notes.append(f"operators in one run only are not listed here ({sided['only in A']} only in A, "
                     f"{sided['only in B']} only in B; --one-sided lists them)")
    tables = [
        Table("compare", "Operators of A and B side by side", [
            Column("op", "operator"), Column("source", "source"), Column("status_a", "A"), Column("status_b", "B"),
            Column("speedup_a", "speedup A", "x"), Column("speedup_b", "speedup B", "x"), Column("ratio", "B/A", "x"),
            Column("noise", "noise", "pct"), Column("change_text", "change")], rows, notes),
        Table("changes", "What changed from A to B",
              [Column("change", "change"), Column("operators", "operators", "int"),
               Column("which", "which", "list")], counts, [la, lb]),
    ]
    systems = [{**a.describe(), "key": "A"}, {**b.describe(), "key": "B"}]
    for s, r in zip(systems, (a, b)):
        s["tier_label"] = tier_label(r.tier) if r.tier else "mixed"
    return Report(systems=systems, tables=tables, banners=banners, operators={},
                  options={"threshold": threshold, "allow_mixed_tiers": allow_mixed_tiers},
                  title="KernelGenBench comparison")
