"""What a new user met in ``kgb summary``, ``kgb report``, ``kgb compare``, ``kgb repro`` and ``kgb show`` (fresh
user 44), checked on hand-made run directories (``tests/test_report.py``'s builders) and on the suite's own cases.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report import flat, rec, write_run
from typer.testing import CliRunner

from kernelgenbench.cli import app
from kernelgenbench.report.load import RunDirError, load_run


def _interrupted_run(path: Path, command: str = "kgb eval") -> Path:
    """A run directory as ``kgb eval`` leaves it when Ctrl-C comes before its first record: config.json,
    env.json and the jobs' folders, no results.jsonl."""
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({
        "command": command, "tier": "smoke,heldout", "platform": "interpreter",
        "selected": ["aten::mish", "cublas::cublasDgemv_v2", "vllm::fused_add_rms_norm"]}))
    (path / "env.json").write_text("{}")
    (path / "jobs" / "x-aten__mish").mkdir(parents=True)
    return path


def test_a_run_interrupted_before_its_first_record_is_called_a_run_and_told_to_resume(tmp_path: Path) -> None:
    """`timeout -s INT 5 kgb eval my_kernels/ --out runs/int2`, then `kgb summary runs/int2` said "Error: Invalid
    value: runs/int2 has no results.jsonl (not a run directory?)" (exit 2) right after the run itself printed
    "interrupted: 0 of 3 jobs recorded in runs/int2; run the same command again to resume"; report, compare and
    repro called it "not a run directory" too."""
    run = _interrupted_run(tmp_path / "int2")
    runner = CliRunner()
    res = runner.invoke(app, ["summary", str(run)])
    assert res.exit_code == 0, res.output
    out = flat(res.output)
    assert f"{run} is a run directory of kgb eval with no record yet (0 of its 3 selected operators recorded)" in out
    assert "run the same kgb eval command again to resume" in out and "not a run directory" not in out
    with pytest.raises(RunDirError, match="nothing to report yet: .* is a run directory of kgb eval with no record"):
        load_run(run)
    for args in (["report", str(run)], ["repro", str(run), "aten::mish", "smoke/0"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and "no record yet" in flat(res.output) and "not a run directory" not in res.output
    # an empty results.jsonl (a generate run stopped before its first evaluation) reads the same
    gen = _interrupted_run(tmp_path / "gen", command="kgb generate")
    (gen / "results.jsonl").write_text("")
    res = runner.invoke(app, ["summary", str(gen)])
    assert res.exit_code == 0 and "run the same kgb generate command again to resume" in flat(res.output)
    # a directory no kgb command made stays "not a run directory"
    (tmp_path / "plain").mkdir()
    res = runner.invoke(app, ["summary", str(tmp_path / "plain")])
    assert res.exit_code == 2 and "not a run directory" in flat(res.output)


def test_compare_names_the_argument_that_is_not_a_run(tmp_path: Path) -> None:
    """`kgb compare runs/mine runs/int2` said "Invalid value for 'RUN'": compare's arguments are RUN_A and RUN_B."""
    good = write_run(tmp_path / "A", [rec("aten::add", "passed", 1.0)])
    res = CliRunner().invoke(app, ["compare", str(good), str(tmp_path / "nope")])
    assert res.exit_code == 2 and "Invalid value for 'RUN_B'" in flat(res.output), res.output
    res = CliRunner().invoke(app, ["compare", str(tmp_path / "nope"), str(good)])
    assert res.exit_code == 2 and "Invalid value for 'RUN_A'" in flat(res.output), res.output
