"""What a new user met in ``kgb summary``, ``kgb report``, ``kgb compare``, ``kgb repro`` and ``kgb show`` (fresh
user 44), checked on hand-made run directories (``tests/test_report.py``'s builders) and on the suite's own cases.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report import _row, flat, rec, write_run
from typer.testing import CliRunner

from kernelgenbench.cli import app
from kernelgenbench.report.load import RunDirError, load_run
from kernelgenbench.report.model import build_report


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


def _demo_beside_mine(tmp_path: Path) -> tuple[Path, Path]:
    """The README's `kgb report runs/*-demo runs/mine --matched` in small: an oracle run of 60 operators (one
    failed) beside one's own run of 3 of them."""
    ops = [f"aten::op{i:02d}" for i in range(60)]
    oracle = write_run(tmp_path / "demo", [rec(o, "failed" if o == "aten::op59" else "passed", cls="static_scan",
                                               tier="smoke", platform="interpreter") for o in ops],
                       tier="smoke", platform="interpreter")
    mine = write_run(tmp_path / "mine", [rec(o, "passed", tier="smoke", platform="interpreter") for o in ops[:3]],
                     tier="smoke", platform="interpreter")
    return oracle, mine


def test_matched_report_counts_failures_and_interceptions_over_the_common_set(tmp_path: Path) -> None:
    """With --matched the accuracy table scored 3 operators of each system, and the failure taxonomy and the
    anti-hack table under it still counted the demo's 210 judged attempts (and its failures elsewhere)."""
    oracle, mine = _demo_beside_mine(tmp_path)
    runs = [load_run(oracle, "oracle"), load_run(mine, "mine")]
    rep = build_report(runs, matched=True, bootstrap=0)
    f = rep.table("failures")
    idx = {c.title: c.key for c in f.columns}
    judged = _row(f, **{"class": "judged attempts"})
    assert (judged[idx["oracle"]], judged[idx["mine"]]) == (3, 3)
    assert _row(f, **{"class": "all of the submission's"})[idx["oracle"]] == 0  # op59's failure is not in common
    assert f.notes[0] == "over the common set: the 3 operators every system judged (--matched)"
    ah = rep.table("anti_hack")
    every = _row(ah, system="oracle", source="all")
    assert (every["attempts"], every["L1"]) == (3, 0)
    assert ah.notes[0].startswith("over the common set")
    # without --matched every system's own attempts, as before
    rep = build_report(runs, bootstrap=0)
    f = rep.table("failures")
    judged = _row(f, **{"class": "judged attempts"})
    assert (judged[idx["oracle"]], judged[idx["mine"]]) == (60, 3)
    assert _row(f, **{"class": "static_scan"})[idx["oracle"]] == 1
    assert _row(rep.table("anti_hack"), system="oracle", source="all")["L1"] == 1
    assert not f.notes[0].startswith("over ")


def test_report_of_many_operators_cuts_operator_lists_in_the_terminal(tmp_path: Path) -> None:
    """`kgb report runs/*-demo runs/mine --label oracle --label mine --matched` printed 207 operator ids, a
    hundred lines, under "Always and never solved", though it leaves the per-operator tables to the files."""
    oracle, mine = _demo_beside_mine(tmp_path)
    res = CliRunner().invoke(app, ["report", str(oracle), str(mine), "--label", "oracle", "--label", "mine",
                                   "--matched", "--md", str(tmp_path / "r.md")])
    assert res.exit_code == 0, res.output
    out = flat(res.output)
    assert "aten::op03, aten::op04" in out and "... 48 more" in out  # 56 oracle-only solved: 8 shown
    assert "aten::op11" not in out and "aten::op58" not in out
    assert "the whole lists of operators (cut to 8 here) are in the files" in out
    md = (tmp_path / "r.md").read_text()
    assert "aten::op58" in md and "more" not in md.split("## Always and never solved", 1)[1].split("##", 1)[0]
    # a report of a few operators shows its lists whole
    res = CliRunner().invoke(app, ["report", str(mine), str(mine), "--label", "a", "--label", "b"])
    assert res.exit_code == 0 and "aten::op00, aten::op01, aten::op02" in flat(res.output)


