"""Scores of an LLM run (issue 4, item 5): pass@1 / pass@k, speedups over solved operators, tokens
and wall-clock, per source and overall.

Definitions
-----------
* A *sample* is one independent attempt at an operator; with reflection it has up to R rounds
  (round 0 is the first request). A sample is **correct** when any of its rounds passed.
* **Early stopping** (the default when n == k): sampling an operator stops at its first correct
  sample, so pass@k = 1 if one of its first k samples is correct, else 0, and pass@1 = whether
  sample 0 is correct.
* Without early stopping (n > k samples drawn per operator), pass@k is the unbiased estimator of
  Chen et al. 2021, ``1 - C(n-c, k) / C(n, k)`` over the n judged samples with c correct, and
  pass@1 = c / n.
* An operator's **speedup** is the speedup (geometric mean over its timed cases) of its first
  correct sample; the group's is the geometric mean over solved operators (two-level geomean),
  with median and IQM beside it. None on platforms without timing.
* **Tokens**: input (cached and cache-written included) + output (reasoning included), summed over
  every request of the group's operators; per solved operator = that total / solved operators.
* **Wall-clock**: request time (retries and backoff included) + evaluation time, summed over the
  group's samples; per solved operator = that total / solved operators.
* Operators whose every sample was ``unsupported`` on the platform are left out of accuracy and
  counted apart, as in ``kgb eval``.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from ..metrics import geomean, iqm, median
from ..suite.tiers import shown_failure

TOKEN_FIELDS = ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator (Chen et al. 2021): probability that at least one of k samples
    drawn without replacement from n samples, c of them correct, is correct.

    For n < k (fewer samples than k) it is 1 when c > 0, else 0.

    Raises:
        ValueError: n < 1, k < 1, or c outside [0, n].
    """
    if n < 1 or k < 1 or not 0 <= c <= n:
        raise ValueError(f"pass_at_k needs n >= 1, k >= 1, 0 <= c <= n; got n={n}, c={c}, k={k}")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def _latest(records: Iterable[dict[str, Any]], tier: str, platform: str) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if r.get("tier") == tier and r.get("platform") == platform:
            out[(r.get("op"), r.get("label"))] = r
    return out


def operator_scores(op_id: str, source: str, samples: list[dict[str, Any]],
                    records: dict[tuple[str, str], dict[str, Any]], k: int, early_stop: bool,
                    error: str | None = None) -> dict[str, Any]:
    """Scores of one operator from its sample lines and their evaluation records.

    Args:
        op_id: the operator.
        source: its source.
        samples: its lines of ``samples.jsonl`` (latest per sample id).
        records: evaluation records by ``(op, label)``.
        k: the k of pass@k.
        early_stop: whether sampling stopped at the first correct sample.
        error: a request error that stopped the operator's sampling, if any.
    """
    by_sample: dict[int, list[tuple[int, dict[str, Any], dict[str, Any] | None]]] = {}
    for s in samples:
        by_sample.setdefault(int(s["sample"]), []).append((int(s["round"]), s, records.get((op_id, s["label"]))))
    per_sample: list[dict[str, Any]] = []
    tokens: dict[str, int | None] = dict.fromkeys(TOKEN_FIELDS, None)  # None: never reported
    total_tokens = 0
    wall = 0.0
    responses = 0
    failure_classes: dict[str, int] = {}
    for i in sorted(by_sample):
        rounds = sorted(by_sample[i], key=lambda t: t[0])
        status, solved_round, speedup, last_fail = "pending", None, None, None
        for r, s, rec in rounds:
            u = s.get("usage") or {}
            for f in TOKEN_FIELDS:
                if u.get(f) is not None:
                    tokens[f] = (tokens[f] or 0) + int(u[f])
            total_tokens += int(u.get("input_tokens") or 0) + int(u.get("output_tokens") or 0)
            wall += float((s.get("timing") or {}).get("total_s") or 0.0)
            responses += 1
            if rec is None:
                continue
            wall += float(rec.get("wall_s") or 0.0)
            st = rec.get("status")
            if st == "failed":
                cls = rec.get("failure_class") or "unknown"
                failure_classes[cls] = failure_classes.get(cls, 0) + 1
                last_fail = {"round": r, "failure_class": rec.get("failure_class"),
                             "message": shown_failure(rec)[:300]}
            if status == "passed":
                continue
            # A sample's verdict is its first passing round, else its last judged round.
            if st == "passed":
                status, solved_round, speedup = "passed", r, rec.get("speedup")
            elif st in ("failed", "unsupported"):
                status = st
        per_sample.append({"sample": i, "status": status, "rounds": len(rounds), "solved_round": solved_round,
                           "speedup": speedup, "last_failure": last_fail if status != "passed" else None,
                           "round0_passed": bool(rounds and rounds[0][0] == 0 and rounds[0][2] is not None
                                                 and rounds[0][2].get("status") == "passed")})
    judged = [s for s in per_sample if s["status"] in ("passed", "failed")]
    correct = [s for s in judged if s["status"] == "passed"]
    if correct:
        status = "solved"
    elif judged:
        status = "failed"
    elif any(s["status"] == "unsupported" for s in per_sample):
        status = "unsupported"
    else:
        status = "not_run"
    p1 = pk = p1_first_round = None
    if judged:
        if early_stop:
            first = next((s for s in per_sample if s["sample"] == 0), None)
            if first is not None and first["status"] in ("passed", "failed"):
                p1 = 1.0 if first["status"] == "passed" else 0.0
                p1_first_round = 1.0 if first["round0_passed"] else 0.0
            pk = 1.0 if any(s["sample"] < k for s in correct) else 0.0
        else:
            p1 = len(correct) / len(judged)
            p1_first_round = sum(1 for s in judged if s["round0_passed"]) / len(judged)
            pk = pass_at_k(len(judged), len(correct), k)
    first_correct = min(correct, key=lambda s: s["sample"]) if correct else None
    return {
        "op": op_id, "source": source, "status": status, "samples": len(per_sample), "judged_samples": len(judged),
        "correct_samples": len(correct), "pass_at_1": p1, "pass_at_k": pk, "pass_at_1_round0": p1_first_round,
        "solved_by": (f"s{first_correct['sample']}r{first_correct['solved_round']}" if first_correct else None),
        "speedup": first_correct["speedup"] if first_correct else None,
        "responses": responses, "tokens": {**tokens, "total": total_tokens}, "wall_s": round(wall, 3),
        "failure_classes": failure_classes, "error": error, "per_sample": per_sample,
        "last_failure": (per_sample[-1]["last_failure"] if per_sample and not correct else None),
    }


