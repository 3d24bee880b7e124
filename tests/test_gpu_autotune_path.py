"""Triton's autotuning as a GPU runs it, on the CPU (session 40). Two launch rules passed every CPU test and refused
honest kernels on a GPU, because Triton does things there that the interpreter never did: a GPU compile rebinds
``used_global_vals`` (session 36), and ``Autotuner.do_bench``, a ``functools.cached_property``, is stored on the tuner
at its first benchmark (gate at aadd375: every autotuned kernel refused as monkey-patching, fixed at df55ad0).

Until this session the interpreter replaced ``Autotuner._bench`` with a ranking, so on the CPU neither the harness's
hook of ``_bench`` (``check_autotuner`` per pruned config, the traced hooks, the launch window) nor Triton's own
``_bench`` (which caches ``do_bench``) ever ran. Now the interpreter's driver answers ``get_benchmarker()`` with that
ranking (``sandbox/interpreter.py`` ``rank_configs``) and everything else runs as on a GPU
(:func:`test_the_interpreter_benchmarks_through_triton_s_own_autotuner`). :func:`test_the_gpu_benchmark_loop` goes
further: Triton's own ``triton.testing.do_bench`` (the CUDA driver's benchmarker) runs every pruned config's
``kernel_call`` (hooks, heuristics, the launch of each config through the harness's hooked run) with stand-in CUDA
events, and the harness's checks run on the kernel objects after every call."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

PRELUDE = r'''
import os, sys, types, warnings
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
import triton.runtime.autotuner as autotuner
from triton.runtime.driver import driver
from kernelgenbench.sandbox import kernel_guard, snapshots
from kernelgenbench.sandbox.dispatch import traced
from kernelgenbench.sandbox.interpreter import install_interpreter_patches, rank_configs
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.state import STATE
import triton.testing
TRITON_DO_BENCH = (triton.testing.do_bench, triton.testing.do_bench_cudagraph)
install_launch_hooks()         # the sandbox child's order: launch hooks, then the interpreter's patches
install_interpreter_patches()
if "--pre-df55ad0" in sys.argv:  # the launch rule as it was before df55ad0: a cached value shadows its property
    kernel_guard._cached_value = lambda *a: False
if "--gpu-bench" in sys.argv:
    # CudaDriver's benchmarking on the CPU: Triton's own do_bench, its L2-flush buffer zeroed with ATen as on a GPU,
    # CUDA events that report 50 ms (do_bench then calls each config 1 + 5 + 2 + 10 times). Exec'd in the
    # globals of Triton's CUDA driver module, whose functions these stand for (the launch window judges an exec'd
    # frame by the module whose globals it runs in)
    import triton.backends.nvidia.driver as nvd
    triton.testing.do_bench, triton.testing.do_bench_cudagraph = TRITON_DO_BENCH  # Triton's own, as on a GPU
    exec("""
class _EmuEvent:
    def __init__(self, enable_timing=False): pass
    def record(self): pass
    def elapsed_time(self, other): return 50.0
class _EmuDevice:
    Event = _EmuEvent
    @staticmethod
    def synchronize(): pass
def _emu_get_benchmarker(self):
    from triton.testing import do_bench
    return do_bench
def _emu_get_device_interface(self): return _EmuDevice
def _emu_get_empty_cache_for_benchmark(self):
    import torch
    return torch.empty(1024, dtype=torch.int)
