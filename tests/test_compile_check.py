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


def _audit(folder: Path, tmp: Path) -> tuple[int, dict]:
    out = tmp / "audit.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT / "src")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "compile_check.py"), "--snapshots", "--op",
                        "vllm::rms_norm", "--folder", str(folder), "--max-cases", "1", "--jobs", "1",
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert out.is_file(), p.stdout[-3000:] + p.stderr[-3000:]
    return p.returncode, json.loads(out.read_text().splitlines()[0])


def test_snapshot_audit_passes_an_oracle_under_a_full_gpu_compile(tmp_path: Path):
    """The oracle's kernel (tl.sum inside) compiled to a cubin: Triton rebinds the ``hash``/``used_global_vals`` of
    every jit function it calls (the GPU run at 9cc2a7b failed 115 oracles on that) and no check fires. Triton's own
    interpreter rewriter, which the tool runs kernel bodies with, copies ``typing.Tuple`` into
    ``triton.language.standard``: the tool's artifact, taken out while the checks run (it fired before)."""
    rc, res = _audit(ROOT / "solutions", tmp_path)
    assert res["compiled"] >= 1 and res["errors"] == [] and res["cases"] == 1, res
    assert res["snapshot_checks"] >= 2, res  # after the compile and after the case
    assert res["snapshot_firings"] == [], res
    assert rc == 0


def test_snapshot_audit_reports_a_change_of_triton(tmp_path: Path):
    """The same oracle with one line that puts a function of its own on ``triton.language.core`` at import: the
    audit reports it (the child's ``triton_changed``) at its first check, and the tool exits 1."""
    folder = tmp_path / "subs"
    folder.mkdir()
    sub = folder / "vllm__rms_norm.py"
    shutil.copy(ROOT / "solutions" / "vllm__rms_norm.py", sub)
    sub.write_text(sub.read_text() + "\nimport triton.language.core as _core\n_core.my_probe = lambda: 0\n")
    rc, res = _audit(folder, tmp_path)
    assert rc == 1
    assert [f["check"] for f in res["snapshot_firings"]] == ["triton_changed"], res
    f = res["snapshot_firings"][0]
    assert f["case"] == "smoke/0" and f["where"].startswith("after the GPU compile of "), f
    assert f["message"].startswith("triton.language.core.my_probe was added after the harness started"), f
