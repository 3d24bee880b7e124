"""Sandbox start-up with and without the fork server (issue 18 item 2): start-to-Ready of N children each way.

    PYTHONPATH=src python bench/forkserver_bench.py [--n 20] [--op aten::add] [--submission solutions/aten__add.py]
                                                    [--platform interpreter|cuda]

Each sample is one ``runner.Child`` (the same class a job uses) on the platform (GPU 0 on a GPU), timed from its
construction to its ``Ready`` answer (the child imported torch/Triton, when fresh, then the operator family and
the submission). Fresh and forked starts alternate, so load on the machine touches both alike. The fork
server's own start (its imports, paid once per run) is reported apart. Not a test: it prints numbers.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from kernelgenbench.platforms import PROFILES
from kernelgenbench.sandbox import forkserver
from kernelgenbench.sandbox.runner import Child


def start_to_ready(op: str, submission: Path, work: Path, spawn, plat) -> tuple[float, bool]:
    """Seconds from a child's start to its Ready answer, and whether it was forked."""
    t0 = time.perf_counter()
    child = Child(op, submission, plat, None if plat.interpreter else 0, work, work / "child.log", spawn=spawn)
    try:
        msg = child.recv(300)
        took = time.perf_counter() - t0
        if msg.get("event") != "ready" or not msg.get("ok"):
            raise SystemExit(f"the child did not get ready: {msg}")
        return took, child.forked
    finally:
        child.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--op", default="aten::add")
    ap.add_argument("--submission", type=Path, default=Path("solutions/aten__add.py"))
    ap.add_argument("--platform", default="interpreter", choices=sorted(PROFILES))
    args = ap.parse_args()
    plat = PROFILES[args.platform]
    root = Path(tempfile.mkdtemp(prefix="kgb-fsbench-"))
    t0 = time.perf_counter()
    server = forkserver.get_server(plat, forkserver.server_env(plat))
    if server is None:
        raise SystemExit("the fork server did not start")
    server_start = time.perf_counter() - t0
    spawn = forkserver.spawner(plat, True)
    times: dict[str, list[float]] = {"fresh": [], "forked": []}
    for i in range(args.n):
        for kind in ("fresh", "forked"):
            took, forked = start_to_ready(args.op, args.submission.resolve(), root / f"{kind}-{i}",
                                          spawn if kind == "forked" else None, plat)
            assert forked == (kind == "forked")
            times[kind].append(took)
    forkserver.shutdown_all()
    print(f"platform {plat.name}; fork server start (imports, once per run): {server_start:.2f} s")
    for kind, ts in times.items():
        print(f"{kind:6s} start-to-Ready over {len(ts)} children: median {statistics.median(ts):.3f} s, "
              f"min {min(ts):.3f} s, max {max(ts):.3f} s")
    print(f"median saved per child: {statistics.median(times['fresh']) - statistics.median(times['forked']):.3f} s")


if __name__ == "__main__":
    main()
