"""The table of issue 11's slice run (``bench/slice_full.sh``): per operator, from a run's ``results.jsonl``, the
status, cases passed, speedup (geomean of its timed cases), median % of speed-of-light, the harness's seconds per
timed case (``harness_ms.command``, median) and the job's wall time, beside the speedup of a recorded earlier run of
the same operators and the spread ``|a - b| / mean(a, b)``; then the median and largest spread and the operators
the run has not recorded yet (a call cut by its limit: run the same command again to resume).

Usage: python bench/slice_table.py RESULTS.jsonl[.gz] EARLIER.jsonl[.gz] --ops "aten::add ..."
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
from pathlib import Path
from typing import Any


def records(path: str) -> dict[str, dict[str, Any]]:
    """The last record per operator in a ``results.jsonl`` (plain or gzip); ``{}`` for a missing file."""
    p = Path(path)
    if not p.exists():
        return {}
    opener = gzip.open if p.suffix == ".gz" else open
    out: dict[str, dict[str, Any]] = {}
    with opener(p, "rt") as f:  # type: ignore[operator]
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                out[str(r.get("op"))] = r
    return out


def harness_s(rec: dict[str, Any]) -> float | None:
    """Median seconds of the verifier's wall clock per timed case (``harness_ms.command``), or None."""
    cmd = [c["harness_ms"]["command"] for c in rec.get("cases") or []
           if isinstance(c.get("harness_ms"), dict) and "command" in c["harness_ms"]]
    return statistics.median(cmd) / 1e3 if cmd else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("earlier")
    ap.add_argument("--ops", required=True, help="the operators selected (whitespace-separated)")
    a = ap.parse_args(argv)
    now, then = records(a.results), records(a.earlier)
    ops = a.ops.split()
    print(f"{'operator':28s} {'status':10s} {'cases':>9s} {'speedup':>8s} {'%SOL':>6s} {'s/timed':>7s} "
          f"{'job s':>6s} {'earlier':>8s} {'spread':>7s}")
    spreads: list[float] = []
    missing: list[str] = []
    for op in ops:
        r = now.get(op)
        if r is None:
            missing.append(op)
            print(f"{op:28s} {'missing':10s}")
            continue
        cases = r.get("cases") or []
        done = sum(c.get("status") == "passed" for c in cases)
        sp, old = r.get("speedup"), (then.get(op) or {}).get("speedup")
        spread = abs(sp - old) / ((sp + old) / 2) if sp and old else None
        if spread is not None:
            spreads.append(spread)
        h = harness_s(r)
        print(f"{op:28s} {str(r.get('status')):10s} {f'{done}/{len(cases)}':>9s} "
              f"{f'{sp:.3f}x' if sp else '-':>8s} {r.get('sol_pct') if r.get('sol_pct') is not None else '-':>6} "
              f"{f'{h:.2f}' if h is not None else '-':>7s} {float(r.get('wall_s') or 0):6.1f} "
              f"{f'{old:.3f}x' if old else '-':>8s} {f'{100 * spread:.2f}%' if spread is not None else '-':>7s}")
    if spreads:
        print(f"spread against the earlier run: median {100 * statistics.median(spreads):.2f}%, "
              f"max {100 * max(spreads):.2f}% over {len(spreads)} operators")
    passed = sum((now.get(op) or {}).get("status") == "passed" for op in ops)
    print(f"passed {passed}/{len(ops)}" + (f"; not recorded yet: {' '.join(missing)}" if missing else ""))
    return 0 if passed == len(ops) else 1


if __name__ == "__main__":
    raise SystemExit(main())
