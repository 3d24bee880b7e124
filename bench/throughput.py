"""Throughput of two `kgb eval` runs of the same operator set (issue 18 item 5; bench/throughput.sh runs them).

Usage: python bench/throughput.py RUN_A RUN_B [--json FILE]     (a run directory, or a results*.jsonl[.gz] file)

Prints, per run: wall seconds (summary.json), jobs, jobs per minute, verdicts, and where the jobs' time went
(the records' `time_s`, summed over jobs); per operator: its timed cases, the harness's seconds per timed case
(the job's `timing_s` over its timed cases: inputs for every repetition, flush, warm-up, judged repetitions,
tracing, Python) beside the device time it measured per case (reps x (baseline_ms + candidate_ms)); then the
spread between the two runs: per operator |a - b| / mean(a, b) of the speedups (median, max) and of the wall
time, and of each timed case's baseline time (median per operator). Timing figures exist on GPUs only: on the
interpreter nothing is timed and the script says so.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any


def load(run: Path) -> dict[str, Any]:
    """A run directory (results.jsonl, summary.json, config.json), or a results file (``.jsonl`` or ``.jsonl.gz``,
    e.g. the records kept in bench/results/) with ``summary*.json`` of the same suffix beside it when there is one."""
    import gzip

    if run.is_dir():
        results, summary_p, config_p = run / "results.jsonl", run / "summary.json", run / "config.json"
    else:
        results = run
        suffix = run.name.split(".")[0].replace("results", "")
        summary_p, config_p = run.parent / f"summary{suffix}.json", run.parent / f"config{suffix}.json"
    text = gzip.open(results, "rt").read() if results.suffix == ".gz" else results.read_text()
    latest: dict[str, dict[str, Any]] = {}
    for x in text.splitlines():
        if x.strip():
            r = json.loads(x)
            latest[r["op"]] = r
    summary = json.loads(summary_p.read_text()) if summary_p.is_file() else {}
    config = json.loads(config_p.read_text()) if config_p.is_file() else {}
    return {"path": str(run), "records": list(latest.values()), "summary": summary, "config": config}


def per_operator(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for r in run["records"]:
        reps = int((r.get("timing") or {}).get("reps") or run["config"].get("reps") or 30)
        timed = [c for c in r.get("cases") or []
                 if c.get("baseline_ms") is not None and c.get("candidate_ms") is not None]
        timing_s = float((r.get("time_s") or {}).get("timing_s") or 0.0)
        row: dict[str, Any] = {"status": r.get("status"), "failure_class": r.get("failure_class"),
                               "speedup": r.get("speedup"), "wall_s": r.get("wall_s"), "timed_cases": len(timed),
                               "baseline_ms": {c["id"]: c["baseline_ms"] for c in timed}}
        if timed:
            device_s = sum(reps * (c["baseline_ms"] + c["candidate_ms"]) / 1000.0 for c in timed)
            row.update(timing_s=round(timing_s, 3), harness_s_per_case=round(timing_s / len(timed), 4),
                       device_s_per_case=round(device_s / len(timed), 4),
                       harness_over_device=round(timing_s / device_s, 1) if device_s > 0 else None)
        out[r["op"]] = row
    return out


def spread(a: float | None, b: float | None) -> float | None:
    if not a or not b:
        return None
    return abs(a - b) / ((a + b) / 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs=2, type=Path)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = ap.parse_args()
    runs = [load(p) for p in args.runs]
    report: dict[str, Any] = {"runs": []}
    for name, run in zip("AB", runs):
        s = run["summary"]
        wall = float(s.get("wall_s") or 0.0)
        jobs = len(run["records"])
        tb: dict[str, float] = {}
        for r in run["records"]:
            for k, v in (r.get("time_s") or {}).items():
                tb[k] = tb.get(k, 0.0) + float(v)
        passed = sum(1 for r in run["records"] if r.get("status") == "passed")
        ops = per_operator(run)
        timed = sum(o["timed_cases"] for o in ops.values())
        timing_s = sum(o.get("timing_s", 0.0) for o in ops.values())
        device_s = sum(o.get("device_s_per_case", 0.0) * o["timed_cases"] for o in ops.values())
        info = {"run": run["path"], "platform": s.get("platform"), "tier": s.get("tier"), "wall_s": wall,
                "jobs": jobs, "jobs_per_min": round(60.0 * jobs / wall, 2) if wall else None, "passed": passed,
                "timed_cases": timed, "harness_s_per_timed_case": round(timing_s / timed, 4) if timed else None,
                "device_s_per_timed_case": round(device_s / timed, 4) if timed else None,
                "time_s": {k: round(v, 2) for k, v in sorted(tb.items()) if v}, "operators": ops}
        report["runs"].append(info)
        print(f"run {name}: {run['path']} · {s.get('platform')} · tier {s.get('tier')}")
        print(f"  wall {wall:.1f} s · {jobs} jobs · {info['jobs_per_min']} jobs/min · {passed} passed · "
              f"{timed} timed cases")
        print("  job time by phase (s, summed over jobs): " + ", ".join(f"{k} {v}" for k, v in info["time_s"].items()))
        if timed:
            print(f"  harness per timed case {info['harness_s_per_timed_case']:.3f} s against "
                  f"{info['device_s_per_timed_case']:.4f} s of device time measured per case")
            print(f"  {'operator':30s} {'timed':>5s} {'timing s':>9s} {'s/case':>7s} {'device s/case':>13s} {'x':>6s}")
            for op, o in sorted(ops.items()):
                if o["timed_cases"]:
                    print(f"  {op:30s} {o['timed_cases']:5d} {o['timing_s']:9.2f} {o['harness_s_per_case']:7.3f} "
                          f"{o['device_s_per_case']:13.4f} {o['harness_over_device'] or 0:6.1f}")
        else:
            print("  no timed case: harness cost per timed case and speedup spread need a GPU (tier full)")
    a, b = (per_operator(r) for r in runs)
    common = sorted(set(a) & set(b))
    verdicts_same = all((a[o]["status"], a[o]["failure_class"]) == (b[o]["status"], b[o]["failure_class"])
                        for o in common)
    sp = {o: spread(a[o]["speedup"], b[o]["speedup"]) for o in common}
    sp = {o: v for o, v in sp.items() if v is not None}
    wall = {o: spread(a[o]["wall_s"], b[o]["wall_s"]) for o in common}
    wall = {o: v for o, v in wall.items() if v is not None}
    # the baseline's own time, case by case: a baseline made under other conditions (Settings.timing_hold) that
    # ran slower or faster would show here before it shows in the speedups
    base = {}
    for o in common:
        pairs = [spread(a[o]["baseline_ms"][c], b[o]["baseline_ms"].get(c)) for c in a[o]["baseline_ms"]]
        pairs = [v for v in pairs if v is not None]
        if pairs:
            base[o] = statistics.median(pairs)
    report["spread"] = {"operators": len(common), "same_verdicts": verdicts_same,
                        "baseline_ms_per_case": {"median": statistics.median(base.values()) if base else None,
                                                 "max": max(base.values()) if base else None,
                                                 "per_operator": base},
                        "speedup": {"median": statistics.median(sp.values()) if sp else None,
                                    "max": max(sp.values()) if sp else None, "per_operator": sp},
                        "job_wall": {"median": statistics.median(wall.values()) if wall else None,
                                     "max": max(wall.values()) if wall else None},
                        "run_wall": spread(report["runs"][0]["wall_s"], report["runs"][1]["wall_s"])}
    print(f"A vs B: {len(common)} operators, same verdicts: {verdicts_same}")
    if sp:
        print(f"  speedup spread: median {100 * report['spread']['speedup']['median']:.2f}%, "
              f"max {100 * report['spread']['speedup']['max']:.2f}% "
              f"({max(sp, key=sp.get)})")
    else:
        print("  speedup spread: none (nothing timed: a GPU and tier full are needed)")
    if base:
        print(f"  baseline time per case, spread (median over an operator's cases): median "
              f"{100 * report['spread']['baseline_ms_per_case']['median']:.2f}%, max "
              f"{100 * report['spread']['baseline_ms_per_case']['max']:.2f}% ({max(base, key=base.get)})")
    if wall:
        print(f"  job wall spread: median {100 * report['spread']['job_wall']['median']:.1f}%, "
              f"max {100 * report['spread']['job_wall']['max']:.1f}%; run wall spread "
              f"{100 * (report['spread']['run_wall'] or 0):.1f}%")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
