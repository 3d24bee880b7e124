"""Split the operators of a source into N parts of about equal full-tier cost, for running the
full tier on N GPUs at once (one `kgb eval` per GPU, each resumable on its own).

Usage: python bench/split_ops.py SOURCE N K   -> the operator ids of part K (0-based), one per line.
The cost estimate per operator is 10 s (sandbox start-up, compilation) + 0.15 s per full-tier case
(the H200 slice run's mean); the split is greedy, largest first, so it is deterministic.
"""
from __future__ import annotations

import sys

from kernelgenbench.suite.registry import all_operators


def parts(source: str, n: int, skip: set[str] = frozenset()) -> list[list[str]]:
    ops = [o for o in all_operators() if o.source == source and o.id not in skip]
    cost = {o.id: 10.0 + 0.15 * len(o.cases("full")) for o in ops}
    bins: list[list[str]] = [[] for _ in range(n)]
    load = [0.0] * n
    for oid in sorted(cost, key=lambda k: (-cost[k], k)):
        i = min(range(n), key=lambda j: load[j])
        bins[i].append(oid)
        load[i] += cost[oid]
    return [sorted(b) for b in bins]


def recorded(root: str) -> set[str]:
    """Operators with a full-tier record in any ``<root>/full*/results.jsonl``."""
    import json
    from pathlib import Path

    ops: set[str] = set()
    for f in Path(root).glob("full*/results.jsonl"):
        ops |= {json.loads(ln)["op"] for ln in f.read_text().splitlines() if ln.strip()}
    return ops


if __name__ == "__main__":
    src, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if "--rest" in sys.argv:  # only the operators no full* run directory under ROOT has recorded
        skip = recorded(sys.argv[sys.argv.index("--rest") + 1])
        print("\n".join(parts(src, n, skip)[k]))
    else:
        print("\n".join(parts(src, n)[k]))
