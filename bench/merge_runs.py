"""One table from several run directories that are parts of ONE run (one per GPU, or a re-split rest), all of
one tier selection: it merges them, it does not compare them. To compare runs (systems, or a run before and
after a change) use ``kgb report RUN...`` and ``kgb compare RUN_A RUN_B``.

Usage: python bench/merge_runs.py RUN_DIR [RUN_DIR ...]

Takes the latest record per operator (the directories' results.jsonl read oldest first, by modification time),
prints per operator: status, cases passed/total, timed cases, speedup (geomean over its timed cases), median
%SOL, the job's wall seconds (gate waits included) and its timing seconds; then kgb's summary (accuracy,
two-level geomean, median, IQM) over the merged records, and the operators below 0.8x.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kernelgenbench.metrics import latest_records, summarize


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="merge_runs.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories (parts of one run)")
    args = ap.parse_args(argv)
    files = []
    for d in args.runs:
        f = d / "results.jsonl"
        if not f.is_file():
            ap.error(f"{d} is not a run directory: it has no results.jsonl")
        files.append(f)
    files.sort(key=lambda p: p.stat().st_mtime)
    recs = latest_records([json.loads(ln) for f in files for ln in f.read_text().splitlines() if ln.strip()])
    tiers = sorted({str(r.get("tier")) for r in recs})
    if len(tiers) > 1:
        ap.error(f"the runs hold records of several tiers ({', '.join(tiers)}): parts of one run share one tier; "
                 f"kgb report --allow-mixed-tiers compares runs of different tiers")
    recs.sort(key=lambda r: r["op"])
    print(f"{'operator':36s} {'status':7s} {'cases':>9s} {'timed':>5s} "
          f"{'speedup':>8s} {'%SOL':>6s} {'job s':>6s} {'time s':>6s}")
    for r in recs:
        t = r.get("timing") or {}
        sp = f"{r['speedup']:.3f}x" if r.get("speedup") else "-"
        sol = f"{r['sol_pct']:.1f}" if r.get("sol_pct") is not None else "-"
        print(f"{r['op']:36s} {r.get('status', '?'):7s} {r.get('cases_passed', 0):>4d}/{r.get('cases_total', 0):<4d} "
              f"{t.get('timed_cases', 0):>5d} {sp:>8s} {sol:>6s} {r.get('wall_s') or 0:6.1f} "
              f"{(r.get('time_s') or {}).get('timing_s', 0):6.1f}")
    s = summarize(recs)
    o = s["overall"]
    print(json.dumps({k: o.get(k) for k in ("operators", "passed", "accuracy", "geomean_speedup", "median_speedup",
                                              "iqm_speedup")}))
    print("time_s", json.dumps({k: round(v, 1) for k, v in s["time_s"].items()}))
    slow = [r for r in recs if r.get("speedup") and r["speedup"] < 0.8]
    print("below 0.8x:", ", ".join(f"{r['op']} {r['speedup']:.3f}x" for r in slow) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
