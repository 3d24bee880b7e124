"""The branches Triton's GPU front end folds at compile time are the branches the interpreter takes
(sandbox/folded.py, red team 38): a probe whose value differs between the compiler (a loop index is a tensor, an
integer argument equal to 1 is the constant 1) and the interpreter (a Python int, a scalar tensor) may not steer the
interpreter into code the GPU check never compiled; honest constexpr branches, ``and``/``or`` on constexprs, unrolled
``tl.static_range`` loops and a specialised ``n == 1`` run as before.

Triton must be imported with TRITON_INTERPRET=1: the kernels run in one child interpreter that reports as JSON."""
from __future__ import annotations

import json
import math
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
def probe_unrolled(x_ptr, o_ptr, N: tl.constexpr):
    # one call site, unrolled twice: _h(3) (its host branch compiles on a constant) and _h(j), a loop index the
    # compiler folds False for and the interpreter's Python int makes True; a union over the iterations let it run
    q = tl.load(x_ptr).to(tl.int32)
    for j in range(q + 1):
        if j == q:
            for k in tl.static_range(2):
                tl.store(o_ptr + k, _h((3, j)[k]))


@triton.jit
def probe_comp(x_ptr, o_ptr, N: tl.constexpr):
    # a comprehension unrolled over (0,) * False by the compiler (its element never compiled), once by the interpreter
    for j in range(1):
        [[tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i))))) for i in range(N)]
         for _ in (0,) * isinstance(j, int)]


@triton.jit
def probe_comp_if(x_ptr, o_ptr, N: tl.constexpr):
    # Triton's code generator ignores a comprehension's if clause: the interpreter ran it
    [v for v in (tl.load(x_ptr),) if tl.store(o_ptr, math.erfc(float(int(tl.load(x_ptr))))) is None]


@triton.constexpr_function
def _cf_probe(j, v):
    if not isinstance(j, int):  # the compiler: j is a tensor, the result folded in is 0.0
        return 0.0
    return math.erfc(float(int(v)))


@triton.jit
def probe_cfn(x_ptr, o_ptr, N: tl.constexpr):
    # a constexpr function's value is folded in by the compiler; the interpreter calls it with its own values
    for j in range(1):
        tl.store(o_ptr, _cf_probe(j, tl.load(x_ptr)))


@triton.constexpr_function
def _cf_complex(j, v):
    # a value of a type _result_key does not list: compared by its repr, not its type alone
    return complex(0.0 if not isinstance(j, int) else math.erfc(float(int(v))), 0.0)


@triton.jit
def probe_cfn_complex(x_ptr, o_ptr, N: tl.constexpr):
    for j in range(1):
        tl.store(o_ptr, _cf_complex(j, tl.load(x_ptr)).real)


@triton.constexpr_function
def _twice(n):
    return n * 2


@triton.constexpr_function
def _pick(a, b, first):
    return a if first else b


@triton.constexpr_function
def _wide(dt):
    return tl.float64 if dt == tl.float32 else dt


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
def _copy4(x_ptr, o_ptr, N: tl.constexpr):
    tl.store(o_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))


@triton.jit
def _host4(x_ptr, o_ptr, N: tl.constexpr):
    for i in range(N):
        tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i)))))


@triton.jit
def _call(F: tl.constexpr, x_ptr, o_ptr, N: tl.constexpr):
    F(x_ptr, o_ptr, N)


@triton.jit
def probe_callee(x_ptr, o_ptr, N: tl.constexpr):
    # red team 39: no branch; the callee is picked by a subscript the GPU front end evaluates to _copy4 and the
    # interpreter to _host4, which the GPU check never compiled
    for j in range(1):
        _call((_copy4, _host4)[isinstance(j, int)], x_ptr, o_ptr, N)


@triton.jit
def _host_comb(a, b):
    return math.erfc(float(int(a.to(tl.int32, bitcast=True)) & 0xFF)) + b


@triton.jit
def probe_callee_combine(x_ptr, o_ptr, N: tl.constexpr):
    # a combine function picked the same way: the compiler's tl.reduce calls _add, the interpreter's _host_comb
    for j in range(1):
        tl.store(o_ptr, tl.reduce(tl.load(x_ptr + tl.arange(0, 2)), 0, (_add, _host_comb)[isinstance(j, int)]))


@triton.jit
def _apply1(F: tl.constexpr, v):
    return F(v)


@triton.jit
def _inner(v):
    for j in range(1):
        if isinstance(j, int):  # folded to False in _inner's one compiled instantiation
            v = math.erfc(float(int(v)))
    return v


@triton.jit
def _outer(x_ptr, o_ptr):
    tl.store(o_ptr, _inner(tl.load(x_ptr)))


@triton.jit
def probe_alias_nested(x_ptr, o_ptr, N: tl.constexpr):
    # _outer's second call is a cache hit of the code generator (its path aliased to the first, which never runs
    # here): _inner's decisions under the second path must be read from the first's
    if tl.program_id(0) < 0:
        _outer(x_ptr, o_ptr)
    _outer(x_ptr, o_ptr)


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
def _neg1(v):
    return -v


