"""The GPU compile check of the interpreter platform (sandbox/gpu_compile.py): every launched kernel is also compiled
by Triton's front end for sm_90 from the launch's arguments; what a GPU refuses fails as compile_error, an honest
kernel passes, and a failure of the check's own plumbing is a harness note, never a rejection.

Triton must be imported with TRITON_INTERPRET=1 (its @jit then makes InterpretedFunction objects): the checks run in
one child interpreter and report as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r'''
import collections, json, math, sys
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from kernelgenbench.sandbox import gpu_compile as g
from kernelgenbench.sandbox.launch import install_launch_hooks


@triton.jit
def _twice(x):
    return tl.sigmoid(x) * 2


@triton.jit
def _add(a, b):
    return a + b


_OP = tl.constexpr(_add)


@triton.jit
def honest(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    s = tl.sum(x, 0) + x.sum(0) + tl.cdiv(n, 2) + tl.reduce(x, 0, _add) + _OP(x, x)
    tl.store(o_ptr + offs, _twice(x) + s + tl.associative_scan(x, 0, _add), mask=m)


@triton.jit
def int32_n(o_ptr, n):
    tl.static_assert(n.dtype == tl.int32)
    tl.store(o_ptr, n)


@triton.jit
def int_builtin(x_ptr, o_ptr, N: tl.constexpr):
    for i in range(N):
        tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i)))))


@triton.jit
def block_str(x_ptr, o_ptr, N: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, N))
    s = f"{v}"
    tl.store(o_ptr, float(s.split()[0][1:]))


TABLE = (0.5, 1.5, 2.5, 3.5)


@triton.jit
def table(i_ptr, o_ptr, N: tl.constexpr):
    for i in range(N):
        tl.store(o_ptr + i, TABLE[tl.load(i_ptr + i)])


@triton.jit
def np_handle(x_ptr, o_ptr, N: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), v.handle.data)


@triton.jit
def constexpr_combine(x_ptr, o_ptr, N: tl.constexpr, COMBINE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), tl.associative_scan(x, 0, COMBINE))


@triton.jit
def uses_libdevice(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), libdevice.rint(x) + libdevice.exp(x) + libdevice.pow(x, x))


@triton.jit
def uses_libdevice_by_name(x_ptr, o_ptr, N: tl.constexpr):
    # Liger-Kernel's ``from triton.language.extra.libdevice import rsqrt``: names bound after the harness's patches
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), rsqrt_by_name(x) + cbrt_by_name(x))


@triton.jit
def uses_gdc(x_ptr, o_ptr, N: tl.constexpr):
    # programmatic dependent launch: through the module and by a name bound after the harness's patches (fp36)
    tlcuda.gdc_wait()
    tl.store(o_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))
    gdc_launch_by_name()


def own_rsqrt(x):
    return x


@triton.jit
def uses_own_function(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), own_rsqrt(x))


def host_body(x_ptr, o_ptr, N: tl.constexpr):
    for i in range(N):
        tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i)))))


@triton.jit
def fn_swapped(x_ptr, o_ptr, N: tl.constexpr):
    tl.store(o_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))


def host_helper(v):
    return math.erfc(float(int(v)))


@triton.jit
def _helper(v):
    return v


@triton.jit
def helper_swapped(x_ptr, o_ptr, N: tl.constexpr):
    for i in range(N):
        tl.store(o_ptr + i, _helper(tl.load(x_ptr + i)))


@triton.jit
def code_swapped(x_ptr, o_ptr, N: tl.constexpr):
    tl.store(o_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))


def _host_factory():
    def code_swapped(x_ptr, o_ptr, N: tl.constexpr):
        for i in range(N):
            tl.store(o_ptr + i, math.erfc(float(int(tl.load(x_ptr + i)))))
    return code_swapped


Ops = collections.namedtuple("Ops", "f")


@triton.jit
def nt_arg(x_ptr, o_ptr, OPS, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, OPS[0](x, x))


def verdict(k, args, kw):
    try:
        g.check_launch(k, args, kw)
        return "ok"
    except g.GPUCompilationError as e:
        return "compile_error: " + type(e.__cause__).__name__ + ": " + str(e)
    except g.GPULaunchError as e:
        return "launch_error: " + str(e)


x, o, idx = torch.randn(64), torch.zeros(64), torch.zeros(4, dtype=torch.int32)
out = {}
out["honest"] = verdict(honest, (x, o, 64), {"BLOCK": 64, "num_warps": 8})
# the harness's own interpreter patches point libdevice functions at tl.math or at stand-ins: not for the compile
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
out["libdevice"] = verdict(uses_libdevice, (x, o), {"N": 64})
from triton.language.extra.libdevice import rsqrt as rsqrt_by_name, cbrt as cbrt_by_name  # the harness's stand-ins
out["libdevice by name"] = verdict(uses_libdevice_by_name, (x, o), {"N": 64})
out["own function"] = verdict(uses_own_function, (x, o), {"N": 64})
from triton.language.extra import cuda as tlcuda  # noqa: E402
from triton.language.extra.cuda import gdc_launch_dependents as gdc_launch_by_name  # noqa: E402 (the stand-in)
out["gdc"] = verdict(uses_gdc, (x, o), {"N": 64})
o.zero_()
try:
    uses_gdc[(1,)](x, o, N=64)  # on the interpreter: the no-ops, then the copy
    out["gdc ran"] = bool((o == x).all())
except Exception as e:  # before fp36: ValueError ("Did you forget to add @triton.jit?")
    out["gdc ran"] = type(e).__name__
out["int32_n small"] = verdict(int32_n, (o, 5), {})
out["int32_n i64"] = verdict(int32_n, (o, 2 ** 33), {})
for name, k, a, kw in [("int_builtin", int_builtin, (x, o), {"N": 4}), ("block_str", block_str, (x, o), {"N": 16}),
                       ("table", table, (idx, o), {"N": 4}), ("np_handle", np_handle, (x, o), {"N": 16}),
                       ("constexpr_combine", constexpr_combine, (x, o), {"N": 16, "COMBINE": _add})]:
    out[name] = verdict(k, a, kw)
# red team 37: a kernel's (or a jit helper's) fn set to a host body after a launch mirrored the clean one; the
# interpreter runs what fn holds at the launch, so that is what the check compiles
out["fn before"] = verdict(fn_swapped, (x, o), {"N": 4})
fn_swapped.fn = host_body
out["fn after"] = verdict(fn_swapped, (x, o), {"N": 4})
out["helper before"] = verdict(helper_swapped, (x, o), {"N": 4})
_helper.fn = host_helper
out["helper after"] = verdict(helper_swapped, (x, o), {"N": 4})
# the kernel's own function given a host body's code in place, after another kernel's check mirrored every jit global
# of this module (red team 37's fn_code): the interpreter rewrites the new code, the check must compile it
import functools
out["code mirrored"] = id(code_swapped) in g._MIRRORS
functools.update_wrapper(code_swapped.fn, _host_factory(), ("__code__",), ())
out["code after"] = verdict(code_swapped, (x, o), {"N": 4})
# an honest plain namedtuple of jit functions as an argument: its members are mirrored like a tuple's (Triton's binder
# refused the interpreted ones, now a launch error, not a note)
out["namedtuple arg"] = verdict(nt_arg, (x, o, Ops(_add)), {"N": 16})
# red team 43: a triton.jit option holding an iterator of C callables (no frame of the file's) ran them when the mirror
# was made, inside the launch window; an option is judged by type() and only plain ones reach the mirror
from kernelgenbench.sandbox.state import STATE
ran = []
def _copy_body(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
lazy = triton.jit(_copy_body, do_not_specialize=map(dict.get, [{}], map(ran.append, [1]), [2]))
out["lazy option"] = verdict(lazy, (x, o, 64), {"BLOCK": 64})
out["lazy option ran"] = list(ran)
out["lazy option violations"] = [v for v in STATE.launch_violations if "do_not_specialize" in v]
flag = triton.jit(_copy_body, noinline=torch.ones(1))
out["tensor flag"] = verdict(flag, (x, o, 64), {"BLOCK": 64})
del lazy, flag  # module globals: a mirror's __globals__ mirrors (and judges) every kernel of the module
STATE.launch_violations.clear()
plain = triton.jit(_copy_body, do_not_specialize=("n", 0), debug=False, noinline=None)
out["plain options"] = verdict(plain, (x, o, 64), {"BLOCK": 64})
out["plain options violations"] = list(STATE.launch_violations)
# the cache: the same specialisation compiles once, another compiles again
n0 = len(g.TIMES)
verdict(honest, (x, o, 64), {"BLOCK": 64, "num_warps": 8})
out["cached"] = len(g.TIMES) == n0
verdict(honest, (x, o, 64), {"BLOCK": 32, "num_warps": 8})
out["respecialised"] = len(g.TIMES) == n0 + 1
# a launch keyword that names no parameter and no option: a GPU launch refuses it (red team 32b's unknown_kwarg)
out["unknown option"] = verdict(honest, (x, o, 64), {"BLOCK": 64, "bogus_option": 1})
# what Triton's own binding refuses on a GPU, the interpreter ignores (red team 37): the launch's error, not a note
g.NOTES.clear()
out["num_warps=3"] = verdict(honest, (x, o, 64), {"BLOCK": 64, "num_warps": 3})
out["stream"] = verdict(honest, (x, o, 64), {"BLOCK": 64, "stream": 0})
out["too many args"] = verdict(honest, (x, o, 64, 1), {"BLOCK": 64})
out["refusal notes"] = list(g.NOTES)
# plumbing failures (the harness's own code broke): a note, never a rejection
real_binder = g._binder
g._binder = lambda m: (_ for _ in ()).throw(KeyError("binding broke"))
out["binding"] = verdict(honest, (x, o, 64), {"BLOCK": 64})
g._binder = real_binder
g._PRISTINE.append((None, {"x": 1}))  # the harness's restore of Triton's language breaks (vars(None)) in compile_ttir
out["plumbing"] = verdict(honest, (x, o, 64), {"BLOCK": 16})
g._PRISTINE.pop()
out["notes"] = list(g.NOTES)
# through the launch hooks: the refused body never runs, an honest one does
install_launch_hooks()
o.zero_()
try:
    int_builtin[(1,)](x, o, N=4)
    out["hooked bad"] = "launched"
except Exception as e:
    out["hooked bad"] = type(e).__name__ + (" body ran" if bool(o.any()) else " body not run")
honest[(1,)](x, o, 64, BLOCK=64)
out["hooked honest"] = bool(o.any())
# a body that called jit functions (tl.sum, tl.cdiv, _twice) left triton.language.core patched with the interpreter's
# builtins (Triton 3.6 does not undo a device call's patches): the next compile must still see Triton's own
out["after a run"] = verdict(honest, (x, o, 64), {"BLOCK": 128})
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    where = tmp_path_factory.mktemp("gpucc")
    (where / "kernels.py").write_text(SCRIPT)  # Triton's JIT reads a kernel's source from its file
    proc = subprocess.run([sys.executable, str(where / "kernels.py")], env=env, capture_output=True, text=True,
                          timeout=300, cwd=where)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(line[-1][len("RESULT "):])


def test_a_jit_option_is_judged_by_type_before_the_mirror_reads_it(results: dict) -> None:
    """Red team 43 (tests/bad/jit_option_iter): Triton's ``JITFunction.__init__`` iterates ``do_not_specialize``, and
    the check makes the mirror inside the launch window, where a ``map`` of C callables ran ATen untraced. A non-plain
    option is a launch violation and never read (the map did not run); plain lists, tuples and flags are fine."""
    assert results["lazy option ran"] == []
    assert results["lazy option"] == "ok"
    assert len(results["lazy option violations"]) == 1 and "<class 'map'>" in results["lazy option violations"][0]
    assert results["tensor flag"] == "ok"
    assert results["plain options"] == "ok" and results["plain options violations"] == []


def test_an_honest_kernel_compiles(results: dict) -> None:
    # jit helpers, Triton's own jit functions (tl.sum, tl.cdiv), a tensor method, a jit combine function named
    # directly, a global tl.constexpr of a jit function
    assert results["honest"] == "ok"


def test_libdevice_compiles_as_tritons_own_after_the_harness_patched_it(results: dict) -> None:
    assert results["libdevice"] == "ok", results["libdevice"]


def test_libdevice_functions_bound_by_name_compile_as_tritons_own(results: dict) -> None:
    """false-rejection hunt 35: ``from triton.language.extra.libdevice import rsqrt`` (Liger-Kernel) binds the
    harness's interpreter stand-in in the submission's globals; the check compiled that stand-in and refused the kernel
    ("Cannot access global variable rsqrt"), which a GPU compiles. A submission's own function stays refused."""
    assert results["libdevice by name"] == "ok", results["libdevice by name"]
    assert results["own function"].startswith("compile_error"), results["own function"]
    assert "own_rsqrt" in results["own function"], results["own function"]