def _emu_clear_cache(self, cache): cache.zero_()
""", vars(nvd))
    for n in ("get_benchmarker", "get_device_interface", "get_empty_cache_for_benchmark", "clear_cache"):
        setattr(driver.active, n, types.MethodType(vars(nvd)["_emu_" + n], driver.active))
snapshots.snapshot_triton()    # as the child: after the harness's patches, before the submission's code
snapshots.snapshot_harness()

@triton.jit
def add1(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = False):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + o, tl.load(x + o, mask=o < n) + 1, mask=o < n)

CF = [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32}, num_warps=2)]
def prune(configs, nargs, **kw):
    return [triton.Config(dict(c.kwargs), num_warps=c.num_warps) for c in configs if c.kwargs["BLOCK"] <= 32][::-1]
HOOKED = []
def hook(nargs):
    HOOKED.append(1)
even = lambda a: a["n"] % 16 == 0
KERNELS = {
    "plain": triton.autotune(CF, key=["n"])(add1),
    "reset_to_zero": triton.autotune(CF, key=["n"], reset_to_zero=["x"])(add1),
    "restore_value": triton.autotune(CF, key=["n"], restore_value=["x"])(add1),
    "pruned": triton.autotune(CF + [triton.Config({"BLOCK": 64})], key=["n"], prune_configs_by={
        "early_config_prune": prune, "perf_model": lambda **k: k["BLOCK"], "top_k": 2})(add1),
    "config_pre_hook": triton.autotune([triton.Config({"BLOCK": 16}, pre_hook=hook), CF[1]], key=["n"])(add1),
    "user_hooks": triton.autotune(CF, key=["n"], pre_hook=lambda a, reset_only=False: HOOKED.append(2),
                                  post_hook=lambda a, exception: HOOKED.append(3))(add1),
    "heuristics_inside": triton.autotune(CF, key=["n"])(triton.heuristics({"EVEN": even})(add1)),
    "heuristics_outside": triton.heuristics({"EVEN": even})(triton.autotune(CF, key=["n"])(add1)),
}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # warmup=/rep=: a do_bench lambda of Triton's own file
    KERNELS["warmup_rep"] = triton.autotune(CF, key=["n"], warmup=5, rep=20)(add1)


def drive(name):
    """Three calls (two keys) of kernel ``name`` inside a traced call, as the child runs a case; then the checks
    the child runs after every traced call, on the kernel objects and Triton's modules and classes."""
    k = KERNELS[name]
    x = torch.zeros(40)
    def body(x):
        for n in (40, 40, 24):
            k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, n)
        return x
    STATE.launch_violations.clear()
    STATE.begin_case(False)
    err = None
    try:
        traced(body, "w")(x)
    except Exception as exc:  # the launch rule's refusal: reported
        err = type(exc).__name__
    finally:
        STATE.end_case()
    tuner = k if type(k) is autotuner.Autotuner else k.fn
    checks = (err, STATE.launch_violations[:1], kernel_guard.shadowed_entry(k), snapshots.triton_changed(),
              snapshots.harness_changed())
    return tuner, x, checks
'''

CPU = PRELUDE + r'''
for name in KERNELS:
    tuner, x, checks = drive(name)
    cached = vars(tuner).get("do_bench", "nothing cached")
    print(name, checks == (None, [], None, None, None), cached is rank_configs, str(tuner.best_config).split(",")[0],
          x[0].item(), x[30].item())
print("warmup_rep's", vars(KERNELS["warmup_rep"]).get("do_bench") is KERNELS["warmup_rep"]._do_bench)
k = KERNELS["plain"]
k.__dict__["do_bench"] = lambda fn, quantiles: [0.0] * 3  # a cheat that writes the entry Triton caches, with its own
print("cheat", drive("plain")[2][0])
'''


def _run(tmp: Path, script: str, *flags: str) -> list[str]:
    """Run ``script`` from a file (Triton compiles a jit function from its source file) with ``flags``."""
    path = tmp / "emulation.py"
    path.write_text(script)
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, str(path), *flags], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()


def test_the_interpreter_benchmarks_through_triton_s_own_autotuner(tmp_path: Path) -> None:
    """In the sandbox child's order of patches, an autotuned kernel's configs are benchmarked by Triton's own
    ``Autotuner._bench`` under the harness's hook: ``do_bench`` is cached on the tuner as a GPU caches it (the
    interpreter's ranking, :func:`rank_configs`), the first config that survives pruning wins (by its place in the
    tuner's configs: ``pruned`` reverses them and makes new ones), nothing of the harness fires, and the kernel
    computes its result (x[0] is 3: three calls, each adding 1; no config is run while benchmarking here). A cheat
    writing its own function over the cached entry is still refused. Before this session the interpreter replaced
    ``_bench``: nothing was cached (the ``True`` after each kernel's first column failed)."""
    lines = _run(tmp_path, CPU)
    assert lines[:10] == [
        "plain True True BLOCK: 16 3.0 2.0",
        "reset_to_zero True True BLOCK: 16 1.0 0.0",  # zeroed by Triton's hook before the last call (a new key)
        "restore_value True True BLOCK: 16 3.0 2.0",
        "pruned True True BLOCK: 16 3.0 2.0",
        "config_pre_hook True True BLOCK: 16 3.0 2.0",
        "user_hooks True True BLOCK: 16 3.0 2.0",
        "heuristics_inside True True BLOCK: 16 3.0 2.0",
        "heuristics_outside True True BLOCK: 16 3.0 2.0",
        "warmup_rep True False BLOCK: 16 3.0 2.0",  # warmup=/rep= cache Triton's own do_bench lambda instead
        "warmup_rep's True",
    ], lines
    assert lines[10] == "cheat LaunchArgumentError", lines


def test_the_launch_rule_before_df55ad0_fails_on_the_cpu_now(tmp_path: Path) -> None:
    """The same run with the launch rule as it was before df55ad0 refuses the honest autotuned kernel on the CPU,
    as the GPU gate at aadd375 did on an H100: the CPU now sees that divergence."""
    lines = _run(tmp_path, CPU, "--pre-df55ad0")
    assert lines[0].startswith("plain False True"), lines


GPU = PRELUDE + r'''
for name in KERNELS:
    HOOKED.clear()
    tuner, x, checks = drive(name)
    timings = sorted(str(c).split(",")[0] for c in getattr(tuner, "configs_timings", {}))
    print(name, checks == (None, [], None, None, None), vars(tuner).get("do_bench") is triton.testing.do_bench,
          "|".join(timings), x[0].item(), x[30].item(), sorted(set(HOOKED)))
    if "--pre-df55ad0" in sys.argv:
        print(checks)
        break
