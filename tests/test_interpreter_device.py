"""Device queries on the CPU interpreter (sandbox/interpreter.py ``_cpu_device_queries``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

DRIVER = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import triton, torch
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
d = triton.runtime.driver.active
print(d.get_active_torch_device(), d.get_current_device(), d.get_current_target().backend)
try:
    d.utils
except RuntimeError as e:
    import traceback
    where = traceback.extract_tb(e.__traceback__)[-1].filename
    print("raised", "active drivers" in str(e), where.endswith("driver.py"))
'''


def test_the_interpreter_answers_device_queries_for_the_cpu() -> None:
    """The tutorials' ``triton.runtime.driver.active.get_active_torch_device()`` works on the interpreter (the CPU);
    any other driver query raises inside Triton as before (an interpreter limit, not the submission's fault)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", DRIVER], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:2] == ["cpu 0 cpu", "raised True True"], out.stdout
