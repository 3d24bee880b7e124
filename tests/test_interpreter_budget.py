"""The CPU interpreter's size budget of a case (``kgb eval --interpreter-max-mb``, ``KGB_INTERPRETER_MAX_MB``,
``Settings.interpreter_max_mb``): a case whose tensors move more than the budget is reported ``unsupported``
before it runs, with a reason naming the operator, the case and its size against the budget (never a held-out
case's parameters), printed in ``kgb eval``'s terminal; GPU platforms never apply it; every smoke case of every
operator fits the default (fresh27 REPORT item 5: a correct vllm::moe_sum waited 317 s on heldout/0)."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kernelgenbench.platforms import PROFILES, TOO_LARGE, case_bytes
from kernelgenbench.settings import INTERPRETER_MAX_MB, Settings
from kernelgenbench.suite.registry import all_operators, get_operator

SOLUTIONS = Path(__file__).resolve().parent.parent / "solutions"


def test_the_budget_applies_on_the_interpreter_only_and_names_no_parameter() -> None:
    op = get_operator("vllm::moe_sum")
    (big,) = [c for c in op.cases("heldout") if c.index == 0]
    assert case_bytes(op, big.params) > 500 * (1 << 20)  # t=4096, k=8, h=7168 bf16: 528 MB moved
    why = PROFILES["interpreter"].oversize_reason(op, big, INTERPRETER_MAX_MB)
    assert why is not None and why.startswith(TOO_LARGE)
    assert "vllm::moe_sum case heldout/0 moves 504.0 MiB" in why and "over the 16 MiB budget per case" in why
    assert "--interpreter-max-mb" in why and "KGB_INTERPRETER_MAX_MB" in why
    for k, v in big.params.items():  # held-out parameters are withheld
        assert f"{k}=" not in why and str(v) not in why
    # a budget above its size, no budget, and every GPU platform: judged
    assert PROFILES["interpreter"].oversize_reason(op, big, 600.0) is None
    assert PROFILES["interpreter"].oversize_reason(op, big, None) is None
    assert PROFILES["interpreter"].oversize_reason(op, big, 0) is None
    for name in ("cuda", "rocm", "musa", "ascend"):
        assert PROFILES[name].oversize_reason(op, big, INTERPRETER_MAX_MB) is None, name
        assert PROFILES[name].case_unsupported_reason(op, big, 0.001) is None, name
    assert Settings().interpreter_max_mb == INTERPRETER_MAX_MB == 16.0


def test_every_smoke_case_of_every_operator_fits_the_default_budget() -> None:
    """`make demo` (the smoke tier of all 210 oracles) must judge every case: none is over the default budget."""
    interp = PROFILES["interpreter"]
    over = [(o.id, c.id) for o in all_operators() for c in o.cases("smoke")
            if interp.oversize_reason(o, c, INTERPRETER_MAX_MB)]
    assert over == []
    largest = max(case_bytes(o, c.params) for o in all_operators() for c in o.cases("smoke"))
    assert 0 < largest < INTERPRETER_MAX_MB * (1 << 20) / 4  # room to spare: 0.8 MB today


def test_eval_reports_cases_over_the_budget_unsupported_without_running_them(tmp_path: Path) -> None:
    from kernelgenbench.cli import app

    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    name = "cublas__cublasSaxpy_v2.py"
    (subs / name).write_text((SOLUTIONS / name).read_text())
    op = get_operator("cublas::cublasSaxpy_v2")
    sizes = {c.id: case_bytes(op, c.params) for c in op.cases("heldout")}
    assert sizes["heldout/2"] > 0.03 * (1 << 20) > max(sizes["heldout/0"], sizes["heldout/1"])
    args = ["eval", str(subs), "--tier", "heldout", "--platform", "interpreter", "--out", str(out)]
    res = CliRunner().invoke(app, [*args, "--interpreter-max-mb", "0.03"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "case size budget: 0.03 MiB (--interpreter-max-mb, KGB_INTERPRETER_MAX_MB)" in flat
    # the reason is in the terminal, under the job's line, and names no held-out parameter (n=4097, nan_x)
    assert "~ too large for the CPU interpreter: cublas::cublasSaxpy_v2 case heldout/2 moves 0.047 MiB" in flat
    assert "over the 0.03 MiB budget per case" in flat
    assert "4097" not in res.output and "nan_x" not in res.output
    (rec,) = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    by_id = {c["id"]: c for c in rec["cases"]}
    assert by_id["heldout/2"]["status"] == "unsupported" and by_id["heldout/2"]["message"].startswith(TOO_LARGE)
    assert by_id["heldout/2"].get("wall_s") is None and by_id["heldout/2"].get("launches") is None  # never ran
    assert [by_id[f"heldout/{i}"]["status"] for i in (0, 1)] == ["passed", "passed"]
    # the platform cannot judge it: not the submission's failure, and the judged cases decide the verdict
    assert (rec["status"], rec["cases_passed"], rec["cases_unsupported"]) == ("passed", 2, 1)
    assert json.loads((out / "config.json").read_text())["interpreter_max_mb"] == 0.03
    # the budget is part of the run's configuration: another one (here from the environment) is another run
    again = CliRunner().invoke(app, args, env={"COLUMNS": "200", "KGB_INTERPRETER_MAX_MB": "0"})
    assert again.exit_code == 2 and "interpreter_max_mb: 0.03" in " ".join(again.output.split()), again.output


def test_unsupported_lines_say_the_budget_once_and_withhold_other_held_out_reasons() -> None:
    from kernelgenbench.tables import unsupported_lines

    def big(cid: str, mib: str) -> dict:
        return {"id": cid, "status": "unsupported",
                "message": f"{TOO_LARGE}: aten::neg case {cid} moves {mib} MiB (inputs read + outputs written, by its "
                           f"cost model), over the 16 MiB budget per case (--interpreter-max-mb or "
                           f"KGB_INTERPRETER_MAX_MB; 0 lifts it): not run here, a GPU judges it"}

    slow = "the Triton CPU interpreter is too slow for this case: ... the last launch's grid 4096 ..."
    rec = {"cases": [{"id": "smoke/0", "status": "passed"}, big("full/4", "30.0"), big("full/5", "22.6"),
                     {"id": "full/7", "status": "unsupported", "message": slow},
                     {"id": "heldout/1", "status": "unsupported", "message": slow}, big("heldout/0", "504.0"),
                     big("heldout/2", "20.0")]}
    lines = unsupported_lines(rec)
    assert lines[0] == rec["cases"][1]["message"]  # the first budget reason whole
    assert lines[1:] == [f"full/5: {TOO_LARGE} too, it moves 22.6 MiB (the same budget)",
                         f"full/7: {slow}",
                         "heldout/1: held-out case: reason withheld (held-out cases are never shown)",
                         f"heldout/0: {TOO_LARGE} too, it moves 504.0 MiB (the same budget)",
                         "... 1 more unsupported case: heldout/2 (20.0 MiB, over the budget); every reason is in "
                         "results.jsonl"]
    # fresh28: the rest are named, not only counted: which cases went unjudged
    many = {"cases": [big(f"full/{i}", f"{20 + i}.0") for i in range(30)]
            + [{"id": "full/99", "status": "unsupported", "message": slow}]}
    last = unsupported_lines(many)[-1]
    assert last.startswith("... 26 more unsupported cases: full/5 (25.0 MiB, over the budget), full/6 (26.0 MiB, ")
    assert "full/24 (44.0 MiB, over the budget) and 6 more; every reason is in results.jsonl" in last
    assert unsupported_lines({"cases": [{"id": "smoke/0", "status": "passed"}]}) == []


def test_the_environment_variable_sets_the_budget_of_every_entry_point(monkeypatch) -> None:
    """fresh28: KGB_INTERPRETER_MAX_MB, which every over-budget reason names, was read by `kgb eval`'s option only:
    kgb.evaluate(), evaluate_file(), `kgb generate` and `kgb agent` (Settings()) kept 16 MiB under it."""
    import pytest

    from kernelgenbench.platforms import INTERPRETER_MAX_MB_ENV

    monkeypatch.delenv(INTERPRETER_MAX_MB_ENV, raising=False)
    assert Settings().interpreter_max_mb == INTERPRETER_MAX_MB == 16.0
    monkeypatch.setenv(INTERPRETER_MAX_MB_ENV, "100")
    assert Settings().interpreter_max_mb == 100.0
    assert Settings(interpreter_max_mb=8).interpreter_max_mb == 8  # an explicit value wins
    monkeypatch.setenv(INTERPRETER_MAX_MB_ENV, "0")
    assert Settings().interpreter_max_mb is None  # 0 lifts it, as --interpreter-max-mb 0 does
    for bad in ("lots", "-1", "nan"):
        monkeypatch.setenv(INTERPRETER_MAX_MB_ENV, bad)
        with pytest.raises(ValueError, match=f"KGB_INTERPRETER_MAX_MB={bad!r}: .*MiB"):
            Settings()


def test_a_bad_budget_variable_is_a_usage_error_of_every_entry_point(monkeypatch, tmp_path: Path) -> None:
    import pytest

    import kernelgenbench as kgb
    from kernelgenbench.cli import app

    monkeypatch.setenv("KGB_INTERPRETER_MAX_MB", "lots")
    with pytest.raises(kgb.EvaluationError, match="KGB_INTERPRETER_MAX_MB='lots'"):
        kgb.evaluate(SOLUTIONS, ops=["aten::neg"], tier="smoke", platform="interpreter", out=tmp_path / "run")
    assert not (tmp_path / "run" / "results.jsonl").exists()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-kgb-test-budget")
    res = CliRunner().invoke(app, ["generate", "--model", "openai/x", "--op", "aten::neg", "--platform", "interpreter",
                                   "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "gen")])
    assert res.exit_code == 2 and "KGB_INTERPRETER_MAX_MB='lots'" in " ".join(res.output.split()), res.output


def test_summary_says_which_cases_the_verdict_leaves_out_and_why(tmp_path: Path) -> None:
    """fresh28: `kgb eval` printed the cases over the budget under the job's line, `kgb summary` of the same run
    only "(1 unsupported)": which case, and why, was gone."""
    from kernelgenbench.cli import app

    subs, out = tmp_path / "subs", tmp_path / "run"
    subs.mkdir()
    name = "cublas__cublasSaxpy_v2.py"
    (subs / name).write_text((SOLUTIONS / name).read_text())
    res = CliRunner().invoke(app, ["eval", str(subs), "--tier", "heldout", "--platform", "interpreter", "--out",
                                   str(out), "--interpreter-max-mb", "0.03"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    summ = CliRunner().invoke(app, ["summary", str(out)], env={"COLUMNS": "200"})
    assert summ.exit_code == 0, summ.output
    flat = " ".join(summ.output.split())
    # fresh user 44: the job's fraction says what it counts, as on kgb eval's job lines
    assert ("~ cublas::cublasSaxpy_v2 · 2/3 cases passed (1 unsupported): 1 case not judged on this platform (left "
            "out of its verdict): too large for the CPU interpreter: cublas::cublasSaxpy_v2 case heldout/2 moves 0.047 "
            "MiB") in flat
    assert "4097" not in summ.output and "nan_x" not in summ.output  # held-out parameters stay withheld


def test_a_size_just_over_the_budget_does_not_read_as_the_budget() -> None:
    """16 MiB and 8 KiB read "16.01 MiB" over the 16 MiB budget, not "16.0" (fresh user 35: vllm::rms_norm's
    full/36 read "moves 16.0 MiB ..., over the 16 MiB budget")."""
    from kernelgenbench.platforms import MIB, mib_text

    assert mib_text(16 * MIB + 8192, 16) == "16.01" and mib_text(16 * MIB + 8192) == "16.0"
    assert mib_text(504 * MIB, 16) == "504.0" and mib_text(0.047 * MIB, 16) == "0.047"