def test_gdc_calls_run_as_no_ops_and_compile_as_tritons_own(results: dict) -> None:
    """false-rejection hunt 36: ``tl.extra.cuda.gdc_wait()``/``gdc_launch_dependents()`` (programmatic dependent
    launch) raised ValueError on the interpreter; they are no-ops there, and the check compiles Triton's own functions,
    also where the name was bound at import (the interpreter's stand-in in the kernel's globals)."""
    assert results["gdc"] == "ok", results["gdc"]
    assert results["gdc ran"] is True


def test_the_signature_is_the_gpu_jits(results: dict) -> None:
    # an int argument is i32 below 2**31 and i64 above, as JITFunction.run specialises it on a GPU
    assert results["int32_n small"] == "ok"
    assert results["int32_n i64"].startswith("compile_error: CompileTimeAssertionFailure"), results["int32_n i64"]


@pytest.mark.parametrize("what,needle", [
    ("int_builtin", "int() argument must be"),
    ("block_str", "Cannot evaluate f-string"),
    ("table", "Cannot access global variable TABLE"),
    ("np_handle", "handle"),
    ("constexpr_combine", "'constexpr' object has no attribute 'fn'"),
])
def test_what_a_gpu_refuses_is_a_compile_error(results: dict, what: str, needle: str) -> None:
    assert results[what].startswith("compile_error: "), results[what]  # CompilationError or a subclass of it
    assert needle in results[what], results[what]


