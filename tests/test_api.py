"""The library entry points (issue 13): kernelgenbench.evaluate / evaluate_file, the pipeline of `kgb eval`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kernelgenbench
from kernelgenbench.run.evaluate import EvaluationError

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_package_is_cheap() -> None:
    code = "import sys, kernelgenbench; print('torch' in sys.modules, kernelgenbench.__version__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}).stdout.split()
    assert out == ["False", kernelgenbench.__version__]


def test_usage_errors_are_raised_before_anything_runs(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    with pytest.raises(EvaluationError, match="not a directory"):
        kernelgenbench.evaluate(tmp_path / "nope")
    with pytest.raises(EvaluationError, match="aten::nosuchop"):
        kernelgenbench.evaluate(subs, ops=["aten::nosuchop"], platform="interpreter", runs_root=tmp_path / "runs")
    with pytest.raises(EvaluationError, match="tier"):
        kernelgenbench.evaluate(subs, tier="medium", platform="interpreter", runs_root=tmp_path / "runs")
    (subs / "aten__ad.py").write_text("x = 1\n")
    with pytest.raises(EvaluationError, match=r"no submission files.*aten__ad.py \(did you mean aten__add.py\?\)"):
        kernelgenbench.evaluate(subs, platform="interpreter", runs_root=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()
    with pytest.raises(EvaluationError, match="not a file"):
        kernelgenbench.evaluate_file(subs / "missing.py", "aten::add", platform="interpreter")


@pytest.mark.slow
def test_evaluate_writes_a_run_and_resumes_and_refuses_another_configuration(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "vllm__rms_norm.py").write_text((ROOT / "solutions" / "vllm__rms_norm.py").read_text())
    (subs / "aten__neg.py").write_text((ROOT / "tests" / "bad" / "wrong_values__vllm__rms_norm.py").read_text())
    seen: list[str] = []
    ticks: list[tuple[str, str, int, int]] = []
    run = kernelgenbench.evaluate(subs, platform="interpreter", out=tmp_path / "run",
                                  on_record=lambda r: seen.append(r["op"]),
                                  on_progress=lambda spec, stage, n, total: ticks.append((spec.op.id, stage, n, total)))
    assert sorted(seen) == ["aten::neg", "vllm::rms_norm"]
    # per-job progress: each correctness run of rms_norm's judged smoke cases, counted up to their number
    rms = [(n, total) for op, stage, n, total in ticks if op == "vllm::rms_norm" and stage == "cases"]
    judged = sum(1 for c in run.latest[[r["op"] for r in run.latest].index("vllm::rms_norm")]["cases"]
                 if c["status"] != "unsupported")
    assert rms == [(i, judged) for i in range(1, judged + 1)] and judged >= 2
    assert {r["op"]: r["status"] for r in run.latest} == {"aten::neg": "failed", "vllm::rms_norm": "passed"}
    assert [r["op"] for r in run.failed] == ["aten::neg"] and run.failed[0]["failure_class"] == "missing_wrapper"
    assert run.summary["overall"]["operators"] == 2 and run.summary["overall"]["passed"] == 1
    assert run.summary["tiers"] == ["smoke"] and (run.path / "summary.json").is_file()
    again = kernelgenbench.evaluate(subs, platform="interpreter", out=tmp_path / "run")
    assert again.written == [] and len(again.records) == 2
    with pytest.raises(EvaluationError, match=r"another configuration.*--fresh"):
        kernelgenbench.evaluate(subs, platform="interpreter", out=tmp_path / "run", tier="heldout")


@pytest.mark.slow
def test_evaluate_file_judges_one_job_without_a_run_directory(tmp_path: Path) -> None:
    rec = kernelgenbench.evaluate_file(ROOT / "solutions" / "vllm__rms_norm.py", "vllm::rms_norm",
                                       platform="interpreter", workdir=tmp_path / "job")
    assert rec["status"] == "passed" and rec["op"] == "vllm::rms_norm" and rec["tier"] == "smoke"
    assert rec["anti_hack"]["L2"]["ok"] and (tmp_path / "job" / "child.log").is_file()


def test_evaluate_file_without_a_workdir_names_no_removed_log(tmp_path: Path) -> None:
    """Without ``workdir`` the job's folder is temporary and removed: the record points at no file in it (fresh user
    33: the failure message sent API users to a child.log that no longer existed)."""
    sub = tmp_path / "subs" / "aten__neg.py"
    sub.parent.mkdir()
    sub.write_text("import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                   "def _k(x, o, n, B: tl.constexpr):\n    i = tl.program_id(0) * B + tl.arange(0, B)\n"
                   "    tl.store(o + i, tl.load(x + i, mask=i < n) + 1.0, mask=i < n)\n\n\n"
                   "def neg(x):\n    o = torch.empty_like(x)\n    _k[(triton.cdiv(x.numel(), 128),)](x, o, x.numel(), "
                   "B=128)\n    return o\n")
    rec = kernelgenbench.evaluate_file(sub, "aten::neg", platform="interpreter")
    assert rec["status"] == "failed" and rec["log"] is None
    assert "kgb-job-" not in json.dumps(rec)


def test_an_import_error_names_its_exception(tmp_path: Path) -> None:
    """An exception at import is reported as ``Type: message``, as a case's is (fresh user 35: a KeyError at import
    read ``'MY_BLOCK'`` alone in the table's first-failure column)."""
    sub = tmp_path / "subs" / "aten__neg.py"
    sub.parent.mkdir()
    sub.write_text('import os\n\nBLOCK = int(os.environ["KGB_TEST_NO_SUCH_VARIABLE"])\n\n\ndef neg(x):\n    return x\n')
    rec = kernelgenbench.evaluate_file(sub, "aten::neg", platform="interpreter")
    assert rec["failure_class"] == "import_error"
    assert rec["first_failure"]["message"].startswith("KeyError: 'KGB_TEST_NO_SUCH_VARIABLE'")
