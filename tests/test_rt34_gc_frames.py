"""Red team 34: a timed candidate that leaves its whole result to a garbage-collector finalizer with no frame of the
submission's file (tests/bad_timing/gc_partial__vllm__rms_norm.patch.py: ``__del__`` is
``staticmethod(functools.partial(list, map(torch.Tensor.copy_, [out], ...)))``), run by the collection between the
timing protocol's blocks, before the judged repetitions are written out. The collector's guard took a stack without a
frame of the submission's for PyTorch's or the harness's own garbage, and PyTorch's frames around the guard's dispatch
handler hid the "no Python frame at all" case: nothing was recorded, every judged repetition passed. Now an op during
a collection is recorded unless a ``__del__`` or generator of PyTorch's, Triton's or the harness's files runs it
(sandbox/collector.py ``_submission_frame``); unit cases in tests/test_collector.py.

Shown with the sandbox child's real code on the CPU: only the CUDA events, the synchronisation, the L2 flush and the
device lead are faked, and torch.compile's backend is ``eager``, as in tests/test_rt33_baseline_state.py."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch
from child_driver import DrivenChild
from fixture_files import write_submission

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "bad_timing" / "gc_partial__vllm__rms_norm.patch.py"



@pytest.mark.slow
def test_a_frameless_finalizer_that_computes_the_timed_result_is_recorded(tmp_path: Path) -> None:
    sub = write_submission(FIXTURE, tmp_path / "vllm__rms_norm.py")
    with DrivenChild("vllm::rms_norm", sub, tmp_path) as ch:
        ask = ch.ask
        assert ch.ready.get("ok")
        params = dict(shape=[4, 64], dtype="fp32", eps=1e-6, weight="randn")
        cpu = torch.device("cpu")
        case_in = tmp_path / "0.in.pt"
        torch.save(get_operator("vllm::rms_norm").build(params, cpu, generator(cpu, 500)).saved(), case_in)
        run = ask({"cmd": "case", "inp": str(case_in), "out": str(tmp_path / "0.out.pt")})
        assert run.get("error") is None and not run.get("launch_violations")  # the oracle's path: clean
        inp = tmp_path / "full-0.time.pt"
        torch.save({"warmup_seeds": [11, 22], "seed": 1000, "params": params}, inp)
        # a warm-up long enough for the two warm-up sets to alternate (A, B, A, B): the fixture's timing signal
        base = {"cmd": "time", "inp": str(inp), "reps": 10, "warmup_ms": 300.0, "baseline": None}
        assert ask({**base, "check": [], "check_out": None, "prepare": True}).get("error") is None
        timed = ask({**base, "check": [2, 7], "check_out": None, "fastest": 2})
        saved = ask({"cmd": "time", "inp": str(inp), "check_out": str(tmp_path / "full-0.timecheck.pt"),
                     "save": True})
    # since red team 38 the timed loop also fails the repetitions whose outputs the finalizers completed after their
    # calls returned (sandbox/timed_loop.py digest); the guard's record of the collection's ops is still there
    err = timed.get("error")
    if err is None:
        assert saved.get("error") is None
    else:  # nothing is kept to save after a failed timed command
        assert "changed after its call returned" in str(err.get("message")), err
    found = [v for v in timed["launch_violations"] if v.startswith("the garbage collector ran code of the submission")]
    assert found and "mm.default" in found[0] and "copy_" in found[0], timed["launch_violations"]


_UNGUARDED = r"""
import gc, sys, traceback
from kernelgenbench.sandbox import collector

STATE = {"taken": False, "inside": 0}
_take_over, _collect = collector.take_over, collector.collect


def take_over(*a, **k):
    _take_over(*a, **k)
    STATE["taken"] = True


def collect(*a, **k):
    STATE["inside"] += 1
    try:
        return _collect(*a, **k)
    finally:
        STATE["inside"] -= 1


def seen(phase, info):
    if phase == "start" and STATE["taken"] and not STATE["inside"]:
        where = [f"{f.filename.rsplit('/', 1)[-1]}:{f.name}" for f in traceback.extract_stack()[-4:-1]]
        sys.stderr.write(f"UNGUARDED gen{info['generation']} {where}\n")


collector.take_over, collector.collect = take_over, collect
gc.callbacks.append(seen)
"""


@pytest.mark.slow
def test_no_collection_runs_unguarded_in_the_child_while_the_compiled_baseline_is_made(tmp_path: Path) -> None:
    """dynamo collects the young generations after every compile (``run_gc_after_compile``), outside the guard; the
    child's environment turns that off (sandbox/runner.py child_env) and the child collects, guarded, after making
    the baseline. A real child through a correctness case, prepare, a timed command and the save: no collection
    after the submission's import runs outside collector.collect."""
    sub = ROOT / "solutions" / "vllm__rms_norm.py"
    with DrivenChild("vllm::rms_norm", sub, tmp_path, prelude=_UNGUARDED) as ch:
        ask = ch.ask
        assert ch.ready.get("ok")
        params = dict(shape=[4, 64], dtype="fp32", eps=1e-6, weight="randn")
        cpu = torch.device("cpu")
        case_in = tmp_path / "0.in.pt"
        torch.save(get_operator("vllm::rms_norm").build(params, cpu, generator(cpu, 500)).saved(), case_in)
        assert ask({"cmd": "case", "inp": str(case_in), "out": str(tmp_path / "0.out.pt")}).get("error") is None
        inp = tmp_path / "full-0.time.pt"
        torch.save({"warmup_seeds": [11, 22], "seed": 1000, "params": params}, inp)
        base = {"cmd": "time", "inp": str(inp), "reps": 10, "warmup_ms": 1.0, "baseline": None}
        prepared = ask({**base, "check": [], "check_out": None, "prepare": True})
        assert prepared.get("error") is None and prepared["baseline"].startswith("native-compiled"), prepared
        assert ask({**base, "check": [2], "check_out": None}).get("error") is None
        assert ask({"cmd": "time", "inp": str(inp), "check_out": str(tmp_path / "c.pt"), "save": True}).get(
            "error") is None
    log = (tmp_path / "child.log").read_text()
    assert "UNGUARDED" not in log, [x for x in log.splitlines() if "UNGUARDED" in x]
