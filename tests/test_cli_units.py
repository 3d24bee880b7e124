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
