"""Where the full tier's device time goes: per job record its exclusive and shared seconds, per device call the model.

    PYTHONPATH=src .venv/bin/python bench/full_tier_account.py bench/results/vllm-full-tier/*.jsonl

Per job record: timed cases, exclusive seconds (the GPU held alone: under HOLD=case the timed commands'
``harness_ms.command`` summed, under HOLD=job the whole ``timing_s``), shared seconds (the rest of the job's own
work: its wall less its gate waits less its exclusive seconds) and wall. Per device call (records grouped by time):
the model (:func:`model_wall`: exclusive seconds serialised, shared seconds overlapped over the slots, plus a drain
per exclusive entry, since run/gate.py's gate prefers a waiting writer, which waits for the shared work in flight
while the other slots idle) against the span of the call's records (first start to last finish).
bench/full_tier_plan.py projects and packs the work not yet done with the same terms.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

CALL_GAP_S = 5.0  # a record that starts this long after every earlier record finished opens another call


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The job records of a results.jsonl / shards.jsonl (``.gz`` too); a torn line (a killed run) is skipped."""
    p, out = Path(path), []
    text = (gzip.open(p, "rt").read() if p.suffix == ".gz" else p.read_text()) if p.is_file() else ""
    for line in text.split("\n"):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        out += [rec] if isinstance(rec, dict) and "op" in rec else []
    return out


@dataclass
class JobCost:
    """One record's accounting: ``excl`` seconds with the GPU alone, ``shared`` its other own work; ``excl_case``
    and ``excl_job`` the exclusive seconds had it been timed under HOLD=case / HOLD=job."""

    op: str
    hold: str
    cases: int
    timed: int
    excl: float
    shared: float
    wall: float
    excl_case: float
    excl_job: float
    started: float
    finished: float
    device: str = ""
    commit: str = ""

    @property
    def work(self) -> float:
        """The job's own seconds (wall less gate waits)."""
        return self.excl + self.shared


def job_cost(rec: dict[str, Any]) -> JobCost:
    """The accounting of one job record (see the module docstring for exclusive and shared)."""
    t = rec.get("time_s") or {}
    cases = rec.get("cases") or []
    timed_cases = [c for c in cases if "candidate_ms" in c or c.get("harness_ms")]
    cmd = sum((c.get("harness_ms") or {}).get("command", 0.0) for c in timed_cases) / 1e3
    method = str((rec.get("timing") or {}).get("method", ""))
    # HOLD=job's text names the job's whole hold; HOLD=case's starts "each case's warm-up" (bc42's clause on baselines
    # made ahead also says "each case's", so the job's text is looked for first)
    hold = "case" if "each case's warm-up" in method and "alone from its first timed case" not in method else "job"
    timing = float(t.get("timing_s") or 0.0)
    waits = float(t.get("gate_wait_s") or 0.0) + float(t.get("gate_wait_timing_s") or 0.0)
    wall = float(rec.get("wall_s") or 0.0)
    excl_case = cmd if cmd > 0 else timing  # records before harness_ms (ATen 2026-11-30): the whole timing phase
    excl = excl_case if hold == "case" else timing
    own = max(wall - waits, excl)
    started = float(rec.get("started_at") or 0.0)
    return JobCost(rec["op"], hold, int(rec.get("cases_total") or len(cases)), len(timed_cases), excl, own - excl,
                   wall, excl_case, timing, started, float(rec.get("finished_at") or started + wall),
                   str(rec.get("device") or ""), str(rec.get("harness_commit") or "")[:7])


def entries(hold: str, timed: int) -> int:
    """How many times a job takes the exclusive hold: once (HOLD=job) or once per timed case (HOLD=case)."""
    return (1 if timed else 0) if hold == "job" else timed


def model_wall(jobs: Iterable[JobCost], slots: int, drain: float = 0.0, startup: float = 0.0) -> float:
    """The model's wall of a call running ``jobs`` on ``slots`` slots of one GPU: exclusive seconds serialised,
    shared seconds overlapped ``slots`` ways, plus ``drain`` seconds per exclusive entry (the gate prefers a
    waiting writer: it admits no new shared work and waits for the shared work in flight to finish, so the
    other slots idle), at least the longest job's own work, plus ``startup``."""
    jobs = list(jobs)
    if not jobs:
        return startup
    spread = sum(j.excl for j in jobs) + sum(j.shared for j in jobs) / max(1, slots) + \
        drain * sum(entries(j.hold, j.timed) for j in jobs)
    return startup + max(spread, max(j.work for j in jobs))


def group_calls(costs: list[JobCost]) -> list[list[JobCost]]:
    """Records grouped into device calls: within a call a slot starts its next job as the last ends, so a record
    that starts more than CALL_GAP_S after every earlier one finished (or on another device) opens a new call."""
    calls: list[list[JobCost]] = []
    end = -math.inf
    for c in sorted(costs, key=lambda c: c.started):
        if calls and c.started <= end + CALL_GAP_S and c.device == calls[-1][0].device:
            calls[-1].append(c)
        else:
            calls.append([c])
        end = max(end, c.finished) if len(calls[-1]) > 1 else c.finished
    return calls


def account(paths: list[str], slots: int, drain: float) -> str:
    """The accounting table of the records in ``paths`` and the model against each call's measured span."""
    costs = [job_cost(r) for p in paths for r in read_records(p) if r.get("tier") == "full"]
    lines = [f"{'operator':42} {'hold':4} {'cases':>5} {'timed':>5} {'excl_s':>7} {'shared_s':>8} {'wait_s':>7} "
             f"{'wall_s':>7}  device / commit"]
    for c in sorted(costs, key=lambda c: (c.started, c.op)):
        lines.append(f"{c.op:42} {c.hold:4} {c.cases:5d} {c.timed:5d} {c.excl:7.1f} {c.shared:8.1f} "
                     f"{c.wall - c.work:7.1f} {c.wall:7.1f}  {c.device[-12:]} {c.commit}")
    lines.append("")
    lines.append(f"per call ({slots} slots): model0 = sum(excl) + sum(shared)/{slots}; model = model0 + {drain:g} s "
                 f"per exclusive entry (a job under HOLD=job, a timed case under HOLD=case); both at least the "
                 f"longest job's work; span = first start to last finish of the call's records")
    for calls in group_calls(costs):
        span = max(c.finished for c in calls) - min(c.started for c in calls)
        m0, m = model_wall(calls, slots), model_wall(calls, slots, drain)
        se, ss = sum(c.excl for c in calls), sum(c.shared for c in calls)
        n = sum(entries(c.hold, c.timed) for c in calls)
        lines.append(f"  {len(calls):3d} jobs {calls[0].device[-12:]:12} {calls[0].commit or '-':7} "
                     f"hold={calls[0].hold:4} timed {sum(c.timed for c in calls):5d} entries {n:3d}  excl {se:6.1f}  "
                     f"shared {ss:6.1f}  model0 {m0:6.1f} ({m0 / span - 1:+.0%})  model {m:6.1f} ({m / span - 1:+.0%})"
                     f"  span {span:6.1f}  (span-model0)/entry {(span - m0) / max(1, n):4.1f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: the record files (results.jsonl, *.jsonl.gz), --slots, --drain."""
    ap = argparse.ArgumentParser(prog="full_tier_account.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--drain", type=float, default=4.0, help="model seconds per exclusive entry")
    args = ap.parse_args(argv)
    print(account(args.paths, args.slots, args.drain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
