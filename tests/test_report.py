"""``kgb report``, ``kgb compare`` and the kernel author's tools (issue 17).

Most tests build run directories in ``tmp_path`` from hand-made records (a GPU-like ``kgb eval`` run A, a
second run B, a ``kgb generate`` run G with samples and tokens) and check every number against values computed
here by hand. The HTML page is opened in headless Chromium (skipped, with the reason, where Chromium is not
installed; ``.ci/run`` installs it). The tests marked ``slow`` make the issue's three real runs on the CPU
interpreter (the oracle solutions, deliberately broken submissions and an LLM-track run against the scripted
server, all on the smoke tier) and report on them.
"""
from __future__ import annotations

import ast
import base64
import csv
import html.parser
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kernelgenbench.cli import app
from kernelgenbench.report.compare import compare_runs
from kernelgenbench.report.load import OpResult, RunDirError, load_run, read_records
from kernelgenbench.report.model import bootstrap_ratio, build_report, fast_p, fmt, interception
from kernelgenbench.report.render import markdown, write_csv, write_latex

ROOT = Path(__file__).resolve().parents[1]
APPROX = dict(rel=1e-12, abs=1e-12)


# -- synthetic run directories ---------------------------------------------------------------------------------
def rec(op: str, status: str, speedup: float | None = None, cls: str | None = None, *, label: str = "subs",
        tier: str = "full", platform: str = "cuda", spread: float = 0.01, wall: float = 2.0, message: str = "boom",
        case_id: str = "full/1", **extra: Any) -> dict[str, Any]:
    """A record as ``kgb eval`` writes it (the fields the report reads)."""
    cases = [{"id": "full/0", "params": {"shape": [8]}, "status": "passed", "speedup": speedup,
              "baseline_spread": spread / 2, "candidate_spread": spread}] if speedup else []
    if status == "failed":
        cases.append({"id": case_id, "params": {"shape": [9]}, "status": "failed", "failure_class": cls,
                      "message": message})
    r = {"op": op, "source": op.split("::")[0], "label": label, "tier": tier, "platform": platform, "status": status,
         "failure_class": cls if status == "failed" else None, "speedup": speedup, "sol_pct": 50.0 if speedup else None,
         "cases_total": 4, "cases_passed": 4 if status == "passed" else 1,
         "cases_unsupported": 4 if status == "unsupported" else 0,
         "first_failure": {"case_id": case_id, "message": message} if status == "failed" else None,
         "anti_hack": {"L1": {"ok": cls not in ("static_scan",)}, "L2": None, "L3": None}, "cases": cases,
         "wall_s": wall, "submission": f"/subs/{op.replace('::', '__')}.py"}
    r.update(extra)
    return r


