"""Red team 33: a candidate that acts on the BASELINE side of timing (README "Timing protocol", "Baselines"), and
the harness's answers.

R33-1: PyTorch's global grad mode (and inference mode) is process state the candidate shares with the
``native-compiled`` baseline, whose graphs dynamo guards on it (``torch._C._dynamo.guards.GlobalStateGuard``). A
candidate that left ``torch.no_grad()`` or ``torch.inference_mode()`` entered after its warm-up calls (``__enter__``
is a harmless name to L1) made the compiled reference compile a second graph inside the first timed block, and the
child then timed the case again against the EAGER reference, blaming the reference. Now the child records the global
state before the submission's import and fails any change after the import, before or after a call and during a
collection as a launch-rule violation (class ``profile``: sandbox/drive.py ``global_state_change``).

R33-2: that eager retime reused the timed input sets of the attempt it replaced, so a memo of the candidate's own
results answered them. Now nothing is timed again: a reference whose graphs depend on its input values is found
before timing, on fresh probe sets (sandbox/child.py ``probe_baseline``), and timed eagerly from the start; a compile
seen only inside the timed loop fails the baseline (class ``baseline``, judged again on resume).

Shown on the CPU with the sandbox child's real code; only the CUDA events, the synchronisation, the L2 flush and the
device lead are faked, and torch.compile's backend is ``eager`` (dynamo's guards are the same for every backend).
"""
from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from child_driver import DrivenChild
from fixture_files import write_submission

from kernelgenbench.sandbox import timed_loop
from kernelgenbench.sandbox.state import State
from kernelgenbench.suite.baselines import baseline_kind
from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.vllm.common import CompiledBaseline, pick_baseline
from kernelgenbench.suite.vllm.norms import _rms_base_native

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "bad_timing" / "grad_flip__vllm__rms_norm.patch.py"
MEMO_FIXTURE = ROOT / "tests" / "bad_timing" / "retime_memo__vllm__rms_norm.patch.py"
ORACLE = ROOT / "solutions" / "vllm__rms_norm.py"


# ------------------------------------------------------------------------------------------------ the unit
def _rms_set(seed: int) -> Call:
    g = torch.Generator().manual_seed(seed)
    return Call([torch.empty(16, 64), torch.randn(16, 64, generator=g), torch.randn(64, generator=g), 1e-6],
                written=(0,))