def _sum_reported(values: Iterable[int | None]) -> int | None:
    """Sum of the values that were reported; None when none was."""
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def group_scores(ops: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate :func:`operator_scores` results of one group (a source, or all)."""
    judged = [o for o in ops if o["pass_at_k"] is not None]
    solved = [o for o in ops if o["status"] == "solved"]
    speeds = [float(o["speedup"]) for o in solved if o.get("speedup")]
    tokens = {f: _sum_reported(o["tokens"][f] for o in ops) for f in (*TOKEN_FIELDS, "total")}
    wall = sum(o["wall_s"] for o in ops)
    p1 = [o["pass_at_1"] for o in judged if o["pass_at_1"] is not None]
    p1r0 = [o["pass_at_1_round0"] for o in judged if o["pass_at_1_round0"] is not None]
    fails: dict[str, int] = {}
    for o in ops:
        for c, n in o["failure_classes"].items():
            fails[c] = fails.get(c, 0) + n
    return {
        "operators": len(judged), "solved": len(solved),
        "pass_at_1": (sum(p1) / len(p1)) if p1 else None,
        "pass_at_k": (sum(o["pass_at_k"] for o in judged) / len(judged)) if judged else None,
        "pass_at_1_round0": (sum(p1r0) / len(p1r0)) if p1r0 else None,
        "unsupported": sum(1 for o in ops if o["status"] == "unsupported"),
        "not_run": sum(1 for o in ops if o["status"] == "not_run"),
        "errors": sum(1 for o in ops if o.get("error")),
        "timed_operators": len(speeds), "geomean_speedup": geomean(speeds), "median_speedup": median(speeds),
        "iqm_speedup": iqm(speeds),
        "samples": sum(o["samples"] for o in ops), "responses": sum(o["responses"] for o in ops),
        "tokens": tokens, "tokens_per_solved": ((tokens["total"] or 0) / len(solved)) if solved else None,
        "wall_s": round(wall, 3), "wall_s_per_solved": (wall / len(solved)) if solved else None,
        "failure_classes": fails,
    }


def summarize_run(op_list: list[tuple[str, str]], samples: list[dict[str, Any]], records: list[dict[str, Any]],
                  *, k: int, early_stop: bool, tier: str, platform: str,
                  errors: dict[str, str] | None = None) -> dict[str, Any]:
    """The run's summary: per operator, per source and overall.

    Args:
        op_list: ``(op id, source)`` of the selected operators, in order.
        samples: the lines of ``samples.jsonl`` (the latest line per sample id is used).
        records: the evaluation records of ``results.jsonl``.
        k: the k of pass@k.
        early_stop: whether sampling stopped at the first correct sample.
        tier, platform: which records count.
        errors: request errors by operator id.
    """
    latest: dict[str, dict[str, Any]] = {}
    for s in samples:
        latest[s["sample_id"]] = s
    by_op: dict[str, list[dict[str, Any]]] = {}
    for s in latest.values():
        by_op.setdefault(s["op"], []).append(s)
    recs = _latest(records, tier, platform)
    errors = errors or {}
    ops = [operator_scores(op_id, src, by_op.get(op_id, []), recs, k, early_stop, errors.get(op_id))
           for op_id, src in op_list]
    out: dict[str, Any] = {"by_source": {}, "overall": group_scores(ops), "operators": {o["op"]: o for o in ops}}
    for src in ("aten", "vllm", "cublas"):
        group = [o for o in ops if o["source"] == src]
        if group:
            out["by_source"][src] = group_scores(group)
    return out


def fmt_tokens(v: float | None) -> str:
    """Token counts for tables: 1234 -> "1,234"; 1.2e6 -> "1.20M"; None -> "—"."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    return f"{v:,.0f}"