'''


def test_the_gpu_benchmark_loop(tmp_path: Path) -> None:
    """Triton's own CUDA benchmark loop (``triton.testing.do_bench``, every pruned config's ``kernel_call`` run 18
    times: 1 + 5 to estimate, 2 warm-ups and 10 timed at 10 ms each; its pre/post hooks, heuristics, and its launch
    through the harness's hooked run, the launch rule checking each), then the checks the child runs after every
    traced call: none fires on any of these honest kernels. The outputs show Triton's own behaviour on a GPU (each
    benchmarked call of an un-reset kernel adds to x: x[0] gets 2 configs x 18 calls for each of the two keys and the
    three launches; ``reset_to_zero`` zeroes x before each config, ``restore_value`` restores it after each), which
    the CPU's ranking never showed."""
    import triton  # noqa: F401 - the subprocess imports it; here only to fail early without Triton

    lines = _run(tmp_path, GPU, "--gpu-bench")
    assert lines == [
        "plain True True BLOCK: 16|BLOCK: 32 75.0 38.0 []",
        "reset_to_zero True True BLOCK: 16|BLOCK: 32 1.0 0.0 []",
        "restore_value True True BLOCK: 16|BLOCK: 32 3.0 2.0 []",
        "pruned True True BLOCK: 16|BLOCK: 32 75.0 38.0 []",
        "config_pre_hook True True BLOCK: 16|BLOCK: 32 75.0 38.0 [1]",
        "user_hooks True True BLOCK: 16|BLOCK: 32 75.0 38.0 [2, 3]",
        "heuristics_inside True True BLOCK: 16|BLOCK: 32 75.0 38.0 []",
        "heuristics_outside True True BLOCK: 16|BLOCK: 32 75.0 38.0 []",
        "warmup_rep True False BLOCK: 16|BLOCK: 32 39.0 20.0 []",  # warmup=5, rep=20: 1 + 5 + 1 + 2 calls
    ], lines


def test_the_gpu_benchmark_loop_sees_the_do_bench_divergence(tmp_path: Path) -> None:
    """The emulated GPU loop with the launch rule before df55ad0 refuses the plain autotuned kernel as the H100 did
    (the emulation is sensitive to the class of divergence it is for)."""
    lines = _run(tmp_path, GPU, "--gpu-bench", "--pre-df55ad0")
    assert lines[0].startswith("plain False True"), lines
    assert "do_bench set on the kernel object shadows" in lines[1], lines


REGISTERED = PRELUDE + r'''
from types import SimpleNamespace
from kernelgenbench.sandbox.drive import make_impl
from kernelgenbench.suite.registry import get_operator

@triton.jit
def _zero(x, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + o, tl.zeros([BLOCK], dtype=tl.float32), mask=o < n)

def own_zero(nargs):
    nargs["x"].zero_()  # the candidate's own hook calling the op under test

