"""bench/full_tier_plan.py and bench/full_tier_account.py: the full tier's accounting, projection and packing."""
from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, _BENCH / f"{name}.py")
    mod = sys.modules[name] = importlib.util.module_from_spec(spec)  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


acct = _load("full_tier_account")
plan = _load("full_tier_plan")


def _rec(op: str, *, status: str = "passed", hold: str = "job", cases: int = 10, cmd_ms: list[float] = (),
         timing: float = 20.0, waits: float = 5.0, wall: float = 60.0, started: float = 1000.0,
         device: str = "NVIDIA H200", **extra) -> dict:
    method = ("each case's warm-up and timed blocks have the GPU alone" if hold == "case"
              else "the job has the GPU alone while it times")
    timed = [{"id": f"full/{i}", "status": "passed", "candidate_ms": 0.1, "harness_ms": {"command": ms}}
             for i, ms in enumerate(cmd_ms)]
    untimed = [{"id": f"full/{len(timed) + i}", "status": "passed"} for i in range(cases - len(timed))]
    return {"op": op, "tier": "full", "status": status, "cases_total": cases, "cases": timed + untimed,
            "timing": {"method": method}, "device": device, "wall_s": wall, "started_at": started,
            "finished_at": started + wall, "time_s": {"timing_s": timing, "gate_wait_s": waits / 2,
                                                      "gate_wait_timing_s": waits / 2}, **extra}


def test_exclusive_is_the_timed_commands_under_case_hold_and_the_timing_phase_under_job_hold() -> None:
    job = acct.job_cost(_rec("vllm::a", hold="job", cmd_ms=[1000.0, 3000.0], timing=20.0, waits=5.0, wall=60.0))
    case = acct.job_cost(_rec("vllm::a", hold="case", cmd_ms=[1000.0, 3000.0], timing=20.0, waits=5.0, wall=60.0))
    assert (job.hold, job.timed, job.excl, job.shared) == ("job", 2, 20.0, 35.0)  # 60 - 5 waits - 20
    assert (case.hold, case.excl, case.shared) == ("case", 4.0, 51.0)  # 60 - 5 - (1 + 3) s of timed commands
    # the model: exclusive serialised, shared over the slots, a drain per exclusive entry (one a job, one a case)
    assert acct.model_wall([job, job], slots=4) == 40.0 + 70.0 / 4
    assert acct.model_wall([case], slots=4, drain=3.0) == max(4.0 + 51.0 / 4 + 2 * 3.0, 55.0)  # its own work: 55 s
    assert acct.model_wall([job, job], slots=4, drain=3.0) == 40.0 + 70.0 / 4 + 2 * 3.0


def test_records_are_grouped_into_calls_by_the_gap_between_them() -> None:
    a = acct.job_cost(_rec("x::a", started=0.0, wall=50.0))
    b = acct.job_cost(_rec("x::b", started=49.0, wall=50.0))  # a slot's next job, as a ends: the same call
    c = acct.job_cost(_rec("x::c", started=120.0, wall=10.0))  # 21 s after the last finish: the next call
    d = acct.job_cost(_rec("x::d", started=121.0, wall=10.0, device="NVIDIA H100 80GB HBM3"))  # another device
    assert [[j.op for j in call] for call in acct.group_calls([c, a, d, b])] == [["x::a", "x::b"], ["x::c"], ["x::d"]]


def test_counts_are_the_suites_as_kgb_eval_builds_a_jobs_cases() -> None:
    from kernelgenbench.run.job import JobSpec
    from kernelgenbench.suite.registry import all_operators

    counts = plan.suite_counts()
    ops = all_operators()
    assert len(counts) == len(ops) == 210
    assert sum(1 for o in counts if o.startswith("cublas::")) == 50
    for op in ops:
        spec = JobSpec(op, None, "full")
        n, timed, _ = counts[op.id]
        assert n == spec.case_count()
        assert timed == sum(1 for c in spec.cases() if c.timed)
    # cublasCsyrkEx is the source's largest (full_tier.sh names 13,860 cases)
    assert counts["cublas::cublasCsyrkEx"][0] == max(v[0] for o, v in counts.items() if o.startswith("cublas::"))


