"""Case shards (``kgb eval --shard-cases``, run/shards.py) through the local scheduler with a fake job runner: a job
of more cases is judged as shards merged into one record; a resume runs only the shards missing, or recorded on
another device or by another harness commit; a failed shard ends its job; an infrastructure failure requeues one
shard. One real run on the interpreter at the end."""
from __future__ import annotations

import json
import math
import statistics
import threading
from pathlib import Path

import pytest

from kernelgenbench.platforms import PROFILES
from kernelgenbench.record import cases_cell, sha256
from kernelgenbench.run import rundir as rundir_mod
from kernelgenbench.run import scheduler
from kernelgenbench.run.job import JobSpec, Settings
from kernelgenbench.run.rundir import RunDir
from kernelgenbench.run.scheduler import make_slots, run_jobs
from kernelgenbench.run.shards import merge_records, shard_count
from kernelgenbench.suite.registry import get_operator

CUDA = PROFILES["cuda"]
ROOT = Path(__file__).resolve().parents[1]
OP = get_operator("aten::add")  # 6 smoke cases: --shard-cases 2 makes 3 shards of 2
IDS = [c.id for c in OP.cases("smoke")]
SPEEDUP = {cid: 1.0 + k for k, cid in enumerate(IDS)}  # 1.0 .. 6.0
SOL = {cid: 10.0 * (k + 1) for k, cid in enumerate(IDS)}


@pytest.fixture(autouse=True)
def _device_and_commit(monkeypatch):
    """Every slot is an "H200", the harness commit "aaa" (tests change them)."""
    monkeypatch.setattr(scheduler, "device_name", lambda platform, device: DEVICE[0])
    monkeypatch.setattr(rundir_mod, "_COMMIT", ["aaa"])
    monkeypatch.setattr(rundir_mod, "_TREE", ["t1"])
    DEVICE[0] = "H200"


DEVICE = ["H200"]


def _spec() -> JobSpec:
    return JobSpec(OP, ROOT / "solutions" / "aten__add.py", "smoke", "s")


def _shard_rec(spec: JobSpec, fail: str | None = None, t0: float = 100.0) -> dict:
    """What a Verifier returns for ``spec`` (a shard): its cases, each passed and timed, or the first failed."""
    i, n = spec.shard
    cases = []
    for c in spec.cases():
        cases.append({"id": c.id, "params": c.params, "status": "passed", "speedup": SPEEDUP[c.id],
                      "sol_pct": SOL[c.id]})
    if fail:
        cases[0].update(status="failed", speedup=None, sol_pct=None)
    g = math.exp(sum(math.log(c["speedup"]) for c in cases if c["speedup"]) / len(cases)) if not fail else None
    return {"op": spec.op.id, "source": spec.op.source, "label": spec.label,
            "submission_sha256": sha256(spec.submission),
            "tier": spec.tier, "platform": "cuda", "device": DEVICE[0], "shard": [i, n],
            "status": "failed" if fail else "passed", "failure_class": fail,
            "first_failure": ({"case": None, "case_id": cases[0]["id"], "message": f"shard {i} failed"} if fail
                              else None),
            "cases_total": len(cases), "cases_passed": sum(c["status"] == "passed" for c in cases),
            "cases_unsupported": 0, "speedup": g, "cases": cases,
            "anti_hack": {"L1": {"ok": True, "count": 0}, "L2": {"ok": i != 2, "checked": 2, "diverged": [f"d{i}"]},
                          "L3": {"ok": True, "trace": {"aten::add": 1 + i}, "launches": 2}},
            "time_s": {"l1_s": 1.0, "timing_s": 2.0 + i}, "started_at": t0 + 10 * i, "finished_at": t0 + 10 * i + 5}


def _runner(calls: list, fail: dict | None = None):
    """A fake run_job: records each shard it runs (``calls``); ``fail``: shard index -> failure class (once)."""
    fail = dict(fail or {})
    lock = threading.Lock()

    def run_job(spec, slot, gate, workdir, ceil):
        with lock:
            calls.append(spec.shard)
            cls = fail.pop(spec.shard[0], None)
        return _shard_rec(spec, cls)
    return run_job


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_shard_count_and_interleaving() -> None:
    assert shard_count(6, 0) == 1 and shard_count(6, 6) == 1 and shard_count(6, 2) == 3 and shard_count(7, 2) == 4
    spec = JobSpec(OP, None, "smoke", "", shard=(1, 3))
    assert [c.id for c in spec.cases()] == [IDS[1], IDS[4]]  # cases[1::3]: small and large sizes mixed
    assert spec.case_count() == 2