# the hook on the config not chosen (equal times: the first wins), so that it runs only while Triton benchmarks
HOOKED_CFG = [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32}, pre_hook=own_zero)]
for name, cfg in (("honest", [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})]),
                  ("hook_calls_zero_", HOOKED_CFG)):
    kernel = triton.autotune(cfg, key=["n"])(_zero)
    def zero_(self):
        n = self.numel()
        kernel[lambda m: (triton.cdiv(n, m["BLOCK"]),)](self, n)
        return self
    # the candidate registered as on a GPU (drive.AtenImpl at the platform's key), at the CPU key here
    impl = make_impl(get_operator("aten::zero_"), SimpleNamespace(zero_=zero_), SimpleNamespace(dispatch_key="CPU"))
    STATE.registered = frozenset(impl.fns)
    STATE.registration = impl if "--no-lift" not in sys.argv else None  # as the child sets it
    x = torch.ones(40)
    STATE.begin_case(False)
    try:
        x.zero_()
        out = f"ok {x.abs().sum().item()}"
    except Exception as exc:
        out = type(exc).__name__
    finally:
        STATE.end_case()
        impl.deactivate()
    print(name, out, sorted(k for k in STATE.trace if k.startswith(("aten::zero_", "aten::empty", "aten::fill_"))),
          impl.lib is None)
'''


def test_triton_s_benchmarking_does_not_reach_a_registered_candidate(tmp_path: Path) -> None:
    """On a GPU the candidate's ATen wrappers are registered at the dispatcher. An honest ``aten::zero_`` whose kernel
    is autotuned: while Triton benchmarks it inside the candidate's call, ``triton.testing.do_bench`` allocates and
    zeroes its L2-flush buffer (``torch.empty``, ``zero_``), which reached the running candidate and failed it as a
    dispatch recursion, on GPUs only (the interpreter registers nothing). Here the registration is at the CPU key
    and Triton's CUDA benchmark loop is emulated: the registration is lifted while Triton benchmarks
    (``window.registration_lifted``), the call passes with nothing of Triton's traced; a config pre_hook of the
    candidate's that calls ``zero_`` still puts ``aten::zero_`` in the trace (judged as a dispatch recursion, as on the
    interpreter). Without the lift (``--no-lift``: the child before session 40) the honest kernel is refused."""
    assert _run(tmp_path, REGISTERED, "--gpu-bench") == [
        "honest ok 0.0 [] True", "hook_calls_zero_ ok 0.0 ['aten::zero_'] True"]
    assert _run(tmp_path, REGISTERED, "--gpu-bench", "--no-lift")[0] == "honest DispatchRecursion [] True"


LIFTED = PRELUDE + r'''
from types import SimpleNamespace
from kernelgenbench.sandbox.drive import make_impl
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.sandbox.window import registration_lifted
from triton.runtime.interpreter import GridExecutor

def _no_host_copies(m):  # a GPU launch copies nothing to the host: the interpreter's copies reach no registration
    def w(*a, **k):
        with registration_lifted():
            return m(*a, **k)
    return w
for _m in ("_init_args_hst", "_restore_args_dev"):
    setattr(GridExecutor, _m, _no_host_copies(getattr(GridExecutor, _m)))

@triton.jit
def _noop(x, n, calls, BLOCK: tl.constexpr):
    pass  # computes nothing: the result comes from Triton's own hooks while it benchmarks

CF = [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})]
HELD, SRC, CALLS = [], [], [0]
def swap_in(nargs):  # the candidate's Config pre_hook (traced): a dict write, no ATen op
    HELD[:] = [nargs, nargs["x"]]
    nargs["x"] = SRC[0]  # what Triton's restore pre_hook then clones, untraced
def swap_back(meta):  # the candidate's launch grid (traced): Triton's restore post_hook copies the clone into x
    if HELD:
        HELD[0]["x"] = HELD[1]
    return (1,)
swap = triton.autotune([triton.Config(c.kwargs, pre_hook=swap_in) for c in CF], key=["n", "calls"],
                       restore_value=["x"])(_noop)
def copy_(self, src, non_blocking=False):
    SRC[:] = [src]
    CALLS[0] += 1
    swap[swap_back](self, self.numel(), CALLS[0])
    return self

class _Stop(Exception):
    pass
def stop(meta):  # raised inside Triton's benchmarking after its reset zeroed x: run's traced reset never comes
    raise _Stop()
