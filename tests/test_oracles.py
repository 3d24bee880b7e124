"""The oracle solutions pass the smoke tier through the real pipeline (L1, sandbox, L2, L3) on the
CPU interpreter, and a run directory resumes without re-running finished jobs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernelgenbench.run.rundir import RunDir
from kernelgenbench.suite.registry import all_operators

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunDir, list[dict]]:
    """Every oracle on the smoke tier through the library entry point (kernelgenbench.evaluate)."""
    import kernelgenbench

    run = kernelgenbench.evaluate(SOLUTIONS, ops=[o.id for o in all_operators()], tier="smoke",
                                  platform="interpreter", jobs=2, runs_root=tmp_path_factory.mktemp("runs"),
                                  name="oracles")
    return RunDir.open(run.path), run.written


def _unjudgeable(op) -> bool:
    """Every smoke case of ``op`` computes in a dtype the interpreter cannot judge (bf16; fp8 was one until the
    harness made the interpreter's fp8 conversions exact): the operator comes out ``unsupported`` there as a whole
    and is judged on GPUs only."""
    from kernelgenbench.platforms import PROFILES

    return all(PROFILES["interpreter"].unsupported_reason(op.tensor_dtypes(c.params)) for c in op.cases("smoke"))


@pytest.mark.slow
def test_every_oracle_passes_smoke_with_all_checks(smoke_run) -> None:
    _, records = smoke_run
    by_op = {r["op"]: r for r in records}
    ops = {o.id: o for o in all_operators()}
    assert set(by_op) == set(ops)
    for op, r in sorted(by_op.items()):
        if _unjudgeable(ops[op]):
            assert r["status"] == "unsupported" and all(c["status"] == "unsupported" for c in r["cases"]), op
            continue
        assert r["status"] == "passed", (op, r["failure_class"], r["first_failure"])
        assert r["anti_hack"]["L1"]["ok"] and r["anti_hack"]["L3"]["ok"], (op, r["anti_hack"])
        rule = ops[op].nothing_to_compute
        # operators with nothing to compute replay only the cases that need a launch (reshape's copies)
        assert r["anti_hack"]["L2"]["ok"] and (r["anti_hack"]["L2"]["checked"] >= 1 or rule), (op, r["anti_hack"]["L2"])
        judged = [c for c in r["cases"] if c["status"] != "unsupported"]
        assert judged and all(c["status"] == "passed" for c in judged), op
        assert r["speedup"] is None and r["timing"]["applicable"] is False
        # bf16 and fp8 cases are judged on the interpreter too (sandbox/interpreter_numerics.py), and pass
        for c in r["cases"]:
            if c["params"].get("dtype") in ("bf16", "fp8") or c["params"].get("kv") == "fp8":
                assert c["status"] == "passed", (op, c)


@pytest.mark.slow
def test_rerun_resumes_without_rerunning(smoke_run) -> None:
    import kernelgenbench

    rd, records = smoke_run
    again = kernelgenbench.evaluate(SOLUTIONS, ops=[o.id for o in all_operators()], tier="smoke",
                                    platform="interpreter", jobs=2, out=rd.path)
    assert again.written == []
    assert len(rd.records()) == len(records) == len(again.records)
    assert again.summary["overall"]["passed"] == len(records) - sum(_unjudgeable(o) for o in all_operators())


@pytest.mark.slow
def test_kgb_eval_cli_end_to_end(tmp_path: Path) -> None:
    """`kgb eval` on two files: the summary table, summary.json and results.jsonl agree."""
    sub = tmp_path / "subs"
    sub.mkdir()
    for name in ("vllm__rms_norm.py", "cublas__cublasSaxpy_v2.py"):
        (sub / name).write_text((SOLUTIONS / name).read_text())
    (sub / "vllm__topk_softmax.py").write_text((ROOT / "tests" / "bad" / "exits__vllm__rms_norm.py").read_text()
                                                .replace("def rms_norm(out, input, weight, epsilon)",
                                                         "def topk_softmax(topk_weights, topk_ids, "
                                                         "token_expert_indices, gating_output, renormalize=False)"))
    res = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "eval", str(sub), "--tier", "smoke",
                          "--name", "t", "--runs-root", str(tmp_path / "runs"), "--platform", "interpreter"],
                         capture_output=True, text=True, timeout=600, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin",
                                                                           "PYTHONPATH": str(ROOT / "src")})
    assert res.returncode == 1, res.stderr[-2000:]  # one job failed
    assert "overall" in res.stdout and "66.7%" in res.stdout, res.stdout[-3000:]
    assert "vllm::topk_softmax [runtime_error]" in res.stdout and "SystemExit" in res.stdout, res.stdout[-3000:]
    run = next((tmp_path / "runs").glob("*-t"))
    summary = json.loads((run / "summary.json").read_text())
    assert summary["overall"]["passed"] == 2 and summary["overall"]["operators"] == 3
    recs = [json.loads(ln) for ln in (run / "results.jsonl").read_text().splitlines()]
    assert {r["op"]: r["status"] for r in recs} == {"vllm::rms_norm": "passed", "cublas::cublasSaxpy_v2": "passed",
                                                     "vllm::topk_softmax": "failed"}
    assert all((run / f).exists() for f in ("config.json", "env.json"))
    # the same command again resumes: nothing re-run
    res2 = subprocess.run([sys.executable, "-m", "kernelgenbench.cli", "eval", str(sub), "--tier", "smoke",
                           "--name", "t", "--runs-root", str(tmp_path / "runs"), "--platform", "interpreter"],
                          capture_output=True, text=True, timeout=600, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin",
                                                                            "PYTHONPATH": str(ROOT / "src")})
    assert "resuming: 3 of 3 jobs already recorded" in res2.stdout, res2.stdout[-2000:]
    assert "(0 jobs run now, 3 recorded earlier)" in " ".join(res2.stdout.split()), res2.stdout[-2000:]


@pytest.mark.slow
def test_vllm_and_cublas_cases_are_unsupported_exactly_where_the_interpreter_cannot_judge(smoke_run) -> None:
    """The vLLM and cuBLAS oracles' cases computing in a dtype the interpreter cannot judge come out unsupported,
    saying which dtype, and every other case is judged (issue 14 item 5). Since the interpreter computes bf16 and
    fp8 as the GPU does (sandbox/interpreter_numerics.py) no dtype is left out: every case is judged, the bf16
    and fp8 ones included. Reads the module's one smoke run of every oracle."""
    import torch

    from kernelgenbench.platforms import PROFILES

    _, records = smoke_run
    interp = PROFILES["interpreter"]
    ops = {o.id: o for o in all_operators() if o.source in ("vllm", "cublas")}
    seen = 0
    for r in records:
        if r["op"] not in ops:
            continue
        op = ops[r["op"]]
        cases = {c.id: c for c in op.cases("smoke")}
        for c in r["cases"]:
            dts = op.tensor_dtypes(cases[c["id"]].params)
            cannot = interp.unsupported_reason(dts)
            assert (c["status"] == "unsupported") == (cannot is not None), (r["op"], c["id"], dts, c["status"])
            if cannot:
                seen += 1
                assert any(str(d).replace("torch.", "") in c["message"] for d in dts
                           if d in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)), (r["op"], c)
    assert seen == 0 and not interp.unsupported_dtypes
    low = sum(1 for o in ops.values() for c in o.cases("smoke")
              if o.tensor_dtypes(c.params) & {torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2})
    assert low >= 30    # bf16 and fp8 cases exist among the vLLM and cuBLAS smoke cases (the check is not vacuous)
