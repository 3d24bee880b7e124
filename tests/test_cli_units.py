"""The CLI's run-directory handling (no kernels run: a requested operator without a file)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.cli import app


def _invoke_keeping_sigint(args: list[str]):
    """``kgb ARGS`` through typer's runner, with the process's SIGINT handler restored afterwards (an interrupted
    ``kgb eval`` installs its own)."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    try:
        return CliRunner().invoke(app, args)
    finally:
        signal.signal(signal.SIGINT, handler)

def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_fresh_with_out_sets_old_records_aside(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    args = ["eval", str(subs), "--op", "aten::add", "--out", str(out), "--platform", "interpreter"]
    runner = CliRunner()
    first = runner.invoke(app, args)
    assert first.exit_code == 1  # the requested operator has no file: recorded as failed (missing)
    assert [r["failure_class"] for r in _records(out)] == ["missing"]
    again = runner.invoke(app, args)  # resumes: nothing new is recorded
    assert len(_records(out)) == 1, again.output
    fresh = runner.invoke(app, [*args, "--fresh"])
    assert fresh.exit_code == 1
    assert len(_records(out)) == 1  # the new run's one record, not appended to the old one
    assert len(list(out.glob("results.jsonl.replaced-*"))) == 1


def test_out_with_another_configuration_is_refused(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    runner = CliRunner()
    runner.invoke(app, ["eval", str(subs), "--op", "aten::add", "--out", str(out), "--platform", "interpreter"])
    res = runner.invoke(app, ["eval", str(subs), "--op", "aten::add", "--out", str(out), "--platform", "interpreter",
                              "--tier", "heldout"])
    assert res.exit_code != 0
    assert "another configuration" in res.output


def test_a_baseline_forced_where_nothing_is_timed_says_so(tmp_path: Path) -> None:
    """Fresh user 36: `kgb eval --baseline vllm` on the interpreter (no vLLM) ran silently; it is refused only where
    cases are timed, and a run that times nothing now says that the baseline only names its configuration."""
    subs = tmp_path / "subs"
    subs.mkdir()
    res = CliRunner().invoke(app, ["eval", str(subs), "--op", "vllm::rms_norm", "--out", str(tmp_path / "run"),
                                   "--platform", "interpreter", "--baseline", "vllm"])
    assert res.exit_code == 1, res.output  # the missing file, not the baseline
    text = " ".join(res.output.split())
    assert "--baseline vllm: the interpreter times nothing, so no case is compared against it here" in text


def test_a_platform_without_a_device_is_a_usage_error_and_leaves_no_run_directory(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    subs, runs = tmp_path / "subs", tmp_path / "runs"
    subs.mkdir()
    res = CliRunner().invoke(app, ["eval", str(subs), "--op", "aten::t", "--platform", "cuda",
                                   "--runs-root", str(runs)])
    assert res.exit_code == 2, res.output
    assert "no device visible" in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)  # no traceback
    assert not runs.exists()


def test_bad_option_values_are_refused(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    runner = CliRunner()
    for jobs in ("0", "-3"):
        res = runner.invoke(app, ["eval", str(subs), "--op", "aten::add", "--jobs", jobs, "--platform", "interpreter",
                                  "--runs-root", str(tmp_path / "runs")])
        assert res.exit_code == 2, res.output
        assert "--jobs" in res.output
    assert not (tmp_path / "runs").exists()
    res = runner.invoke(app, ["list", "--category", "nosuch"])
    assert res.exit_code == 2
    assert "categories begin with" in res.output and "pointwise unary" in res.output
    assert runner.invoke(app, ["list", "--category", "pointwise unary"]).exit_code == 0


def test_unknown_operator_message_is_not_quoted() -> None:
    res = CliRunner().invoke(app, ["show", "aten::nosuch"])
    assert res.exit_code == 2
    assert "unknown operator aten::nosuch" in res.output
    assert "'unknown operator" not in res.output


class _FakeVerifier:
    """Stands in for run.job.Verifier: records a pass, and interrupts the run (Ctrl-C) at one operator."""

    interrupt_at = "aten::mul"

    def __init__(self, spec, platform, device, workdir, settings, ceilings=None, gate=None, progress=None) -> None:
        self.spec, self.platform = spec, platform

    def run(self) -> dict:
        import os
        import signal
        import time as _time

        if self.spec.op.id == self.interrupt_at:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: the main thread gets KeyboardInterrupt
            _time.sleep(5.0)  # the main thread handles the interrupt meanwhile (seconds under load)
        return {"op": self.spec.op.id, "source": self.spec.op.source, "label": self.spec.label,
                "submission_sha256": None, "tier": self.spec.tier, "platform": self.platform.name,
                "status": "passed", "failure_class": None, "cases_total": 5, "cases_passed": 5, "cases": [],
                "wall_s": 0.1, "time_s": {"candidate_s": 0.05}}


class _FakeVerifierWithProgress(_FakeVerifier):
    """Like :class:`_FakeVerifier`, and reports 3 of 7 cases judged before the Ctrl-C, as a real job's bar does."""

    def __init__(self, spec, platform, device, workdir, settings, ceilings=None, gate=None, progress=None) -> None:
        super().__init__(spec, platform, device, workdir, settings, ceilings, gate, progress)
        self.report = progress

    def run(self) -> dict:
        if self.spec.op.id == self.interrupt_at and self.report is not None:
            self.report("cases", 3, 7)
        return super().run()


def test_an_interrupted_run_names_the_jobs_cut_off_and_says_they_start_over(tmp_path: Path, monkeypatch) -> None:
    """fresh28: after Ctrl-C mid-job the user was told only "run the same command again to resume", and the
    resumed job then judged its cases from the first again; the line names the job and how far it had got."""

    from kernelgenbench.run import scheduler

    monkeypatch.setattr(scheduler, "Verifier", _FakeVerifierWithProgress)
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    args = ["eval", str(subs), "--op", "aten::add", "--op", "aten::mul", "--jobs", "1", "--out", str(out),
            "--platform", "interpreter"]
    res = _invoke_keeping_sigint(args)
    assert res.exit_code == 130, res.output
    flat = " ".join(res.output.split())
    assert "interrupted: 1 of 2 jobs recorded" in flat
    assert ("cut off mid-way, so judged again from their first case on resume (a job's record is written when "
            "all its cases are judged and its checks done): aten::mul at 3/7 cases") in flat, flat
    assert "aten::add at" not in flat  # recorded before the Ctrl-C: nothing of it is lost


class _FakeVerifierTerm(_FakeVerifier):
    """Like :class:`_FakeVerifier`, with SIGTERM (kill, timeout, a batch scheduler) instead of Ctrl-C."""

    def run(self) -> dict:
        import os
        import signal
        import time as _time

        if self.spec.op.id == self.interrupt_at:
            os.kill(os.getpid(), signal.SIGTERM)
            _time.sleep(5.0)
        return super().run()


def test_sigterm_stops_a_run_as_ctrl_c_does(tmp_path: Path, monkeypatch) -> None:
    """fresh user 39: SIGTERM ended kgb eval (and kgb generate, kgb agent) at once: no line of what was recorded,
    sandboxes and agent sessions left to end on their own. It now stops the run as Ctrl-C does, exit 143."""
    import signal

    from kernelgenbench.run import scheduler

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("SIGTERM has a handler in this process: the test would not see kgb's")
    monkeypatch.setattr(scheduler, "Verifier", _FakeVerifierTerm)
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    args = ["eval", str(subs), "--op", "aten::add", "--op", "aten::mul", "--jobs", "1", "--out", str(out),
            "--platform", "interpreter"]
    res = _invoke_keeping_sigint(args)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back
    assert res.exit_code == 143, res.output
    flat = " ".join(res.output.split())
    assert f"terminated (SIGTERM): 1 of 2 jobs recorded in {out.resolve()}; run the same command again" in flat, flat
    assert [r["op"] for r in _records(out)] == ["aten::add"]


def test_cut_off_line_lists_each_running_job_once_in_order() -> None:
    from kernelgenbench.tables import cut_off_line

    assert cut_off_line({}) is None
    line = cut_off_line({"vllm::rms_norm": ("cases", 0, 4), "aten::cumsum": ("timed cases", 2, 9)})
    assert line is not None and line.endswith(": aten::cumsum at 2/9 timed cases, vllm::rms_norm at 0/4 cases")


def test_interrupted_run_says_what_was_recorded_and_summary_counts_the_rest(tmp_path: Path, monkeypatch) -> None:

    from kernelgenbench.run import scheduler

    monkeypatch.setattr(scheduler, "Verifier", _FakeVerifier)
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    args = ["eval", str(subs), "--op", "aten::add", "--op", "aten::mul", "--op", "aten::sub", "--jobs", "1",
            "--out", str(out), "--platform", "interpreter"]
    res = _invoke_keeping_sigint(args)
    assert res.exit_code == 130, res.output
    flat = " ".join(res.output.split())
    assert f"interrupted: 1 of 3 jobs recorded in {out.resolve()}; run the same command again to resume" in flat
    assert [r["op"] for r in _records(out)] == ["aten::add"]  # the interrupted job is not recorded
    assert json.loads((out / "config.json").read_text())["selected"] == ["aten::add", "aten::mul", "aten::sub"]
    summ = CliRunner().invoke(app, ["summary", str(out)])
    assert summ.exit_code == 0
    flat = " ".join(summ.output.split())
    assert "1/3 selected jobs recorded" in flat
    assert "2 of 3 selected jobs not recorded" in flat and "aten::mul, aten::sub" in flat
    # as kgb eval does, the summary names the platform and why no speedup is shown (fresh user 31)
    assert "· interpreter" in flat and "speedups: not applicable on the interpreter platform" in flat
    overall = next(ln for ln in summ.output.splitlines() if ln.startswith("│ overall"))
    assert overall.split("│")[2].strip() == "1/3"  # the recorded column
    # resume: the two missing jobs run, the recorded one is announced as such
    _FakeVerifier.interrupt_at = "none"
    try:
        again = CliRunner().invoke(app, args)
    finally:
        _FakeVerifier.interrupt_at = "aten::mul"
    assert again.exit_code == 0, again.output
    flat = " ".join(again.output.split())
    assert "resuming: 1 of 3 jobs already recorded in this run directory, 2 to run" in flat
    assert "job time 0.2 s (the 2 jobs run now" in flat
    done = CliRunner().invoke(app, args)
    flat = " ".join(done.output.split())
    assert "resuming: 3 of 3 jobs already recorded in this run directory, 0 to run" in flat
    assert "no job run now" in flat and "job time" not in flat
    assert "3/3 selected jobs recorded" in " ".join(CliRunner().invoke(app, ["summary", str(out)]).output.split())


def test_a_job_that_never_ran_its_cases_counts_the_tiers_cases(tmp_path: Path) -> None:
    from kernelgenbench.suite.registry import get_operator

    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    res = CliRunner().invoke(app, ["eval", str(subs), "--op", "aten::neg", "--out", str(out),
                                   "--platform", "interpreter"])
    (rec,) = _records(out)
    n = len(get_operator("aten::neg").cases("smoke"))
    assert n == 5
    assert rec["failure_class"] == "missing" and rec["cases_total"] == n and rec["cases_passed"] == 0
    assert rec["cases"] == []
    assert f"aten::neg · 0/{n} cases passed · missing · " in res.output


def test_misnamed_files_are_listed_with_the_closest_operator_file(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "aten_neg.py").write_text("")
    (subs / "aten__negate.py").write_text("")
    (subs / "_helpers.py").write_text("")
    res = CliRunner().invoke(app, ["eval", str(subs), "--platform", "interpreter", "--runs-root", str(tmp_path / "r")])
    assert res.exit_code == 2
    flat = " ".join(res.output.split())
    assert "no submission files for the selected operators" in flat
    assert "aten__negate.py (did you mean aten__neg.py?)" in flat
    assert "aten_neg.py (did you mean aten__neg.py?)" in flat
    assert "_helpers.py" not in flat


def test_tables_keep_one_line_per_row_when_not_a_terminal() -> None:
    from kernelgenbench import cli, tables

    assert not cli.console.is_terminal and cli.console.width == 140  # pytest captures stdout, COLUMNS unset
    res = CliRunner().invoke(app, ["list", "--source", "vllm"])
    rows = [ln for ln in res.output.splitlines() if ln.startswith("│")]
    from kernelgenbench.suite.registry import select

    assert len(rows) == len(select(source="vllm")) > 3  # one line per operator
    assert "┃ operator " in res.output and "┃ category " in res.output and "┃ heldout ┃" in res.output
    assert "timed: the full tier's cases that GPUs time" in " ".join(res.output.split())  # fresh user 36
    rec = {"op": "aten::embedding_dense_backward", "source": "aten", "status": "unsupported", "cases_passed": 3,
           "cases_total": 4, "cases_unsupported": 1, "first_failure": {"message": "x" * 300}}
    table = tables._ops_table([rec, {**rec, "op": "aten::add"}], timing=True)
    with cli.console.capture() as cap:
        cli.console.print(table)
    rows = [ln for ln in cap.get().splitlines() if ln.startswith("│")]
    assert len(rows) == 2 and all("3/4 (1 unsupported)" in r for r in rows)  # sorted: add first
    assert "aten::embedding_dense_backward │" in rows[1]
    assert "┃ % SOL " in cap.get() and "…" in rows[0]


def test_time_line_names_hangs_and_omits_gpu_items_off_the_gpu() -> None:
    from kernelgenbench.tables import _time_line

    tb = {"jobs_wall_s": 12.0, "candidate_s": 0.5, "hung_s": 10.0, "import_s": 1.0, "gate_wait_s": 0.0,
          "gate_wait_timing_s": 0.0, "timing_s": 0.0}
    line = _time_line(tb, gpu=False, what="the 1 job run now")
    assert "cases that hung until --case-timeout 10.0 s" in line
    assert "harness overhead 1.5 s" in line and "other (process and case bookkeeping) 0.5 s)" in line
    assert "GPU" not in line and "timing" not in line
    gpu = _time_line({**tb, "hung_s": 0.0, "gate_wait_timing_s": 3.0, "timing_s": 2.0}, gpu=True, what="x")
    assert "hung" not in gpu and "timing 2.0 s" in gpu
    assert "waiting to time until the GPU's other slots finished their untimed work 3.0" in gpu
    assert _time_line({}, gpu=False, what="x") is None
    # an L1 rejection's job took no measurable time: no line of zeros (fresh user 40: 'job time 0.0 s ...
    # candidate calls 0.0 s, harness overhead 0.0 s (sandbox start-up/import/compile 0.0 s, ...')
    assert _time_line({"jobs_wall_s": 0.012, "candidate_s": 0.0}, gpu=False, what="x") is None


def test_show_gives_the_tolerance_of_the_operators_own_dtypes_and_explains_exercised() -> None:
    runner = CliRunner()
    saxpy = " ".join(runner.invoke(app, ["show", "cublas::cublasSaxpy_v2"]).output.split())
    # an fp32 routine: only fp32's rtol; its atol is the rounding bound (red team 32), capped by the spec's 1e-4
    assert "rtol fp32 1e-5; atol = min(1e-4, max(0, 4*2^-24*T - rtol*|ref|)) per element for fp32 results" in saxpy
    assert "rtol fp16" not in saxpy and "bf16 1.6e-2" not in saxpy and "fp64" not in saxpy
    assert "x reduce_dim" not in saxpy
    sgemm = " ".join(runner.invoke(app, ["show", "cublas::cublasSgemm_v2"]).output.split())
    assert "atol = for fp16/bf16/fp32 results, per element min(1e-4 x k, 4*sqrt(n)*2^-24*" in sgemm
    assert "Tolerance (ours, not the spec's)" in sgemm  # the row's notes say why
    add = " ".join(runner.invoke(app, ["show", "aten::add"]).output.split())
    assert "dispatcher (exercised)" in add and "(exercised): the full tier's cases call this overload" in add
    assert "rtol fp16 1e-3, bf16 1.6e-2, fp32 1e-5" in add


def test_show_names_the_file_that_defines_the_operator() -> None:
    from kernelgenbench.suite.registry import defined_in

    runner = CliRunner()
    for op_id, path in (("aten::bmm", "suite/aten/shape.py"), ("aten::bernoulli", "suite/aten/random/operators.py"),
                        ("vllm::rms_norm", "suite/vllm/norms.py"), ("aten::mm", defined_in("aten::mm"))):
        out = " ".join(runner.invoke(app, ["show", op_id], env={"COLUMNS": "200"}).output.split())
        assert f"defined in {path} (under src/kernelgenbench/" in out, out[:400]
    import kernelgenbench

    pkg = Path(kernelgenbench.__file__).parent
    assert (pkg / defined_in("aten::mm")).is_file()


def test_show_says_what_the_timed_cases_are_compared_against() -> None:
    """Fresh user 36: `kgb show vllm::grouped_topk` named no baseline, so what a speedup against
    `native-compiled; dynamic shapes: ...` meant was only in the README."""
    runner = CliRunner()

    def shown(op_id: str) -> str:
        return " ".join(runner.invoke(app, ["show", op_id], env={"COLUMNS": "200"}).output.split())

    gt = shown("vllm::grouped_topk")
    assert "Baseline (full tier's timed cases, on GPUs; the interpreter times nothing): vllm (vllm._custom_ops." \
           "grouped_topk" in gt
    assert "under torch.compile with dynamic shapes (torch.compile(dynamic=True)" in gt
    assert "README \"Baselines\"" in gt
    assert "static shapes (one graph per case)" in shown("vllm::topk_softmax")
    assert "native-eager: the native PyTorch reference run eagerly, never compiled" in shown("vllm::selective_scan_fwd")
    assert "Baseline (full tier's timed cases, on GPUs; the interpreter times nothing): ATen (native op" in \
        shown("aten::neg")
    assert "cuBLAS routine (libcublas via ctypes)" in shown("cublas::cublasSaxpy_v2")


def test_resume_counts_only_each_job_s_latest_record(tmp_path: Path) -> None:
    """A fresh user's edit-and-revert: file A passed, edited file B failed, A restored. The tables show
    each job's latest record (B's failure), so a resume must run A again rather than take its old pass
    (and the reverse: restoring a failing file must not show an old pass with exit code 0)."""
    from kernelgenbench.run.rundir import RunDir, job_key

    rd = RunDir.open(tmp_path / "run")
    base = {"op": "aten::neg", "tier": "smoke", "platform": "interpreter", "label": ""}
    rd.append({**base, "submission_sha256": "a" * 64, "status": "passed", "failure_class": None})
    rd.append({**base, "submission_sha256": "b" * 64, "status": "failed", "failure_class": "wrong_result"})
    keys = rd.finished_keys()
    assert job_key("aten::neg", "b" * 64, "smoke", "interpreter", "") in keys
    assert job_key("aten::neg", "a" * 64, "smoke", "interpreter", "") not in keys


def test_a_resume_names_the_jobs_it_judges_again(tmp_path: Path) -> None:
    """A resume after an edit judges the edited file again; the header names it and why (fresh user 32: the only
    trace was a new verdict line), as it names a retried platform failure; a job never recorded is not named."""
    from kernelgenbench.run.job import JobSpec
    from kernelgenbench.run.rundir import RunDir
    from kernelgenbench.run.scheduler import judged_again
    from kernelgenbench.suite.registry import get_operator

    rd = RunDir.open(tmp_path / "run")
    base = {"tier": "smoke", "platform": "interpreter", "label": "subs", "submission_sha256": "a" * 64}
    rd.append({**base, "op": "aten::neg", "status": "failed", "failure_class": "wrong_result"})
    rd.append({**base, "op": "aten::cos", "status": "failed", "failure_class": "platform"})
    todo = [JobSpec(get_operator(op), tmp_path / "f.py", "smoke", "subs")
            for op in ("aten::neg", "aten::cos", "aten::sin")]
    assert judged_again(todo, rd) == ["aten::neg (its file changed since its record)",
                                      "aten::cos (its platform failure is retried)"]


def test_a_repeated_source_is_refused_not_cut_to_the_last(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    res = CliRunner().invoke(app, ["eval", str(subs), "--source", "vllm", "--source", "cublas",
                                   "--out", str(tmp_path / "run"), "--platform", "interpreter"])
    assert res.exit_code == 2 and "--source was given 2 times" in res.output, res.output
    assert not (tmp_path / "run").exists()


def test_every_l1_finding_is_shown_with_its_line_and_rule_by_eval_and_summary(tmp_path: Path) -> None:
    """Issue 11 item 2.4: an L1 rejection lists every finding (line and rule), the most relevant first
    (dispatch recursion), in kgb eval's failure display, in kgb summary and in the record."""
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    (subs / "aten__neg.py").write_text(
        "import sys\nimport numpy as np\nimport torch\n\n\ndef neg(self):\n    out = torch.empty_like(self)\n"
        "    out.copy_(self.neg())\n    return torch.sum(out) * 0 + out\n")
    runner = CliRunner()
    res = runner.invoke(app, ["eval", str(subs), "--op", "aten::neg", "--out", str(out), "--platform", "interpreter"])
    assert res.exit_code == 1, res.output
    [rec] = _records(out)
    assert rec["failure_class"] == "dispatch_recursion"
    assert rec["anti_hack"]["L1"]["count"] == 4 and len(rec["anti_hack"]["L1"]["findings"]) == 4
    expected = ["line 8: self.neg() calls neg", "line 9: torch.sum(out) computes", "line 2: import numpy as np",
                "line 1: import sys"]
    summary = runner.invoke(app, ["summary", str(out)])
    assert summary.exit_code == 0, summary.output
    for output in (res.output, summary.output):
        text = " ".join(output.split())  # the console wraps long lines
        where = [text.find(e) for e in expected]
        assert all(w >= 0 for w in where) and where == sorted(where), (where, output)
        assert "aten::neg [dispatch_recursion] L1 static scan (4 findings, the most relevant first): line 8" in text
        for rule in ("dispatch-recursion", "torch-compute", "host-compute", "file-io"):
            assert f"(rule {rule})" in text


def test_failure_lines_complete_an_l1_message_from_an_older_record() -> None:
    """A record written when the message held the first finding only: the findings the record kept are
    shown too; a record whose message lists them all is shown as it is."""
    from kernelgenbench.console import failure_lines

    old = {"failure_class": "static_scan",
           "first_failure": {"message": "L1 static scan: line 4: a (rule torch-compute)"},
           "anti_hack": {"L1": {"ok": False, "findings": ["line 4: a (rule torch-compute)", "line 9: b (rule timer)"]}}}
    assert failure_lines(old) == ["L1 static scan: line 4: a (rule torch-compute)", "1 more L1 findings in the record:",
                                  "line 9: b (rule timer)"]
    new = {"failure_class": "static_scan",
           "first_failure": {"message": "L1 static scan (2 findings, the most relevant first): line 4: a (rule "
                                        "torch-compute)\nline 9: b (rule timer)"},
           "anti_hack": {"L1": {"ok": False, "count": 2, "findings": ["line 4: a (rule torch-compute)",
                                                                       "line 9: b (rule timer)"]}}}
    assert failure_lines(new) == new["first_failure"]["message"].splitlines()
    l3 = {"failure_class": "dispatch_recursion", "first_failure": {"message": "case smoke/0: L3 dispatch trace: x"},
          "anti_hack": {"L1": {"ok": True, "count": 0, "findings": []}}}
    assert failure_lines(l3) == ["case smoke/0: L3 dispatch trace: x"]


def test_init_hints_print_the_invocation_that_works(tmp_path, monkeypatch) -> None:
    """kgb init's next steps name kgb as it was run (.venv/bin/kgb from the repository, as the README writes
    it; the bare name only where PATH finds this very script; the module form under python -m)."""
    import os
    import sys

    from typer.testing import CliRunner

    from kernelgenbench.cli import app, kgb_invocation

    monkeypatch.delenv("PYTHONPATH", raising=False)  # the package as installed (see the test below)
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    script = venv_bin / "kgb"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert kgb_invocation() == ".venv/bin/kgb"
    monkeypatch.setattr(sys, "argv", [".venv/bin/kgb"])
    assert kgb_invocation() == ".venv/bin/kgb"
    res = CliRunner().invoke(app, ["init", "aten::add", str(tmp_path / "subs")])
    assert res.exit_code == 0, res.output
    assert ".venv/bin/kgb show aten::add --cases" in res.output and ".venv/bin/kgb eval " in res.output
    monkeypatch.setenv("PATH", f"{venv_bin}{os.pathsep}/usr/bin")
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert kgb_invocation() == "kgb"
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "elsewhere" / "cli.py")])
    assert kgb_invocation().endswith(" -m kernelgenbench.cli")


def test_ctrl_c_after_every_job_was_recorded_still_prints_the_tables(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C while kgb eval prints its tables (every job recorded, summary.json written): the tables are printed
    all the same, a line says the run is complete, and the exit status is the run's (0: every job passed)."""
    import os
    import signal

    from kernelgenbench import cli
    from kernelgenbench.run import scheduler

    monkeypatch.setattr(scheduler, "Verifier", _FakeVerifier)
    monkeypatch.setattr(_FakeVerifier, "interrupt_at", "none")
    table = cli._ops_table

    def interrupted_table(*a, **kw):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the first table is printed
        return table(*a, **kw)

    monkeypatch.setattr(cli, "_ops_table", interrupted_table)
    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    handler = signal.getsignal(signal.SIGINT)
    try:
        res = CliRunner().invoke(app, ["eval", str(subs), "--op", "aten::add", "--op", "aten::mul", "--out", str(out),
                                       "--platform", "interpreter"], env={"COLUMNS": "200"})
        assert signal.getsignal(signal.SIGINT) is handler  # the command put the handler back
    finally:
        signal.signal(signal.SIGINT, handler)
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "summary · tier smoke" in flat and "aten::mul" in flat
    assert "Ctrl-C after every job was recorded: the run is complete, the tables above are its summary" in flat
    assert (out / "summary.json").is_file()


def test_a_held_out_case_s_parameters_are_withheld_from_every_display() -> None:
    """A first failure on a held-out case carries the case's parameters in its message; the eval's failure
    lines and operator table, and the LLM and agent summaries, show its id and class only (fresh user 26:
    ``kgb eval`` and ``kgb summary`` printed ``case heldout/2 (t=4, k=2, h=64, ...)``)."""
    from rich.console import Console

    from kernelgenbench.agent.summary import operator_scores
    from kernelgenbench.console import failure_lines
    from kernelgenbench.suite.tiers import shown_failure
    from kernelgenbench.tables import _ops_table

    secret = "case heldout/2 (t=4, k=2, h=64, dtype=fp16, upstream_2d=True): OutOfBoundsAccess"
    held = {"op": "vllm::moe_sum", "source": "vllm", "status": "failed", "failure_class": "cuda_fault",
            "cases_total": 3, "cases_passed": 2, "first_failure": {"case_id": "heldout/2", "message": secret}}
    shown = dict(held, first_failure={"case_id": "smoke/1", "message": "case smoke/1 (t=3): wrong"})
    want = "case heldout/2: held-out case: parameters and message withheld"
    assert shown_failure(held).startswith(want) and "t=4" not in shown_failure(held)
    assert failure_lines(held) == [shown_failure(held)]
    assert shown_failure(shown) == "case smoke/1 (t=3): wrong" == failure_lines(shown)[0]
    con = Console(width=400, record=True)
    con.print(_ops_table([held, shown], timing=False))
    text = con.export_text()
    assert "upstream_2d" not in text and "held-out case: parameters and message withheld" in text
    assert "case smoke/1 (t=3): wrong" in text
    row = operator_scores("vllm::moe_sum", "vllm", held)
    assert "t=4" not in row["message"] and row["message"].startswith(want)
    assert shown_failure({"status": "passed"}) == ""


def test_timed_rows_name_the_baseline_their_speedup_is_against() -> None:
    """On GPUs the operator table says what each speedup is against (fresh user 26: a vLLM speedup against
    torch.compile of the reference read like one against vLLM's kernels)."""
    from rich.console import Console

    from kernelgenbench.tables import _ops_table

    base = {"status": "passed", "cases_total": 4, "cases_passed": 4, "speedup": 1.5, "sol_pct": 40.0}
    recs = [dict(base, op="vllm::rms_norm", source="vllm",
                 baseline="native-compiled (the spec's reference under torch.compile); vLLM not importable"),
            dict(base, op="vllm::topk_softmax", source="vllm", baseline="vllm (vllm._custom_ops)"),
            dict(base, op="aten::add", source="aten", baseline="ATen (native op, same device)"),
            dict(base, op="cublas::cublasSaxpy_v2", source="cublas", baseline="cuBLAS routine (libcublas via ctypes)"),
            dict(base, op="aten::mul", source="aten", speedup=None, baseline="ATen (native op, same device)")]
    con = Console(width=300, record=True)
    con.print(_ops_table(recs, timing=True))
    text = con.export_text()
    rows = {ln.split("│")[1].strip(): [c.strip() for c in ln.split("│")] for ln in text.splitlines()
            if ln.startswith("│")}
    col = [c.strip() for c in next(ln for ln in text.splitlines() if ln.startswith("┃")).split("┃")]
    i = col.index("baseline")
    assert [rows[o][i] for o in ("vllm::rms_norm", "vllm::topk_softmax", "aten::add", "cublas::cublasSaxpy_v2",
                                 "aten::mul")] == ["native-compiled", "vllm", "ATen", "cuBLAS", ""]


def test_cases_cell_names_unsupported_and_unjudged_cases_everywhere() -> None:
    """One format for every console line (kgb eval, kgb generate's events, kgb agent's lines, the agent summary):
    fresh user 26 read generate's '✓ ... 2/3' as a failed case where eval printed '2/3 (1 unsupported)'."""
    from kernelgenbench.agent.summary import operator_scores
    from kernelgenbench.record import cases_cell

    ok = {"status": "passed", "cases_passed": 2, "cases_total": 3, "cases_unsupported": 1}
    assert cases_cell(ok) == "2/3 (1 unsupported)"
    bad = {"status": "failed", "cases_passed": 1, "cases_total": 4,
           "cases": [{"status": "passed"}, {"status": "failed"}, {"status": "pending"}, {}]}
    assert cases_cell(bad) == "1/4 (2 not run)"
    assert cases_cell({"status": "passed", "cases_passed": 3, "cases_total": 3}) == "3/3"
    assert operator_scores("vllm::moe_sum", "vllm", ok)["cases"] == "2/3 (1 unsupported)"


def test_an_out_of_bounds_message_is_printed_once() -> None:
    """fresh27 REPORT item 7: a cuda_fault of an interpreted kernel printed its long message three times (the
    first line and both exceptions of the chain). The terminal lines write it once; the record keeps every
    line; a short message the traceback repeats stays as it is."""
    from kernelgenbench.console import failure_lines

    oob = ("out-of-bounds memory access: kernel _saxpy loads 31 element(s) outside every tensor argument of its "
           "launch (the first starts 8 bytes before the start of the nearest argument's memory: its 4-byte element "
           "at offset -8 of a 256-byte storage); on a GPU this is an illegal address or a silent write into "
           "another allocation")
    message = "\n".join([
        f'case smoke/1 (n=32, alpha=-111.999, incx=-2, incy=3): InterpreterError: OutOfBoundsAccess("{oob}")',
        "Traceback (most recent call last):",
        "  [... 1 frame outside the submission omitted ...]",
        '  File "/w/b/cublas__cublasSaxpy_v2.py", line 13, in _saxpy',
        "    x = tl.load(x_ptr + ix, mask=mask)",
        f"kernelgenbench.sandbox.interpreter.OutOfBoundsAccess: {oob}",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/w/b/cublas__cublasSaxpy_v2.py", line 25, in cublasSaxpy_v2',
        "    _saxpy[(triton.cdiv(n, BLOCK),)](x, y, n, float(alpha), incx, incy, x0, y0, BLOCK=BLOCK)",
        f'triton.runtime.errors.InterpreterError: OutOfBoundsAccess("{oob}")',
        "(whole traceback: /w/runs/r/jobs/j/child.log)"])
    rec = {"failure_class": "cuda_fault", "first_failure": {"case_id": "smoke/1", "message": message}}
    lines = failure_lines(rec)
    text = "\n".join(lines)
    assert text.count("out-of-bounds memory access") == 1 and lines[0] == message.splitlines()[0]
    assert "kernelgenbench.sandbox.interpreter.OutOfBoundsAccess: (message as on the first line)" in lines
    assert "triton.runtime.errors.InterpreterError: (message as on the first line)" in lines
    assert len(lines) == len(message.splitlines()) and lines[4] == "    x = tl.load(x_ptr + ix, mask=mask)"
    assert rec["first_failure"]["message"].count("out-of-bounds memory access") == 3  # the record keeps it all
    short = {"failure_class": "runtime_error", "first_failure": {"message": "case smoke/0 (n=1): ValueError: bad n\n"
                                                                             "Traceback (most recent call last):\n"
                                                                             "ValueError: bad n"}}
    assert failure_lines(short)[-1] == "ValueError: bad n"


def test_init_hints_keep_the_pythonpath_the_package_came_from(tmp_path, monkeypatch) -> None:
    """fresh27 REPORT item 7: run as `PYTHONPATH=src python -m kernelgenbench.cli init ...` from a checkout, the
    `next:` lines printed `python -m kernelgenbench.cli` without `PYTHONPATH=src`: pasted, it found no package (or
    another copy of it). The hint keeps the PYTHONPATH the package was imported from, as given."""
    import sys

    import kernelgenbench
    from kernelgenbench.cli import kgb_invocation

    src = Path(kernelgenbench.__file__).resolve().parent.parent
    monkeypatch.chdir(src.parent)
    monkeypatch.setattr(sys, "argv", [str(src / "kernelgenbench" / "cli.py")])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("PYTHONPATH", src.name)  # relative, as the README's commands write it
    assert kgb_invocation().startswith(f"PYTHONPATH={src.name} ")
    assert kgb_invocation().endswith(" -m kernelgenbench.cli")
    res = CliRunner().invoke(app, ["init", "aten::add", str(tmp_path / "subs")])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert f"next: PYTHONPATH={src.name} " in flat and " -m kernelgenbench.cli show aten::add --cases" in flat
    assert f"PYTHONPATH={src.name} " in flat.split("·")[-1]  # the eval hint too
    monkeypatch.setenv("PYTHONPATH", f"/elsewhere:{src}")  # any entry; the value is kept whole, quoted for a shell
    assert kgb_invocation().startswith(f"PYTHONPATH=/elsewhere:{src} ")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # an entry the package did not come from: no prefix
    assert not kgb_invocation().startswith("PYTHONPATH")
    # a kgb script run with the checkout on PYTHONPATH keeps it too
    monkeypatch.setenv("PYTHONPATH", str(src))
    monkeypatch.setattr(sys, "argv", [".venv/bin/kgb"])
    assert kgb_invocation() == f"PYTHONPATH={src} .venv/bin/kgb"


def test_eval_progress_bars_show_an_estimate_of_the_time_left() -> None:
    """A job's bar says how long is left once cases have completed at a measurable rate (fresh user 27: a
    held-out job of 27 cases ran 11 minutes with no estimate)."""
    import io
    import time as _time

    from rich.console import Console

    from kernelgenbench.console import run_progress

    con = Console(file=io.StringIO(), width=160, force_terminal=False)
    bars = run_progress(con)
    task = bars.add_task("  aten::neg · cases", total=10)
    bars.update(task, completed=0)
    _time.sleep(0.05)
    bars.update(task, completed=5)
    bars.refresh()
    _time.sleep(0.05)
    bars.update(task, completed=6)
    row = bars.make_tasks_table(bars.tasks)
    con.print(row)
    text = con.file.getvalue()
    assert "aten::neg" in text and "6/10" in text and "eta" in text
    left = text.split("eta", 1)[1].split()[0]
    assert left[0].isdigit() and ":" in left and "-" not in left, text
    # h:mm:ss as the elapsed column and kgb generate's bar write it (fresh user 40: "0:00:23 eta 00:29")
    assert re.fullmatch(r"\d+:\d\d:\d\d", left), text


def test_eval_says_how_its_sandboxes_started(monkeypatch) -> None:
    """Neither config.json nor a record says whether the fork server ran the jobs' children (fresh user 33): the
    end of kgb eval does, fallbacks to fresh processes included."""
    from kernelgenbench.console import sandbox_line
    from kernelgenbench.sandbox import forkserver

    monkeypatch.setattr(forkserver, "STATS", {"forks": 0, "fallbacks": 0})
    assert sandbox_line(None) == ""   # none started here (a Ray backend's workers start them)
    assert sandbox_line(False) == "sandboxes: fresh processes (--no-fork-server)"
    forkserver.STATS.update(forks=3)
    assert sandbox_line(None).startswith("sandboxes: 3 forked from the fork server (")
    forkserver.STATS.update(fallbacks=2)
    assert "2 started as fresh processes" in sandbox_line(True)


def test_a_sol_above_the_measured_ceilings_is_marked_and_explained() -> None:
    """A %SOL above 100 is faster than the run's ceilings allow (cutlass_scaled_mm read 612% against a mis-measured
    int8 ceiling): the table marks it and a note names the operators; 100 itself and below are plain."""
    from rich.console import Console

    from kernelgenbench.tables import _ops_table, sol_cell, sol_note

    assert sol_cell(612.51) == "612.51 !" and sol_cell(100.0) == "100.0" and sol_cell(None) == "—"
    base = {"status": "passed", "cases_total": 4, "cases_passed": 4, "speedup": 1.5, "source": "vllm"}
    recs = [dict(base, op="vllm::cutlass_scaled_mm", sol_pct=612.51), dict(base, op="vllm::rms_norm", sol_pct=70.2),
            dict(base, op="vllm::moe_sum", sol_pct=None, speedup=None)]
    con = Console(width=300, record=True)
    con.print(_ops_table(recs, timing=True))
    text = con.export_text()
    assert "612.51 !" in text and "70.2 !" not in text
    note = sol_note(recs)
    assert note is not None and "vllm::cutlass_scaled_mm" in note and "rms_norm" not in note
    assert sol_note(recs[1:]) is None


def test_operator_bar_estimates_from_the_operators_done_by_this_call() -> None:
    """kgb generate and kgb agent's bar of operators: the time left is the mean time of the operators this call
    finished times those left. Rich's own estimate (the rate over the last 30 s) showed nothing where operators
    take minutes each, and about 0:00 after a resume counted the recorded operators at once (fresh user 40). In a
    log (not a terminal) each operator done by this call is one line, and the count ends the run."""
    import io

    from rich.console import Console

    from kernelgenbench.console import OperatorBar

    now = [1000.0]
    con = Console(file=io.StringIO(), width=160, force_terminal=False)
    bar = OperatorBar(con, 10, get_time=lambda: now[0])
    with bar:
        for _ in range(4):   # recorded by an earlier call: counted, left out of the estimate, no line
            now[0] += 0.001
            bar.advance(earlier=True)
        now[0] += 120
        assert bar.line() == "operators 4/10 · 0:02:00 elapsed · eta -:--:--"
        now[0] += 60
        bar.advance()        # 3 min for the first operator of this call: 5 left x 3 min
        assert bar.progress.tasks[0].time_remaining is None   # rich's estimate had nothing to show here
        now[0] += 180
        bar.advance()        # 2 operators in 6 min: 4 left x 3 min
        for _ in range(4):
            now[0] += 180
            bar.advance()
    assert con.file.getvalue().splitlines() == [
        "operators 5/10 · 0:03:00 elapsed · eta 0:15:00",
        "operators 6/10 · 0:06:00 elapsed · eta 0:12:00",
        "operators 7/10 · 0:09:00 elapsed · eta 0:09:00",
        "operators 8/10 · 0:12:00 elapsed · eta 0:06:00",
        "operators 9/10 · 0:15:00 elapsed · eta 0:03:00",
        "operators 10/10 · 0:18:00 elapsed · eta 0:00:00"]
    # a resumed run whose operators were all recorded: no line each, the count once at the end
    con = Console(file=io.StringIO(), width=160, force_terminal=False)
    with OperatorBar(con, 2, get_time=lambda: now[0]) as bar:
        bar.advance(earlier=True)
        bar.advance(earlier=True)
    assert con.file.getvalue().splitlines() == ["operators 2/2 · 0:00:00 elapsed · eta 0:00:00"]


def test_eval_bar_of_jobs_full_on_resume_and_estimated_from_the_jobs_run_now() -> None:
    """kgb eval's bar of jobs: a resume with nothing to run showed a full bar with an unknown time left
    ('210/210 0:00:00 eta -:--:--', fresh user 40); a job of minutes had no estimate (rich's rate of the last 30 s).
    The bar of jobs now estimates from the mean time of the jobs this call ran, the recorded ones left out."""
    import io

    from rich.console import Console

    from kernelgenbench.console import run_progress

    now = [50.0]
    con = Console(file=io.StringIO(), width=160, force_terminal=False)
    bars = run_progress(con)
    bars.get_time = lambda: now[0]
    full = bars.add_task("jobs", total=210, completed=210, earlier=210)
    part = bars.add_task("later", total=10, completed=4, earlier=4)
    now[0] += 120
    bars.advance(part)   # the first job run now took 2 minutes: 5 left
    con.print(bars.make_tasks_table([bars.tasks[full], bars.tasks[part]]))
    rows = [" ".join(ln.split()) for ln in con.file.getvalue().splitlines()]
    assert rows[0].endswith("210/210 0:02:00 eta 0:00:00"), rows
    assert rows[1].endswith("5/10 0:02:00 eta 0:10:00"), rows


def test_every_help_fits_80_columns_with_whole_option_names() -> None:
    """fresh user 41: `kgb eval --help` at 80 columns (rich's panels) gave the option names a 40-cell column and the
    help text 12 cells a line, and cut --interpreter-max-mb and its env var with an ellipsis. Every command's help
    now keeps each line within 80 cells and shows each option's names and env var whole."""
    import typer.main

    group = typer.main.get_command(app)
    ctx = group.make_context("kgb", ["--help"], resilient_parsing=True)
    names = sorted(group.list_commands(ctx))
    assert {"eval", "generate", "agent", "summary", "report", "compare", "check"} <= set(names)
    for name in ["", *names]:
        res = CliRunner().invoke(app, [*([name] if name else []), "--help"], env={"COLUMNS": "80"})
        assert res.exit_code == 0, (name, res.output)
        lines = res.output.splitlines()
        assert max(len(ln) for ln in lines) <= 80, (name, [ln for ln in lines if len(ln) > 80])
        assert "…" not in res.output and "<list[" not in res.output.split("Options:")[-1], name
        if not name:
            continue
        cmd = group.get_command(ctx, name)
        for p in cmd.params:
            for opt in [*p.opts, *getattr(p, "secondary_opts", [])]:
                if opt.startswith("-"):
                    assert re.search(rf"(^|[ /;,]){re.escape(opt)}([ ,;]|$)", res.output, re.M), (name, opt)
            if getattr(p, "envvar", None) and getattr(p, "show_envvar", False):
                assert str(p.envvar) in res.output, (name, p.envvar)
    # a help text is beside its option, several words a line, not a 12-cell column
    out = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "80"}).output
    assert re.search(r"^  --op OP +evaluate only these operators \(repeatable\)$", out, re.M), out
    assert "KGB_INTERPRETER_MAX_MB" in out