def test_shards_are_merged_into_one_record(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    seen: list[dict] = []
    written = run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 2, share=True, count=1), {},
                       run_job=_runner(calls), on_done=seen.append)
    assert sorted(calls) == [(0, 3), (1, 3), (2, 3)]
    shards = _lines(rd.shards)
    assert sorted(s["shard"] for s in shards) == [[0, 3], [1, 3], [2, 3]]
    assert all(s["device"] == "H200" and s["harness_commit"] == "aaa" and s["job_key"].startswith("aten::add|s|")
               for s in shards)
    (rec,) = _lines(rd.results)
    assert written == [rec] and rec == {**rec, "shards": 3, "status": "passed", "failure_class": None}
    assert [c["id"] for c in rec["cases"]] == IDS  # concatenated in case order
    assert (rec["cases_total"], rec["cases_passed"], rec["cases_unsupported"]) == (6, 6, 0)
    assert rec["speedup"] == round(math.exp(sum(math.log(v) for v in SPEEDUP.values()) / 6), 4)  # 2.9938
    assert rec["sol_pct"] == statistics.median(SOL.values()) == 35.0
    l2, l3 = rec["anti_hack"]["L2"], rec["anti_hack"]["L3"]
    assert l2["ok"] is False and l2["checked"] == 6 and l2["diverged"] == ["d0", "d1", "d2"]  # shard 2's L2 failed
    assert l3["ok"] is True and l3["trace"] == {"aten::add": 6} and l3["launches"] == 6
    assert rec["time_s"]["l1_s"] == 3.0 and rec["time_s"]["timing_s"] == 9.0
    assert (rec["started_at"], rec["finished_at"], rec["wall_s"]) == (100.0, 125.0, 25.0)
    assert "shard" not in rec and "job_key" not in rec and rec["harness_commit"] == "aaa"
    # the console saw each shard (with ``shard``) and then the merged record
    assert [r.get("shard") for r in seen][-1] is None and len(seen) == 4
    # a second call: the job is recorded, nothing runs
    calls.clear()
    assert run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {},
                    run_job=_runner(calls)) == [] and calls == []


def test_a_failed_shard_writes_the_failed_record_and_drops_the_rest(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {},
             run_job=_runner(calls, fail={1: "correctness"}))
    assert calls == [(0, 3), (1, 3)]  # shard 2 was dropped
    (rec,) = _lines(rd.results)
    assert rec["status"] == "failed" and rec["failure_class"] == "correctness" and rec["shards"] == 3
    assert rec["first_failure"]["message"] == "shard 1 failed" and rec["first_failure"]["case_id"] == IDS[1]
    # the cases judged so far, and the dropped shard's as never run (as an unsharded failed job lists them; bs41:
    # they were left out, so every table said "3/6 (3 shards)" with no word of the 2 cases never run)
    assert [c["id"] for c in rec["cases"]] == IDS
    assert [c["status"] for c in rec["cases"]] == ["passed", "failed", "pending", "passed", "passed", "pending"]
    assert rec["cases_total"] == 6 and rec["cases_passed"] == 3
    assert cases_cell(rec) == "3/6 (2 not run, 3 shards)"
    assert len(_lines(rd.shards)) == 2


def test_a_shard_running_when_its_job_failed_is_recorded_and_changes_nothing(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    merged = threading.Event()
    calls: list = []

    def run_job(spec, slot, gate, workdir, ceil):
        calls.append(spec.shard)
        if spec.shard[0] == 0:
            assert merged.wait(10)  # still running when shard 1's failure ends the job
            return _shard_rec(spec)
        return _shard_rec(spec, "correctness" if spec.shard[0] == 1 else None)

    def on_done(rec):
        if rec.get("shards"):
            merged.set()

    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 2, share=True, count=1), {},
             run_job=run_job, on_done=on_done)
    assert sorted(calls) == [(0, 3), (1, 3)]
    (rec,) = _lines(rd.results)
    assert rec["failure_class"] == "correctness" and [c["id"] for c in rec["cases"]] == IDS
    assert [c["id"] for c in rec["cases"] if c["status"] != "pending"] == [IDS[1], IDS[4]]  # only shard 1's judged
    assert sorted(s["shard"][0] for s in _lines(rd.shards)) == [0, 1]  # shard 0 recorded all the same