class _FlipOp:
    """A candidate that computes rms_norm right (with PyTorch here: the unit is about the baseline side) and leaves
    PyTorch's global ``state`` (``no_grad`` or ``inference_mode``) entered after every call."""

    nothing_to_compute = False

    def __init__(self, state: State, mode: str) -> None:
        self.state, self.mode, self.held = state, mode, []

    def drive_timed(self, call: Call, candidate: Any) -> Any:
        self.state.launches.append("k")
        _rms_base_native(call)
        while self.held:
            self.held.pop().__exit__(None, None, None)
        if self.mode != "honest":
            cm = torch.no_grad() if self.mode == "no_grad" else torch.inference_mode()
            cm.__enter__()
            self.held.append(cm)
        return None

    def release(self) -> None:
        while self.held:
            self.held.pop().__exit__(None, None, None)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_candidate_that_leaves_grad_state_changed_fails_at_its_call(timed_loop_on_cpu: None, mode: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.sandbox import drive
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(drive, "_GLOBAL", None)
    monkeypatch.setattr(STATE, "launch_violations", [])
    base, label = pick_baseline("rms_norm", _rms_base_native, _rms_set(0), backend="eager")
    assert isinstance(base, CompiledBaseline) and baseline_kind(label) == "native-compiled"
    drive.record_global_state()  # as the child does before the submission's import
    state = State()
    op = _FlipOp(state, mode)
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    try:
        with pytest.raises(RuntimeError, match="global state changed after a timed call") as info:
            timed_loop.time_case(op, impl, base, [_rms_set(1), _rms_set(2)], SimpleNamespace(device="cpu"), state,
                                 reps=10, warmup_ms=0.0, block=5, make_set=lambda k: _rms_set(100 + k))
    finally:
        op.release()
    assert ("inference mode" if mode == "inference_mode" else "grad_mode") in str(info.value)
    assert STATE.launch_violations and "global state changed" in STATE.launch_violations[0]
    assert base.compiles == 0  # the baseline never ran in the changed state


def test_the_same_loop_with_an_honest_candidate_keeps_the_compiled_baseline(timed_loop_on_cpu: None) -> None:
    base, _ = pick_baseline("rms_norm", _rms_base_native, _rms_set(0), backend="eager")
    state = State()
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    res = timed_loop.time_case(_FlipOp(state, "honest"), impl, base, [_rms_set(1), _rms_set(2)],
                               SimpleNamespace(device="cpu"), state, reps=10, warmup_ms=0.0, block=5,
                               make_set=lambda k: _rms_set(100 + k))
    assert len(res["baseline_samples"]) == 10 and base.compiles == 0


# ------------------------------------------------------------------------------------------------ the child


def _time_in_child(submission: Path, tmp: Path, cases: int = 2, reps: int = 10,
                   clean: bool = True) -> list[dict[str, Any]]:
    """The answers of a real sandbox child to the verifier's commands for ``cases`` cases of vllm::rms_norm, per case:
    a correctness run, then timing's ``prepare`` and timed commands (verify/timing.py ``TimingPhase.time_one``)."""
    with DrivenChild("vllm::rms_norm", submission, tmp) as ch:
        assert ch.ready.get("ok"), ch.ready
        out = []
        params = dict(shape=[8, 64], dtype="fp32", eps=1e-6, weight="randn")
        op = get_operator("vllm::rms_norm")
        for i in range(cases):
            # a correctness run of the case first, as the verifier's correctness phase does (its trace is what
            # timed_ops_beyond compares the timed calls with)
            case_in, case_out = tmp / f"{i:05d}.in.pt", tmp / f"{i:05d}.out.pt"
            torch.save(op.build(params, torch.device("cpu"), generator(torch.device("cpu"), 500 + i)).saved(), case_in)
            msg = ch.ask({"cmd": "case", "inp": str(case_in), "out": str(case_out)})
            assert msg.get("error") is None and msg.get("launches"), msg
            out.append(msg)
            inp = tmp / f"full-{i}.time.pt"
            torch.save({"warmup_seeds": [11 + i, 22 + i], "seed": 1000 + i, "params": params}, inp)
            for prepare in (True, False):
                msg = ch.ask({"cmd": "time", "inp": str(inp), "reps": reps, "warmup_ms": 1.0,
                              "check": [] if prepare else [3], "baseline": None, "prepare": prepare})
                if clean or prepare:
                    assert msg.get("error") is None, msg.get("error")
                    assert not msg.get("launch_violations"), msg["launch_violations"]
                out.append(msg)
            if clean:  # the checked repetition, written by the save command as the verifier asks for it
                saved = ch.ask({"cmd": "time", "inp": str(inp), "check_out": str(tmp / f"full-{i}.timecheck.pt"),
                                "save": True})
                assert saved.get("error") is None and (tmp / f"full-{i}.timecheck.pt").exists(), saved
        return out


@pytest.mark.slow
def test_the_grad_flip_fixture_fails_as_a_global_state_change_in_a_real_child(tmp_path: Path) -> None:
    sub = write_submission(FIXTURE, tmp_path / "vllm__rms_norm.py")
    answers = _time_in_child(sub, tmp_path, cases=1, clean=False)
    run, prepared, timed = answers
    assert baseline_kind(prepared["baseline"]) == "native-compiled", prepared["baseline"]
    # the timed command fails at the candidate's call that left no_grad entered, and says so
    assert timed.get("error") is not None
    assert "global state changed after a timed call (grad_mode)" in timed["error"]["message"], timed["error"]
    assert any("global state changed" in v for v in timed["launch_violations"]), timed["launch_violations"]


@pytest.mark.slow
def test_the_oracle_keeps_the_compiled_bar_in_the_same_child(tmp_path: Path) -> None:
    answers = _time_in_child(ORACLE, tmp_path)
    timing = [a for i, a in enumerate(answers) if i % 3]
    assert all(baseline_kind(a["baseline"]) == "native-compiled" for a in timing), [a["baseline"] for a in timing]


# ------------------------------------------------------------------------- R33-2: the retime repeats the sets
class _MemoFlipOp:
    """vllm::rms_norm-shaped operator (out, x, w, eps) whose candidate

    * computes honestly, slowly (``COMPUTE_S`` of host sleep standing for an expensive kernel), and keeps every result
      it computed in a memo keyed by two input values (a workspace kept across calls: the README allows it; on a GPU
      the memo answer would be a Triton copy kernel, the key a couple of ``.item()`` reads);
    * answers a call whose key it has seen from the memo (exact, so right: the judged repetitions pass);
    * leaves ``torch.no_grad()`` entered after its 20th consecutive call on fresh values, i.e. at the end of its side
      of timed block 1 (block order baseline/candidate, then candidate/baseline): the baseline side of block 1 runs
      with grad mode off, recompiles, and the child times the case again, against the eager reference, on the SAME
      timed input sets (``make_set`` is the same closure, seeds ``timed_set_seed(base, k)``): sets 0..19 were seen.
    """

    nothing_to_compute = False
    baseline_kinds = ("native-compiled", "native-eager")
    COMPUTE_S = 0.004

    def __init__(self, state: State) -> None:
        self.state = state
        self.memo: dict[tuple[float, float], torch.Tensor] = {}
        self.recent: list[tuple[float, float]] = []
        self.fresh_run = 0
        self.held: list[Any] = []
        self.calls: list[tuple[str, bool]] = []  # (kind, answered from the memo) of every call

    # the operator's side (suite/spec.py): inputs and the baseline
    def build(self, params: dict, device: torch.device, gen: torch.Generator) -> Call:
        return Call([torch.empty(16, 64), torch.randn(16, 64, generator=gen), torch.randn(64, generator=gen), 1e-6],
                    written=(0,))

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        return pick_baseline("rms_norm", _rms_base_native, call, prefer=prefer, backend="eager")

    # the candidate
    def drive_timed(self, call: Call, candidate: Any) -> Any:
        self.state.launches.append("rms_norm_kernel")
        out, x = call.args[0], call.args[1]
        key = (float(x[0, 0]), float(x[1, 1]))
        warm = key in self.recent  # the warm-up cycles through two sets
        self.recent = (self.recent + [key])[-2:]
        if key in self.memo:
            out.copy_(self.memo[key])
            hit = True
        else:
            time.sleep(self.COMPUTE_S)
            _rms_base_native(call)
            self.memo[key] = out.clone()
            hit = False
        self.calls.append(("warm" if warm else "timed", hit))
        self.fresh_run = 0 if warm else self.fresh_run + 1
        while self.held:
            self.held.pop().__exit__(None, None, None)
        if self.fresh_run == 20:
            g = torch.no_grad()
            g.__enter__()
            self.held.append(g)
        return None

    def release(self) -> None:
        while self.held:
            self.held.pop().__exit__(None, None, None)


@pytest.mark.parametrize("guarded", [True, False])
def test_a_compile_inside_the_timed_loop_is_never_timed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              guarded: bool, timed_loop_on_cpu: None) -> None:
    """The stand-in candidate flips grad mode after its side of timed block 1. With the global state recorded (the
    child's start does it) the call that flipped it fails; without (a state no check covers), the baseline compiles in
    its block and the baseline fails: no second attempt on values already drawn, no eager bar."""
    from kernelgenbench.sandbox import child as child_mod
    from kernelgenbench.sandbox import drive
    from kernelgenbench.sandbox.protocol import TimeAnswer, TimeCommand
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(child_mod.collector, "collect_command", lambda path: 2)
    monkeypatch.setattr(drive, "_GLOBAL", None)
    monkeypatch.setattr(STATE, "launch_violations", [])
    attempts: list[int] = []
    real = timed_loop.time_case

    def counted(*a: Any, **kw: Any) -> Any:
        attempts.append(len(op.calls))
        return real(*a, **kw)

    monkeypatch.setattr(timed_loop, "time_case", counted)
    state = State()
    op = _MemoFlipOp(state)
    sent: list[Any] = []
    ch = child_mod.Child.__new__(child_mod.Child)
    ch.prepared, ch.ahead, ch.torch, ch.op, ch.state = None, {}, torch, op, state
    ch.platform = SimpleNamespace(interpreter=True, device="cpu")
    ch.impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    ch.submission_path = str(tmp_path / "sub.py")
    ch.send = sent.append
    inp = tmp_path / "full-0.time.pt"
    torch.save({"warmup_seeds": [1, 2], "params": {}, "seed": 3}, inp)
    if guarded:
        drive.record_global_state()
    try:
        ch.run_time(TimeCommand(str(inp), 30, 1.0, prepare=True))           # Settings.reps = 30: 3 blocks
        ready = sent[-1]
        assert ready.error is None and baseline_kind(ready.baseline) == "native-compiled", ready.baseline
        ch.run_time(TimeCommand(str(inp), 30, 1.0, [4, 17], str(tmp_path / "check.pt")))
    finally:
        op.release()
    answer = sent[-1]
    assert isinstance(answer, TimeAnswer) and answer.error is not None and answer.baseline_ms is None
    assert len(attempts) == 1  # one attempt only
    if guarded:
        assert "global state changed after a timed call (grad_mode)" in answer.error["message"], answer.error
    else:
        assert answer.error["stage"] == "baseline", answer.error
        assert "compiled 1 new graph(s) of the baseline inside a timed block" in answer.error["message"]
        assert ("though it compiled none on the other warm-up set and 3 fresh probe sets of the case "
            "before timing") in answer.error["message"]