def test_summary_failures_writes_case_parameters_as_every_other_command(tmp_path: Path) -> None:
    """`kgb summary runs/broken --failures` wrote `values=[25.0, -25.0, 0.0, 'inf', 'nan']` where `kgb show`,
    `kgb eval` and `kgb repro` write the same case `values=[25.0, -25.0, 0.0, inf, nan]`."""
    r = rec("aten::mish", "failed", cls="compile_error", tier="smoke", platform="interpreter", case_id="smoke/0")
    r["cases"] = [{"id": "smoke/0", "status": "failed", "failure_class": "compile_error", "message": "boom",
                   "params": {"shape": [2, 3], "dtype": "fp32", "values": [25.0, -25.0, 0.0, "inf", "nan"]}}]
    run = write_run(tmp_path / "broken", [r], tier="smoke", platform="interpreter")
    res = CliRunner().invoke(app, ["summary", str(run), "--failures"])
    assert res.exit_code == 0, res.output
    assert "(shape=[2, 3], dtype=fp32, values=[25.0, -25.0, 0.0, inf, nan])" in res.output
    assert "'inf'" not in res.output


def test_common_cublas_axes_are_explained() -> None:
    """`kgb show cublas::cublasDgemv_v2 --cases` explained `trans` and `poison` only as "a parameter of this
    operator's cases: see its grid and build in ...": the axes most cuBLAS routines share now say what they are."""
    from kernelgenbench.report.author import axis_meaning
    from kernelgenbench.suite.registry import all_operators, get_operator

    gemv = get_operator("cublas::cublasDgemv_v2")
    assert axis_meaning(gemv, "trans").startswith("BLAS op(A): 'N' or 0 as stored, 'T' or 1 transposed")
    assert "NaN poison that must stay bit for bit" in axis_meaning(gemv, "poison")
    trsm = get_operator("cublas::cublasStrsm_v2")
    assert "0 or 'L' lower, 1 or 'U' upper" in axis_meaning(trsm, "uplo")
    assert "0 or 'L' from the left" in axis_meaning(trsm, "side")
    assert "1 or 'U': a unit diagonal" in axis_meaning(trsm, "diag")
    assert "half = torch's complex randn" in axis_meaning(get_operator("cublas::cublasCgemm_v2"), "cparts")
    shared = ("trans", "uplo", "side", "diag", "batchCount", "poison", "cparts")
    left = {(o.id, k) for o in all_operators() if o.source == "cublas"
            for k in {k for p in o.grid("smoke") + o.grid("full") for k in p} & set(shared)
            if axis_meaning(o, k).startswith("a parameter of")}
    assert left == set()


def test_show_states_the_fp64_rtol_the_accumulation_rule_applies() -> None:
    """`kgb show cublas::cublasDgemv_v2` began "Tolerance: ... with rtol fp64 1e-5" and went on "fp64 and
    complex128: ... with rtol 8*2^-53": the verdict applies the latter (suite/tolerance.py accumulation_rule)."""
    from kernelgenbench.show import _tolerance_text
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.suite.tolerance import RTOL_FP64_ACCUMULATION

    assert RTOL_FP64_ACCUMULATION == 8 * 2.0 ** -53
    gemv = _tolerance_text(get_operator("cublas::cublasDgemv_v2"))
    assert gemv.startswith("|out - ref| <= atol + rtol*|ref| with rtol fp64 8*2^-53 (as below); atol = ")
    assert "fp64 1e-5" not in gemv
    zgemm = _tolerance_text(get_operator("cublas::cublasZgemmBatched"))
    assert "with rtol fp64 8*2^-53 (as below), c128 8*2^-53 (as below); atol" in zgemm
    # an operator without the accumulation rule keeps the general rtol
    assert "with rtol fp16 1e-3, bf16 1.6e-2, fp32 1e-5; atol" in _tolerance_text(get_operator("aten::mish"))
