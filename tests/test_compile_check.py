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


def _run(folder: Path, tmp: Path, op: str, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp / "audit.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT / "src")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "compile_check.py"), *extra, "--op", op,
                        "--folder", str(folder), "--max-cases", "1", "--jobs", "1",
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert out.is_file(), p.stdout[-3000:] + p.stderr[-3000:]
    return p, json.loads(out.read_text().splitlines()[0])


def _audit(folder: Path, tmp: Path, op: str) -> tuple[int, dict]:
    p, res = _run(folder, tmp, op, "--snapshots")
    return p.returncode, res


#: A wrapper in the style of real projects: an ``assert x.is_cuda`` input check and an NVTX range (README, "What a
#: submission may do"), both of which `kgb eval` admits on the interpreter. CHECK is replaced per test.
_HARDSIGMOID = """
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0
    tl.store(out_ptr + offs, tl.where(x != x, x, y).to(out_ptr.dtype.element_ty), mask=mask)


def hardsigmoid_out(self, *, out):
    CHECK
    x = self.contiguous()
    if out.shape != x.shape:
        out.resize_(x.shape)
    with torch.cuda.nvtx.range("hardsigmoid"):
        _kernel[(triton.cdiv(max(x.numel(), 1), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def hardsigmoid(self):
    return hardsigmoid_out(self, out=torch.empty_like(self))
"""


def _hardsigmoid(tmp: Path, check: str) -> Path:
    folder = tmp / "subs"
    folder.mkdir()
    (folder / "aten__hardsigmoid.py").write_text(_HARDSIGMOID.replace("CHECK", check))
    return folder


def test_an_is_cuda_check_in_a_wrapper_compiles_as_in_kgb_eval(tmp_path: Path):
    """Fresh user 37: the tool did not tell the interpreter's stand-ins which file is the submission's, so a wrapper's
    ``assert x.is_cuda`` raised on every case, nothing was compiled, and the operator was reported ``ok``."""
    folder = _hardsigmoid(tmp_path, 'assert self.is_cuda, "expected a CUDA tensor"')
    for extra in ((), ("--snapshots",)):
        p, res = _run(folder, tmp_path, "aten::hardsigmoid", *extra)
        assert res["case_errors"] == [] and res["compiled"] == 1 and res["errors"] == [], (extra, res)
        assert res.get("snapshot_firings", []) == [], (extra, res)
        assert p.returncode == 0, (extra, p.stdout)
        if extra:  # fresh user 38: --snapshots printed nothing saying that the checks ran
            n = res["snapshot_checks"]
            assert n >= 2 and f"{n} snapshot checks, none fired" in p.stdout, p.stdout
            assert p.stdout.rstrip().endswith(f"snapshot checks: {n} run on 1 operator, none fired"), p.stdout
        else:
            assert "snapshot" not in p.stdout, p.stdout


def test_an_operator_whose_every_case_fails_on_the_cpu_checked_nothing_and_fails(tmp_path: Path):
    """A wrapper that raises before any launch compiles nothing: the tool says so, prints the case's error and exits 1
    (it printed ``ok     0 compiled``, the error only counted)."""
    folder = _hardsigmoid(tmp_path, 'raise RuntimeError("needs a GPU build")')
    p, res = _run(folder, tmp_path, "aten::hardsigmoid")
    assert res["compiled"] == 0 and res["case_errors"] == ["smoke/0: RuntimeError: needs a GPU build"], res
    assert p.returncode == 1
    assert "aten::hardsigmoid" in p.stdout and " FAIL " in p.stdout, p.stdout
    assert "every case failed on the CPU before launching a kernel: nothing was compiled or checked" in p.stdout
    assert "case error: smoke/0: RuntimeError: needs a GPU build" in p.stdout
    assert p.stdout.rstrip().endswith("FAILED: aten::hardsigmoid"), p.stdout


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
    p, res = _run(folder, tmp_path, "aten::neg", "--snapshots")
    assert p.returncode == 1
    assert "1 fired" in p.stdout and p.stdout.rstrip().endswith("1 fired; FAILED: aten::neg"), p.stdout
    assert [f["check"] for f in res["snapshot_firings"]] == ["triton_changed"], res
    f = res["snapshot_firings"][0]
    assert f["case"] == "smoke/0" and f["where"].startswith("after the GPU compile of "), f
    assert f["message"].startswith("triton.language.core.my_probe was added after the harness started"), f


def test_snapshot_audit_checks_autotuned_kernel_objects_after_triton_s_own_benchmarking(tmp_path: Path):
    """Session 40: the legal autotuned saxpy (autotune over heuristics over jit, restore_value) runs Triton's own
    ``Autotuner._bench`` here (until then the interpreter replaced it with a ranking), which caches ``do_bench`` on the
    tuner as a GPU does; the audit then runs the launch rule's kernel-object checks (``shadowed_entry``,
    ``check_globals``) on the compiled JITFunction and its wrappers, and none fires. A copy whose module writes its
    own function over that entry is reported by the same check (the H100 gate at aadd375
    refused every autotuned kernel there, before df55ad0, with this message)."""
    from fixture_files import write_submission

    folder = tmp_path / "subs"
    folder.mkdir()
    sub = write_submission(ROOT / "tests" / "good" / "autotune__cublas__cublasSaxpy_v2.py",
                           folder / "cublas__cublasSaxpy_v2.py")
    (tmp_path / "honest").mkdir()
    rc, res = _audit(folder, tmp_path / "honest", "cublas::cublasSaxpy_v2")
    assert res["compiled"] >= 2 and res["errors"] == [] and res["snapshot_firings"] == [], res
    assert rc == 0
    src = sub.read_text()
    sub.write_text(src.replace("def cublasSaxpy_v2(n, alpha, x, incx, y, incy):\n",
                               "def cublasSaxpy_v2(n, alpha, x, incx, y, incy):\n"
                               "    vars(_axpy)['do_bench'] = lambda fn, quantiles: [0.0] * 3\n", 1))
    (tmp_path / "cheat").mkdir()
    p, res = _run(folder, tmp_path / "cheat", "cublas::cublasSaxpy_v2", "--snapshots")
    assert p.returncode == 1
    checks = {(f["check"], f["message"]) for f in res["snapshot_firings"]}
    assert ("kernel_objects", "kernel _axpy: .do_bench set on the kernel object shadows its Triton class's (a "
            "submission may not change Triton's kernel objects: monkey-patching)") in checks, res
