"""Scores of a ``kgb agent`` run, shaped as ``kgb generate``'s (:mod:`kernelgenbench.llm.summary`).

Definitions
-----------
* One session per operator; the operator is **solved** when its verdict (the record judged on the run's
  final tier selection, default every tier) passed. **Accuracy** = solved / judged operators, per source
  and overall; operators no case of which the platform can judge (``unsupported``) are left out and
  counted apart, as in ``kgb eval``. Pass@1 is the accuracy (one attempt per operator).
* **Speedups** (GPU only): two-level geometric mean, median and IQM over the solved operators, as
  ``kgb eval``.
* **Tokens** (:mod:`.usage` for each CLI's fields): ``total`` = input (uncached + cache reads + cache writes)
  + output (reasoning included), summed over the group's sessions that report tokens; per solved
  operator = that total / solved operators. A field no session reported is None ("—").
* **Wall-clock**: each operator's session plus its final judging; per solved operator = the group's sum /
  solved operators.
* **Cost**: the cost the CLIs report (``cost_usd``), summed over the sessions that report one; per solved
  operator likewise. None when no session reports a cost (Codex, Gemini CLI, ``--agent command``).
* **Self-checks**: calls of ``./check`` per session; ``self_checks_per_op`` = total / sessions.
"""
from __future__ import annotations

from typing import Any

from ..metrics import geomean, iqm, median
from ..record import cases_cell
from ..suite.tiers import shown_failure

#: Token fields of an agent record, and their names in a summary's ``tokens``.
RECORD_TOKENS = {"tokens_in": "input_tokens", "cache_read": "cache_read_tokens", "cache_write": "cache_write_tokens",
                 "tokens_out": "output_tokens", "reasoning": "reasoning_tokens"}


def _sum(values: list[Any]) -> Any:
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def operator_scores(op_id: str, source: str, rec: dict[str, Any] | None) -> dict[str, Any]:
    """One operator's row from its verdict record (None: no session recorded yet)."""
    if rec is None:
        return {"op": op_id, "source": source, "status": "not_run", "exit_reason": None, "self_checks": 0,
                "tokens": dict.fromkeys([*RECORD_TOKENS.values(), "total"]), "requests": None, "turns": None,
                "cost_usd": None, "wall_s": 0.0, "session_wall_s": 0.0, "speedup": None, "failure_class": None,
                "message": None, "cases": None, "error": None, "oracle_text_found": False}
    st = rec.get("status")
    status = {"passed": "solved", "failed": "failed", "unsupported": "unsupported"}.get(str(st), "failed")
    tokens = {name: rec.get(key) for key, name in RECORD_TOKENS.items()}
    parts = [tokens["input_tokens"], tokens["cache_read_tokens"], tokens["cache_write_tokens"], tokens["output_tokens"]]
    tokens["total"] = sum(p or 0 for p in parts) if any(p is not None for p in parts) else None
    ff = rec.get("first_failure") or {}
    return {"op": op_id, "source": source, "status": status, "exit_reason": rec.get("exit_reason"),
            "self_checks": int(rec.get("self_checks") or 0), "tokens": tokens, "requests": rec.get("requests"),
            "turns": rec.get("turns"), "cost_usd": rec.get("cost_usd"), "wall_s": float(rec.get("wall_s") or 0.0),
            "session_wall_s": float(rec.get("session_wall_s") or 0.0),
            "speedup": rec.get("speedup") if status == "solved" else None,
            "failure_class": rec.get("failure_class") if status == "failed" else None,
            "message": ((shown_failure(rec) or "").splitlines()[0][:300]
                        if status == "failed" and ff.get("message") else None),
            "failure_case": ff.get("case_id") if status == "failed" else None,
            "cases": cases_cell(rec), "error": rec.get("error"),
            "usage_source": rec.get("usage_source"), "model_served": rec.get("model_served"),
            "oracle_text_found": oracle_text_found(rec)}


def oracle_text_found(rec: dict[str, Any]) -> bool:
    """Whether a session's files held the oracle solution's text (its record's ``oracle_overlap`` canary)."""
    return bool((rec.get("oracle_overlap") or {}).get("oracle_text_found"))


def group_scores(ops: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate :func:`operator_scores` rows of one group (a source, or all)."""
    ran = [o for o in ops if o["status"] != "not_run"]
    judged = [o for o in ran if o["status"] in ("solved", "failed")]
    solved = [o for o in judged if o["status"] == "solved"]
    speeds = [float(o["speedup"]) for o in solved if o.get("speedup")]
    tokens = {k: _sum([o["tokens"][k] for o in ran]) for k in (*RECORD_TOKENS.values(), "total")}
    wall = sum(o["wall_s"] for o in ran)
    cost = _sum([o["cost_usd"] for o in ran])
    checks = sum(o["self_checks"] for o in ran)
    exits: dict[str, int] = {}
    fails: dict[str, int] = {}
    for o in ran:
        exits[str(o["exit_reason"])] = exits.get(str(o["exit_reason"]), 0) + 1
        if o["failure_class"]:
            fails[o["failure_class"]] = fails.get(o["failure_class"], 0) + 1
    n = len(solved)
    return {
        "operators": len(judged), "solved": n, "sessions": len(ran),
        "accuracy": (n / len(judged)) if judged else None, "pass_at_1": (n / len(judged)) if judged else None,
        "unsupported": sum(1 for o in ran if o["status"] == "unsupported"),
        "not_run": sum(1 for o in ops if o["status"] == "not_run"),
        "timed_operators": len(speeds), "geomean_speedup": geomean(speeds), "median_speedup": median(speeds),
        "iqm_speedup": iqm(speeds),
        "tokens": tokens, "tokens_per_solved": (tokens["total"] / n) if n and tokens["total"] is not None else None,
        "requests": _sum([o["requests"] for o in ran]),
        "wall_s": round(wall, 3), "wall_s_per_solved": (wall / n) if n else None,
        "cost_usd": cost, "cost_per_solved": (cost / n) if n and cost is not None else None,
        "self_checks": checks, "self_checks_per_op": (checks / len(ran)) if ran else None,
        "exit_reasons": exits, "failure_classes": fails,
    }


def latest_records(records: list[dict[str, Any]], *, tier: str, platform: str) -> dict[str, dict[str, Any]]:
    """Operator id -> its latest verdict record (label ``agent``) on ``tier`` and ``platform``; records
    of other tiers, platforms or labels are left out."""
    latest: dict[str, dict[str, Any]] = {}
    for r in records:
        if r.get("label") == "agent" and r.get("tier") == tier and r.get("platform") == platform:
            latest[str(r.get("op"))] = r
    return latest


def summarize_agent_run(op_list: list[tuple[str, str]], records: list[dict[str, Any]], *, tier: str,
                        platform: str) -> dict[str, Any]:
    """The run's summary: per operator, per source and overall, from the latest verdict record of each
    selected operator on ``tier`` and ``platform``."""
    latest = latest_records(records, tier=tier, platform=platform)
    ops = [operator_scores(op_id, src, latest.get(op_id)) for op_id, src in op_list]
    out: dict[str, Any] = {"by_source": {}, "overall": group_scores(ops), "operators": {o["op"]: o for o in ops}}
    for src in ("aten", "vllm", "cublas"):
        group = [o for o in ops if o["source"] == src]
        if group:
            out["by_source"][src] = group_scores(group)
    return out