def test_resume_runs_only_the_missing_shards(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    # shard 1's device fails (infrastructure, no requeue left): the job's record is infrastructure, shard 2 dropped
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, max_requeue=0,
             run_job=_runner(calls, fail={1: "infrastructure"}))
    assert calls == [(0, 3), (1, 3)] and _lines(rd.results)[0]["failure_class"] == "infrastructure"
    calls.clear()
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner(calls))
    assert calls == [(1, 3), (2, 3)]  # shard 0 kept
    rec = _lines(rd.results)[-1]
    assert rec["status"] == "passed" and [c["id"] for c in rec["cases"]] == IDS and rec["cases_total"] == 6


@pytest.mark.parametrize("change", ["device", "tree"])
def test_a_shard_of_another_device_or_harness_is_judged_again(tmp_path: Path, monkeypatch, change: str) -> None:
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, max_requeue=0,
             run_job=_runner(calls, fail={2: "infrastructure"}))
    assert calls == [(0, 3), (1, 3), (2, 3)]
    calls.clear()
    if change == "device":
        DEVICE[0] = "H100"
    else:  # another commit whose package differs
        monkeypatch.setattr(rundir_mod, "_COMMIT", ["bbb"])
        monkeypatch.setattr(rundir_mod, "_TREE", ["t2"])
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner(calls))
    assert calls == [(0, 3), (1, 3), (2, 3)]  # none of the H200's (package t1's) shards is mixed in
    rec = _lines(rd.results)[-1]
    assert rec["status"] == "passed" and rec["device"] == DEVICE[0]
    assert rec["harness_commit"] == ("bbb" if change == "tree" else "aaa")


def test_a_shard_of_another_commit_of_the_same_package_is_kept(tmp_path: Path, monkeypatch) -> None:
    """A commit that changes nothing in the package (a README, bench/ or results commit) keeps the shards recorded;
    a shard recorded before harness_tree existed is kept only on its own commit."""
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, max_requeue=0,
             run_job=_runner(calls, fail={2: "infrastructure"}))
    shards = _lines(rd.shards)
    assert [s["harness_tree"] for s in shards] == ["t1", "t1", "t1"]
    old = dict(shards[1], harness_tree=None)  # shard 1 as a harness without the fingerprint wrote it
    del old["harness_tree"]
    rd.shards.write_text("".join(json.dumps(r) + "\n" for r in (shards[0], old, shards[2])))
    calls.clear()
    monkeypatch.setattr(rundir_mod, "_COMMIT", ["bbb"])  # same package t1
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner(calls))
    assert calls == [(1, 3), (2, 3)]  # shard 0 kept; shard 1 (no tree, commit aaa) and the failed shard 2 again
    rec = _lines(rd.results)[-1]
    assert rec["status"] == "passed" and rec["cases_total"] == 6


def test_an_infrastructure_failure_requeues_that_shard_alone(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    calls: list = []
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, None, count=2), {},
             run_job=_runner(calls, fail={1: "infrastructure"}))
    assert sorted(calls) == [(0, 3), (1, 3), (1, 3), (2, 3)]  # shard 1 twice, the others once
    (rec,) = _lines(rd.results)
    assert rec["status"] == "passed" and rec["attempt"] == 2 and rec["cases_passed"] == 6
    attempts = {s["shard"][0]: s["attempt"] for s in _lines(rd.shards)}
    assert attempts == {0: 1, 1: 2, 2: 1}


def test_a_merge_cut_off_is_written_on_resume_without_running(tmp_path: Path) -> None:
    rd = RunDir.open(tmp_path / "run")
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner([]))
    first = _lines(rd.results)[0]
    rd.results.unlink()  # killed after its last shard's line, before the merged one
    calls: list = []
    written = run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {},
                       run_job=_runner(calls))
    assert calls == [] and written == _lines(rd.results) and written[0]["speedup"] == first["speedup"]


def test_merge_status_follows_the_verifiers_rule() -> None:
    spec = _spec()
    parts = [_shard_rec(JobSpec(OP, spec.submission, "smoke", "s", shard=(i, 3))) for i in range(3)]
    for p in parts:  # every case unsupported in every shard: the job is unsupported
        p.update(status="unsupported", cases_unsupported=2, cases_passed=0, unsupported_reason=f"r{p['shard'][0]}")
    assert merge_records(OP, "smoke", parts, 3)["status"] == "unsupported"
    parts[0].update(status="passed", cases_unsupported=0, cases_passed=2, unsupported_reason=None)
    parts[1].update(cases_unsupported=1)  # one case judged, one left unjudgeable by the kernel: not passed
    m = merge_records(OP, "smoke", parts, 3)
    assert m["status"] == "unsupported" and m["unsupported_reason"] == "r1" and m["cases_unsupported"] == 3
    parts[1].update(status="passed")
    parts[2].update(status="passed", cases_unsupported=0)
    m = merge_records(OP, "smoke", parts, 3)
    assert m["status"] == "passed" and m["cases_unsupported"] == 1


