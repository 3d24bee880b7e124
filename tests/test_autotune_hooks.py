"""The submission's own autotune hooks run traced while Triton benchmarks a config (sandbox/launch.py
``traced_autotune_hooks``). Red team 26: ``Autotuner._bench`` ran untraced (Triton's timing loop is not the
candidate's work), and so did the hooks it calls, so a ``triton.Config(pre_hook=)`` or ``autotune(pre_hook=)``
could compute the result with ATen on GPUs while a memcpy kernel passed. Here ``_bench`` is driven on the CPU with a
stand-in for Triton's benchmark loop (the interpreter platform itself ranks configs without running them)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

SCRIPT = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox import launch
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.state import STATE
from kernelgenbench.sandbox.dispatch import traced
install_launch_hooks()
# the stand-in for Triton's benchmark loop below is this test's code, which the autotune launch rule would refuse as a
# submission's do_bench= (tests/test_launch_args.py test_autotune_configs_must_be_plain tests that rule)
launch.check_autotuner = lambda *a, **k: None

@triton.jit
def copy(x, y, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

def compute(nargs):
    nargs["y"].copy_(torch.sin(nargs["x"]))

def zero(nargs, reset_only=False):
    nargs["y"].zero_()

for name, cfg_hook, user_hook, reset in (("config", compute, None, []), ("user", None, zero, []),
                                         ("triton_reset", None, None, ["y"])):
    kw = {"pre_hook": user_hook} if user_hook else {}
    tuner = triton.autotune(configs=[triton.Config({"BLOCK": 16}, pre_hook=cfg_hook)], key=["n"],
                            reset_to_zero=reset, **kw)(copy)
    # Triton's benchmark loop calls the config three times here (about a hundred on a GPU); the stand-in for
    # Triton's do_bench runs in triton.testing's globals, as Triton's own code does (the launch window judges an
    # exec'd frame by its module, and this script's own frames, -c code in __main__, are the submission's side)
    import triton.testing
    exec("def _stand_in(kernel_call, quantiles):\n"
         "    return [kernel_call() or kernel_call() or kernel_call() or 1.0] * 3\n", vars(triton.testing))
    tuner._do_bench = triton.testing._stand_in
    x = torch.randn(16); y = torch.empty(16)
    tuner.nargs = {"x": x, "y": y, "n": 16}
    def body(x, y):
        launch._TUNING.append(tuner)  # as inside Triton's own Autotuner.run of this tuner
        try:
            tuner._bench(x, y, 16, config=tuner.configs[0], grid=(1,))
        finally:
            launch._TUNING.pop()
        return y
    STATE.begin_case(False)
    try:
        traced(body, "w")(x, y)
    finally:
        STATE.end_case()
    hooks_left = (tuner.configs[0].pre_hook is cfg_hook, tuner.pre_hook is user_hook if user_hook else True)
    print(name, sorted(dict(STATE.trace).items()), all(hooks_left))
'''


def test_the_submission_s_autotune_hooks_are_traced_once_per_config() -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    # a Config pre_hook computing with ATen: traced, each op once although benchmarking called it three times
    assert lines["config"] == "[('aten::copy_', 1), ('aten::sin', 1)] True", lines
    # a user pre_hook zeroing the output: one zero_ per config, not one per timing repetition
    assert lines["user"] == "[('aten::zero_', 1)] True", lines
    # Triton's own reset_to_zero hook: traced since rb40 (the submission's result when zero_ is the operator under
    # test, tests/test_gpu_autotune_path.py), one zero_ per config, as Autotuner.run's reset after the benchmark
    assert lines["triton_reset"] == "[('aten::zero_', 1)] True", lines


DIRECT = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton
from triton.runtime.autotuner import Autotuner
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.launch_args import LaunchArgumentError
from kernelgenbench.sandbox.state import STATE
install_launch_hooks()
RAN = []

class Fake:  # a submission's object posing as a tuner: Triton's _bench would call its do_bench untraced
    def do_bench(self, fn, quantiles):
        RAN.append("do_bench")
        return [1.0, 1.0, 1.0]

@triton.jit
def k(x):
    pass

for self_ in (Fake(), triton.autotune(configs=[triton.Config({})], key=[])(k)):
    try:
        Autotuner._bench(self_, config=triton.Config({}))
        print("ran")
    except LaunchArgumentError as exc:
        print("refused", "outside Triton's own autotuning" in str(exc))
    except Exception as exc:  # a real tuner outside its run: refused before anything of it runs
        print("other", type(exc).__name__, exc)
print(RAN, len(STATE.launch_violations))
'''


def test_autotune_benchmarking_called_directly_is_refused() -> None:
    """Red team 30 (a GPU lead): ``Autotuner._bench(obj, config=...)`` with an object of the submission's would run
    its ``do_bench`` inside Triton's benchmarking, untraced. The hook refuses a ``_bench`` that is not Triton's own,
    from inside the ``run`` of that very tuner, before any of the object's code runs."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", DIRECT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    # both refused, nothing of the object ran; the one message is recorded once (State.note_violation)
    assert out.stdout.split("\n")[:3] == ["refused True", "refused True", "[] 1"], out.stdout


GRID = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kernelgenbench.sandbox import launch
from kernelgenbench.sandbox.launch import install_launch_hooks
from kernelgenbench.sandbox.state import STATE
from kernelgenbench.sandbox.dispatch import traced
install_launch_hooks()
launch.check_autotuner = lambda *a, **k: None  # the stand-in benchmark loop below is this test's own do_bench

@triton.jit
def copy(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

def grid(meta):
    meta["y"].copy_(torch.sin(meta["x"]))  # what a cheat would compute while Triton benchmarks
    return (1,)

def even(args):
    args["y"].add_(torch.cos(args["x"]))
    return True

tuner = triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"])(triton.heuristics({"EVEN": even})(copy))
tuner._do_bench = lambda kernel_call, quantiles: [kernel_call() or kernel_call() or 1.0] * 3
x = torch.randn(16); y = torch.empty(16)
tuner.nargs = {"x": x, "y": y, "n": 16}
def body(x, y):
    launch._TUNING.append(tuner)
    try:
        tuner._bench(x, y, 16, config=tuner.configs[0], grid=grid)
    finally:
        launch._TUNING.pop()
    return y
STATE.begin_case(False)
try:
    traced(body, "w")(x, y)
finally:
    STATE.end_case()
print(sorted(k for k in dict(STATE.trace) if k.startswith(("aten::sin", "aten::cos"))),
      type(tuner.fn.values["EVEN"]) is type(even) and tuner.fn.values["EVEN"] is even)
'''


def test_grid_and_heuristics_run_traced_while_triton_benchmarks() -> None:
    """Red team 30 (a GPU lead, read from Triton 3.6): ``_bench`` calls the launch grid and the kernel's
    ``@triton.heuristics`` functions on every benchmarked call, where nothing was traced: both now run traced (the
    ATen ops they run reach the call's trace, where L3 judges them), and the heuristics are restored after."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", GRID], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "['aten::cos', 'aten::sin'] True", out.stdout