def _proj(op: str, cases: int, timed: int, excl: float, shared: float) -> object:
    return plan.Projection(op, cases, timed, excl, shared, "test", fix_excl=2.0, fix_shared=4.0)


def test_packing_keeps_every_call_and_every_shard_within_the_deadline() -> None:
    par = plan.Params(slots=4, hold="job", shard=300, drain=4.0, budget=500.0)
    projs = [_proj("v::big", 900, 600, 1500.0, 400.0)] + \
        [_proj(f"v::mid{i}", 100, 40, 200.0, 80.0) for i in range(5)] + \
        [_proj(f"v::small{i}", 20, 10, 20.0, 20.0) for i in range(12)]
    groups = plan.pack(projs, par)
    assert sorted(p.op for g in groups for p in g.ops) == sorted(p.op for p in projs)  # each operator once
    for g in groups:
        jobs = g.jobs()
        lost = par.slots / 2 * g.load() / jobs
        assert g.load() + (g.calls - 1) * lost <= g.calls * par.budget
        for p in g.ops:  # one shard (a job: cut, it is judged again) adds at most budget/slots to a call
            n = plan.shards(p.cases, g.shard)
            assert par.share(p, g.shard) / n <= par.budget / par.slots
    big = next(g for g in groups if any(p.op == "v::big" for p in g.ops))
    # 1500 s exclusive: split so that each shard adds at most 125 s; more than one call for its group
    assert big.shard < 300 and big.calls >= 4
    # the 5 mid operators (each adds 200 + 20 + 4 = 224 s) cannot share one 500 s call three at a time
    for g in groups:
        assert sum(1 for p in g.ops if p.op.startswith("v::mid")) <= 2 * g.calls