def test_sharded_run_on_the_interpreter_gives_the_unsharded_verdict(tmp_path: Path) -> None:
    from kernelgenbench.run.evaluate import evaluate

    kw = dict(ops=["aten::add"], tier="smoke", platform="interpreter", runs_root=tmp_path)
    whole = evaluate(ROOT / "solutions", out=tmp_path / "whole", **kw)
    split = evaluate(ROOT / "solutions", out=tmp_path / "split", settings=Settings(shard_cases=2), **kw)
    (a,), (b,) = whole.records, split.records
    assert (b["cases_total"], b["status"], b["cases_passed"]) == (a["cases_total"], a["status"], a["cases_passed"])
    assert b["shards"] == 3 and "shards" not in a and a["cases_total"] == 6
    assert sorted(s["shard"] for s in RunDir(split.path).shard_records()) == [[0, 3], [1, 3], [2, 3]]
    assert [c["id"] for c in b["cases"]] == [c["id"] for c in a["cases"]]
    # every table says the record was judged in shards
    from kernelgenbench.record import JobRecord

    assert cases_cell(b) == "6/6 (3 shards)" and cases_cell(a) == "6/6"
    assert split.summary["per_operator"][0]["shards"] == 3 and "shards" not in whole.summary["per_operator"][0]
    assert JobRecord.from_json(b).shards == 3


def test_ctrl_c_keeps_the_finished_shards(tmp_path: Path) -> None:
    """Ctrl-C in shard 1: shard 0's record is kept (shards.jsonl), nothing is merged, and a resume runs shards 1
    and 2 only. A job without a submission file is not split (it fails as missing before any case)."""
    import os
    import signal
    import time

    rd = RunDir.open(tmp_path / "run")
    calls: list = []

    def run_job(spec, slot, gate, workdir, ceil):
        calls.append(spec.shard)
        if spec.shard[0] == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(3.0)  # the main thread handles the interrupt meanwhile
        return _shard_rec(spec)

    with pytest.raises(KeyboardInterrupt):
        run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=run_job)
    assert calls == [(0, 3), (1, 3)] and [s["shard"] for s in _lines(rd.shards)] == [[0, 3]]
    assert not rd.results.exists()
    calls.clear()
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner(calls))
    assert calls == [(1, 3), (2, 3)] and _lines(rd.results)[0]["cases_passed"] == 6
    from kernelgenbench.run.shards import split

    assert split(JobSpec(OP, None, "smoke", "s"), 2) == [JobSpec(OP, None, "smoke", "s")]
    assert len(split(_spec(), 2)) == 3 and split(_spec(), 6) == [_spec()] and split(_spec(), 0) == [_spec()]
    from kernelgenbench.run.shards import split_counts

    assert split_counts([_spec(), _spec()], 2) == (2, 6) and split_counts([_spec()], 0) == (0, 0)


def test_a_file_edited_between_shards_is_not_merged_across_versions(tmp_path: Path) -> None:
    """bs41: the file edited after shard 1 of 3 was judged: the slot's thread died on a KeyError (the book looked the
    shard up by the new file's hash) and the run ended as a harness error. Each shard is recorded under the version
    it judged, the job is not merged across versions, and a resume judges the new file keeping its shard."""
    import shutil

    sub = tmp_path / "aten__add.py"
    shutil.copy(ROOT / "solutions" / "aten__add.py", sub)
    old = sha256(sub)
    spec = JobSpec(OP, sub, "smoke", "s")
    rd = RunDir.open(tmp_path / "run")
    calls: list = []

    def run_job(spec, slot, gate, workdir, ceil):
        calls.append(spec.shard)
        rec = _shard_rec(spec)  # judged the file as it is now
        if spec.shard[0] == 0:
            sub.write_text(sub.read_text() + "\n# edited\n")
        return rec

    written = run_jobs([spec], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=run_job)
    new = sha256(sub)
    assert written == [] and _lines(rd.results) == [] and calls == [(0, 3), (1, 3)]  # shard 2 dropped
    assert [(s["shard"][0], s["submission_sha256"]) for s in _lines(rd.shards)] == [(0, old), (1, new)]
    assert [s["job_key"].split("|")[2] for s in _lines(rd.shards)] == [old, new]
    calls.clear()
    written = run_jobs([spec], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {},
                       run_job=_runner(calls))
    assert sorted(calls) == [(0, 3), (2, 3)]  # the new file's shard 1 kept, the old file's shard 0 not
    (rec,) = written
    assert rec["submission_sha256"] == new and rec["status"] == "passed" and rec["cases_total"] == 6
    assert [c["id"] for c in rec["cases"]] == IDS