reset = triton.autotune(CF, key=["n", "calls"], reset_to_zero=["x"])(_noop)
def zero_(self):
    CALLS[0] += 1
    try:
        reset[stop](self, self.numel(), CALLS[0])
    except _Stop:
        pass
    return self

def zeros_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    out = torch.empty_like(self, dtype=dtype)  # allowed; zeroed only by Triton's reset
    zero_(out)
    return out

from kernelgenbench.verify.profile import judge_trace
for op, call in (("aten::copy_", lambda: torch.zeros(40).copy_(torch.arange(40.0))),
                 ("aten::zero_", lambda: torch.ones(40).zero_()),
                 ("aten::zeros_like", lambda: torch.zeros_like(torch.ones(40)))):
    impl = make_impl(get_operator(op), SimpleNamespace(copy_=copy_, zero_=zero_, zeros_like=zeros_like),
                     SimpleNamespace(dispatch_key="CPU"))
    STATE.registered = STATE.replaced = frozenset(impl.fns)  # as the child sets them on a GPU
    STATE.registration = impl
    STATE.launch_violations.clear()
    STATE.begin_case(False)
    try:
        out = call()
        out = f"ok {out.sum().item()}"
    except Exception as exc:
        out = type(exc).__name__
    finally:
        STATE.end_case()
        impl.deactivate()
    row = get_operator(op)  # the L3 verdict of the call's trace, as verify/judge.py gives it
    verdict = judge_trace(dict(STATE.trace), frozenset(getattr(row, "own_ops", frozenset())),
                          getattr(row, "allow_copies", True), row.allow_trace, row.data_movement)
    print(op, out, sorted(dict(STATE.trace).items()), STATE.launch_violations, verdict.failure)
'''


def test_triton_s_own_hooks_compute_nothing_for_the_candidate_while_the_registration_is_lifted(tmp_path: Path) -> None:
    """Red team rb40: while Triton benchmarks an autotuned kernel the candidate's registration is lifted (b075737)
    and Triton's own restore_value/reset_to_zero hooks ran ATen's clone/copy_/zero_ untraced. Emulated GPU loop,
    registration at the CPU key, a kernel that computes nothing, the L3 verdict of the call's trace last:

    * aten::copy_: the candidate's Config pre_hook puts ``src`` under the restored name in the dict Triton's hooks
      share, its launch grid puts ``dst`` back, and Triton's restore copied ``src`` into ``dst``: before the fix the
      call returned ``dst == src`` (sum 780) with an empty trace. Now the hooks use the launch's own tensors: nothing
      is copied (sum 0: the wrong result of a kernel that computes nothing).
    * aten::zero_ and aten::zeros_like: ``reset_to_zero=["x"]``, the launch grid raises inside the benchmarking, the
      candidate catches it: Triton's reset zeroed x and ``Autotuner.run``'s traced reset never ran (before: sum 0,
      no ``aten::zero_`` in the trace, no verdict). Now the reset runs traced: its ``zero_`` is the operator's own
      op, a dispatch recursion (what the traced reset after the benchmark gives an honest kernel with it)."""
    lines = _run(tmp_path, LIFTED, "--gpu-bench")
    # the reset, run at both configs' 18 calls, is charged once in the call
    assert lines == ["aten::copy_ ok 0.0 [] [] None",
                     "aten::zero_ ok 0.0 [('aten::zero_', 1)] [] dispatch_recursion",
                     "aten::zeros_like ok 0.0 [('aten::empty_like', 1), ('aten::zero_', 1)] [] dispatch_recursion"
                     ], lines


HOST = PRELUDE + r'''
@triton.jit
def _nothing(x, out, n, calls, BLOCK: tl.constexpr):
    pass