def test_eval_in_a_log_has_labelled_job_lines_and_no_bar_frame(tmp_path: Path) -> None:
    """fresh user 41: `kgb eval ... | cat` ended with one frame of the bar of jobs ('jobs ━━━ 1/1 0:00:04 eta
    0:00:00'), and the job line read '✓ aten::neg 5/5 (3.4s)' (5/5 of what?). In a log every job line says what its
    numbers count, and no bar is drawn; the helper that labels a job's cases keeps the unsupported/not-run notes."""
    from kernelgenbench.console import cases_passed

    assert cases_passed("5/5") == "5/5 cases passed"
    assert cases_passed("2/3 (1 unsupported)") == "2/3 cases passed (1 unsupported)"
    assert cases_passed("1/4 (2 not run)") == "1/4 cases passed (2 not run)"
    root = Path(__file__).resolve().parents[1]
    res = CliRunner().invoke(app, ["eval", str(root / "solutions"), "--op", "aten::neg", "--platform", "interpreter",
                                   "--jobs", "1", "--runs-root", str(tmp_path)])
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if "aten::neg ·" in ln)
    assert re.fullmatch(r"✓ aten::neg · 5/5 cases passed · \d+\.\d s", line), line
    assert not re.search(r"^\s*(jobs|aten::neg · cases)\b.*\beta\b", res.output, re.M), res.output  # no bar