def write_run(path: Path, records: list[dict[str, Any]], *, command: str = "kgb eval", tier: str = "full",
              platform: str = "cuda", samples: list[dict[str, Any]] | None = None, **config: Any) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"command": command, "tier": tier, "platform": platform, **config}))
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if samples is not None:
        (path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return path


def sample(op: str, i: int, r: int, tin: int, tout: int, cached: int = 0, total_s: float = 2.0) -> dict[str, Any]:
    return {"sample_id": f"{op}:s{i}r{r}", "op": op, "source": op.split("::")[0], "sample": i, "round": r,
            "label": f"s{i}r{r}", "usage": {"input_tokens": tin, "output_tokens": tout, "cached_input_tokens": cached,
                                            "cache_write_tokens": 0, "reasoning_tokens": 0},
            "timing": {"total_s": total_s}}


def run_a(root: Path) -> Path:
    return write_run(root / "20261201-101500-A", [
        rec("aten::add", "passed", 1.2), rec("aten::mm", "passed", 0.8), rec("aten::neg", "failed", cls="ghost"),
        rec("vllm::rms_norm", "passed", 2.0, spread=0.3), rec("cublas::cublasSgemm_v2", "failed", cls="wrong_result"),
        rec("aten::sum", "unsupported")])


def run_b(root: Path) -> Path:
    return write_run(root / "B", [
        rec("aten::add", "failed", cls="wrong_result"),  # superseded by the latest record below
        rec("aten::add", "passed", 1.0),
        rec("aten::mm", "failed", cls="static_scan", message="L1 static scan: torch.mm"),
        rec("aten::neg", "failed", cls="platform"), rec("vllm::rms_norm", "passed", 1.6),
        rec("cublas::cublasSgemm_v2", "passed", 1.1), rec("aten::sum", "passed", 3.0)])


def run_g(root: Path, name: str = "G", platform: str = "cuda", cheap: bool = False) -> Path:
    """A kgb generate run (k=2, early stopping, reflection). ``cheap``: the same system on another platform,
    solving both operators at once."""
    if cheap:
        samples = [sample("aten::add", 0, 0, 1000, 200, total_s=1.0),
                   sample("vllm::rms_norm", 0, 0, 1000, 100, total_s=1.0)]
        records = [rec("aten::add", "passed", 1.2, label="s0r0", platform=platform),
                   rec("vllm::rms_norm", "passed", 1.0, label="s0r0", platform=platform)]
    else:
        samples = [sample("aten::add", 0, 0, 1000, 200, cached=100), sample("aten::add", 0, 1, 1500, 300, cached=500),
                   sample("vllm::rms_norm", 0, 0, 800, 100), sample("vllm::rms_norm", 1, 0, 900, 50)]
        records = [rec("aten::add", "failed", cls="wrong_result", label="s0r0", wall=3.0),
                   rec("aten::add", "passed", 1.5, label="s0r1", wall=3.0),
                   rec("vllm::rms_norm", "failed", cls="dispatch_recursion", label="s0r0", wall=3.0,
                       message="L1 static scan: line 9: rms_norm calls vllm::rms_norm itself",
                       anti_hack={"L1": {"ok": False}}),
                   rec("vllm::rms_norm", "failed", cls="no_code", label="s1r0", wall=0.0, anti_hack={})]
        for r in records:
            r["platform"] = platform
    return write_run(root / name, records, command="kgb generate", platform=platform, samples=samples, k=2,
                     early_stop=True)


@pytest.fixture()
def abg(tmp_path: Path) -> list[Path]:
    return [run_a(tmp_path), run_b(tmp_path), run_g(tmp_path)]


def flat(output: str) -> str:
    """CLI output as one line of words: rich's error box wraps messages and draws borders."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def _row(table: Any, **match: Any) -> dict[str, Any]:
    rows = [r for r in table.rows if all(r.get(k) == v for k, v in match.items())]
    assert len(rows) == 1, (match, table.rows)
    return rows[0]


# -- loading ---------------------------------------------------------------------------------------------------
def test_read_records_takes_dicts_and_tolerates_schema_versions(tmp_path: Path) -> None:
    p = tmp_path / "results.jsonl"
    p.write_text('{"op": "aten::add"}\n{"op": "aten::mm", "schema_version": 1}\nnot json\n[1]\n'
                 '{"schema_version": 2, "op": "aten::sub"}\n')
    assert [r["op"] for r in read_records(p)] == ["aten::add", "aten::mm", "aten::sub"]
    p.write_text('{"op": "aten::add", "schema_version": 99}\n')
    with pytest.raises(RunDirError, match="schema_version 99"):
        read_records(p)


def test_load_eval_and_generate_runs(abg: list[Path]) -> None:
    a, b, g = (load_run(p) for p in abg)
    assert a.label == "A" and a.kind == "eval" and a.tier == "full" and a.tiers == ("full",)
    assert b.ops["aten::add"].status == "passed"  # the latest record of the operator is its verdict
    assert a.ops["vllm::rms_norm"].spread == pytest.approx(0.3)
    assert g.kind == "generate" and g.k == 2
    add, rms = g.ops["aten::add"], g.ops["vllm::rms_norm"]
    assert (add.status, add.speedup, add.solved_by, add.pass_at_1, add.pass_at_k) == ("passed", 1.5, "s0r1", 1.0, 1.0)
    assert (add.tokens_in, add.tokens_out, add.tokens_cache_read, add.tokens_total) == (2500, 500, 600, 3000)
    assert add.wall_s == pytest.approx(2 + 2 + 3 + 3)  # requests + evaluations of both rounds
    assert (rms.status, rms.failure_class, rms.pass_at_1, rms.pass_at_k, rms.tokens_total) == (
        "failed", "no_code", 0.0, 0.0, 1850)
    assert rms.wall_s == pytest.approx(2 + 3 + 2 + 0)
    assert len(g.attempts) == 4


def test_not_a_run_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="no such run directory"):
        load_run(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="not a run directory: it has no results.jsonl"):
        load_run(tmp_path / "empty")
    res = CliRunner().invoke(app, ["report", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "not a run directory" in flat(res.output)


# -- numbers against the records -------------------------------------------------------------------------------
def test_accuracy_speedups_and_fast_p(abg: list[Path]) -> None:
    rep = build_report([load_run(p) for p in abg], bootstrap=0)
    acc = rep.table("accuracy")
    a = _row(acc, system="A", source="overall")
    # A judged add, mm, neg, rms_norm, Sgemm (sum is unsupported); solved add 1.2, mm 0.8, rms_norm 2.0
    assert (a["operators"], a["passed"], a["unsupported"], a["timed"]) == (5, 3, 1, 3)
    assert a["accuracy"] == pytest.approx(3 / 5, **APPROX)
    assert a["geomean"] == pytest.approx((1.2 * 0.8 * 2.0) ** (1 / 3), **APPROX)
    assert a["median"] == pytest.approx(1.2, **APPROX)
    assert a["iqm"] == pytest.approx((1.2 + 0.8 + 2.0) / 3, **APPROX)  # fewer than 4 values: the mean
    assert [a[f"fast_{p}"] for p in ("0", "1", "1.5", "2")] == pytest.approx([3 / 5, 2 / 5, 1 / 5, 1 / 5], **APPROX)
    aten = _row(acc, system="A", source="aten")
    assert (aten["operators"], aten["passed"]) == (3, 2)
    assert aten["geomean"] == pytest.approx(math.sqrt(1.2 * 0.8), **APPROX)
    assert _row(acc, system="A", source="cublas")["accuracy"] == 0.0
    assert a["geomean_src_balanced"] == pytest.approx(math.sqrt(math.sqrt(1.2 * 0.8) * 2.0), **APPROX)
    b = _row(acc, system="B", source="overall")
    assert (b["operators"], b["passed"]) == (6, 4)
    assert b["geomean"] == pytest.approx((1.0 * 1.6 * 1.1 * 3.0) ** 0.25, **APPROX)
    assert b["median"] == pytest.approx((1.1 + 1.6) / 2, **APPROX)
    assert b["iqm"] == pytest.approx((1.1 + 1.6) / 2, **APPROX)  # the middle half of four values
    assert [b[f"fast_{p}"] for p in ("1", "1.5", "2")] == pytest.approx([4 / 6, 2 / 6, 1 / 6], **APPROX)
    g = _row(acc, system="G", source="overall")
    assert (g["operators"], g["passed"], g["pass_at_1"], g["pass_at_k"]) == (2, 1, 0.5, 0.5)
    assert any(c.title == "Pass@2" for c in acc.columns)
    assert _row(acc, system="A", source="overall")["pass_at_1"] is None


def test_fast_p_without_timing_and_fast_0() -> None:
    untimed = [OpResult("aten::add", "aten", "passed"), OpResult("aten::mm", "aten", "failed"),
               OpResult("aten::neg", "aten", "unsupported")]
    assert fast_p(untimed, 0.0) == 0.5
    assert fast_p(untimed, 1.0) is None  # nothing timed: no value, not 0
    assert fast_p([], 1.0) is None


def test_cost_per_solved(abg: list[Path]) -> None:
    rep = build_report([load_run(p) for p in abg], bootstrap=0, prices={"G": (2.0, 10.0, 1.0)})
    g = _row(rep.table("cost"), system="G")
    assert (g["solved"], g["tokens_total"], g["tokens_per_solved"]) == (1, 4850, 4850)
    assert (g["tokens_in"], g["tokens_out"], g["tokens_cache_read"]) == (4200, 650, 600)
    assert g["wall_s"] == pytest.approx(17.0) and g["wall_per_solved"] == pytest.approx(17.0)
    # priced: (input - cached) x 2 + cached x 1 + output x 10, per million tokens
    usd = ((2500 - 600) * 2 + 600 * 1 + 500 * 10 + 1700 * 2 + 150 * 10) / 1e6
    assert g["cost_usd"] == pytest.approx(usd, **APPROX) and g["cost_per_solved"] == pytest.approx(usd, **APPROX)
    a = _row(rep.table("cost"), system="A")
    assert a["tokens_total"] is None and a["cost_usd"] is None
    assert a["wall_s"] == pytest.approx(12.0) and a["wall_per_solved"] == pytest.approx(4.0)


def test_matched_set_and_bootstrap(abg: list[Path]) -> None:
    runs = [load_run(p) for p in abg]
    rep = build_report(runs, bootstrap=2000, seed=7)
    ab = _row(rep.table("matched"), a="A", b="B")
    # both judged: add, mm, neg, rms_norm, Sgemm (A could not judge sum); both solved: add, rms_norm
    assert (ab["both_judged"], ab["both_solved"], ab["only_a"], ab["only_b"], ab["matched"]) == (5, 2, 1, 1, 2)
    assert ab["operators"] == ["aten::add", "vllm::rms_norm"]
    assert ab["ratio"] == pytest.approx(math.sqrt(1.2 / 1.0 * 2.0 / 1.6), **APPROX)
    assert ab["geomean_a"] == pytest.approx(math.sqrt(1.2 * 2.0), **APPROX)
    assert 1.2 <= ab["ci_low"] <= ab["ratio"] <= ab["ci_high"] <= 1.25
    again = build_report(runs, bootstrap=2000, seed=7)
    assert _row(again.table("matched"), a="A", b="B") == ab  # the same seed, the same interval
    ag = _row(rep.table("matched"), a="A", b="G")
    assert (ag["both_judged"], ag["both_solved"], ag["matched"], ag["ratio"]) == (2, 1, 1, pytest.approx(1.2 / 1.5))


def test_bootstrap_is_seeded_and_matches_its_definition() -> None:
    rng = random.Random(3)
    pairs = [(rng.uniform(0.5, 3), rng.uniform(0.5, 3)) for _ in range(12)]
    ratio, lo, hi = bootstrap_ratio(pairs, 500, 11, 0.9)
    logs = [math.log(a / b) for a, b in pairs]
    assert ratio == pytest.approx(math.exp(sum(logs) / len(logs)), **APPROX)
    r = random.Random(11)  # the definition, written out: resample operators, geomean, nearest-rank quantiles
    means = sorted(math.exp(sum(logs[r.randrange(12)] for _ in range(12)) / 12) for _ in range(500))
    assert (lo, hi) == (means[round(0.05 * 499)], means[round(0.95 * 499)])
    assert bootstrap_ratio(pairs, 500, 11, 0.9) == (ratio, lo, hi)
    assert bootstrap_ratio(pairs, 500, 12, 0.9)[1:] != (lo, hi)
    assert lo < ratio < hi
    assert bootstrap_ratio([], 100, 0) == (None, None, None)
    assert bootstrap_ratio([(2.0, 1.0)] * 3, 100, 0) == (pytest.approx(2.0), pytest.approx(2.0), pytest.approx(2.0))


def test_difficulty(abg: list[Path]) -> None:
    rep = build_report([load_run(p) for p in abg], bootstrap=0)
    d = {r["op"]: (r["solved_by"], r["judged_by"], r["systems"]) for r in rep.table("difficulty").rows}
    assert d == {"aten::add": (3, 3, ["A", "B", "G"]), "aten::mm": (1, 2, ["A"]), "aten::neg": (0, 2, []),
                 "vllm::rms_norm": (2, 3, ["A", "B"]), "cublas::cublasSgemm_v2": (1, 2, ["B"]),
                 "aten::sum": (1, 1, ["B"])}
    # the comparable set (judged by all three: add, rms_norm) apart from the operators fewer systems judged
    assert [(r["solved_by"], r["operators"], r["operators_partial"])
            for r in rep.table("difficulty_histogram").rows] == [(0, 0, 1), (1, 0, 3), (2, 1, 0), (3, 1, 0)]
    s = {r["group"].split(" (")[0]: r["operators"] for r in rep.table("difficulty_summary").rows}
    assert s["always solved"] == ["aten::add"] and s["never solved"] == ["aten::neg"]
    # an operator only some systems judged and all of those solved is no "solved by some, not all" (fresh user 35)
    assert s["solved by some, not all that judged it"] == ["aten::mm", "cublas::cublasSgemm_v2", "vllm::rms_norm"]
    assert s["solved by every system that judged it, judged by fewer than 3"] == ["aten::sum"]


def test_failure_taxonomy_and_anti_hack(abg: list[Path]) -> None:
    rep = build_report([load_run(p) for p in abg], bootstrap=0)
    t = rep.table("failures")
    idx = {c.title: c.key for c in t.columns}

    def counts(cls: str) -> tuple[int, int, int]:
        r = _row(t, **{"class": cls})
        return r[idx["A"]], r[idx["B"]], r[idx["G"]]

    assert counts("ghost") == (1, 0, 0) and counts("wrong_result") == (1, 0, 1) and counts("static_scan") == (0, 1, 0)
    assert counts("platform") == (0, 1, 0) and counts("dispatch_recursion") == (0, 0, 1)
    assert counts("no_code") == (0, 0, 1)
    assert _row(t, **{"class": "platform"})["side"] == "platform"
    assert _row(t, **{"class": "dispatch_recursion"})["model_side"] == "yes"
    assert _row(t, **{"class": "no_code"})["side"] == "submission"
    assert counts("all of the submission's") == (2, 1, 3) and counts("all of the platform's") == (0, 1, 0)
    assert counts("judged attempts") == (5, 6, 4)  # G: every judged sample round
    ah = rep.table("anti_hack")
    assert (_row(ah, system="A", source="aten")["L2"], _row(ah, system="A", source="all")["L1"]) == (1, 0)
    assert (_row(ah, system="B", source="aten")["L1"], _row(ah, system="B", source="vllm")["L1"]) == (1, 0)
    assert _row(ah, system="G", source="vllm")["L1"] == 1  # dispatch recursion found by the scan
    assert interception({"status": "failed", "failure_class": "dispatch_recursion",
                         "first_failure": {"message": "case smoke/0: RecursionError"}}) == "L3"
    assert interception({"status": "failed", "failure_class": "timer_tampering"}) == "timing"


def test_portability_tax(tmp_path: Path) -> None:
    runs = [load_run(run_g(tmp_path, "G1"), "gen"), load_run(run_g(tmp_path, "G2", platform="rocm", cheap=True), "gen")]
    rep = build_report(runs, bootstrap=0)
    assert [s["key"] for s in rep.systems] == ["gen@cuda", "gen@rocm"]
    p = _row(rep.table("portability"), system="gen")
    assert (p["platform_a"], p["platform_b"], p["common"]) == ("cuda", "rocm", 2)
    assert (p["accuracy_a"], p["accuracy_b"], p["geomean_a"]) == (0.5, 1.0, pytest.approx(1.5))
    assert p["geomean_b"] == pytest.approx(math.sqrt(1.2 * 1.0), **APPROX)
    assert (p["tokens_per_solved_a"], p["tokens_per_solved_b"]) == (4850, 1150)
    assert p["tokens_ratio"] == pytest.approx(1150 / 4850, **APPROX)
    assert (p["wall_per_solved_a"], p["wall_per_solved_b"]) == (pytest.approx(17.0), pytest.approx(3.0))
    assert p["wall_ratio"] == pytest.approx(3.0 / 17.0, **APPROX)
    with pytest.raises(RunDirError, match="both labelled 'gen' on platform cuda"):
        build_report([runs[0], load_run(run_g(tmp_path, "G3"), "gen")])


def test_an_agent_run_plugs_in_through_the_cost_fields(tmp_path: Path) -> None:
    """A ``kgb agent`` run directory: per-operator records carrying usage, cost_usd and wall_s (load.COST_FIELDS)."""
    usage = {"input_tokens": 50_000, "output_tokens": 8_000, "cached_input_tokens": 30_000, "cache_write_tokens": 2_000}
    run = write_run(tmp_path / "agent", [
        rec("aten::add", "passed", 1.4, label="agent", usage=usage, cost_usd=0.25, wall=600.0),
        rec("aten::mm", "failed", cls="profile", label="agent", usage=usage, cost_usd=0.5, wall=900.0)],
        command="kgb agent")
    a = load_run(run)
    assert a.kind == "agent" and a.ops["aten::add"].tokens_cache_read == 30_000
    rep = build_report([a], bootstrap=0)
    c = _row(rep.table("cost"), system="agent")
    assert (c["tokens_total"], c["tokens_per_solved"]) == (116_000, 116_000)
    assert (c["cost_usd"], c["cost_per_solved"], c["wall_per_solved"]) == (0.75, 0.75, 1500.0)
    assert _row(rep.table("anti_hack"), system="agent", source="aten")["L3"] == 1
    assert _row(rep.table("systems"), system="agent")["kind"] == "kgb agent"


def test_an_agent_run_that_had_the_oracle_is_flagged(tmp_path: Path) -> None:
    """fresh user 39: a command agent given the oracle kernels (--expose) solved both operators with copies of
    them; its records' oracle_overlap canary said so, but neither the run's output nor kgb report did: the
    report's systems notes now give each agent system's isolation and name the operators whose files held it."""
    canary = {"oracle": "/x/solutions/aten__add.py", "distinctive_lines": 40, "found_in": {"/ws/aten__add.py": 40},
              "oracle_text_found": True}
    clean = {**canary, "found_in": {}, "oracle_text_found": False}
    had = write_run(tmp_path / "had", [rec("aten::add", "passed", label="agent", oracle_overlap=canary),
                                       rec("aten::mm", "failed", cls="profile", label="agent", oracle_overlap=clean)],
                    command="kgb agent", isolation="namespace", expose=["/data/kernels"])
    loose = write_run(tmp_path / "loose", [rec("aten::add", "passed", label="agent", oracle_overlap=clean)],
                      command="kgb agent", isolation="none")
    runs = [load_run(had, "had"), load_run(loose, "loose"), load_run(run_a(tmp_path))]
    assert runs[0].ops["aten::add"].oracle_text_found and not runs[0].ops["aten::mm"].oracle_text_found
    notes = build_report(runs, bootstrap=0).table("systems").notes
    assert ("had (kgb agent): isolation namespace; --expose /data/kernels; WARNING: the session files of 1 "
            "operator(s) (1 solved) hold the oracle solution's text (oracle_overlap): aten::add: not the agent's "
            "own work") in notes
    assert any(n.startswith("loose (kgb agent): isolation none (not the jail: the agent could read") for n in notes)
    assert not any(n.startswith("A ") or "(kgb eval)" in n for n in notes)  # an eval run gets no such note


def test_mixed_tiers_are_refused_unless_allowed(tmp_path: Path) -> None:
    a = load_run(run_a(tmp_path))
    smoke = load_run(write_run(tmp_path / "S", [rec("aten::add", "passed", tier="smoke")], tier="smoke"))
    with pytest.raises(RunDirError, match="cover different tiers .*--allow-mixed-tiers"):
        build_report([a, smoke])
    rep = build_report([a, smoke], allow_mixed_tiers=True, bootstrap=0)
    assert rep.banners and rep.banners[0].startswith("MIXED TIERS")
    assert "MIXED TIERS" in markdown(rep)
    res = CliRunner().invoke(app, ["report", str(a.path), str(smoke.path)])
    assert res.exit_code == 2 and "--allow-mixed-tiers" in flat(res.output)


def test_matched_flag_scores_the_common_set(abg: list[Path]) -> None:
    rep = build_report([load_run(p) for p in abg[:2]], matched=True, bootstrap=0)
    a = _row(rep.table("accuracy"), system="A", source="overall")
    b = _row(rep.table("accuracy"), system="B", source="overall")
    # sum left out: A could not judge it
    assert (a["operators"], a["passed"], b["operators"], b["passed"]) == (5, 3, 5, 3)
    assert "common set" in rep.table("accuracy").notes[0]


def test_systems_that_judged_different_operators_are_told_to_match(abg: list[Path]) -> None:
    """Fresh user 36: a 4-operator run beside the 210 oracles gave accuracies over different sets, said only as
    "over each system's own operators"; the note now says the sets differ and points to --matched."""
    differ = build_report([load_run(p) for p in abg[:2]], bootstrap=0)  # A could not judge one operator B judged
    note = differ.table("accuracy").notes[0]
    assert note.startswith("over each system's own operators, which differ (5 operators judged by every system)")
    assert "--matched scores every system on those only" in note
    same = build_report([load_run(abg[0]), load_run(abg[0], label="A2")], bootstrap=0)
    assert same.table("accuracy").notes[0] == "over each system's own operators"


# -- renderers: one model --------------------------------------------------------------------------------------
def _md_tables(text: str) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    title = None
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:]
            out[title] = []
        elif line.startswith("| ") and title is not None:
            out[title].append([c.strip().replace("\\|", "|").replace("\\`", "`")
                               for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return out


def test_markdown_csv_latex_hold_the_same_numbers(abg: list[Path], tmp_path: Path) -> None:
    rep = build_report([load_run(p) for p in abg], bootstrap=300, seed=1)
    md = _md_tables(markdown(rep))
    files = write_csv(rep, tmp_path / "csv")
    tex = write_latex(rep, tmp_path / "tex")
    assert {p.name for p in files} >= {f"{t.name}.csv" for t in rep.tables} | {"report.json"}
    assert (tmp_path / "tex" / "report.tex").read_text().count("\\input{") == len(rep.tables)
    data = json.loads((tmp_path / "csv" / "report.json").read_text())
    for t in rep.tables:
        rows = md[t.title]
        if not t.rows:  # written as "(no rows)"
            assert rows == [] and not list(csv.reader(open(tmp_path / "csv" / f"{t.name}.csv")))[1:]
            continue
        assert rows[0] == [c.title for c in t.columns]
        assert len(rows) == len(t.rows) + 1
        with open(tmp_path / "csv" / f"{t.name}.csv") as f:
            crows = list(csv.reader(f))
        assert crows[0] == [c.title for c in t.columns]
        jt = next(x for x in data["tables"] if x["name"] == t.name)
        latex = (tmp_path / "tex" / f"{t.name}.tex").read_text()
        for _r, mrow, crow, jrow in zip(t.rows, rows[1:], crows[1:], jt["rows"]):
            for c, mcell, ccell in zip(t.columns, mrow, crow):
                v = jrow[c.key]
                assert mcell == fmt(v, c.kind)  # Markdown: the formatted JSON value
                if isinstance(v, float):
                    assert float(ccell) == v  # CSV: the raw value, exactly
                elif isinstance(v, list):
                    assert ccell == "; ".join(map(str, v))
                else:
                    assert ccell == ("" if v is None else str(v))
                if c.kind in ("x", "pct") and v is not None:
                    assert fmt(v, c.kind).replace("%", "\\%") in latex
    assert any(p.name == "accuracy.tex" for p in tex)
    # fresh user 39: a table input into a paper alone said neither the tier nor the platform of its numbers
    line = ("systems: A = kgb eval on cuda, tier full; B = kgb eval on cuda, tier full; G = kgb generate on cuda, "
            "tier full.")
    for t in rep.tables:
        latex = (tmp_path / "tex" / f"{t.name}.tex").read_text()
        assert (line in latex) == (t.name != "systems"), t.name


# -- HTML in headless Chromium ---------------------------------------------------------------------------------
def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def dump_dom(page: Path, tmp_path: Path) -> str:
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (.ci/run installs it: apt-get install -y chromium); the HTML page is "
                    "checked in a headless browser")
    out = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'chromium-profile'}", "--virtual-time-budget=5000",
                          "--dump-dom", page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


class _Dom(html.parser.HTMLParser):
    """Tables (cells with data-col / data-value and their text), images, the embedded JSON, body attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[dict[str, str]]]] = {}
        self.images: list[dict[str, str]] = []
        self.figures: list[str] = []
        self.body: dict[str, str] = {}
        self.data = ""
        self._table: str | None = None
        self._cell: dict[str, str] | None = None
        self._json = False
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for k in ("src", "href"):
            if k in a:
                self.links.append(a[k])
        if tag == "body":
            self.body = a
        elif tag == "table" and "data-table" in a:
            self._table = a["data-table"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag == "td" and self._table is not None:
            self._cell = {"col": a.get("data-col", ""), "value": a.get("data-value", ""), "text": ""}
        elif tag == "img":
            self.images.append(a)
        elif tag == "figure":
            self.figures.append(a.get("data-plot", ""))
        elif tag == "script" and a.get("id") == "kgb-report-data":
            self._json = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append(self._cell)
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "script":
            self._json = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"] += data
        if self._json:
            self.data += data


def check_html(page: Path, tmp_path: Path) -> tuple[_Dom, dict[str, Any]]:
    """Open ``page`` in headless Chromium and check it against its own embedded JSON: every table cell's raw
    value and text, every plot present and decoded, no network address anywhere."""
    from kernelgenbench.report.html import PLOTS

    src = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", src), "the page must not load anything"
    dom = _Dom()
    dom.feed(dump_dom(page, tmp_path))
    data = json.loads(dom.data)
    assert dom.body.get("data-images-decoded") == f"{len(PLOTS)}/{len(PLOTS)}", dom.body
    assert dom.figures == [name for name, _ in PLOTS]
    for img in dom.images:
        assert img["src"].startswith("data:image/png;base64,")
        png = base64.b64decode(img["src"].split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = struct.unpack(">II", png[16:24])
        assert w > 200 and h > 150
    assert all(not ln or ln.startswith(("#", "data:")) for ln in dom.links)
    for t in data["tables"]:
        if not t["rows"]:
            continue
        rows = [r for r in dom.tables[t["name"]] if r]
        assert len(rows) == len(t["rows"])
        kinds = {c["key"]: c["kind"] for c in t["columns"]}
        for jrow, cells in zip(t["rows"], rows):
            assert [c["col"] for c in cells] == [c["key"] for c in t["columns"]]
            for c in cells:
                assert json.loads(c["value"]) == jrow[c["col"]]
                assert c["text"] == fmt(jrow[c["col"]], kinds[c["col"]])
    return dom, data


def test_html_renders_in_chromium_and_matches_the_json(abg: list[Path], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", *map(str, abg), "--html", str(page), "--json", str(tmp_path / "r.json"),
                                   "--bootstrap", "200", "--seed", "3"])
    assert res.exit_code == 0, res.output
    dom, data = check_html(page, tmp_path)
    assert data == json.loads((tmp_path / "r.json").read_text())
    acc = next(t for t in data["tables"] if t["name"] == "accuracy")
    a = next(r for r in acc["rows"] if r["system"] == "A" and r["source"] == "overall")
    assert a["geomean"] == pytest.approx((1.2 * 0.8 * 2.0) ** (1 / 3), **APPROX)
    rows = [r for r in dom.tables["accuracy"] if r]
    cells = {c["col"]: c for c in rows[acc["rows"].index(a)]}
    assert cells["geomean"]["text"] == "1.243x" and cells["accuracy"]["text"] == "60.0%"


# -- kgb compare -------------------------------------------------------------------------------------------------
def test_compare(abg: list[Path], tmp_path: Path) -> None:
    a, b = load_run(abg[0]), load_run(abg[1])
    rep = compare_runs(a, b)
    ch = {r["op"]: r for r in rep.table("compare").rows}
    assert ch["aten::add"]["change"] == "slower" and ch["aten::add"]["ratio"] == pytest.approx(1.0 / 1.2)
    assert ch["aten::add"]["noise"] == pytest.approx(0.05)  # the threshold: the spreads are 1 %
    assert ch["vllm::rms_norm"]["change"] == "same speed"  # 0.8x is within A's 30 % timing spread
    assert ch["vllm::rms_norm"]["noise"] == pytest.approx(0.3)
    assert ch["aten::mm"]["change"] == "newly failing" and ch["aten::mm"]["status_b"] == "failed: static_scan (full/1)"
    assert ch["cublas::cublasSgemm_v2"]["change"] == "newly passing"
    assert ch["aten::sum"]["change"] == "newly passing"
    assert ch["aten::neg"]["change_text"] == "still failing (ghost -> platform)"
    loose = {r["op"]: r for r in compare_runs(a, b, threshold=0.25).table("compare").rows}
    assert loose["aten::add"]["change"] == "same speed"  # 1/1.25 <= 0.833: within a 25 % threshold
    counts = {r["change"]: r["operators"] for r in rep.table("changes").rows}
    assert counts == {"newly failing": 1, "slower": 1, "newly passing": 2, "still failing": 1, "same speed": 1}
    res = CliRunner().invoke(app, ["compare", str(abg[0]), str(abg[1]), "--md", "-", "--strict"])
    assert res.exit_code == 1
    assert "| aten::add | aten | passed | passed | 1.200x | 1.000x | 0.833x | 5.0% | slower |" in res.output
    smoke = write_run(tmp_path / "S", [rec("aten::add", "passed", tier="smoke")], tier="smoke")
    res = CliRunner().invoke(app, ["compare", str(abg[0]), str(smoke)])
    assert res.exit_code == 2 and "different tiers" in flat(res.output)


def test_json_dash_writes_stdout(abg: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh user 39: `kgb report A B --json -` (as --md - works) wrote a file named "-" into the current
    directory and printed the terminal tables; `kgb compare --json -` did the same. '-' is stdout now, holding
    the JSON alone (the "written:" line of other outputs goes to stderr), and two outputs on stdout are refused."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["report", str(abg[0]), str(abg[1]), "--json", "-", "--md", "r.md"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["schema"] == "kgb-report/1" and [s["label"] for s in rep["systems"]] == ["A", "B"]
    assert not (tmp_path / "-").exists() and (tmp_path / "r.md").is_file() and "written: r.md" in res.stderr
    res = CliRunner().invoke(app, ["compare", str(abg[0]), str(abg[1]), "--json", "-"])
    assert res.exit_code == 0, res.output
    assert {r["op"] for r in json.loads(res.stdout)["tables"][0]["rows"]} >= {"aten::add", "aten::mm"}
    assert not (tmp_path / "-").exists()
    res = CliRunner().invoke(app, ["report", str(abg[0]), "--json", "-", "--md", "-"], env={"COLUMNS": "200"})
    assert res.exit_code == 2 and "--md - and --json - would both write to stdout" in res.output, res.output


def test_compare_counts_one_sided_operators_unless_asked(tmp_path: Path) -> None:
    """A run of two operators against one of twelve: the ten only in B are counted (changes table, a note, at most 8
    names and "... N more"), not listed as rows, unless --one-sided (fresh user 35: 205 "only in A" rows first)."""
    few = write_run(tmp_path / "few", [rec("aten::add", "passed", 1.0), rec("aten::neg", "passed", 2.0)])
    many_ops = ["aten::add", "aten::neg"] + [f"aten::op{i:02d}" for i in range(10)]
    many = write_run(tmp_path / "many", [rec(o, "passed", 1.5) for o in many_ops])
    rep = compare_runs(load_run(few), load_run(many))
    assert sorted(r["op"] for r in rep.table("compare").rows) == ["aten::add", "aten::neg"]
    assert any("10 only in B" in n for n in rep.table("compare").notes)
    only_b = next(r for r in rep.table("changes").rows if r["change"] == "only in B")
    assert only_b["operators"] == 10 and only_b["which"][-1] == "... 2 more" and len(only_b["which"]) == 9
    full = compare_runs(load_run(few), load_run(many), one_sided=True)
    assert len(full.table("compare").rows) == 12
    assert next(r for r in full.table("changes").rows if r["change"] == "only in B")["which"][-1] == "aten::op09"
    res = CliRunner().invoke(app, ["compare", str(few), str(many), "--md", "-"])
    assert res.exit_code == 0 and "| aten::op03 |" not in res.output and "10 only in B" in flat(res.output)
    res = CliRunner().invoke(app, ["compare", str(few), str(many), "--md", "-", "--one-sided"])
    assert res.exit_code == 0 and "| aten::op03 | aten | — | passed |" in res.output
    assert not any("neither run timed" in n for n in rep.table("compare").notes)  # these records carry speedups


def test_compare_of_untimed_runs_says_why_the_speedups_are_empty(tmp_path: Path) -> None:
    """Fresh user 36: two interpreter runs compared with empty speedup, B/A and noise columns and no word why."""
    a = write_run(tmp_path / "a", [rec("aten::add", "passed", tier="smoke")], tier="smoke")
    b = write_run(tmp_path / "b", [rec("aten::add", "failed", tier="smoke")], tier="smoke")
    notes = compare_runs(load_run(a), load_run(b)).table("compare").notes
    assert any("neither run timed an operator (only full-tier cases on a GPU are timed" in n for n in notes)


# -- the kernel author's tools -----------------------------------------------------------------------------------
def test_version() -> None:
    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("kgb (kernelgenbench) ")


def test_cublas_nan_axes_are_explained_and_written_one_way() -> None:
    """fresh27 REPORT item 7: `kgb show cublas::cublasSaxpy_v2 --cases` left the axis `nan` unexplained and wrote
    it `nan=[x]`, while failures wrote the same case `nan=('x',)`. Every NaN axis of the cuBLAS cases has a
    meaning, and show, failure messages (Case.describe) and prompts write a case one way."""
    from kernelgenbench.report.author import axis_meaning, case_rows, shown_tiers
    from kernelgenbench.suite.registry import all_operators, get_operator

    op = get_operator("cublas::cublasSaxpy_v2")
    rows, axes = case_rows(op, ("smoke",))
    case = op.cases("smoke")[4]
    assert case.params["nan"] == ("x",)
    assert case.describe() == rows[4].params == "n=33, alpha=0.0, incx=-2, incy=1, nan=[x]"
    meaning = {k: (v, m) for k, v, m in axes}
    assert meaning["nan"][0] == "[x]" and "must not read them" in meaning["nan"][1] and "§2.5" in meaning["nan"][1]
    unexplained = {(o.id, k) for o in all_operators() if o.source == "cublas" for t in shown_tiers(None)
                   for c in o.cases(t) for k in c.params
                   if k.startswith("nan") and axis_meaning(o, k).startswith("a parameter of")}
    assert unexplained == set()


def test_show_cases_lists_every_shown_case_and_explains_the_axes() -> None:
    from kernelgenbench.report.author import case_rows, shown_tiers
    from kernelgenbench.suite.registry import get_operator

    op = get_operator("vllm::rms_norm")
    rows, axes = case_rows(op, shown_tiers(None))
    assert [r.id for r in rows] == [c.id for c in op.cases("smoke")] + [c.id for c in op.cases("full")]
    assert rows[1].params.endswith("pad=24") and rows[1].interpreter == ""
    meaning = dict((k, m) for k, _, m in axes)
    assert "row stride" in meaning["pad"] and "heads_pad" in meaning
    assert sum(r.timed for r in rows) == sum(c.timed for c in op.cases("full"))
    neg_axes = {k: m for k, _, m in case_rows(get_operator("aten::neg"), ("smoke",))[1]}
    assert "step2: out= is the view base[..., ::2]" in neg_axes["out_layout"]
    res = CliRunner().invoke(app, ["show", "vllm::rms_norm", "--cases", "--tier", "smoke"])
    assert res.exit_code == 0, res.output
    assert "smoke/1" in res.output and "pad=24" in res.output and "full/0" not in res.output
    for tier in ("heldout", "all", "smoke,heldout"):
        res = CliRunner().invoke(app, ["show", "vllm::rms_norm", "--cases", "--tier", tier])
        assert res.exit_code == 2 and "never shown" in flat(res.output), res.output
    heldout = [c.describe() for c in op.cases("heldout")]
    full = CliRunner().invoke(app, ["show", "vllm::rms_norm", "--cases"]).output
    assert not any(h in full for h in heldout)


def test_init_writes_a_skeleton_that_passes_l1(tmp_path: Path) -> None:
    from kernelgenbench.report.author import skeleton
    from kernelgenbench.suite.registry import all_operators, get_operator
    from kernelgenbench.verify.scan import scan_file

    res = CliRunner().invoke(app, ["init", "aten::add", str(tmp_path)])
    assert res.exit_code == 0 and "L1 static scan: clean" in res.output, res.output
    text = (tmp_path / "aten__add.py").read_text()
    defs = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    assert ast.unparse(defs["add_Scalar_out"].args) == "self, other, alpha=1, *, out"
    assert set(get_operator("aten::add").interface.required_names()) <= set(defs)
    assert "raise NotImplementedError(" in text
    again = CliRunner().invoke(app, ["init", "aten::add", str(tmp_path)])
    assert again.exit_code == 2 and "--force" in flat(again.output)
    res = CliRunner().invoke(app, ["init", "vllm::rms_norm", str(tmp_path)])
    defs = {n.name: n for n in ast.parse((tmp_path / "vllm__rms_norm.py").read_text()).body
            if isinstance(n, ast.FunctionDef)}
    assert ast.unparse(defs["rms_norm"].args) == "out, input, weight, epsilon"
    for op in all_operators():  # every operator's skeleton parses and passes the L1 scan
        p = tmp_path / "all" / op.filename
        p.parent.mkdir(exist_ok=True)
        p.write_text(skeleton(op))
        found = scan_file(p, **op.scan_policy())
        assert not found, (op.id, [f.message for f in found])
        names = {n.name for n in ast.parse(p.read_text()).body if isinstance(n, ast.FunctionDef)}
        assert set(op.interface.required_names()) <= names, op.id


def test_summary_failures_shows_cases_in_full_and_withholds_heldout(tmp_path: Path) -> None:
    long = "arg.0: 3 of 8 elements outside tolerance\nsecond line of the message"
    run = write_run(tmp_path / "R", [
        rec("vllm::rms_norm", "failed", cls="wrong_result", tier="all", case_id="smoke/2", message=long),
        rec("aten::add", "failed", cls="wrong_result", tier="all", case_id="heldout/1", message="shape=[777, 3]: bad")],
        tier="all")
    res = CliRunner().invoke(app, ["summary", str(run), "--failures"])
    assert res.exit_code == 0, res.output
    assert "second line of the message" in res.output and "smoke/2" in res.output
    section = res.output.split("every failing case in full", 1)[1]  # the --failures section
    assert "heldout/1" in section and "withheld" in section and "777" not in section


def test_summary_json_per_operator_rows() -> None:
    from kernelgenbench.metrics import operator_rows

    rows = operator_rows([rec("aten::add", "failed", cls="ghost"), rec("aten::add", "passed", 1.5),
                          rec("vllm::rms_norm", "failed", cls="wrong_result", case_id="full/3")])
    assert [(r["op"], r["status"], r["speedup"], r["failure_class"], r["failure_case"]) for r in rows] == [
        ("aten::add", "passed", 1.5, None, None), ("vllm::rms_norm", "failed", None, "wrong_result", "full/3")]
    assert rows[0]["cases"] == {"total": 4, "passed": 4, "unsupported": 0} and rows[0]["tier"] == "full"


# -- the done-when runs: oracle, broken and LLM-track on the interpreter ------------------------------------------
STATIC_SCAN_SAXPY = '''import torch


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    y.add_(x, alpha=alpha)
'''
OPS = ("vllm::rms_norm", "aten::neg", "cublas::cublasSaxpy_v2")


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from llm_server import ScriptedServer

    root = tmp_path_factory.mktemp("three")
    runner = CliRunner()
    oracle = root / "oracle-subs"
    oracle.mkdir()
    for op in OPS:
        shutil.copy(ROOT / "solutions" / (op.replace("::", "__") + ".py"), oracle)
    broken = root / "broken-subs"
    broken.mkdir()
    shutil.copy(ROOT / "tests" / "bad" / "wrong_values__vllm__rms_norm.py", broken / "vllm__rms_norm.py")
    assert runner.invoke(app, ["init", "aten::neg", str(broken)]).exit_code == 0  # fails as not written yet
    (broken / "cublas__cublasSaxpy_v2.py").write_text(STATIC_SCAN_SAXPY)
    runs = {}
    for name, subs in (("oracle", oracle), ("broken", broken)):
        res = runner.invoke(app, ["eval", str(subs), "--tier", "smoke", "--platform", "interpreter",
                                  "--out", str(root / name)])
        assert res.exit_code == (0 if name == "oracle" else 1), res.output
        runs[name] = root / name
    srv = ScriptedServer({"vllm::rms_norm": [[["wrong"], ["correct"]]], "aten::neg": [[["correct"]]],
                          "cublas::cublasSaxpy_v2": [[["no_code"]]]})
    port = srv.start()
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-kgb-test-report")
    try:
        args = ["generate", "--model", "openai/scripted", "--base-url", f"http://127.0.0.1:{port}/v1", "--tier",
                "smoke", "--k", "1", "--rounds", "2", "--reflection", "--platform", "interpreter", "--max-retries", "1",
                "--backoff", "0.01", "--out", str(root / "llm")]
        for op in OPS:
            args += ["--op", op]
        res = runner.invoke(app, args)
        assert res.exit_code == 1, res.output  # cublasSaxpy_v2 stays unsolved (no code): exit 1, as kgb eval
    finally:
        srv.stop()
        mp.undo()
    runs["llm"] = root / "llm"
    runs["root"] = root
    return runs


@pytest.mark.slow
def test_report_over_three_real_runs(three_runs: dict[str, Path], tmp_path: Path) -> None:
    out = three_runs["root"] / "report"
    runs = [str(three_runs[k]) for k in ("oracle", "broken", "llm")]
    res = CliRunner().invoke(app, ["report", *runs, "--label", "oracle", "--label", "broken", "--label", "llm",
                                   "--html", str(out / "report.html"), "--md", str(out / "report.md"),
                                   "--csv", str(out / "csv"), "--latex", str(out / "tex"), "--seed", "1"])
    assert res.exit_code == 0, res.output
    for f in ("report.html", "report.md", "csv/accuracy.csv", "csv/report.json", "tex/report.tex", "tex/failures.tex"):
        assert (out / f).is_file(), f
    data = json.loads((out / "csv" / "report.json").read_text())
    # tables without rows (one platform: no portability view) are named in one line, not printed as empty frames
    empty = [t["title"] for t in data["tables"] if not t["rows"]]
    assert empty, "three runs on one platform leave the multi-platform tables empty"
    line = next(ln for ln in res.output.splitlines() if ln.startswith("no rows in these runs"))
    assert empty[0].split()[0] in line
    assert not any(ln.strip().startswith(empty[0]) for ln in res.output.splitlines() if ln != line)
    acc = {(r["system"], r["source"]): r for r in next(t for t in data["tables"] if t["name"] == "accuracy")["rows"]}
    assert (acc[("oracle", "overall")]["passed"], acc[("oracle", "overall")]["operators"]) == (3, 3)
    assert acc[("broken", "overall")]["accuracy"] == 0.0
    llm = acc[("llm", "overall")]
    assert (llm["passed"], llm["operators"], llm["pass_at_1"]) == (2, 3, pytest.approx(2 / 3))
    assert llm["fast_1"] is None  # the interpreter times nothing
    from llm_server import usage_for  # the scripted server's token counts

    served = [usage_for("wrong", 0), usage_for("correct", 1), usage_for("correct", 0), usage_for("no_code", 0),
              usage_for("no_code", 1)]
    cost = {r["system"]: r for r in next(t for t in data["tables"] if t["name"] == "cost")["rows"]}
    total = sum(u["prompt"] + u["completion"] for u in served)
    assert cost["llm"]["tokens_total"] == total and cost["llm"]["tokens_per_solved"] == pytest.approx(total / 2)
    fails = next(t for t in data["tables"] if t["name"] == "failures")
    col = {c["title"]: c["key"] for c in fails["columns"]}
    by = {r["class"]: r for r in fails["rows"]}
    assert (by["wrong_result"][col["broken"]], by["runtime_error"][col["broken"]],
            by["static_scan"][col["broken"]]) == (1, 1, 1)
    assert (by["wrong_result"][col["llm"]], by["no_code"][col["llm"]]) == (1, 2)
    diff = {r["op"]: r["solved_by"] for r in next(t for t in data["tables"] if t["name"] == "difficulty")["rows"]}
    assert diff == {"vllm::rms_norm": 2, "aten::neg": 2, "cublas::cublasSaxpy_v2": 1}
    ah = {(r["system"], r["source"]): r for r in next(t for t in data["tables"] if t["name"] == "anti_hack")["rows"]}
    assert ah[("broken", "cublas")]["L1"] == 1
    md = (out / "report.md").read_text()
    assert "| oracle | overall | 3 | 3 | 100.0% | — |" in md and "| llm | overall | 3 | 2 | 66.7% | 66.7% |" in md
    assert "smoke tier only" in md
    check_html(out / "report.html", tmp_path)


@pytest.mark.slow
def test_summary_json_rows_of_real_runs(three_runs: dict[str, Path]) -> None:
    rows = json.loads((three_runs["oracle"] / "summary.json").read_text())["per_operator"]
    assert sorted((r["op"], r["status"], r["tier"]) for r in rows) == sorted((op, "passed", "smoke") for op in OPS)
    rows = {r["op"]: r for r in json.loads((three_runs["llm"] / "summary.json").read_text())["per_operator"]}
    assert (rows["vllm::rms_norm"]["status"], rows["vllm::rms_norm"]["label"]) == ("passed", "s0r1")
    assert (rows["cublas::cublasSaxpy_v2"]["status"], rows["cublas::cublasSaxpy_v2"]["failure_class"]) == (
        "failed", "no_code")
    neg = {r["op"]: r for r in json.loads((three_runs["broken"] / "summary.json").read_text())["per_operator"]}
    assert neg["aten::neg"]["failure_class"] == "runtime_error"


@pytest.mark.slow
def test_skeleton_fails_honestly_as_not_written(three_runs: dict[str, Path]) -> None:
    neg = next(r for r in read_records(three_runs["broken"] / "results.jsonl") if r["op"] == "aten::neg")
    assert neg["failure_class"] == "runtime_error"
    assert "neg (neg) is not written yet (skeleton from kgb init)" in neg["first_failure"]["message"]


@pytest.mark.slow
def test_compare_and_failures_on_real_runs(three_runs: dict[str, Path]) -> None:
    res = CliRunner().invoke(app, ["compare", str(three_runs["oracle"]), str(three_runs["broken"]), "--md", "-"])
    assert res.exit_code == 0, res.output
    assert "| newly failing | 3 |" in res.output
    res = CliRunner().invoke(app, ["summary", str(three_runs["broken"]), "--failures"])
    rec_ = next(r for r in read_records(three_runs["broken"] / "results.jsonl") if r["op"] == "vllm::rms_norm")
    failed = [c for c in rec_["cases"] if c["status"] == "failed"]
    assert len(failed) >= 2
    for c in failed:  # every failing case, its message uncut
        assert f"{c['id']} [wrong_result]" in res.output and c["message"] in res.output


@pytest.mark.slow
def test_repro_reproduces_the_recorded_failure(three_runs: dict[str, Path]) -> None:
    """kgb repro in its own process (as a user runs it): the same inputs and checks give the recorded message."""
    run = three_runs["broken"]
    r = next(x for x in read_records(run / "results.jsonl") if x["op"] == "vllm::rms_norm")
    entry = next(c for c in r["cases"] if c["id"] == "smoke/0")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop("TRITON_INTERPRET", None)
    cmd = [sys.executable, "-m", "kernelgenbench.cli", "repro", str(run), "vllm::rms_norm", "smoke/0", "--platform",
           "interpreter"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "no sandbox" in out.stdout
    assert f"FAILED [wrong_result] {entry['message']}" in out.stdout
    assert f"same as recorded [wrong_result] {entry['message']}" in out.stdout
    if entry.get("input_seed") is not None:
        assert f"input seed {entry['input_seed']} (the record's input_seed" in out.stdout
    fixed = subprocess.run([*cmd, "--submission", str(ROOT / "solutions" / "vllm__rms_norm.py")], capture_output=True,
                           text=True, env=env, timeout=300)
    assert fixed.returncode == 0 and "PASSED" in fixed.stdout, fixed.stdout + fixed.stderr


@pytest.mark.slow
def test_repro_refusals(three_runs: dict[str, Path]) -> None:
    from kernelgenbench.report.author import ReproError, repro

    run = three_runs["broken"]
    with pytest.raises(ReproError, match="held-out cases are never rebuilt"):
        repro(run, "vllm::rms_norm", "heldout/0", platform_name="interpreter", log=lambda m: None)
    with pytest.raises(ReproError, match="has no case smoke/99"):
        repro(run, "vllm::rms_norm", "smoke/99", platform_name="interpreter", log=lambda m: None)
    with pytest.raises(ReproError, match="no record of aten::add"):
        repro(run, "aten::add", "smoke/0", platform_name="interpreter", log=lambda m: None)
    import triton.language.standard as std

    if type(std.sigmoid).__name__ != "InterpretedFunction":  # this process imported Triton in compiled mode
        with pytest.raises(ReproError, match="fresh process"):
            repro(run, "vllm::rms_norm", "smoke/0", platform_name="interpreter", log=lambda m: None)


def test_merge_runs_help_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench/merge_runs.py merges parts of one run (it crashed on --help; comparisons are kgb report's)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("merge_runs", ROOT / "bench" / "merge_runs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(SystemExit) as e:
        mod.main(["--help"])
    assert e.value.code == 0 and "kgb report" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        mod.main([str(tmp_path)])
    assert e.value.code == 2 and "not a run directory" in capsys.readouterr().err
    a = run_a(tmp_path)
    smoke = write_run(tmp_path / "S", [rec("aten::add", "passed", tier="smoke")], tier="smoke")
    with pytest.raises(SystemExit):
        mod.main([str(a), str(smoke)])
    assert "several tiers" in capsys.readouterr().err
    assert mod.main([str(a)]) == 0 and '"passed": 3' in capsys.readouterr().out


def test_terminal_headers_wrap_between_words_only() -> None:
    """kgb report on a narrow terminal: a header may wrap at a space but never inside a word ("accurac / y")."""
    from rich.console import Console

    from kernelgenbench.report.model import Column, Report, Table
    from kernelgenbench.report.render import rich_tables

    titles = ["system", "accuracy", "geomean speedup", "median speedup", "IQM speedup", "fast_1", "fast_1.5",
              "Pass@1", "tokens per solved", "wall per solved"]
    cols = [Column(f"c{i}", t, "text" if i == 0 else "float") for i, t in enumerate(titles)]
    rows = [{"c0": "a-long-system-name-that-needs-room", **{f"c{i}": 1.2345 for i in range(1, len(titles))}}]
    rep = Report(systems=[], tables=[Table("t", "t", cols, rows)], banners=[], options={}, operators={})
    console = Console(width=80, record=True)
    tables = rich_tables(rep, width=80)
    for t in tables:
        console.print(t)
    text = console.export_text()
    for w in {w for t in titles for w in t.split()}:  # every header word whole, on one line
        assert w in text, (w, text)
    assert len(tables) >= 2 and all(len(ln) <= 80 for ln in text.splitlines())
    assert all(str(t.columns[0].header) == "system" for t in tables)  # the row's name repeats
    # without a width (files, wide terminals): one table, every column
    [one] = rich_tables(rep)
    assert [str(c.header) for c in one.columns] == titles


def test_terminal_tables_that_fit_by_their_minimum_widths_lose_no_column() -> None:
    """kgb report piped or on a 140-cell terminal: the accuracy table of two kgb eval runs fits by the columns'
    minimum widths, but rich's own narrowing overshot them and cropped the last column (fast_2.0) at the edge;
    with the widths fixed every column is printed whole and no line is wider than the terminal. The notes of a
    table split in groups follow its last group as wide as the terminal, not wrapped to that group's width."""
    from rich.console import Console

    from kernelgenbench.report.model import Column, Report, Table
    from kernelgenbench.report.render import rich_tables

    titles = ["judged", "passed", "accuracy", "geomean", "src-balanced", "median", "IQM", "timed", "fast_0.0",
              "fast_1.0", "fast_1.5", "fast_2.0", "unsupp."]
    cols = [Column("system", "system", "text"), Column("source", "source", "text")] + \
        [Column(f"c{i}", t, "text" if t == "accuracy" else "int") for i, t in enumerate(titles)]
    rows = [{"system": name, "source": src, **{f"c{i}": (7 if t != "accuracy" else "100.0%")
                                                 for i, t in enumerate(titles)}}
            for name in ("good-smoke", "neginc_saxpy") for src in ("vllm", "overall")]
    note = "accuracy = passed / judged; Pass@1 and Pass@k: kgb generate systems only (averaged over judged operators)"
    rep = Report(systems=[], tables=[Table("accuracy", "Accuracy", cols, rows, notes=[note])], banners=[],
                 options={}, operators={})
    for width in (100, 120, 140):
        console = Console(width=width, record=True)
        for t in rich_tables(rep, width=width):
            console.print(t)
        text = console.export_text()
        lines = text.splitlines()
        assert all(len(ln) <= width for ln in lines), (width, max(len(ln) for ln in lines))
        boxed = [ln for ln in lines if ln.startswith(("┃", "│"))]
        assert boxed and all(ln.endswith(("┃", "│")) for ln in boxed), (width, text)  # nothing cropped
        for t in titles:
            assert t in text, (width, t)
        assert note in " ".join(text.split())
        assert sum(1 for ln in lines if ln.strip() and ln.strip() in note) <= 2, (width, text)  # terminal-wide


def test_terminal_tables_never_fold_a_system_or_source_name_that_fits() -> None:
    """fresh27 item 7, seen again by fresh28: `kgb report` of two runs at 140 cells folded the row names inside
    words (`good-h / eldout`, `overal / l`): a text column's minimum width was its header's longest word only."""
    from rich.console import Console

    from kernelgenbench.report.model import Column, Report, Table
    from kernelgenbench.report.render import rich_tables

    titles = ["judged", "passed", "accuracy", "geomean", "src-balanced", "median", "IQM", "timed", "fast_0.0",
              "fast_1.0", "fast_1.5", "fast_2.0", "unsupp."]
    kinds = {"accuracy": "pct", "geomean": "x", "src-balanced": "x", "median": "x", "IQM": "x"}
    cols = [Column("system", "system", "text"), Column("source", "source", "text")] + \
        [Column(f"c{i}", t, "pct" if t.startswith("fast") else kinds.get(t, "int")) for i, t in enumerate(titles)]
    rows = [{"system": name, "source": src, **{f"c{i}": 1.0 if c.kind == "pct" else None if c.kind == "x" else 7
                                               for i, c in enumerate(cols[2:])}}
            for name in ("good-heldout", "b-ger_lda-ho") for src in ("cublas", "overall")]
    rep = Report(systems=[], tables=[Table("accuracy", "Accuracy", cols, rows)], banners=[], options={}, operators={})
    for width in (100, 140):
        console = Console(width=width, record=True)
        for t in rich_tables(rep, width=width):
            console.print(t)
        text = console.export_text()
        assert all(len(ln) <= width for ln in text.splitlines()), width
        body = [ln.split("│")[1:3] for ln in text.splitlines() if ln.startswith("│")]
        assert body and all(system.strip() in ("good-heldout", "b-ger_lda-ho") and source.strip() in
                            ("cublas", "overall") for system, source in body), (width, text)  # no name folded
    # a single word longer than 16 cells still folds (a run directory's path must not take the whole table)
    long = Table("t", "T", [Column("system", "system", "text"), Column("n", "n", "int")],
                 [{"system": "x" * 40, "n": 1}])
    console = Console(width=30, record=True)
    for t in rich_tables(Report(systems=[], tables=[long], banners=[], options={}, operators={}), width=30):
        console.print(t)
    assert all(len(ln) <= 30 for ln in console.export_text().splitlines())


def test_plural_and_generate_summary_columns() -> None:
    from kernelgenbench.llm.commands import summary_table
    from kernelgenbench.tables import plural

    assert (plural(1, "operator"), plural(2, "operator"), plural(0, "session")) == \
        ("1 operator", "2 operators", "0 sessions")
    assert plural(1, "matrix", "matrices") == "1 matrix" and plural(3, "matrix", "matrices") == "3 matrices"
    g = {"operators": 1, "solved": 1, "pass_at_1": 1.0, "pass_at_k": 1.0, "geomean_speedup": 1.0,
         "median_speedup": 1.0, "iqm_speedup": 1.0, "tokens": {"total": 10}, "tokens_per_solved": 10,
         "wall_s_per_solved": 1.0}
    summary = {"by_source": {"aten": g}, "overall": g, "tier": "smoke"}
    heads = [str(c.header) for c in summary_table(summary, 1, "t").columns]
    assert heads.count("Pass@1") == 1 and not any(h.startswith("Pass@") and h != "Pass@1" for h in heads)
    heads = [str(c.header) for c in summary_table(summary, 3, "t").columns]
    assert "Pass@1" in heads and "Pass@3" in heads


OOB_SGER = '''import triton
import triton.language as tl


@triton.jit
def _sger(x_ptr, y_ptr, a_ptr, m, n, alpha, lda, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rows, mask=rows < m, other=0.0)
    y = tl.load(y_ptr + cols, mask=cols < n, other=0.0)
    offs = rows[:, None] + cols[None, :] * lda
    a = tl.load(a_ptr + offs, mask=(rows < m)[:, None] & (cols < n)[None, :], other=0.0)
    tl.store(a_ptr + offs, a + alpha * x[:, None] * y[None, :], mask=(cols < n)[None, :])  # rows unmasked


def cublasSger_v2(m, n, alpha, x, incx, y, incy, A, lda):
    if m <= 0 or n <= 0 or alpha == 0.0:
        return A
    _sger[(triton.cdiv(m, 16), triton.cdiv(n, 16))](x, y, A, m, n, float(alpha), lda, BM=16, BN=16)
    return A
'''


def test_repro_gives_an_out_of_bounds_access_the_class_eval_gave_it(tmp_path: Path) -> None:
    """fresh28: kgb repro printed `FAILED [runtime_error]` for an interpreted out-of-bounds store that kgb eval
    had recorded as cuda_fault, then `same as recorded [cuda_fault]`: repro classifies as the sandbox does."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "cublas__cublasSger_v2.py").write_text(OOB_SGER)
    res = CliRunner().invoke(app, ["eval", str(subs), "--tier", "smoke", "--platform", "interpreter",
                                   "--out", str(tmp_path / "run")])
    assert res.exit_code == 1, res.output
    rec = read_records(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["failure_class"] == "cuda_fault" and rec["first_failure"]["case_id"] == "smoke/0", rec["first_failure"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop("TRITON_INTERPRET", None)
    out = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "repro", str(tmp_path / "run"),
                          "cublas::cublasSger_v2", "smoke/0", "--platform", "interpreter"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "FAILED [cuda_fault] InterpreterError: OutOfBoundsAccess(" in out.stdout, out.stdout
    assert "same as recorded [cuda_fault]" in out.stdout and "[runtime_error]" not in out.stdout
    # the traceback is printed once (as the candidate raised it), not again as the record's condensed copy
    assert out.stdout.count("The above exception was the direct cause") == 1, out.stdout
    assert "(+ the record's condensed traceback," in out.stdout


#: An aten::hardsigmoid wrapper with the input check of GPU-minded code (`assert x.is_cuda`) and an NVTX range, which
#: kgb eval admits on the interpreter; MASK is the store's bound.
IS_CUDA_HARDSIGMOID = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float32)
    y = tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + offs, tl.where(x != x, x, y).to(out_ptr.dtype.element_ty), mask=MASK)


def hardsigmoid_out(self, *, out):
    assert self.is_cuda, "expected a CUDA tensor"
    x = self.contiguous()
    if out.shape != x.shape:
        out.resize_(x.shape)
    with torch.cuda.nvtx.range("hardsigmoid"):
        _kernel[(triton.cdiv(max(x.numel(), 1), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def hardsigmoid(self):
    return hardsigmoid_out(self, out=torch.empty_like(self))
'''


def test_repro_runs_an_is_cuda_check_as_kgb_eval_does(tmp_path: Path) -> None:
    """fresh37: kgb eval judged a wrapper with `assert x.is_cuda` (the interpreter's stand-in answers True to the
    submission's own reads), but kgb repro did not tell the stand-in which file is the submission's: every repro of
    the recorded wrong_result printed `FAILED [runtime_error] AssertionError: expected a CUDA tensor`."""
    subs, fixed = tmp_path / "subs", tmp_path / "fixed.py"
    subs.mkdir()
    (subs / "aten__hardsigmoid.py").write_text(IS_CUDA_HARDSIGMOID.replace("MASK", "offs < n - 1"))
    fixed.write_text(IS_CUDA_HARDSIGMOID.replace("MASK", "offs < n"))
    res = CliRunner().invoke(app, ["eval", str(subs), "--tier", "smoke", "--platform", "interpreter",
                                   "--out", str(tmp_path / "run")])
    assert res.exit_code == 1, res.output
    rec = read_records(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["failure_class"] == "wrong_result" and rec["first_failure"]["case_id"] == "smoke/0", rec
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop("TRITON_INTERPRET", None)
    cmd = [sys.executable, "-m", "kernelgenbench.cli", "repro", str(tmp_path / "run"), "aten::hardsigmoid", "smoke/1",
           "--platform", "interpreter"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "FAILED [wrong_result] arg.out: NaN positions differ" in out.stdout, out.stdout
    assert "same as recorded [wrong_result]" in out.stdout and "AssertionError" not in out.stdout, out.stdout
    out = subprocess.run(cmd + ["--submission", str(fixed)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and "PASSED: case smoke/1 passes here" in out.stdout, out.stdout + out.stderr


def test_repro_names_the_verdict_of_a_job_l1_rejected_before_any_case(tmp_path: Path) -> None:
    """fresh38: a job the L1 scan rejected has no case entries; kgb repro of one of its cases said only that "the job
    stopped before it ran, or it ran in another label" and ended in a bare `PASSED`, naming the recorded verdict
    nowhere. It now says the whole job failed as static_scan before any case ran and prints the recorded verdict."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "aten__hardsigmoid.py").write_text(
        IS_CUDA_HARDSIGMOID.replace("MASK", "offs < n").replace("x = self.contiguous()",
                                                                "x = torch.neg(torch.neg(self)).contiguous()"))
    res = CliRunner().invoke(app, ["eval", str(subs), "--tier", "smoke", "--platform", "interpreter",
                                   "--out", str(tmp_path / "run")])
    assert res.exit_code == 1, res.output
    rec = read_records(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["failure_class"] == "static_scan" and rec["cases"] == [], rec
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop("TRITON_INTERPRET", None)
    out = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "repro", str(tmp_path / "run"),
                          "aten::hardsigmoid", "smoke/1", "--platform", "interpreter"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert ("note: the run failed the whole job as [static_scan] before any case ran, so the record has no entry for "
            "smoke/1") in out.stdout, out.stdout + out.stderr
    assert "another label" not in out.stdout, out.stdout
    # -(-x) is x: the values pass here, and the line that says so names the recorded verdict
    assert out.returncode == 0 and "PASSED: case smoke/1 passes here" in out.stdout, out.stdout
    assert "; the run recorded [static_scan] L1 static scan" in out.stdout, out.stdout


def test_repro_says_a_recorded_profile_failure_is_beyond_what_it_checks(tmp_path: Path) -> None:
    """fresh37: a wrapper that adds with PyTorch (`self + 0`, which L1 cannot tell from Python arithmetic and L3's
    trace fails as profile) printed only `PASSED: case smoke/0 passes here` in kgb repro; it now says that repro
    does not run the check that failed it."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "aten__hardsigmoid.py").write_text(
        IS_CUDA_HARDSIGMOID.replace("MASK", "offs < n").replace("x = self.contiguous()", "x = (self + 0).contiguous()"))
    res = CliRunner().invoke(app, ["eval", str(subs), "--tier", "smoke", "--platform", "interpreter",
                                   "--out", str(tmp_path / "run")])
    assert res.exit_code == 1, res.output
    rec = read_records(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["failure_class"] == "profile", rec
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop("TRITON_INTERPRET", None)
    out = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "repro", str(tmp_path / "run"),
                          "aten::hardsigmoid", "smoke/0", "--platform", "interpreter"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and "PASSED: case smoke/0 passes here" in out.stdout, out.stdout + out.stderr
    assert ("note: [profile] is a verdict of the sandbox's checks (L3, the dispatch trace), which kgb repro does "
            "not run: it judges the values only, so the case passing here does not clear the recorded failure"
            ) in out.stdout, out.stdout