DONE = [0]
def chunk(nargs):  # the candidate's Config pre_hook (traced): 4 host reads and 4 host-data elements per call
    x, out = nargs["x"], nargs["out"]
    k = DONE[0] % (x.numel() // 4)
    DONE[0] += 1
    vals = [-v for v in x[4 * k:4 * k + 4].tolist()]
    out[4 * k:4 * k + 4] = torch.tensor(vals)
CALLS = [0]
host = triton.autotune([triton.Config({"BLOCK": b}, pre_hook=chunk) for b in (16, 32)], key=["n", "calls"])(_nothing)
def neg(x):
    out = torch.empty_like(x)
    CALLS[0] += 1
    host[(1,)](x, out, x.numel(), CALLS[0])
    return out

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.profile import judge_trace
x = torch.randn(72)
STATE.begin_case(False)
try:
    out = traced(neg, "neg")(x)
finally:
    STATE.end_case()
row = get_operator("aten::neg")
v = judge_trace(dict(STATE.trace), frozenset(getattr(row, "own_ops", frozenset())), getattr(row, "allow_copies", True),
                row.allow_trace, row.data_movement)
print(torch.equal(out, -x), dict(STATE.trace)["aten::host_data"], v.failure)
'''


def test_budgeted_elements_of_a_hook_are_summed_over_triton_s_benchmark_calls(tmp_path: Path) -> None:
    """Red team rb40: Triton calls a Config pre_hook at every benchmarked call (18 per config here, hundreds on a
    GPU), and the traced hook's ops counted as one call's (the most over the calls). A pre_hook reading four elements
    of x and writing their negation into the output with host data per call computed a whole 72-element aten::neg on
    the host (37 calls: two configs and the chosen one's run), charged 12 host-data elements (4 per config and run):
    no verdict. The budgeted element counts (host reads, host data, random draws) are now summed over the calls:
    148 elements, over the per-call budget of 64 (profile)."""
    assert _run(tmp_path, HOST, "--gpu-bench") == ["True 148 profile"]


VIEWS = PRELUDE + r'''
@triton.jit
def _noop(kc, n, calls, BLOCK: tl.constexpr):
    pass  # moves nothing: Triton's restore hook moves the blocks while it benchmarks

CF = [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})]
JOBS, NOW, CALLS = [], [], [0]
def to_src(nargs):  # the candidate's Config pre_hook (traced): a view change, no copy
    NOW.clear()
    if JOBS:
        t, s, d, npb = JOBS.pop()
        NOW.append((t, d, npb))
        t.as_strided_((npb,), (1,), s * npb)   # Triton's restore clones block s
def to_dst(meta):  # the candidate's launch grid (traced): Triton's restore then copies the clone into block d
    if NOW:
        t, d, npb = NOW.pop()
        t.as_strided_((npb,), (1,), d * npb)
    return (1,)
mover = triton.autotune([triton.Config(c.kwargs, pre_hook=to_src) for c in CF], key=["n", "calls"],
                        restore_value=["kc"])(_noop)

def copy_blocks(key_caches, value_caches, block_mapping):
    pairs = block_mapping.tolist()
    npb = key_caches[0][0].numel()
    for t in [*key_caches, *value_caches]:
        shape, stride = t.shape, t.stride()
        JOBS[:] = [(t, s, d, npb) for s, d in pairs]
        CALLS[0] += 1
        mover[to_dst](t, t.numel(), CALLS[0])
        t.as_strided_(shape, stride, 0)

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.profile import judge_trace
torch.manual_seed(0)
kc = [torch.randn(6, 2, 4, 8) for _ in range(2)]
vc = [torch.randn(6, 2, 4, 8) for _ in range(2)]
mapping = torch.tensor([[0, 3], [1, 5]])
want = [t.clone() for t in kc + vc]
for w in want:
    w[3] = w[0]; w[5] = w[1]
STATE.begin_case(False)
try:
    traced(copy_blocks, "copy_blocks")(kc, vc, mapping)
finally:
    STATE.end_case()
row = get_operator("vllm::copy_blocks")
v = judge_trace(dict(STATE.trace), frozenset(getattr(row, "own_ops", frozenset())), getattr(row, "allow_copies", True),
                row.allow_trace, row.data_movement)
print(all(torch.equal(a, b) for a, b in zip(kc + vc, want)), sorted(dict(STATE.trace).items()),
      STATE.launch_violations, v.failure)
'''


def test_triton_s_restore_puts_the_clone_back_where_it_was_taken(tmp_path: Path) -> None:
    """Red team rt41: Triton's restore_value hook clones a launch tensor before each benchmarked call and copies the
    clone back after it, untraced (registration lifted, launch window open); between the two the candidate's launch
    grid runs traced. A Config pre_hook viewing the cache as block ``s`` (``as_strided_``, a view op L3 allows) and a
    grid viewing it as block ``d`` made the restore copy block ``s`` over block ``d``: vllm::copy_blocks with a kernel
    that moves nothing returned every block moved (``True`` before the fix) with a trace of as_strided_ alone and no
    verdict (tests/bad autotune_restore_view; the interpreter's ranking runs no config, so there it was a wrong result
    already). The restore now writes through a view fixed when it clones: nothing moves, a wrong result."""
    assert _run(tmp_path, VIEWS, "--gpu-bench") == [
        "False [('aten::as_strided_', 8), ('aten::select.int', 1)] [] None"]


NESTED = PRELUDE + r'''
from types import SimpleNamespace
from kernelgenbench.sandbox.drive import make_impl
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.sandbox.window import registration_lifted
from kernelgenbench.verify.profile import judge_trace
from triton.runtime.interpreter import GridExecutor

