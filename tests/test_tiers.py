"""Tier selections (issue 12, class 7): ``all`` is the union of the smoke, full and held-out tiers, and
a comma list selects several tiers; a case of a selection is the same case as in its own tier."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.suite.registry import all_operators, get_operator
from kernelgenbench.suite.spec import (
    ALL_TIERS,
    SHOWN_TIERS,
    TIERS,
    VERDICT_TIER,
    tier_label,
    tier_name,
    tier_parts,
    verdict_scope,
)

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"

#: a few operators of each source: pointwise, broadcasting binary, matmul, random, nothing-to-compute
SAMPLE = ["aten::add", "aten::neg", "aten::mm", "aten::bernoulli", "aten::t", "vllm::rms_norm", "vllm::topk_softmax",
          "vllm::fused_add_rms_norm", "cublas::cublasSgemm_v2", "cublas::cublasSaxpy_v2", "cublas::cublasStrsv_v2"]


def _key(c) -> tuple:
    return (c.id, c.tier, c.tier_index, c.params, c.seed, c.timed)


@pytest.mark.parametrize("op_id", SAMPLE)
def test_all_is_the_union_of_the_three_tiers(op_id: str) -> None:
    op = get_operator(op_id)
    own = {t: op.cases(t) for t in TIERS}
    union = op.cases(ALL_TIERS)
    assert len(union) == sum(len(v) for v in own.values())
    assert len({c.id for c in union}) == len(union), "case ids repeat in the union"
    # every case of the union is the same case as in its own tier: id, parameters, seed, timed
    assert [_key(c) for c in union] == [_key(c) for t in TIERS for c in own[t]]
    # the union numbers its cases (the verifier keys a job's runs by index); the id keeps the tier's index
    assert [c.index for c in union] == list(range(len(union)))
    assert {c.id for c in union if c.timed} == {c.id for c in own["full"] if c.timed}
    assert not any(c.timed for c in union if c.tier != "full")


def test_every_operator_unions_without_clashes() -> None:
    for op in all_operators():
        union = op.cases(ALL_TIERS)
        n = {t: len(op.grid(t)) for t in TIERS}
        assert len(union) == sum(n.values()), op.id
        assert len({c.id for c in union}) == len(union), op.id
        assert len({c.seed for c in union}) == len(union), f"{op.id}: two cases of the union draw the same inputs"
        assert sum(c.timed for c in union) == sum(c.timed for c in op.cases("full")), op.id


def test_a_single_tier_is_unchanged() -> None:
    op = get_operator("vllm::rms_norm")
    for t in TIERS:
        cases = op.cases(t)
        assert [c.id for c in cases] == [f"{t}/{i}" for i in range(len(op.grid(t)))]
        assert all(c.index == c.tier_index for c in cases)


def test_comma_lists_select_tiers_in_tier_order() -> None:
    op = get_operator("aten::neg")
    a, b = op.cases("heldout,smoke"), op.cases("smoke, heldout")
    assert [_key(c) for c in a] == [_key(c) for c in b] == [_key(c) for c in op.cases("smoke") + op.cases("heldout")]
    assert [_key(c) for c in op.cases("smoke,full,heldout")] == [_key(c) for c in op.cases(ALL_TIERS)]
    assert tier_parts("full,smoke,full") == ("smoke", "full")
    assert tier_name("heldout, smoke") == "smoke,heldout"
    assert tier_name("heldout,full,smoke") == tier_name("all") == "all"
    assert tier_name("full") == "full"
    for bad in ("", "bogus", "smoke,", "smoke,bogus", "ALL"):
        with pytest.raises(ValueError, match="unknown tier"):
            op.cases(bad)


def test_labels_say_what_a_verdict_covers() -> None:
    assert tier_label("all") == "all (smoke + full + heldout)"
    assert tier_label("heldout,smoke") == "smoke + heldout"
    assert "every tier" in verdict_scope("all")
    assert "smoke tier only" in verdict_scope("smoke") and "--tier all" in verdict_scope("smoke")
    assert "not full" in verdict_scope("smoke,heldout")


def test_the_defaults() -> None:
    assert VERDICT_TIER == ALL_TIERS
    assert "heldout" not in SHOWN_TIERS and set(SHOWN_TIERS) < set(TIERS)


# -- the command line: kgb eval / summary / show ------------------------------------------------------------
def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_eval_tier_all_is_recorded_by_its_canonical_name_and_resumes_only_itself(tmp_path: Path) -> None:
    from kernelgenbench.cli import app

    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()  # no file: the requested operator fails as missing, without running a case
    base = ["eval", str(subs), "--op", "aten::neg", "--platform", "interpreter"]
    res = CliRunner().invoke(app, [*base, "--out", str(out), "--tier", "heldout,smoke,full"], env={"COLUMNS": "200"})
    assert res.exit_code == 1, res.output
    (rec,) = _records(out)
    assert rec["tier"] == "all" and rec["cases_total"] == len(get_operator("aten::neg").cases("all")) == 27
    assert json.loads((out / "config.json").read_text())["tier"] == "all"
    s = json.loads((out / "summary.json").read_text())
    assert (s["tier"], s["tiers"]) == ("all", ["smoke", "full", "heldout"])
    flat = " ".join(res.output.split())
    assert "tier all (smoke + full + heldout)" in flat and "verdicts cover every tier (smoke, full, heldout)" in flat
    # the same selection under another spelling resumes; another selection is another configuration
    again = CliRunner().invoke(app, [*base, "--out", str(out), "--tier", "all"])
    assert "resuming: 1 of 1 job already recorded" in " ".join(again.output.split()) and len(_records(out)) == 1
    other = CliRunner().invoke(app, [*base, "--out", str(out), "--tier", "full"])
    assert other.exit_code == 2 and "another configuration" in other.output
    assert "(tier: 'all' there, 'full' now)" in " ".join(other.output.split()), other.output  # both values
    # without --out: a run of the full tier does not resume the run of all (nor the other way round)
    runs = tmp_path / "runs"
    for tier in ("all", "full", "all", "full"):
        CliRunner().invoke(app, [*base, "--runs-root", str(runs), "--tier", tier])
    dirs = sorted(runs.iterdir())
    assert len(dirs) == 2
    assert sorted(json.loads((d / "config.json").read_text())["tier"] for d in dirs) == ["all", "full"]
    assert all(len(_records(d)) == 1 for d in dirs)


def test_summary_and_show_say_which_tiers(tmp_path: Path) -> None:
    from kernelgenbench.cli import app

    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    CliRunner().invoke(app, ["eval", str(subs), "--op", "aten::neg", "--platform", "interpreter", "--out", str(out)])
    flat = " ".join(CliRunner().invoke(app, ["summary", str(out)], env={"COLUMNS": "200"}).output.split())
    assert "tier smoke" in flat and "verdicts cover the smoke tier only, not full or heldout: --tier all" in flat
    show = CliRunner().invoke(app, ["show", "aten::neg"], env={"COLUMNS": "200"}).output
    row = next(ln for ln in show.splitlines() if ln.startswith("│ all "))
    assert row.split("│")[2].strip() == "27" and row.split("│")[3].strip() == "18"  # cases, timed (full's)
    bad = CliRunner().invoke(app, ["eval", str(subs), "--op", "aten::neg", "--tier", "smoke,everything"])
    assert bad.exit_code == 2 and "unknown tier" in bad.output


# -- end to end on the CPU interpreter ----------------------------------------------------------------------
@pytest.mark.slow
def test_eval_tier_all_runs_every_case_of_the_three_tiers(tmp_path: Path) -> None:
    """An oracle on ``--tier all``: every case of smoke, full and held-out runs and passes, under its own
    tier's id; nothing is timed off the GPU (the timed cases, on a GPU, are the full tier's)."""
    from kernelgenbench.cli import app

    op = get_operator("aten::neg")  # 5 + 18 + 4 cases, about 35 s on two shared cores
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", str(SOLUTIONS), "--op", op.id, "--tier", "all", "--platform",
                                   "interpreter", "--out", str(out), "--interpreter-max-mb", "0"],  # no size budget
                             env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    (rec,) = _records(out)
    assert rec["status"] == "passed" and rec["tier"] == "all"
    want = [c.id for c in op.cases("all")]
    assert [c["id"] for c in rec["cases"]] == want == [c.id for t in TIERS for c in op.cases(t)]
    assert rec["cases_total"] == len(want) == 27
    assert rec["cases_passed"] == 27 and not rec["cases_unsupported"]  # bf16 too: judged on the interpreter
    assert {c["status"] for c in rec["cases"]} == {"passed"}
    assert {c["id"].split("/")[0] for c in rec["cases"] if c["status"] == "passed"} == set(TIERS)
    by_id = {c.id: c for t in TIERS for c in op.cases(t)}
    assert all(c["params"] == by_id[c["id"]].params for c in rec["cases"])
    assert rec["timing"]["applicable"] is False and rec["speedup"] is None
    line = next(ln for ln in res.output.splitlines() if f"{op.id} · 27/27 cases passed" in ln)  # the job's line
    assert "unsupported" not in line, line


@pytest.mark.slow
def test_a_job_on_all_times_exactly_the_full_tiers_timed_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verifier's timing on ``all`` (GPUs): every correctness case runs, and the timed ones are exactly the
    full tier's timed cases, by their full-tier ids. Driven on the interpreter with timing switched on and
    the measurement stubbed (``TimingPhase.time_one``): what is checked is which cases get timed."""
    import dataclasses

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.sandbox.protocol import TimeAnswer
    from kernelgenbench.verify.timing import TimingPhase

    op = get_operator("aten::item")  # 5 + 6 + 3 small cases, the 6 full ones timed
    timed: list[str] = []

    def fake_time_one(self, case):  # noqa: ANN001
        timed.append(case.id)
        return TimeAnswer(baseline_ms=2.0, candidate_ms=1.0, baseline="stub")

    monkeypatch.setattr(TimingPhase, "time_one", fake_time_one)
    plat = dataclasses.replace(PROFILES["interpreter"], timing=True)
    rec = Verifier(JobSpec(op, SOLUTIONS / op.filename, "all"), plat, None, tmp_path / "job", Settings()).run()
    assert rec["status"] == "passed", rec["first_failure"]
    assert [c["id"] for c in rec["cases"]] == [c.id for c in op.cases("all")]
    want = [c.id for c in op.cases("full") if c.timed]
    assert timed == want and len(want) == 6
    assert rec["timing"]["timed_cases"] == len(want) and rec["speedup"] == 2.0
    assert {c["id"] for c in rec["cases"] if "speedup" in c} == set(want)