def test_a_killed_runs_half_line_does_not_swallow_the_next_record(tmp_path: Path) -> None:
    """bs41: a run killed while writing left a line without its newline; the next record (a resume's shard, or its
    merged record) was appended to it, so both were one malformed line that every reader skipped: a result lost."""
    rd = RunDir.open(tmp_path / "run")
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, max_requeue=0,
             run_job=_runner([], fail={2: "infrastructure"}))
    for path in (rd.shards, rd.results):
        with open(path, "a") as f:
            f.write('{"op": "aten::add", "shard": [2, 3], "sta')  # killed mid-write
    calls: list = []
    run_jobs([_spec()], CUDA, rd, Settings(shard_cases=2), make_slots(CUDA, 1, count=1), {}, run_job=_runner(calls))
    assert calls == [(2, 3)]
    assert [(s["shard"][0], s["status"]) for s in rd.shard_records()] == [(0, "passed"), (1, "passed"),
                                                                           (2, "failed"), (2, "passed")]
    assert [(r["status"], r["cases_passed"]) for r in rd.records()] == [("failed", 5), ("passed", 6)]


def test_fresh_sets_the_shards_aside_too(tmp_path: Path, monkeypatch) -> None:
    """bs41: ``--fresh --out X`` set results.jsonl aside but kept shards.jsonl, so the "fresh" run merged the earlier
    run's shards without judging anything (and with shards.jsonl alone, a run killed before its first merge, set
    nothing aside at all). Every shard is judged again; the earlier shards are kept aside."""
    from kernelgenbench.run import job
    from kernelgenbench.run.evaluate import evaluate

    monkeypatch.setattr(scheduler, "device_name", job.device_name)  # the slots' real device: shards are kept
    kw = dict(ops=["aten::add"], tier="smoke", platform="interpreter", runs_root=tmp_path, out=tmp_path / "run",
              settings=Settings(shard_cases=2))
    evaluate(ROOT / "solutions", **kw)
    rd = RunDir(tmp_path / "run")
    before = {s["shard"][0]: s["started_at"] for s in rd.shard_records()}
    rd.results.unlink()  # killed after its last shard, before the merge
    (rec,) = evaluate(ROOT / "solutions", fresh=True, **kw).records
    after = {s["shard"][0]: s["started_at"] for s in rd.shard_records()}
    assert sorted(after) == [0, 1, 2] and all(after[i] > before[i] for i in before)  # judged again
    assert rec["status"] == "passed" and rec["shards"] == 3 and rec["started_at"] == min(after.values())
    assert len(list((tmp_path / "run").glob("shards.jsonl.replaced-*"))) == 1


def test_shards_of_an_earlier_call_on_another_device_are_judged_again_on_ray(tmp_path: Path) -> None:
    """bs41: Ray's driver cannot tell the cluster's GPUs at plan time (``devices=None``), so an earlier call's shards
    recorded on H200s were kept and merged with a shard judged now on an H100: one speedup of two devices
    ("H200 + H100"). The earlier shards are judged again instead, and the merge is of one device."""
    from kernelgenbench.run.shards import ShardBook

    rd = RunDir.open(tmp_path / "run")
    spec = _spec()
    book = ShardBook(rd, CUDA, 2, None)
    todo, _ = book.plan([spec])
    for s in todo[:2]:  # the first call, cut off after two shards
        book.finish(s, _shard_rec(s))
    book = ShardBook(rd, CUDA, 2, None)  # the next call, on a cluster of H100s
    todo, ready = book.plan([spec])
    assert [s.shard for s in todo] == [(2, 3)] and ready == []
    DEVICE[0] = "H100"
    assert book.finish(todo[0], _shard_rec(todo[0])) is None  # not merged with the H200's shards
    again = book.take_rerun()
    assert [s.shard for s in again] == [(0, 3), (1, 3)] and book.take_rerun() == []
    merged = [book.finish(s, _shard_rec(s)) for s in again][-1]
    assert merged["device"] == "H100" and merged["cases_total"] == 6 and [c["id"] for c in merged["cases"]] == IDS
