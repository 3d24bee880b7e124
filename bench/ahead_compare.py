"""Compare where a vLLM job's timing went with the compiled baselines made ahead and made in each case (bc42).

Reads the job records of run directories (``results.jsonl``; a sharded job's per-shard records, ``shards.jsonl``,
where they exist, so that a cut run still counts its finished shards) and prints, per run and operator: the timed
cases, the medians per timed case of ``harness_ms`` ``ahead`` (the case's ahead command: shared work),
``ahead_baseline`` (making the baseline there), ``made`` (its prepare command), ``baseline`` (making it there) and
``command`` (its timed command), in seconds, and per job the sums of ``time_s`` ``ahead_s``
(shared) and ``timing_s`` (exclusive under ``--timing-hold job``) over the timed cases::

    PYTHONPATH=src python3 bench/ahead_compare.py $OUT/ahead $OUT/inline
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any


def records(run: Path) -> list[dict[str, Any]]:
    """The job records of ``run``: each shard's where the run has shard records for the operator, else the job's."""
    def read(name: str) -> list[dict[str, Any]]:
        path = run / name
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    shards = read("shards.jsonl")
    sharded = {r["op"] for r in shards}
    return shards + [r for r in read("results.jsonl") if r["op"] not in sharded]


#: the harness_ms keys whose medians per timed case :func:`rows` gives
KEYS = ("ahead", "ahead_baseline", "made", "baseline", "command")


def rows(run: Path) -> list[tuple[Any, ...]]:
    """Per operator: (op, timed cases, the median of each of :data:`KEYS` in s, sum ahead_s, sum timing_s)."""
    by_op: dict[str, list[dict[str, Any]]] = {}
    for r in records(run):
        by_op.setdefault(r["op"], []).append(r)
    out = []
    for op, recs in sorted(by_op.items()):
        hs = [c["harness_ms"] for r in recs for c in r.get("cases") or [] if c.get("harness_ms")]
        if not hs:
            continue

        out.append((op, len(hs), *(_median(hs, k) for k in KEYS),
                    round(sum((r.get("time_s") or {}).get("ahead_s", 0.0) for r in recs), 1),
                    round(sum((r.get("time_s") or {}).get("timing_s", 0.0) for r in recs), 1)))
    return out


def _median(hs: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(h.get(key, 0.0) for h in hs) / 1e3, 3)


def main(argv: list[str]) -> None:
    """Print :func:`rows` of every run directory in ``argv``."""
    print(" | ".join(["run", "op", "timed", *(f"{k} s/case" for k in KEYS), "ahead_s", "timing_s"]))
    for arg in argv:
        for row in rows(Path(arg)):
            print(" | ".join([arg, *map(str, row)]))


if __name__ == "__main__":
    main(sys.argv[1:])
