"""Typed, versioned records (record.py) and the typed child protocol (sandbox/protocol.py): what they write
is the JSON the README documents, records of version 1 read back, unknown versions are refused."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from kernelgenbench.record import (
    SCHEMA_VERSION,
    TIMING_FIELDS,
    CaseRecord,
    JobRecord,
    L3Record,
    PhaseTimes,
    RunSummary,
    schema_version,
    stamp,
)
from kernelgenbench.sandbox import protocol

#: A version-1 record as the verifier wrote it before the typed records (a failed L2 job, trimmed).
V1 = {"op": "aten::neg", "source": "aten", "category": "pointwise unary", "submission": "/s/aten__neg.py",
      "submission_sha256": "ab", "label": "s", "tier": "smoke", "platform": "interpreter",
      "device": "cpu (Triton interpreter)", "status": "failed", "failure_class": "ghost",
      "first_failure": {"case": {"shape": [3]}, "case_id": "smoke/1", "message": "L2 ghost replay: ..."},
      "cases_total": 2, "cases_passed": 1, "cases_unsupported": 0, "unsupported_reason": None, "speedup": None,
      "sol_pct": None,
      "cases": [{"id": "smoke/0", "params": {"shape": [2]}, "status": "passed", "input_seed": 7, "launches": 1,
                 "wall_s": 0.01, "kernels": ["k"], "max_abs": 0.0, "max_rel": 0.0, "rule": "exact"},
                {"id": "smoke/1", "params": {"shape": [3]}, "status": "pending"}],
      "anti_hack": {"L1": {"ok": True, "count": 0, "rules": {}, "findings": []},
                    "L2": {"ok": False, "checked": 1, "passed_without_triton": ["smoke/0"], "diverged": [],
                           "triton_derived_reads": 0, "passed_from_triton_reads": [],
                           "cases": {"smoke/0": {"input_seed": 7, "ghost": "still passed"}}, "order": "c0 r0 g0",
                           "method": "m"},
                    "L3": {"import_trace": {}, "ok": True, "trace": {}, "launches": 1}},
      "baseline": "torch.neg (not timed on interpreter)", "timing": {"applicable": False, "reason": "r"},
      "missing_optional": [], "log": "/j/child.log", "started_at": 1.0, "finished_at": 2.0, "wall_s": 1.0,
      "time_s": {"l1_s": 0.1}, "attempt": 1}


def test_a_version_1_record_reads_back_and_writes_the_same_fields_with_the_version() -> None:
    rec = JobRecord.from_json(V1)
    assert rec.first_failure is not None and rec.first_failure.case_id == "smoke/1"
    assert rec.cases[0].input_seed == 7 and rec.anti_hack.L2 is not None and not rec.anti_hack.L2.ok
    out = rec.to_json()
    assert list(out)[0] == "schema_version" and out["schema_version"] == SCHEMA_VERSION == 2
    assert {k: v for k, v in out.items() if k != "schema_version"} == V1
    assert json.loads(json.dumps(out)) == out
    assert schema_version(V1) == 1 and schema_version(out) == 2


def test_unknown_keys_survive_and_unknown_versions_are_refused() -> None:
    rec = JobRecord.from_json({**V1, "schema_version": 2, "future_field": [1]})
    assert rec.extra == {"future_field": [1]} and rec.to_json()["future_field"] == [1]
    with pytest.raises(ValueError, match="schema_version 3"):
        JobRecord.from_json({**V1, "schema_version": 3})
    with pytest.raises(ValueError, match="schema_version 3"):
        RunSummary.from_json({"schema_version": 3})


def test_a_case_record_writes_only_what_was_set_and_timing_fields_together() -> None:
    c = CaseRecord("full/0", {"n": 4})
    assert c.to_json() == {"id": "full/0", "params": {"n": 4}, "status": "pending"}
    c.update(status="passed", launches=1)
    c.update(baseline_ms=2.0, candidate_ms=1.0, speedup=2.0, gbps=None)
    out = c.to_json()
    assert [k for k in out if k in TIMING_FIELDS] == list(TIMING_FIELDS)  # nulls included, as before
    assert out["gbps"] is None and "message" not in out and "untimed" not in out
    with pytest.raises(AttributeError, match="no field 'speed'"):
        c.update(speed=3.0)


def test_the_first_failure_stays_the_jobs() -> None:
    rec = JobRecord(op="aten::neg")
    case = SimpleNamespace(id="smoke/2", params={"n": 1})
    rec.fail("wrong_result", "first", case)
    rec.fail("ghost", "second")
    assert rec.failure_class == "wrong_result" and rec.status == "failed"
    assert rec.to_json()["first_failure"] == {"case": {"n": 1}, "case_id": "smoke/2", "message": "first"}
    rec.anti_hack.L3 = L3Record(import_trace={"aten::add": 1})
    assert rec.to_json()["anti_hack"] == {"L1": None, "L2": None, "L3": {"import_trace": {"aten::add": 1}}}


def test_synthetic_records_are_job_records() -> None:
    op = SimpleNamespace(id="aten::add", source="aten", category="pointwise binary")
    out = JobRecord.synthetic(op, "s0r0", "all", "cuda", "no_code", "no code", 27, sample_id="x", wall_s=0.0).to_json()
    assert out["schema_version"] == 2 and out["status"] == "failed" and out["failure_class"] == "no_code"
    assert out["first_failure"] == {"case": None, "case_id": None, "message": "no code"}
    assert out["cases_total"] == 27 and out["cases"] == [] and out["sample_id"] == "x" and "attempt" not in out
    assert set(JobRecord.from_json(out).to_json()) == set(out)


def test_summaries_carry_the_version_first() -> None:
    s = RunSummary(overall={"operators": 1}, tier="smoke", tiers=["smoke"], platform="interpreter").to_json()
    assert list(s)[:3] == ["schema_version", "by_source", "overall"]
    assert list(stamp({"operators": {}, "schema_version": 1})) == ["schema_version", "operators"]
    times = PhaseTimes()
    with times.phase("l1_s"):
        pass
    assert set(times.to_json()) >= {"l1_s", "hung_s"}


def test_protocol_messages_round_trip_and_read_what_old_children_sent() -> None:
    cmd = protocol.CaseCommand("/io/1.in.pt", "/io/1.out.pt", ghost=True)
    assert protocol.parse_command(json.loads(json.dumps(cmd.to_json()))) == cmd
    t = protocol.TimeCommand("/io/t.pt", 30, 25.0, [3, 17], "/io/c.pt")
    assert t.to_json()["cmd"] == "time" and protocol.parse_command(t.to_json()) == t
    assert protocol.parse_command({"cmd": "nosuch"}) is None
    with pytest.raises(KeyError):
        protocol.parse_command({"cmd": "case"})
    # an answer as the child wrote it before the protocol was typed
    old = {"event": "case", "error": None, "trace": {"aten::empty": 1}, "launches": ["k"], "wrapper_calls": {"neg": 1},
           "ret_alias": None, "kernels": None, "wall_s": 0.5, "timers_tampered": [], "replay": None,
           "stale_outputs": [], "launch_violations": [], "unscanned_bodies": [["kern", 3]]}
    ans = protocol.parse_answer(old)
    assert isinstance(ans, protocol.CaseAnswer) and ans.launches == ["k"] and ans.unscanned_bodies == [["kern", 3]]
    assert ans.to_json() == {**old, "op_sites": {}}  # a field added since (session 38) reads as empty
    # missing containers read as empty, as the verifier's `or []` did
    ready = protocol.parse_answer({"event": "ready", "ok": True})
    assert isinstance(ready, protocol.Ready) and ready.import_trace == {} and ready.missing_optional == []
    assert ready.import_sites == {}
    assert isinstance(protocol.parse_answer({"event": "harness_error", "error": {"type": "E"}}), protocol.HarnessError)
    odd = protocol.parse_answer({"event": "weird"})
    assert isinstance(odd, protocol.UnknownAnswer) and odd.event_name == "weird"
    assert protocol.Progress(1, 2, 3, 4, idle_s=0.5).to_json()["idle_s"] == 0.5


def test_records_carry_the_harness_commit_and_a_mixed_run_says_so(tmp_path, monkeypatch) -> None:
    """bench/full_tier.sh resumes one run across device sessions and commits: every record names the commit that
    judged it (KGB_COMMIT where the scripts set it), and the console warns when a run's records mix commits."""
    from kernelgenbench.run import rundir as rd
    from kernelgenbench.tables import mixed_commits_line

    monkeypatch.setattr(rd, "_COMMIT", [])
    monkeypatch.setenv("KGB_COMMIT", "a" * 40)
    run = rd.RunDir.create(tmp_path, "t", {"submissions": "x"})
    run.append(JobRecord(op="aten::neg", status="passed"))
    run.append({"op": "aten::abs", "status": "passed", "harness_commit": "b" * 40})  # judged earlier, elsewhere
    recs = run.records()
    assert [r["harness_commit"] for r in recs] == ["a" * 40, "b" * 40]
    assert JobRecord.from_json(recs[0]).harness_commit == "a" * 40
    assert rd.environment(SimpleNamespace(to_json=lambda: {}, interpreter=True))["kernelgenbench_commit"] == "a" * 40
    assert mixed_commits_line(recs) == ("these records were judged by 2 harness commits (aaaaaaaaaa (1 jobs), "
                                        "bbbbbbbbbb (1 jobs)): a resumed run mixes harness versions; each record's "
                                        "harness_commit says which judged it")
    assert mixed_commits_line(recs[:1]) is None