def test_a_group_gets_its_own_keep_folder_and_recorded_operators_are_skipped(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "old-run"
    run.mkdir()
    recs = [_rec("cublas::cublasSaxpy_v2", cases=648, cmd_ms=[100.0] * 252),
            _rec("cublas::cublasSgemm_v2", status="failed", cases=352),
            _rec("cublas::cublasDasum_v2", cases=18, cmd_ms=[100.0] * 9)]
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"op": "torn')
    from kernelgenbench.run.rundir import harness_tree

    shard = _rec("cublas::cublasCsyrkEx", cases=300, cmd_ms=[100.0] * 10, shard=[0, 47], harness_tree=harness_tree())
    stale = _rec("cublas::cublasCsyrkEx", cases=300, cmd_ms=[100.0] * 10, shard=[1, 47], harness_tree="another")
    (run / "shards.jsonl").write_text(json.dumps(shard) + "\n" + json.dumps(stale) + "\n")  # another package's:
    # a resume judges it again, so the plan counts it as left
    costs = tmp_path / "costs.jsonl"
    costs.write_text("".join(json.dumps(_rec(o, cases=c, cmd_ms=[100.0] * t, timing=t * 0.2, wall=30.0 + c * 0.05))
                             + "\n" for o, c, t in (("cublas::cublasSaxpy_v2", 648, 252),
                                                    ("cublas::cublasSgemm_v2", 352, 128),
                                                    ("cublas::cublasStrsv_v2", 96, 48))))
    assert plan.main(["--source", "cublas", "--run", str(run), "--costs", str(costs), "--gate", "", "--logs"]) == 0
    out = capsys.readouterr().out
    assert "50 operators" in out and "2 recorded" in out and "48 to run" in out
    calls = [ln for ln in out.splitlines() if ln.startswith("call ")]
    named = {o for ln in calls for o in ln.split('OPS="')[1].split('"')[0].split()}
    assert "cublas::cublasSaxpy_v2" not in named and "cublas::cublasDasum_v2" not in named  # passed: skipped
    assert "cublas::cublasSgemm_v2" in named  # failed: judged again
    assert len(named) == 48
    syrk = next(ln for ln in out.splitlines() if ln.strip().startswith("cublas::cublasCsyrkEx"))
    assert "300 cases in shards.jsonl" in syrk
    keeps = {ln.split("KEEP=")[1].split()[0] for ln in calls}
    assert all(k.startswith("bench/results/cublas-full-") for k in keeps)
    groups = {ln.split("(group ")[1].split(",")[0] for ln in calls}
    assert len(keeps) == len(groups)  # one folder per OPS list: kgb eval refuses another list in a run folder
    assert "PROJECTION" in out and "PROJECTED" in out.splitlines()[-1]


def test_measured_rates_read_the_gates_table_and_a_cut_jobs_progress_bar(tmp_path) -> None:
    gate = tmp_path / "gpu-gate-x.txt"
    gate.write_text("timing cost per timed case (median ms of each phase; timing_s/case in s):\n"
                    "operator                     timed   s/case  command   device\n"
                    "vllm::rms_norm                  16     2.98    138.5      0.8\n")
    log = tmp_path / "eval-call6.log"
    log.write_text("  vllm::grouped_topk · timed cases         ━━━━━━━╸          19/96   0:05:16 eta 0:08:56\n"
                   "  vllm::paged_attention_v1 · cases         ━━━━━━━━━━━━━━━━━━ 437/960 0:00:59 eta 0:00:44\n")
    rates = plan.measured_rates(str(gate), [str(log)])
    assert set(rates) == {"vllm::rms_norm", "vllm::grouped_topk"}
    assert rates["vllm::rms_norm"][0] == 2.98
    assert math.isclose(rates["vllm::grouped_topk"][0], 316 / 19)
    p = plan.project("vllm::grouped_topk", 288, 96, "moe", "vllm", {}, {}, "job", rates)
    assert math.isclose(p.excl, 96 * 316 / 19) and "eval-call6.log" in p.basis


def test_small_groups_that_want_different_shards_share_one_call() -> None:
    # three operators that each fit a call many times over but want different SHARD values (each is split so that
    # a shard adds at most budget/slots): first fit alone put each in its own call (aten's last four calls: 35-68 s)
    par = plan.Params(slots=4, hold="job", shard=300, drain=4.0, budget=500.0)
    projs = [_proj("a::x", 468, 468, 40.0, 30.0), _proj("a::y", 378, 378, 20.0, 20.0),
             _proj("a::z", 60, 60, 5.0, 5.0)]
    groups = plan.pack(projs, par)
    assert len(groups) == 1 and groups[0].calls == 1
    assert sorted(p.op for p in groups[0].ops) == ["a::x", "a::y", "a::z"]
    # the merged group's SHARD splits each operator at least as finely as it needs alone
    assert all(groups[0].shard <= par.shard_for(p) or p.cases <= groups[0].shard for p in projs)


def test_the_hold_is_read_from_the_real_method_texts_baselines_made_ahead_included() -> None:
    """timing.method as verify/timing.py writes it: HOLD=job with bc42's clause on baselines made ahead (which says
    "each case's" too) is still a job hold; HOLD=case is a case hold; the planner knows the clause."""
    from kernelgenbench.verify.timing import AHEAD_TEXT, HOLD_TEXT

    for hold, ahead in (("job", ""), ("job", AHEAD_TEXT), ("case", ""), ("case", AHEAD_TEXT)):
        method = f"device time: ...; {HOLD_TEXT[hold]}; {ahead}2 random and the 2 fastest judged"
        assert acct.job_cost(_rec("vllm::a", hold=hold, cmd_ms=[1000.0], **{}) | {"timing": {"method": method}}
                             ).hold == hold, (hold, bool(ahead))
    assert plan.AHEAD_CLAUSE in AHEAD_TEXT