def _no_host_copies(m):  # a GPU launch copies nothing to the host: the interpreter's copies reach no registration
    def w(*a, **k):
        with registration_lifted():
            return m(*a, **k)
    return w
for _m in ("_init_args_hst", "_restore_args_dev"):
    setattr(GridExecutor, _m, _no_host_copies(getattr(GridExecutor, _m)))

@triton.jit
def _noop(x, n, calls, BLOCK: tl.constexpr):
    pass  # computes nothing: the inner tuner's reset zeroes x while Triton benchmarks the outer one

CF = [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})]
NONE = dict(num_warps=None, num_stages=None, num_ctas=None)  # outer configs adding no launch option of their own
inner = triton.autotune(CF, key=["n", "calls"], reset_to_zero=["x"])(_noop)
chain = triton.autotune([triton.Config({}, **NONE), triton.Config({}, **NONE)], key=["n", "calls"])(inner)

SEEN = set()
class _Stop(Exception):
    pass
def stop(meta):  # raised inside the inner tuner's benchmarking, after its reset: its run's reset never comes
    raise _Stop()
class Entry(triton.KernelInterface):  # a launcher of the file in front of the inner tuner (FlagGems' LibEntry shape)
    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
    def run(self, *args, grid, warmup=False, **kwargs):
        if kwargs["calls"] in SEEN:  # only the first call, inside the outer tuner's benchmarking
            return None
        SEEN.add(kwargs["calls"])
        try:
            return self.fn.run(*args, grid=stop, warmup=warmup, calls=kwargs["calls"])
        except _Stop:
            return None
launcher = triton.autotune([triton.Config({}, **NONE), triton.Config({}, **NONE)], key=["n"])(Entry(inner))

CALLS = [0]
for name, kernel, kw in (("chain", chain, False), ("launcher", launcher, True)):
    def zero_(self):
        CALLS[0] += 1
        if kw:
            kernel[(1,)](self, self.numel(), calls=CALLS[0])
        else:
            kernel[(1,)](self, self.numel(), CALLS[0])
        return self
    impl = make_impl(get_operator("aten::zero_"), SimpleNamespace(zero_=zero_), SimpleNamespace(dispatch_key="CPU"))
    STATE.registered = STATE.replaced = frozenset(impl.fns)  # as the child sets them on a GPU
    STATE.registration = impl
    STATE.launch_violations.clear()
    STATE.begin_case(False)
    try:
        out = f"ok {torch.ones(40).zero_().sum().item()}"
    except Exception as exc:
        out = type(exc).__name__
    finally:
        STATE.end_case()
        impl.deactivate()
    row = get_operator("aten::zero_")
    verdict = judge_trace(dict(STATE.trace), frozenset(getattr(row, "own_ops", frozenset())),
                          getattr(row, "allow_copies", True), row.allow_trace, row.data_movement)
    print(name, out, sorted(dict(STATE.trace).items()), len(STATE.launch_violations), verdict.failure)
'''


def test_an_autotuned_kernel_inside_another_s_benchmarking_is_refused(tmp_path: Path) -> None:
    """Red team rt41: Triton benchmarks an autotuned kernel inside the launch window with the candidate's registration
    lifted; an inner autotuned kernel run there (the outer tuner's own kernel, ``autotune(autotune(jit))``, or one a
    launcher of the file calls) benchmarks too, and its reset_to_zero (and its run's reset after it) zeroed x with
    PyTorch's zero_, untraced: aten::zero_ with a kernel that computes nothing returned zeros with an empty trace and no
    verdict on the emulated GPU loop (``ok 0.0 [] 0 None`` for both before the fix). Now refused as a launch violation
    (profile): the nesting in the tuner's chain at the launch, and any autotuned launch while Triton benchmarks."""
    assert _run(tmp_path, NESTED, "--gpu-bench") == ["chain LaunchArgumentError [] 1 None",
                                                     "launcher LaunchArgumentError [] 1 None"]


HONEST = PRELUDE + r'''
@triton.jit
def acc(x, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

@triton.jit
def neg(x, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + o, -tl.load(x + o, mask=o < n), mask=o < n)

def zero_out(nargs):  # an atomic-add kernel's output zeroed by its configs' pre_hook
    nargs["out"].zero_()

G = lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)
def tuned(fn, **kw):
    return triton.autotune(CF, key=["n"], **kw)(fn)