@triton.jit
def _neg2(v):
    return 0 - v


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
    acc += _apply1(_neg1 if MODE == 0 else _neg2, x) * 0  # a constexpr callee
    acc += tl.sum(x, 0) * 0 + x.sum(0) * 0 + tl.max(x, 0) * 0 + tl.cdiv(n, 2) * 0
    for k in tl.static_range(2):
        acc += _apply1((_neg1, _neg2)[k], x) * 0  # a callee picked per unrolled iteration
    acc += [_neg1(v) for v in (x, x)][1] * 0  # a tuple comprehension (its own frame on the interpreter)
    acc += [_apply1(F, x) for F in (_neg1, _neg2)][1] * 0  # a callee per unrolled item
    # constexpr functions: of constexprs (per unrolled iteration too), of a dtype, handing back a tensor argument
    for k in tl.static_range(2):
        acc += tl.zeros([_twice(N) // 2], dtype=tl.float32) * k
    acc += _pick(x, acc, MODE == 0).to(_wide(x.dtype)).to(tl.float32) * 0
    tl.store(o_ptr + offs, acc, mask=m)


def _make(op):
    @triton.jit
    def twin(x_ptr, o_ptr, N: tl.constexpr):
        tl.store(o_ptr + tl.arange(0, N), op(tl.load(x_ptr + tl.arange(0, N))))

    return twin


# one factory's kernels: equal code objects, whose calls are each kernel's own call sites
twin_a, twin_b = _make(_neg1), _make(_neg2)


@triton.jit
def _probe_op(v):
    for j in range(1):
        if isinstance(j, int):  # folded to False; the call path under the other twin's function was never recorded
            v = v * 0 + math.erfc(float(int(tl.sum(v, 0))))
    return v


probe_twin, probe_other = _make(_probe_op), _make(_neg1)


install_launch_hooks()
x, o = torch.rand(32) + 0.5, torch.zeros(16)
out = {}


def launch(k, args, kw):
    o.zero_()
    STATE.launch_violations.clear()  # kept once each and at most 8 per process
    n0 = 0
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
                      ("combine", probe_combine, (x, o)), ("callee", probe_callee, (x, o)),
                      ("callee_combine", probe_callee_combine, (x, o)), ("alias_nested", probe_alias_nested, (x, o)),
                      ("unrolled", probe_unrolled, (torch.tensor([7.0] * 32), o)), ("comp", probe_comp, (x, o)),
                      ("comp_if", probe_comp_if, (x, o)), ("cfn", probe_cfn, (x, o)),
                      ("cfn_complex", probe_cfn_complex, (x, o))]:
    out[name] = launch(k, args, {"N": 4})
for mode in (0, 1, 2):
    for n in (1, 16):
        for s in (1, 2):
            out[f"honest {mode} {n} {s}"] = launch(honest, (x, o, n, s), {"N": 16, "MODE": mode, "K": 3})
for i, k in enumerate((twin_a, twin_b, twin_a)):
    out[f"honest twin {i}"] = launch(k, (x, o), {"N": 16})
probe_twin[(0,)](x, o, N=4)  # rewritten (no program runs), then its twin: equal code objects
probe_other[(1,)](x, o, N=4)
out["twin"] = launch(probe_twin, (x, o), {"N": 4})
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
                                  "helper_union", "combine", "callee", "callee_combine", "alias_nested",
                                  "unrolled", "comp", "comp_if", "twin", "cfn", "cfn_complex"])
def test_a_probe_folded_otherwise_by_the_gpu_front_end_is_a_violation(results: dict, what: str) -> None:
    got = results[what]
    assert got["result"] != "ran", got
    assert len(got["violations"]) == 1, got
    said = {"static_range": "unrolled ()", "static_else": "else clause",
            "callee": "calls the jit function _host4 where the GPU front end compiled a call of _copy4",
            "callee_combine": "calls the jit function _host_comb where the GPU front end compiled a call of _add",
            "comp": "iterates a comprehension 1 time(s) where the GPU front end unrolled it 0 time(s)",
            "comp_if": "evaluates a comprehension's if clause, which Triton's GPU front end ignores",
            "cfn": "from the constexpr function _cf_probe where the GPU front end folded in 0.0",
            "cfn_complex": "from the constexpr function _cf_complex where the GPU front end folded in 0j",
            }.get(what, "folded it to False")
    assert said in got["violations"][0] and "line " in got["violations"][0], got
    # raised before the branch the compiler never saw: nothing was stored (unrolled: only its first iteration's _h(3),
    # a host erfc of a constant the compiler computes too)
    first = [pytest.approx(math.erfc(0.003))] if what == "unrolled" else [0.0]
    assert got["o"] == first + [0.0] * 15, got


def test_honest_constexpr_branches_and_specialisations_run(results: dict) -> None:
    honest = {k: v for k, v in results.items() if k.startswith("honest")}
    assert len(honest) == 15
    for key, got in honest.items():
        assert got["result"] == "ran" and got["violations"] == [], (key, got)
        n = 16 if key.startswith("honest twin") else int(key.split()[2])
        assert all(v != 0.0 for v in got["o"][:n]), (key, got)  # every element in the mask written