def test_the_check_compiles_the_fn_the_interpreter_runs(results: dict) -> None:
    """Red team 37 (tests/bad/fn_swap): ``k.fn = host_body`` after a launch had mirrored the clean body; the mirror was
    cached per kernel object and compiled the clean body while the interpreter ran the host one. Also a jit helper's
    fn, one call down."""
    assert results["fn before"] == "ok" and results["helper before"] == "ok", results
    assert results["fn after"].startswith("compile_error: ") and "int() argument must be" in results["fn after"], \
        results["fn after"]
    assert results["helper after"].startswith("compile_error: "), results["helper after"]


def test_the_check_compiles_the_code_the_interpreter_runs(results: dict) -> None:
    """Red team 37 (tests/bad/fn_code): functools.update_wrapper(k.fn, host, ("__code__",), ()) on a kernel that an
    earlier check had mirrored (every jit global of the module is): the mirror kept the clean source."""
    assert results["code mirrored"] is True
    assert results["code after"].startswith("compile_error: ") and "int() argument must be" in results["code after"], \
        results["code after"]


def test_a_namedtuple_of_jit_functions_binds_as_on_a_gpu(results: dict) -> None:
    assert results["namedtuple arg"] == "ok", results["namedtuple arg"]


def test_outcomes_are_cached_per_specialisation(results: dict) -> None:
    assert results["cached"] and results["respecialised"]