def test_tables_at_80_columns_cut_no_number_and_notes_span_a_log(tmp_path: Path) -> None:
    """fresh user 41: at 80 columns `kgb summary` of a GPU run cut cases ('648/…'), operator ids, speedups and the
    last columns at the edge, and in a 140-cell log the summary's title and notes wrapped to the table's 80 cells,
    centred. A table that does not fit is printed as several, each repeating the operator column; one four cells
    too wide loses its outer border; title and notes are lines as wide as the output; a log is at least 140 wide
    even where COLUMNS=80 is exported; kgb compare's operator ids are never folded."""
    import gzip
    import io
    import os
    from typing import Any

    from kernelgenbench import console as kcon
    from kernelgenbench.cli import _load_runs
    from kernelgenbench.metrics import latest_records, summarize
    from kernelgenbench.report.compare import compare_runs
    from kernelgenbench.report.render import rich_tables
    from kernelgenbench.tables import _ops_table, _summary_table

    root = Path(__file__).resolve().parents[1]
    with gzip.open(root / "bench/results/2026-12-06-h200-slice-full/results.jsonl.gz", "rt") as f:
        records = [json.loads(line) for line in f]
    latest = latest_records(records)
    assert len(latest) == 12 and all(r.get("speedup") for r in latest)

    def shown(width: int, *tables: Any) -> list[str]:
        con = kcon._Console(file=io.StringIO(), width=width, force_terminal=False)
        for t in tables:
            con.print(t)
        return con.file.getvalue().splitlines()

    summary = _summary_table(summarize(records), "summary · tier full · cuda", tier="full")
    for width in (80, 100):
        lines = shown(width, _ops_table(latest, timing=True), summary)
        text = "\n".join(lines)
        assert max(len(ln) for ln in lines) <= width, (width, text)
        for r in latest:   # every operator id, case count and speedup whole
            assert re.search(rf"{re.escape(r['op'])} +[│┃].*{r['cases_passed']}/{r['cases_total']} .* "
                             rf"{r['speedup']:.3f}x", text), (width, r["op"], text)
        (overall,) = [ln.replace("│", " ").split() for ln in lines if "overall" in ln]
        assert overall == ["overall", "12", "12", "100.0%", "1.398x", "1.088x", "1.116x", "12", "0"], (width, text)
    assert "(continued, 2/2)" in "\n".join(shown(80, _ops_table(latest, timing=True)))
    # the summary at 80: four cells too wide, no outer border; its title and notes start at the first column
    lines = shown(80, summary)
    assert lines[0] == "summary · tier full · cuda" and lines[1].startswith("source  ┃ ops ┃"), lines
    assert "verdicts cover the full tier only, not smoke or heldout: --tier all judges every" in lines
    # in a log the notes are 140 cells wide: one line each
    lines = shown(140, summary)
    assert "verdicts cover the full tier only, not smoke or heldout: --tier all judges every case" in lines
    assert any(ln.startswith("unsupp.: operators left out of ops and accuracy: none of their cases could be judged "
                             "on this platform, or their kernels") for ln in lines), lines
    # the console of the command line: a log is at least 140 wide, COLUMNS=80 exported or not
    old = os.environ.get("COLUMNS")
    try:
        os.environ["COLUMNS"] = "80"
        assert kcon._console().width == 140
        os.environ["COLUMNS"] = "200"
        assert kcon._console().width == 200
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    # kgb compare's operator column keeps each id whole at 80 columns
    for name, recs in (("a", latest), ("b", [dict(r, speedup=r["speedup"] * 0.5) for r in latest])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    rep = compare_runs(*_load_runs([tmp_path / "a", tmp_path / "b"], None))
    lines = shown(80, *rich_tables(rep, ("compare",), width=80))
    body = [ln.split("│")[1].strip() for ln in lines if ln.startswith("│")]
    assert body and set(body) == {r["op"] for r in latest}, "\n".join(lines)