@pytest.mark.slow
def test_the_memo_fixture_fails_as_a_global_state_change_in_a_real_child(tmp_path: Path) -> None:
    """tests/bad_timing/retime_memo__vllm__rms_norm.patch.py in the real child at the default ``reps=30``: the call that
    flips grad mode fails, before any retime could hand its memo values it has seen."""
    sub = write_submission(MEMO_FIXTURE, tmp_path / "vllm__rms_norm.py")
    run, prepared, timed = _time_in_child(sub, tmp_path, cases=1, reps=30, clean=False)
    assert baseline_kind(prepared["baseline"]) == "native-compiled"
    assert timed.get("error") is not None and "global state changed" in timed["error"]["message"], timed.get("error")
    calls = [line.split()[1] for line in (tmp_path / "child.out").read_text().splitlines() if line.startswith("rt33 ")]
    assert "hit" not in calls[-30:] or calls.count("hit") <= 2, calls[-30:]  # nothing answered from a retime


def test_a_graph_compiled_while_the_submissions_code_runs_is_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth beside L1 and the trace (tests/bad/module_compile__aten__neg.py): dynamo's graph count around a
    call (sandbox/drive.py compiler_used). The op's drive compiles outside any dispatch mode here, as nothing of the
    harness would let a submission do."""
    from kernelgenbench.sandbox import drive
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(STATE, "launch_violations", [])
    monkeypatch.setattr(drive, "_GLOBAL", None)

    class CompilingOp:
        def drive(self, call: Call, candidate: Any) -> Any:
            f = torch.compile(lambda x: torch.sin(x) * 2 + 1, backend="eager")
            return f(call.args[0])

    with pytest.raises(RuntimeError, match=r"torch.compile compiled 1 graph\(s\) during a call"):
        drive.invoke(CompilingOp(), None, Call([torch.ones(4)]), SimpleNamespace())
    assert any("PyTorch compiler stack" in v for v in STATE.launch_violations)
    # a call that compiles nothing passes, and so does the harness's own compile between calls
    assert drive.compiler_used(drive.compiled_graphs(), "during a call") is None