@pytest.mark.slow
def test_implausible_speedups_are_remeasured_in_one_fresh_process(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Cases faster than ``Settings.implausible_speedup`` x the baseline are timed again after one restart of the
    sandbox for the whole job (not one per case), and the slower candidate time of the two is kept. The
    measurement is stubbed on the interpreter with timing switched on (as above)."""
    import dataclasses

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.sandbox.protocol import TimeAnswer
    from kernelgenbench.verify.session import ChildSession
    from kernelgenbench.verify.timing import TimingPhase

    op = get_operator("aten::item")
    want = [c.id for c in op.cases("full") if c.timed]
    fast = set(want[1:3])          # two implausible cases
    calls: list[tuple[str, int]] = []
    starts = [0]
    real_start = ChildSession.start

    def counting_start(self, *a, **k):  # noqa: ANN001, ANN002, ANN003
        starts[0] += 1
        return real_start(self, *a, **k)

    def fake_time_one(self, case):  # noqa: ANN001
        calls.append((case.id, starts[0]))
        again = sum(1 for cid, _ in calls if cid == case.id) > 1
        if case.id in fast:        # 100x at first; the fresh process measures 50x (kept) or 200x (not kept)
            return TimeAnswer(baseline_ms=1.0, candidate_ms=(0.02 if case.id == want[1] else 0.005) if again
                              else 0.01, baseline="stub")
        return TimeAnswer(baseline_ms=2.0, candidate_ms=1.0, baseline="stub")

    monkeypatch.setattr(ChildSession, "start", counting_start)
    monkeypatch.setattr(TimingPhase, "time_one", fake_time_one)
    plat = dataclasses.replace(PROFILES["interpreter"], timing=True)
    rec = Verifier(JobSpec(op, SOLUTIONS / op.filename, "full"), plat, None, tmp_path / "job", Settings()).run()
    assert rec["status"] == "passed", rec["first_failure"]
    first_pass = [cid for cid, _ in calls[:len(want)]]
    assert first_pass == want
    again = calls[len(want):]
    assert [cid for cid, _ in again] == [want[1], want[2]]
    assert len({n for _, n in again}) == 1 and again[0][1] == calls[0][1] + 1   # one restart for both
    by_id = {c["id"]: c for c in rec["cases"]}
    assert by_id[want[1]]["speedup"] == 50.0 and by_id[want[2]]["speedup"] == 100.0
    assert by_id[want[1]]["remeasured"] == {"first_ms": [1.0, 0.01], "fresh_ms": [1.0, 0.02]}
    assert by_id[want[2]]["remeasured"] == {"first_ms": [1.0, 0.01], "fresh_ms": [1.0, 0.005]}
    assert "remeasured" not in by_id[want[0]]


def test_a_passed_job_with_unjudged_cases_is_said_to_cover_its_judged_cases_only() -> None:
    """Fresh user 28: a passed job with 9 of its 34 cases unsupported (the interpreter's size budget) was summed up
    as "verdicts cover every tier"; the footer now counts the unjudged cases and what the verdicts cover."""
    from kernelgenbench.metrics import summarize
    from kernelgenbench.suite.tiers import verdict_scope

    def rec(op: str, status: str, unsupported: int, judged: int) -> dict:
        cases = [{"id": f"heldout/{i}", "status": "unsupported"} for i in range(unsupported)]
        cases += [{"id": f"smoke/{i}", "status": "passed"} for i in range(judged)]
        return {"op": op, "source": "aten", "label": "", "status": status, "cases": cases, "tier": "all"}

    s = summarize([rec("aten::cumsum", "passed", 9, 25), rec("aten::neg", "passed", 0, 27),
                   rec("aten::abs", "failed", 3, 1)])["overall"]
    assert (s["unjudged_cases"], s["partly_judged"]) == (9, 1)  # a failed job's unjudged cases change no verdict
    line = verdict_scope("all", s["unjudged_cases"], s["partly_judged"])
    assert line.startswith("verdicts cover every tier (smoke, full, heldout); except 9 cases of 1 passed job not "
                           "judged on this platform") and line.endswith("cover their judged cases only")
    assert verdict_scope("all") == "verdicts cover every tier (smoke, full, heldout)"
    assert verdict_scope("smoke", 1, 1).endswith("except 1 case of 1 passed job not judged on this platform "
                                                  "(unsupported: a dtype it cannot compute or a case over the "
                                                  "interpreter's size budget): those verdicts cover their judged "
                                                  "cases only")