def test_a_plumbing_error_is_a_note_not_a_rejection(results: dict) -> None:
    assert results["unknown option"].startswith("launch_error: kernel honest: launch keyword(s) bogus_option name no "
                                                "parameter"), results["unknown option"]
    assert results["binding"] == "ok" and results["plumbing"] == "ok"
    assert len(results["notes"]) == 2, results["notes"]
    assert "could not bind" in results["notes"][0] and "binding broke" in results["notes"][0], results["notes"]
    assert "outside its own error reporting" in results["notes"][1], results["notes"]
    assert "vars()" in results["notes"][1], results["notes"]


@pytest.mark.parametrize("what,needle", [
    ("num_warps=3", "AssertionError: num_warps must be a power of 2"),
    ("stream", "AssertionError: stream option is deprecated"),
    ("too many args", "TypeError"),
])
def test_what_tritons_own_binding_refuses_fails_the_launch(results: dict, what: str, needle: str) -> None:
    """Red team 37: a launch Triton's binding or argument packing refuses on a GPU (options it asserts on, a stream
    keyword, arguments the signature does not take) fails at the launch, as on a GPU; it was a harness note, and the
    interpreter ran the body (tests/bad/gpu_options)."""
    assert results[what].startswith("launch_error: kernel honest: Triton's launch binding refuses"), results[what]
    assert needle in results[what], results[what]
    assert results["refusal notes"] == [], results["refusal notes"]


def test_a_compile_after_an_interpreted_run_sees_tritons_own_language(results: dict) -> None:
    assert results["after a run"] == "ok", results["after a run"]


def test_the_launch_hook_refuses_before_the_body_runs(results: dict) -> None:
    assert results["hooked bad"] == "GPUCompilationError body not run", results["hooked bad"]
    assert results["hooked honest"] is True
