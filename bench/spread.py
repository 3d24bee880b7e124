"""Per-operator speedup spread between two runs of the same `kgb eval` (run-to-run repeatability).

Usage: python bench/spread.py RUN_A/results.jsonl RUN_B/results.jsonl
Prints, per operator, both speedups and |a - b| / mean(a, b); then the median and max spread.
"""
from __future__ import annotations

import json
import statistics
import sys


def speedups(path: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("status") == "passed" and r.get("speedup"):
            out[r["op"]] = float(r["speedup"])
    return out


def main() -> None:
    a, b = speedups(sys.argv[1]), speedups(sys.argv[2])
    rows = []
    print(f"{'operator':28s} {'run A':>8s} {'run B':>8s} {'spread':>8s}")
    for op in sorted(set(a) & set(b)):
        s = abs(a[op] - b[op]) / ((a[op] + b[op]) / 2)
        rows.append(s)
        print(f"{op:28s} {a[op]:8.3f} {b[op]:8.3f} {100 * s:7.2f}%")
    if rows:
        print(f"median spread {100 * statistics.median(rows):.2f}%, max {100 * max(rows):.2f}% over {len(rows)} ops")
    missing = sorted(set(a) ^ set(b))
    if missing:
        print(f"timed in one run only: {', '.join(missing)}")


if __name__ == "__main__":
    main()
