"""The GPU gate's record (bench/gpu_gate.sh): verdict, the held-out tier of every oracle, the gate set's
full tier with speedups beside the last recorded gate's, and the GPU-only tests.

The gate runs in two device calls of at most 9 minutes each (part 1: held-out of every oracle beside the GPU-only
tests; part 2: the full tier alone), or three where part 1 does not fit one call (an H100: ``PART=1h`` the held-out
run alone, ``PART=1t`` the GPU-only tests alone). Part 1 writes a summary that part 2 reads back:
    python3 bench/gate_report.py --commit C --heldout RUN --tests LOG --part1-out FILE [--wall S]
    python3 bench/gate_report.py --commit C --heldout RUN --heldout-out FILE [--wall S]      (PART=1h)
    python3 bench/gate_report.py --commit C --heldout FILE --tests LOG --part1-out FILE      (PART=1t)
Write a record (on the GPU machine, called by the gate script's part 2):
    python3 bench/gate_report.py --commit C --part1 FILE --full RUN --previous bench/results/gpu-gate \
        --out FILE [--wall S] [--reps N] [--warmup-ms MS] [--gpu FILE] [--ops "OP ..."]
(or ``--heldout RUN --tests LOG`` instead of ``--part1``, when both parts ran in one place)
Install a record that came back from the device (locally; writes bench/results/gpu-gate/<name> and LAST):
    python3 bench/gate_report.py --install FILE

The record ends with one line ``JSON: {...}`` (commit, verdict, per-operator speedups) that the next gate
compares against. The verdict is PASS when every held-out job and every gate-set full-tier job passed, every
operator the held-out run selected has a record (one the run never reached is listed as NOT JUDGED: a
held-out run cut off by part 1's time limit is no pass) (a
job no case of which the platform can judge counts as unsupported, not failed) and the GPU tests exited 0;
speedups that moved by more than DRIFT from the last gate are listed as drift (reported, not failed: they
are measurements, and a harness or kernel change may move them on purpose).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
from pathlib import Path

#: relative change of an operator's speedup against the last gate that is reported as drift
DRIFT = 0.05
GATE_DIR = Path(__file__).resolve().parent / "results" / "gpu-gate"


def latest_records(run: Path) -> dict[str, dict]:
    """The last record of each operator in a run directory's results.jsonl (empty when there is none)."""
    out: dict[str, dict] = {}
    path = Path(run) / "results.jsonl"
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out[r["op"]] = r
    return out


def selected_ops(run: Path) -> list[str]:
    """The operators the run directory's command selected (its config.json ``selected``, written before any job
    runs), sorted; ``[]`` when the run directory does not say. A selected operator without a record was never
    judged: the held-out run ended (its ``timeout`` in gpu_gate.sh) before reaching it."""
    try:
        sel = json.loads((Path(run) / "config.json").read_text()).get("selected")
    except (OSError, ValueError, AttributeError):
        return []
    return sorted(sel) if isinstance(sel, list) else []


def record_json(path: Path) -> dict:
    """The ``JSON:`` block of a gate record ({} when absent)."""
    for line in reversed(Path(path).read_text().splitlines()):
        if line.startswith("JSON: "):
            return json.loads(line[6:])
    return {}


def previous_record(folder: Path) -> tuple[Path | None, dict]:
    """The last installed gate record (named by ``LAST``) and its JSON block."""
    last = Path(folder) / "LAST"
    if not last.is_file():
        return None, {}
    commit = last.read_text().split()[0] if last.read_text().split() else ""
    hits = sorted(Path(folder).glob(f"gpu-gate-*-{commit[:10]}.txt"))
    return (hits[-1], record_json(hits[-1])) if hits else (None, {})