T = {
    "view": tuned(add1, restore_value=["x"]),
    "slice": tuned(add1, restore_value=["x"]),
    "pre_hook": triton.autotune([triton.Config({"BLOCK": 16}, pre_hook=zero_out),
                                 triton.Config({"BLOCK": 32}, pre_hook=zero_out)], key=["n"])(acc),
    "heuristics_inside": tuned(triton.heuristics({"EVEN": even})(add1), restore_value=["x"]),
    "heuristics_outside": triton.heuristics({"EVEN": even})(tuned(add1, restore_value=["x"])),
    "forward": tuned(neg),
    "first": tuned(acc, reset_to_zero=["out"]),
    "second": tuned(add1, restore_value=["x"]),
}

class Neg(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.empty_like(x)
        T["forward"][G](x, out, x.numel())
        return out

    @staticmethod
    def backward(ctx, g):
        return -g

def three(k, t, *more):
    for _ in range(3):
        k[G](t, *more, t.numel())
BODIES = {
    "view": lambda x: three(T["view"], x.view(4, 10)) or x,  # the kernel's argument a view of the caller's tensor
    "slice": lambda x: three(T["slice"], x.view(-1)[4:36]) or x,
    "heuristics_inside": lambda x: three(T["heuristics_inside"], x) or x,
    "heuristics_outside": lambda x: three(T["heuristics_outside"], x) or x,
    "forward": lambda x: Neg.apply(x),
}
def first_second(x):  # two autotuned kernels, each benchmarking in turn in one call
    out = torch.empty_like(x)
    T["first"][G](x, out, x.numel())
    T["second"][G](out, out.numel())
    return out
BODIES["first_second"] = first_second
def pre_hook(x):
    out = torch.full_like(x, 7.0)
    three(T["pre_hook"], x, out)
    return out
BODIES["pre_hook"] = pre_hook
for name, body in BODIES.items():
    x = torch.arange(40, dtype=torch.float32)
    STATE.launch_violations.clear()
    STATE.begin_case(False)
    try:
        r = traced(body, "w")(x)
        out = f"{r[:3].tolist()} {r[-2:].tolist()}"
    except Exception as exc:
        out = type(exc).__name__
    finally:
        STATE.end_case()
    print(name, out, len(STATE.launch_violations))
'''


def test_honest_autotuned_kernels_beside_rt41_s_refusals_pass_the_gpu_loop(tmp_path: Path) -> None:
    """Red team rb41 of rt41's refusals (the restore through a view fixed at the clone; an autotuned launch while
    Triton benchmarks another is a launch violation), on the emulated GPU benchmark loop: what authors write near
    them computes its result and is not refused. restore_value on a ``.view()`` (and a slice) of the caller's tensor
    (x + 3 there, the rest untouched), configs' pre_hook zeroing an atomic-add output (2x, not 7 + ...), restore
    through autotune(heuristics(jit)) and heuristics(autotune(jit)), an autotuned kernel launched from an autograd
    Function's forward, and two autotuned kernels benchmarking one after the other in one call (2x + 1)."""
    assert _run(tmp_path, HONEST, "--gpu-bench") == [
        "view [3.0, 4.0, 5.0] [41.0, 42.0] 0",
        "slice [0.0, 1.0, 2.0] [38.0, 39.0] 0",
        "heuristics_inside [3.0, 4.0, 5.0] [41.0, 42.0] 0",
        "heuristics_outside [3.0, 4.0, 5.0] [41.0, 42.0] 0",
        "forward [0.0, -1.0, -2.0] [-38.0, -39.0] 0",
        "first_second [1.0, 3.0, 5.0] [77.0, 79.0] 0",
        "pre_hook [0.0, 2.0, 4.0] [76.0, 78.0] 0",
    ]
