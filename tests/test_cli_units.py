"""The CLI's run-directory handling (no kernels run: a requested operator without a file)."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kernelgenbench.cli import app


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