def tests_outcome(log: Path) -> tuple[str, str]:
    """``(rc, summary line)`` of the GPU tests' log (``rc skipped`` on a dry run)."""
    text = Path(log).read_text(errors="replace") if Path(log).is_file() else ""
    rc = re.findall(r"^rc (\S+)", text, re.MULTILINE)
    summary = [ln for ln in text.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    return (rc[-1] if rc else "missing"), (summary[-1].strip("= ") if summary else "no pytest summary")


def gate_records(run: Path) -> dict[str, dict]:
    """The record that stands for each operator in a held-out run's folder: its last failed record when any record
    of it failed (with ``then``: the status of its last record), else its last record. A run that was not resumed
    holds one record per operator; a resumed one (``RESUME=`` of ``PART=1h``) may hold a failure that ``kgb eval``
    judged again (its harness-error classes: ``platform``, ``infrastructure``, ``baseline``), and the gate reports it
    as the failure it was (red team rt40: a later pass hid it, e.g. a reference that races beside another job)."""
    out: dict[str, dict] = {}
    path = Path(run) / "results.jsonl"
    for line in (path.read_text().splitlines() if path.is_file() else []):
        if not line.strip():
            continue
        r = json.loads(line)
        prev = out.get(r["op"])
        if prev is not None and prev.get("status") == "failed" and r.get("status") != "failed":
            r = {**prev, "then": r.get("status")}
        out[r["op"]] = r
    return out


def heldout_summary(heldout: Path, commit: str, wall: str) -> dict:
    """The held-out run of part 1 (``PART=1h`` runs it alone): each job's status, failure class and first failure
    message (trimmed; :func:`gate_records`), the operators the run selected, and its wall (s). Every record must name
    ``commit`` as its ``harness_commit`` and be of the run's tier and platform (its ``config.json``): SystemExit
    otherwise (a run resumed from another commit's or another run's records, or records of no commit)."""
    recs = gate_records(heldout)
    other = sorted({str(r.get("harness_commit")) for r in recs.values() if r.get("harness_commit") != commit})
    if other:  # a resumed run (RESUME= of PART=1h) must hold this commit's records only
        raise SystemExit(f"{heldout}: records of {', '.join(other)} among the held-out run's, not only of {commit}: "
                         "resume only a held-out run of this commit")
    try:
        config = json.loads((Path(heldout) / "config.json").read_text())
    except (OSError, ValueError):
        config = {}
    want = {k: config.get(k) for k in ("tier", "platform") if isinstance(config, dict) and config.get(k)}
    odd = sorted(op for op, r in recs.items() if any(r.get(k) != v for k, v in want.items()))
    if odd:
        raise SystemExit(f"{heldout}: records of another tier or platform than the run's ({want}): "
                         f"{', '.join(odd[:12])}: resume only a held-out run of this commit")
    held = {op: {"status": r.get("status"), "failure_class": r.get("failure_class"),
                 "first_failure": {"message": ((r.get("first_failure") or {}).get("message") or "")[:600]},
                 **({"then": r["then"]} if "then" in r else {})}
            for op, r in recs.items()}
    return {"commit": commit, "wall": wall, "heldout": held, "selected": selected_ops(heldout)}


def part1_summary(heldout: Path, tests: Path, commit: str, wall: str) -> dict:
    """What part 1 of the gate measured, for part 2's record: each held-out job's status, failure class and
    first failure message (trimmed), the GPU tests' rc, summary line and FAILED lines. ``heldout`` is the run's
    folder, or the JSON ``--heldout-out`` wrote when part 1 ran as two calls (``PART=1h`` then ``PART=1t``; its
    commit must be ``commit``; the walls are added)."""
    if Path(heldout).is_file():
        h = json.loads(Path(heldout).read_text())
        if h.get("commit") != commit:
            raise SystemExit(f"{heldout}: the held-out run was on {h.get('commit')}, not on {commit}: run PART=1h "
                             f"again on this commit")
        held, selected = h["heldout"], h.get("selected") or []
        try:
            wall = str(int(h.get("wall")) + int(wall))
        except (TypeError, ValueError):
            wall = f"{h.get('wall')} + {wall}"
    else:
        h = heldout_summary(heldout, commit, wall)
        held, selected = h["heldout"], h["selected"]
    rc, tsum = tests_outcome(tests)
    text = Path(tests).read_text(errors="replace") if Path(tests).is_file() else ""
    failed = [ln.strip() for ln in text.splitlines() if ln.startswith("FAILED ") or " FAILED " in ln][:40]
    # the failures' reports as they happened (KGB_FAILURE_LOG, tests/conftest.py): kept even when the call was cut
    flog = Path(tests).with_name("gpu-test-failures.log")
    reports = flog.read_text(errors="replace")[:12000] if flog.is_file() else ""
    return {"commit": commit, "wall": wall, "heldout": held, "selected": selected,
            "tests": {"rc": rc, "summary": tsum, "failed": failed, "reports": reports}}


#: The phases of a timed case's harness_ms (CaseRecord), in the order the table prints them.
HARNESS_PHASES = ("command", "device", "handler", "prep", "made", "collect", "load", "baseline", "warmup", "build",
                  "blocks", "save", "check")


def harness_cost_lines(full: dict[str, dict], ops: list[str]) -> list[str]:
    """Where the timing of the gate set's timed cases went (issue 18): per operator, the median over its timed
    cases of each phase of ``harness_ms`` (ms), beside the job's ``timing_s`` per timed case. Empty when no
    record has them (records written before harness_ms existed)."""
    rows = []
    for op in ops:
        cases = [c for c in full.get(op, {}).get("cases", []) if isinstance(c.get("harness_ms"), dict)]
        if not cases:
            continue
        med = {k: statistics.median(float(c["harness_ms"].get(k, 0.0)) for c in cases) for k in HARNESS_PHASES}
        per_case = (full[op].get("time_s") or {}).get("timing_s", 0.0) / len(cases)
        rows.append(f"{op:28s} {len(cases):>5d} {per_case:>8.2f} "
                    + " ".join(f"{med[k]:>8.1f}" for k in HARNESS_PHASES))
    if not rows:
        return []
    return ["", "timing cost per timed case (median ms of each phase; timing_s/case in s):",
            f"{'operator':28s} {'timed':>5s} {'s/case':>8s} " + " ".join(f"{k:>8s}" for k in HARNESS_PHASES)] + rows


def build(args: argparse.Namespace) -> tuple[str, dict, bool]:
    if getattr(args, "part1", None):
        p1 = json.loads(Path(args.part1).read_text())
        if p1.get("commit") != args.commit:
            raise SystemExit(f"{args.part1}: part 1 ran on {p1.get('commit')}, not on {args.commit}: run part 1 "
                             f"again on this commit")
        held = p1["heldout"]
        rc, tsum = p1["tests"]["rc"], p1["tests"]["summary"]
        tfailed = p1["tests"].get("failed", [])
        walls = f"part 1 {p1.get('wall', '?')} s + part 2 {args.wall} s"
        expected = p1.get("selected") or []
    else:
        held = latest_records(args.heldout)
        rc, tsum = tests_outcome(Path(args.tests))
        tfailed = []
        walls = f"{args.wall} s"
        expected = selected_ops(args.heldout)
    # part 2's GPU tests (the legal submissions, run after the full tier: gpu_gate.sh), when given
    rc2, tsum2 = tests_outcome(Path(args.tests2)) if getattr(args, "tests2", None) else ("skipped", "")
    t2text = Path(args.tests2).read_text(errors="replace") if getattr(args, "tests2", None) and \
        Path(args.tests2).is_file() else ""
    t2failed = [ln.strip() for ln in t2text.splitlines() if ln.startswith("FAILED ") or " FAILED " in ln][:40]
    full = latest_records(args.full)
    gate_ops = args.ops.split() if args.ops else sorted(full)
    prev_path, prev = previous_record(Path(args.previous)) if args.previous else (None, {})
    prev_sp = prev.get("speedups", {})
    held_bad = sorted(op for op, r in held.items() if r.get("status") == "failed")
    unjudged = sorted(set(expected) - set(held))  # selected, never recorded: the held-out run ended first
    full_bad = sorted(op for op in gate_ops if full.get(op, {}).get("status") not in ("passed", "unsupported"))
    ok = (bool(held) and not held_bad and not unjudged and not full_bad and rc in ("0", "skipped")
          and rc2 in ("0", "skipped"))
    verdict = ("PASS" if rc == "0" else "DRY RUN (passed, no GPU tests)") if ok else "FAIL"
    lines = [f"GPU gate of {args.commit}: {verdict}",
             f"device: {Path(args.gpu).read_text().strip() if args.gpu and Path(args.gpu).is_file() else '?'}",
             f"wall {walls}; full tier timed with reps {args.reps}, warm-up {args.warmup_ms} ms",
             f"compared with: {prev_path.name if prev_path else 'no earlier gate record'}", ""]
    passed = sum(1 for r in held.values() if r.get("status") == "passed")
    unsup = sum(1 for r in held.values() if r.get("status") == "unsupported")
    # a dry run (no GPU: the tests were skipped) runs the smoke tier in place of held-out and full (gpu_gate.sh)
    stand_in = " (dry run: the smoke tier stands in)" if rc == "skipped" else ""
    lines.append(f"held-out tier, every oracle{stand_in}: {passed}/{len(held)} passed"
                 + (f", {unsup} unsupported" if unsup else "")
                 + (f"; FAILED: {', '.join(held_bad)}" if held_bad else ""))
    if unjudged:
        lines.append(f"  NOT JUDGED: {len(unjudged)} of the {len(expected)} selected oracles have no record (the "
                     f"held-out run ended before them): {', '.join(unjudged[:12])}"
                     + (f" and {len(unjudged) - 12} more" if len(unjudged) > 12 else ""))
    for op in held_bad:
        ff = held[op].get("first_failure") or {}
        lines.append(f"  {op} [{held[op].get('failure_class')}] {(ff.get('message') or '')[:300]}")
    lines += ["", f"full tier of the gate set{stand_in} ({len(gate_ops)} operator{'' if len(gate_ops) == 1 else 's'}):",
              f"{'operator':28s} {'status':8s} {'cases':>9s} {'speedup':>8s} {'last':>8s} {'change':>8s} {'%SOL':>6s}"]
    speedups: dict[str, float] = {}
    drift: list[str] = []
    changes: list[float] = []
    for op in gate_ops:
        r = full.get(op, {})
        sp = r.get("speedup")
        last = prev_sp.get(op)
        change = ""
        if sp and last:
            c = sp / last - 1.0
            changes.append(abs(c))
            change = f"{100 * c:+.1f}%"
            if abs(c) > DRIFT:
                drift.append(f"{op} {last:.3f}x -> {sp:.3f}x ({100 * c:+.1f}%)")
        if sp:
            speedups[op] = sp
        cases = f"{r.get('cases_passed', 0)}/{r.get('cases_total', 0)}" if r else "-"
        lines.append(f"{op:28s} {r.get('status', 'missing'):8s} {cases:>9s} "
                     f"{(f'{sp:.3f}x' if sp else '-'):>8s} {(f'{last:.3f}x' if last else '-'):>8s} {change:>8s} "
                     f"{(str(r.get('sol_pct')) if r.get('sol_pct') is not None else '-'):>6s}"
                     + (f"  ({r['shards']} shards)" if r.get("shards") else ""))  # judged in case shards, merged
        if op in full_bad and r:
            ff = r.get("first_failure") or {}
            lines.append(f"  [{r.get('failure_class')}] {(ff.get('message') or '')[:300]}")
    if changes:
        lines.append(f"change against the last gate: median {100 * statistics.median(changes):.2f}%, "
                     f"max {100 * max(changes):.2f}% over {len(changes)} operators")
    if drift:
        lines.append(f"drift beyond {100 * DRIFT:.0f}%: " + "; ".join(drift))
    lines += harness_cost_lines(full, gate_ops)
    lines += ["", f"GPU-only tests: rc {rc}; {tsum}"] + [f"  {ln}" for ln in tfailed]
    if getattr(args, "tests2", None):
        lines += [f"GPU legal-submission tests (part 2, after the full tier): rc {rc2}; {tsum2}"] + \
                 [f"  {ln}" for ln in t2failed]
    data = {"commit": args.commit, "verdict": verdict, "speedups": speedups,
            "heldout": {"passed": passed, "jobs": len(held), "failed": held_bad,
                        **({"selected": len(expected), "unjudged": unjudged} if unjudged else {})}, "tests_rc": rc,
            "tests2_rc": rc2,
            "reps": args.reps, "warmup_ms": args.warmup_ms}
    lines += ["", "JSON: " + json.dumps(data, sort_keys=True)]
    return "\n".join(lines) + "\n", data, ok


def install(path: Path) -> None:
    """Copy a gate record into bench/results/gpu-gate/ and name its commit in LAST (PASS records only)."""
    data = record_json(path)
    if not data:
        sys.exit(f"{path}: not a gate record (no JSON line)")
    if data.get("verdict") != "PASS":
        sys.exit(f"{path}: the gate's verdict on {data.get('commit')} is {data.get('verdict')!r}, not PASS; not "
                 f"installed as the last passing gate")
    GATE_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, GATE_DIR / Path(path).name)
    (GATE_DIR / "LAST").write_text(f"{data['commit']}\n")
    print(f"installed {Path(path).name}; LAST = {data['commit']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", type=Path, help="install a record that came back from the device")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--heldout", type=Path)
    ap.add_argument("--full", type=Path)
    ap.add_argument("--tests", type=Path)
    ap.add_argument("--tests2", type=Path, help="part 2's GPU test log (the legal submissions)")
    ap.add_argument("--previous", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--wall", default="?")
    ap.add_argument("--reps", default="?")
    ap.add_argument("--warmup-ms", dest="warmup_ms", default="?")
    ap.add_argument("--gpu")
    ap.add_argument("--ops", default="")
    ap.add_argument("--part1", type=Path, help="part 1's summary (instead of --heldout and --tests)")
    ap.add_argument("--part1-out", dest="part1_out", type=Path, help="write part 1's summary here and stop")
    ap.add_argument("--heldout-out", dest="heldout_out", type=Path,
                    help="write the held-out run's summary here and stop (PART=1h); --part1-out takes it as --heldout")
    args = ap.parse_args(argv)
    if args.install:
        install(args.install)
        return 0
    if args.heldout_out:
        if not (args.heldout and args.heldout.is_dir()):
            ap.error("--heldout-out needs --heldout RUN (the held-out run's folder)")
        data = heldout_summary(args.heldout, args.commit, args.wall)
        args.heldout_out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        bad = sorted(op for op, r in data["heldout"].items() if r["status"] == "failed")
        unjudged = sorted(set(data["selected"]) - set(data["heldout"]))
        print(f"held-out run of the gate on {args.commit}: {len(data['heldout']) - len(bad)}/{len(data['heldout'])} "
              f"not failed{'; FAILED: ' + ', '.join(bad) if bad else ''}"
              f"{'; NOT JUDGED: ' + ', '.join(unjudged) if unjudged else ''}")
        return 0 if not bad and not unjudged else 1
    if args.part1_out:
        if not (args.heldout and args.tests):
            ap.error("--part1-out needs --heldout and --tests")
        data = part1_summary(args.heldout, args.tests, args.commit, args.wall)
        args.part1_out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        bad = sorted(op for op, r in data["heldout"].items() if r["status"] == "failed")
        print(f"part 1 of the gate on {args.commit}: held-out {len(data['heldout']) - len(bad)}/{len(data['heldout'])} "
              f"not failed{'; FAILED: ' + ', '.join(bad) if bad else ''}; GPU tests rc {data['tests']['rc']}, "
              f"{data['tests']['summary']}")
        for ln in data["tests"]["failed"]:
            print(f"  {ln}")
        if data["tests"]["reports"]:
            print("the failed tests' reports (first 6000 characters):\n" + data["tests"]["reports"][:6000])
        return 0 if not bad and data["tests"]["rc"] in ("0", "skipped") else 1
    if not (args.full and args.out and (args.part1 or (args.heldout and args.tests))):
        ap.error("--full, --out and either --part1 or both --heldout and --tests are required to write a record")
    text, _, ok = build(args)
    args.out.write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
