"""The branches Triton's GPU front end folds at compile time are the branches the interpreter takes
(sandbox/folded.py, red team 38): a probe whose value differs between the compiler (a loop index is a tensor, an
integer argument equal to 1 is the constant 1) and the interpreter (a Python int, a scalar tensor) may not steer the
interpreter into code the GPU check never compiled; honest constexpr branches, ``and``/``or`` on constexprs, unrolled
``tl.static_range`` loops and a specialised ``n == 1`` run as before.

Triton must be imported with TRITON_INTERPRET=1: the kernels run in one child interpreter that reports as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r'''
import json, math
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.state import STATE


@triton.jit
def probe_if(x_ptr, o_ptr, N: tl.constexpr):
    for j in range(1):
        if isinstance(j, int):  # the interpreter: True; the GPU front end: False, folded away
            for i in range(N):
                tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i)))))
        else:
            tl.store(o_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))


@triton.jit
def probe_ternary(x_ptr, o_ptr, N: tl.constexpr):
    for j in range(1):
        offs = tl.arange(0, N)
        tl.store(o_ptr + offs, tl.load(x_ptr + offs) * (2.0 if hasattr(j, "bit_length") else 1.0))


@triton.jit
def probe_and(x_ptr, o_ptr, N: tl.constexpr):
    for j in range(1):
        if isinstance(j, int) and math.erfc(float(int(tl.load(x_ptr)))) > 0:
            tl.store(o_ptr, 1.0)


@triton.jit
def probe_static_range(x_ptr, o_ptr, N: tl.constexpr):
    for j in range(1):
        for k in tl.static_range(isinstance(j, int) * 1):
            tl.store(o_ptr, math.erfc(float(int(tl.load(x_ptr)))))


@triton.jit
def probe_static_else(x_ptr, o_ptr, N: tl.constexpr):
    for k in tl.static_range(0):
        pass
    else:  # Python runs it after the empty loop; the code generator visits it only inside unrolled iterations
        tl.store(o_ptr, math.erfc(float(int(tl.load(x_ptr)))))


@triton.jit
def probe_specialised(x_ptr, o_ptr, s, N: tl.constexpr):
    # s == 1 is the constant 1 for the GPU front end and a scalar tensor on the interpreter
    if not isinstance(s, int):
        tl.store(o_ptr, math.erfc(float(int(tl.load(x_ptr)))))
    else:
        tl.store(o_ptr + tl.arange(0, N) * s, tl.load(x_ptr + tl.arange(0, N)))


@triton.jit
def _h(v):
    if isinstance(v, int):
        return math.erfc(v * 0.001)
    else:
        return v.to(tl.float32)


@triton.jit
def probe_helper_union(x_ptr, o_ptr, N: tl.constexpr):
    # _h's host branch compiles where it is called with a constant (a dead call); where it is called with a loop index
    # whose bound was loaded (a tensor for the compiler, a Python int carrying the loaded value on the interpreter) the
    # compiler folds it away: per call path, the interpreter's True there is not among the outcomes
    q = tl.load(x_ptr).to(tl.int32)
    for j in range(q + 1):
        if j == q:
            tl.store(o_ptr, _h(j))
    if tl.program_id(0) < 0:
        tl.store(o_ptr, _h(3))


@triton.jit
def _comb(a, b):
    r = a + b
    for j in range(1):
        if isinstance(j, int):  # Triton's interpreter called a combine function's own code, past the rewrite
            r = math.erfc(float(int(a.to(tl.int32, bitcast=True)) & 0xFF))
    return r


@triton.jit
def probe_combine(x_ptr, o_ptr, N: tl.constexpr):
    tl.store(o_ptr, tl.reduce(tl.load(x_ptr + tl.arange(0, 2)), 0, _comb))


@triton.jit
def _add_if(a, b, MODE: tl.constexpr):
    if MODE == 0:
        return a + b
    return a * b


@triton.jit
def _add(a, b):
    return _add_if(a, b, 0)


@triton.jit
def _scale(v, MODE: tl.constexpr):
    if MODE == 0:
        return v
    elif MODE == 1 and v.dtype == tl.float32:
        return v * 2
    return v * 3


@triton.jit
def honest(x_ptr, o_ptr, n, s, N: tl.constexpr, MODE: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, N)
    m = offs < n
    x = tl.load(x_ptr + offs * s, mask=m, other=0)
    acc = tl.zeros([N], dtype=tl.float32)
    for k in tl.static_range(K):
        acc += _scale(x, MODE) if k % 2 == 0 else x
    acc += _scale(x, 0) * 0 + _scale(x, 0) * 0 + _scale(x, 2) * 0  # one instantiation twice (cached), another
    if n == 1:
        acc = acc + 0
    if MODE == 0 or K > 2:
        acc = acc * 1
    for i in range(2):
        if i == 1:
            acc = acc + 0
    for k in tl.static_range(1):
        acc = acc * 1
    else:
        acc = acc + 0
    acc += tl.reduce(x, 0, _add) * 0 + tl.associative_scan(x, 0, _add) * 0  # honest combines through a helper
    tl.store(o_ptr + offs, acc, mask=m)


install_launch_hooks()
x, o = torch.rand(32) + 0.5, torch.zeros(16)
out = {}


def launch(k, args, kw):
    o.zero_()
    n0 = len(STATE.launch_violations)
    try:
        k[(1,)](*args, **kw)
        res = "ran"
    except Exception as e:
        res = type(e).__name__
    return {"result": res, "violations": STATE.launch_violations[n0:], "o": o.tolist()}


for name, k, args in [("if", probe_if, (x, o)), ("ternary", probe_ternary, (x, o)), ("and", probe_and, (x, o)),
                      ("static_range", probe_static_range, (x, o)), ("static_else", probe_static_else, (x, o)),
                      ("specialised", probe_specialised, (x, o, 1)),
                      ("helper_union", probe_helper_union, (torch.tensor([7.0] * 32), o)),
                      ("combine", probe_combine, (x, o))]:
    out[name] = launch(k, args, {"N": 4})
for mode in (0, 1, 2):
    for n in (1, 16):
        for s in (1, 2):
            out[f"honest {mode} {n} {s}"] = launch(honest, (x, o, n, s), {"N": 16, "MODE": mode, "K": 3})
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    where = tmp_path_factory.mktemp("folded")
    (where / "kernels.py").write_text(SCRIPT)  # Triton's JIT reads a kernel's source from its file
    proc = subprocess.run([sys.executable, str(where / "kernels.py")], env=env, capture_output=True, text=True,
                          timeout=300, cwd=where)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(line[-1][len("RESULT "):])


@pytest.mark.parametrize("what", ["if", "ternary", "and", "static_range", "static_else", "specialised",
                                  "helper_union", "combine"])
def test_a_probe_folded_otherwise_by_the_gpu_front_end_is_a_violation(results: dict, what: str) -> None:
    got = results[what]
    assert got["result"] != "ran", got
    assert len(got["violations"]) == 1, got
    said = {"static_range": "unrolled ()", "static_else": "else clause"}.get(what, "folded it to False")
    assert said in got["violations"][0] and "line " in got["violations"][0], got
    # raised before the branch the compiler never saw: nothing was stored
    assert got["o"] == [0.0] * 16, got


def test_honest_constexpr_branches_and_specialisations_run(results: dict) -> None:
    honest = {k: v for k, v in results.items() if k.startswith("honest")}
    assert len(honest) == 12
    for key, got in honest.items():
        assert got["result"] == "ran" and got["violations"] == [], (key, got)
        n = int(key.split()[2])
        assert all(v != 0.0 for v in got["o"][:n]), (key, got)  # every element in the mask written
