"""Autotuned kernels of every kind an author writes (plain, the deprecated ``warmup=``/``rep=`` and
``use_cuda_graph=``, a Config ``pre_hook``, heuristics under ``restore_value=``) pass the launch rules through
Triton's own benchmarking, three launches each (a new key benchmarks again with the ``do_bench`` cached on the tuner),
and a ``do_bench=`` bound method of another autotuner is refused (red team rt40). On the interpreter Triton's own
``Autotuner._bench`` runs with the ranking benchmarker; with ``KGB_TEST_PLATFORM=cuda`` the GPU's real benchmarking
runs (the gate's part 1t): the H100 gate at aadd375 refused every autotuned kernel there, which no CPU test saw."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

SCRIPT = r'''
import os
import sys
import warnings

import torch
import triton
import triton.language as tl

from kernelgenbench.sandbox.dispatch import traced
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.launch_args import LaunchArgumentError
from kernelgenbench.sandbox.state import STATE

CPU = os.environ.get("TRITON_INTERPRET") == "1"
install_launch_hooks()  # in the sandbox child's order: the launch hooks, then the interpreter's patches
if CPU:
    from kernelgenbench.sandbox.interpreter import install_interpreter_patches
    install_interpreter_patches()
dev = "cpu" if CPU else "cuda"


@triton.jit
def _copy(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


@triton.jit
def _axpy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


CFGS = [triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 1024}, num_warps=8)]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    kinds = {
        "plain": triton.autotune(configs=CFGS, key=["n"])(_copy),
        "warmup_rep": triton.autotune(configs=CFGS, key=["n"], warmup=5, rep=20)(_copy),
        "cuda_graph": triton.autotune(configs=CFGS, key=["n"], rep=20, use_cuda_graph=True)(_copy),
        "cfg_pre_hook": triton.autotune(configs=[triton.Config({"BLOCK": 128}, pre_hook=lambda a: None),
                                                 triton.Config({"BLOCK": 1024})], key=["n"])(_copy),
        "heuristics_restore": triton.autotune(configs=CFGS, key=["n"], restore_value=["y_ptr"])(
            triton.heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})(_axpy)),
    }
    other = triton.autotune(configs=CFGS, key=["n"])(_copy)
    kinds["BAD_bound_method"] = triton.autotune(configs=CFGS, key=["n"], do_bench=other.warmup)(_copy)

ok = True
for name, k in kinds.items():
    res = []
    for n in (1000, 4096, 1000):  # a new key benchmarks again with the cached do_bench; the last one is cached
        x = torch.randn(n, device=dev)
        y = torch.randn(n, device=dev)
        want = x + y if name.startswith("heuristics") else x * 2
        STATE.launch_violations.clear()
        STATE.begin_case(False)
        try:
            traced(lambda a, b: k[lambda m: (triton.cdiv(n, m["BLOCK"]),)](a, b, n), "w")(x, y)
            if dev == "cuda":
                torch.cuda.synchronize()
            got = "ok" if torch.allclose(y, want) else "WRONG"
        except LaunchArgumentError as exc:
            got = f"refused: {str(exc)[:110]}"
        except Exception as exc:  # noqa: BLE001
            got = f"error {type(exc).__name__}: {str(exc)[:200]}"
        finally:
            STATE.end_case()
        res.append(got + (f" violations={STATE.launch_violations}" if STATE.launch_violations else ""))
    cached = "do_bench" in vars(k)
    print(f"{name}: {res} cached_do_bench={cached}")
    good = all(r == "ok" for r in res)
    ok &= (not good) if name.startswith("BAD") else good
print("ALL AS EXPECTED" if ok else "UNEXPECTED")
sys.exit(0 if ok else 1)
'''


def test_autotuned_kernels_of_every_kind_pass_and_a_foreign_benchmark_is_refused(tmp_path: Path) -> None:
    cuda = os.environ.get("KGB_TEST_PLATFORM") == "cuda"
    script = tmp_path / "autotune_kinds.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    if cuda:
        env.pop("TRITON_INTERPRET", None)
    else:
        env["TRITON_INTERPRET"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    lines = dict(ln.split(": ", 1) for ln in out.stdout.splitlines() if ": [" in ln)
    assert out.returncode == 0 and out.stdout.rstrip().endswith("ALL AS EXPECTED"), out.stdout + out.stderr[-3000:]
    for kind in ("plain", "warmup_rep", "cuda_graph", "cfg_pre_hook", "heuristics_restore"):
        assert lines[kind].startswith("['ok', 'ok', 'ok']"), (kind, lines[kind])
    assert "refused: autotuned kernel _copy: a do_bench= of the submission" in lines["BAD_bound_method"]
