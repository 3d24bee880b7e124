"""Aggregate metrics (DESIGN.md; the paper's scoring): accuracy, two-level geometric-mean speedup,
median and interquartile mean (IQM) over solved operators.

Two-level geomean: an operator's speedup is the geometric mean over its timed cases (first level,
computed per job); a set of operators scores the geometric mean of those per-operator speedups
over the *solved* operators (second level). Failed operators have no speedup.
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Sequence


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive finite values, or None when there are none."""
    vals = [float(v) for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def iqm(values: Sequence[float]) -> float | None:
    """Interquartile mean: the mean of the middle 50 % of the sorted values (the lowest and highest
    quarters dropped, fractional weights at the boundaries, as in Agarwal et al. 2021)."""
    vals = sorted(float(v) for v in values)
    n = len(vals)
    if n == 0:
        return None
    if n < 4:
        return statistics.fmean(vals)
    lo, hi = 0.25 * n, 0.75 * n
    total = 0.0
    for i, v in enumerate(vals):
        w = max(0.0, min(i + 1, hi) - max(i, lo))
        total += w * v
    return total / (hi - lo)


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def latest_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (operator, submission label, tier, platform): the last one written."""
    seen: dict[tuple, dict[str, Any]] = {}
    for r in records:
        seen[(r.get("op"), r.get("label") or r.get("submission"), r.get("tier"), r.get("platform"))] = r
    return list(seen.values())


def group_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy and speedup statistics of one group of job records.

    Returns:
        ``operators`` (judged), ``passed``, ``accuracy`` (passed / judged, in [0, 1]),
        ``unsupported`` (jobs no case of which could be judged on the platform),
        ``geomean_speedup`` (two-level, over solved operators with a speedup), ``median_speedup``,
        ``iqm_speedup``, ``timed_operators``, ``failure_classes`` (class -> count), ``unjudged_cases`` (cases of
        passed jobs that were not judged: ``unsupported`` on the platform, a dtype it cannot compute or a case over
        the interpreter's size budget) and ``partly_judged`` (the passed jobs with such cases): a passed verdict
        covers its judged cases only. ``by_baseline``: :func:`speedups_by_baseline` of the passed jobs.
    """
    judged = [r for r in records if r.get("status") in ("passed", "failed")]
    passed = [r for r in judged if r.get("status") == "passed"]
    speeds = [float(r["speedup"]) for r in passed if r.get("speedup")]
    fails: dict[str, int] = {}
    for r in judged:
        if r.get("status") == "failed":
            fails[r.get("failure_class") or "unknown"] = fails.get(r.get("failure_class") or "unknown", 0) + 1
    return {
        "operators": len(judged), "passed": len(passed),
        "accuracy": (len(passed) / len(judged)) if judged else None,
        "unsupported": sum(1 for r in records if r.get("status") == "unsupported"),
        "timed_operators": len(speeds),
        "geomean_speedup": geomean(speeds), "median_speedup": median(speeds), "iqm_speedup": iqm(speeds),
        "failure_classes": fails,
        "unjudged_cases": sum(_unsupported_cases(r) for r in passed),
        "partly_judged": sum(1 for r in passed if _unsupported_cases(r)),
        "by_baseline": speedups_by_baseline(passed),
    }


def speedups_by_baseline(passed: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The speedup statistics of passed jobs split by the kind of baseline each was timed against (vLLM:
    ``vllm``, ``native-compiled``, ``native-eager``; suite/baselines.py): kind -> ``timed_operators``,
    ``geomean_speedup``, ``median_speedup``, ``iqm_speedup``. Empty where no record names a kind (ATen and cuBLAS
    have one baseline each): a speedup against eager PyTorch and one against vLLM's kernel are different measures,
    so a group that mixes kinds reports each beside the pooled geomean."""
    from .suite.baselines import baseline_kind

    by: dict[str, list[float]] = {}
    for r in passed:
        kind = baseline_kind(r.get("baseline"))
        if kind and r.get("speedup"):
            by.setdefault(kind, []).append(float(r["speedup"]))
    return {k: {"timed_operators": len(v), "geomean_speedup": geomean(v), "median_speedup": median(v),
                "iqm_speedup": iqm(v)} for k, v in sorted(by.items())}


def _unsupported_cases(rec: dict[str, Any]) -> int:
    """How many of a job record's cases are ``unsupported`` (not judged on its platform)."""
    return sum(1 for c in rec.get("cases") or [] if isinstance(c, dict) and c.get("status") == "unsupported")


def time_breakdown(records: list[dict[str, Any]]) -> dict[str, float]:
    """Seconds summed over jobs, per phase (the records' ``time_s``), plus ``jobs_wall_s``.

    ``candidate_s`` is the time the sandbox spent inside candidate calls during correctness cases
    and ``timing_s`` the timing commands; everything else is harness overhead (scan, import and
    compile, input building and references, serialisation, judging, ghost replay, profiling).
    """
    out: dict[str, float] = {}
    for r in records:
        for k, v in (r.get("time_s") or {}).items():
            out[k] = out.get(k, 0.0) + float(v)
        out["jobs_wall_s"] = out.get("jobs_wall_s", 0.0) + float(r.get("wall_s") or 0.0)
    return {k: round(v, 2) for k, v in out.items()}


def operator_row(rec: dict[str, Any]) -> dict[str, Any]:
    """One operator's row of ``summary.json``'s ``per_operator`` from its verdict record: op, source, status
    (passed, failed, unsupported), failure_class, the case it first failed on (``failure_case``), cases
    (total, passed, unsupported), speedup (geomean over its timed cases; None untimed), sol_pct (median % of
    speed-of-light), tier (the selection judged), wall_s (the job's seconds), baseline (what the timing compared
    against, as recorded), baseline_kind (vLLM: ``vllm``, ``native-compiled`` or ``native-eager``; else None) and,
    for a record merged of case shards (``kgb eval --shard-cases``), shards (how many)."""
    from .suite.baselines import baseline_kind

    ff = rec.get("first_failure") or {}
    return {"op": rec.get("op"), "source": rec.get("source"), "status": rec.get("status"),
            "failure_class": rec.get("failure_class"), "failure_case": ff.get("case_id"),
            "cases": {"total": rec.get("cases_total", 0), "passed": rec.get("cases_passed", 0),
                      "unsupported": rec.get("cases_unsupported", 0)},
            "speedup": rec.get("speedup"), "sol_pct": rec.get("sol_pct"), "tier": rec.get("tier"),
            "wall_s": rec.get("wall_s"), "baseline": rec.get("baseline"),
            "baseline_kind": baseline_kind(rec.get("baseline")),
            **({"shards": rec["shards"]} if rec.get("shards") else {})}


def operator_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`operator_row` of the latest record of every job, sorted by source and operator."""
    rows = [operator_row(r) for r in latest_records(records)]
    return sorted(rows, key=lambda r: (str(r["source"]), str(r["op"])))


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per-source and overall summaries of the latest record of every job."""
    recs = latest_records(records)
    out: dict[str, Any] = {"by_source": {}, "overall": group_summary(recs), "time_s": time_breakdown(recs)}
    for src in ("aten", "vllm", "cublas"):
        group = [r for r in recs if r.get("source") == src]
        if group:
            out["by_source"][src] = group_summary(group)
    return out
