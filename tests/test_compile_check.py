"""bench/compile_check.py --snapshots: the CPU audit of the sandbox child's snapshot checks under a real GPU compile
(every stage for sm_90, a fresh Triton cache) that a developer runs before spending device time (README, "The GPU
gate"). Each test runs the tool on one operator's first smoke case, in its own processes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _audit(folder: Path, tmp: Path, op: str) -> tuple[int, dict]:
    out = tmp / "audit.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT / "src")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "compile_check.py"), "--snapshots", "--op", op,
                        "--folder", str(folder), "--max-cases", "1", "--jobs", "1",
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert out.is_file(), p.stdout[-3000:] + p.stderr[-3000:]
    return p.returncode, json.loads(out.read_text().splitlines()[0])


def test_snapshot_audit_passes_an_oracle_under_a_full_gpu_compile(tmp_path: Path):
    """The oracle's kernel (tl.sum inside) compiled to a cubin: Triton rebinds the ``hash``/``used_global_vals`` of
    every jit function it calls (the GPU run at 9cc2a7b failed 115 oracles on that) and no check fires. Triton's own
    interpreter rewriter, which the tool runs kernel bodies with, copies ``typing.Tuple`` into
    ``triton.language.standard``: the tool's artifact, taken out while the checks run (it fired before). Then the
    operator's native-compiled baseline is made (dynamo and Inductor imported and run after the snapshots, as a GPU
    run's first timing command does) and checked too."""
    rc, res = _audit(ROOT / "solutions", tmp_path, "vllm::rms_norm")
    assert res["compiled"] >= 1 and res["errors"] == [] and res["cases"] == 1, res
    assert res["baseline"].startswith("native-compiled"), res  # compiled by Inductor, not the eager fallback
    assert res["snapshot_checks"] >= 3, res  # after the compile, after the case, after the baseline
    assert res["snapshot_firings"] == [], res
    assert rc == 0


def test_snapshot_audit_reports_a_change_of_triton(tmp_path: Path):
    """An oracle with one line that puts a function of its own on ``triton.language.core`` at import: the audit
    reports it (the child's ``triton_changed``) at its first check, and the tool exits 1."""
    folder = tmp_path / "subs"
    folder.mkdir()
    sub = folder / "aten__neg.py"
    shutil.copy(ROOT / "solutions" / "aten__neg.py", sub)
    sub.write_text(sub.read_text() + "\nimport triton.language.core as _core\n_core.my_probe = lambda: 0\n")
    rc, res = _audit(folder, tmp_path, "aten::neg")
    assert rc == 1
    assert [f["check"] for f in res["snapshot_firings"]] == ["triton_changed"], res
    f = res["snapshot_firings"][0]
    assert f["case"] == "smoke/0" and f["where"].startswith("after the GPU compile of "), f
    assert f["message"].startswith("triton.language.core.my_probe was added after the harness started"), f
