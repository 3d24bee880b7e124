"""Settings.timing_hold: how long a job holds its GPU alone while it times (run/gate.py).

A case is timed in three steps: the child builds the warm-up sets and makes the baseline (a ``prepare`` time
command: a vLLM reference's torch.compile), then warms up and runs the timed blocks (the time command, which uses
what the prepare command made), then the verifier judges the checked repetitions. With ``case`` only the middle
step holds the GPU alone; with ``job`` (the default) the job holds it from its first timed case to its last.
The real timing runs on GPUs (tests/test_timing_gpu.py); here the child's and the verifier's halves run on the CPU
with the timed loop and the session faked."""
from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from kernelgenbench.sandbox import child as child_mod
from kernelgenbench.sandbox.protocol import TimeAnswer, TimeCommand
from kernelgenbench.settings import Settings
from kernelgenbench.suite.spec import Call


class CountingOp:
    """An operator whose baseline counts how often it is made (each making is one torch.compile on a GPU)."""

    baseline_kinds = ()

    def __init__(self) -> None:
        self.made = 0

    def build(self, params: dict, device: torch.device, gen: torch.Generator) -> Call:
        return Call([torch.rand(4, generator=gen)], {}, (), ())

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        self.made += 1
        n = self.made
        return (lambda c: c.args[0] * n), f"native-compiled (made {n})"


def _child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[Any], list[Any]]:
    """A sandbox child (its command handlers only) whose timed loop records the baseline it was handed."""
    sent: list[Any] = []
    timed: list[Any] = []

    def fake_time_case(op, impl, base_fn, calls, platform, state, **kw):
        timed.append((base_fn, [c.args[0].clone() for c in calls]))
        return {"checked": {}, "baseline_ms": 1.0, "candidate_ms": 0.5, "warmup_wall_ms": 0.0}

    monkeypatch.setattr("kernelgenbench.sandbox.timed_loop.time_case", fake_time_case)
    monkeypatch.setattr(child_mod.collector, "collect_command", lambda path: 2)
    ch = child_mod.Child.__new__(child_mod.Child)
    ch.prepared, ch.ahead = None, {}
    ch.torch = torch
    ch.op = CountingOp()
    ch.platform = SimpleNamespace(interpreter=True, device="cpu")
    ch.impl = ch.state = None
    ch.submission_path = tmp_path / "sub.py"
    ch.send = sent.append
    return ch, sent, timed


def _inp(tmp_path: Path, name: str, seed: int) -> str:
    path = tmp_path / name
    torch.save({"warmup_seeds": [seed, seed + 1], "params": {}, "seed": seed + 2}, path)
    return str(path)


def test_a_prepared_baseline_is_the_one_the_next_time_command_of_its_case_uses(tmp_path, monkeypatch) -> None:
    ch, sent, timed = _child(tmp_path, monkeypatch)
    a = _inp(tmp_path, "a.time.pt", 10)
    ch.run_time(TimeCommand(a, 10, 1.0, prepare=True))
    ready = sent.pop()
    assert isinstance(ready, TimeAnswer) and ready.error is None
    assert ready.baseline == "native-compiled (made 1)" and ready.baseline_ms is None
    assert set(ready.phases_ms) == {"load", "baseline"} and not timed  # nothing timed yet
    ch.run_time(TimeCommand(a, 10, 1.0))
    answer = sent.pop()
    assert ch.op.made == 1 and answer.baseline == "native-compiled (made 1)"
    assert answer.phases_ms["baseline"] == ready.phases_ms["baseline"]
    base_fn, warm = timed.pop()
    assert float(base_fn(Call([torch.ones(1)], {}, (), ()))[0]) == 1.0  # the first baseline made, not a new one
    assert ch.prepared is None  # used once
    # a time command with nothing prepared for its case makes its own (and a prepare for another case is not used)
    b = _inp(tmp_path, "b.time.pt", 20)
    ch.run_time(TimeCommand(a, 10, 1.0, prepare=True))
    sent.pop()
    ch.run_time(TimeCommand(b, 10, 1.0))
    assert ch.op.made == 3 and sent.pop().baseline == "native-compiled (made 3)"
    ch.run_time(TimeCommand(b, 10, 1.0))
    assert ch.op.made == 4


def test_the_warm_up_sets_of_a_prepared_case_are_its_own(tmp_path, monkeypatch) -> None:
    """The prepared warm-up sets are those the time command alone would build (from the case's seeds)."""
    ch, sent, timed = _child(tmp_path, monkeypatch)
    a = _inp(tmp_path, "a.time.pt", 10)
    ch.run_time(TimeCommand(a, 10, 1.0))
    _, alone = timed.pop()
    ch.run_time(TimeCommand(a, 10, 1.0, prepare=True))
    ch.run_time(TimeCommand(a, 10, 1.0))
    _, prepared = timed.pop()
    assert len(alone) == 2 and all(torch.equal(x, y) for x, y in zip(alone, prepared))
    assert not torch.equal(alone[0], alone[1])


def test_a_baseline_that_fails_to_be_made_is_reported_by_the_prepare_command_as_the_baselines(
        tmp_path, monkeypatch) -> None:
    ch, sent, timed = _child(tmp_path, monkeypatch)

    def broken(call, platform, prefer=None):
        raise RuntimeError("Inductor crashed")

    ch.op.baseline = broken
    ch.run_time(TimeCommand(_inp(tmp_path, "a.time.pt", 10), 10, 1.0, prepare=True))
    err = sent.pop().error
    assert err["stage"] == "baseline" and "making the baseline failed: RuntimeError: Inductor crashed" in err["message"]
    assert ch.prepared is None and not timed


def _phase(tmp_path: Path, answers: list[TimeAnswer], events: list[str]) -> Any:
    from kernelgenbench.verify.timing import TimingPhase

    def request(cmd: TimeCommand, timeout: float) -> TimeAnswer:
        events.append("prepare" if cmd.prepare else "save" if cmd.save else "time")
        if not cmd.prepare and not cmd.save:
            assert cmd.check_out is None  # the timed command keeps its checked repetitions; a save command writes them
        return answers.pop(0)

    phase = TimingPhase.__new__(TimingPhase)
    phase.op = SimpleNamespace(baseline_label=lambda: "native-compiled (...)")
    phase.platform = SimpleNamespace(interpreter=False, failure_patterns=())
    phase.settings = SimpleNamespace(reps=10, warmup_ms=10.0, timing_checks=2, timing_fastest=2, time_timeout_s=60.0,
                                     baseline=None)
    phase.session = SimpleNamespace(request=request, check_launch=lambda *a: None)
    phase.rng, phase.io, phase.harness_ms, phase.ahead_ms = random.Random(0), tmp_path, {}, {}
    phase.record = SimpleNamespace(baseline=None)

    @contextlib.contextmanager
    def hold(name: str):
        events.append(f"{name}+")
        try:
            yield
        finally:
            events.append(f"{name}-")

    phase.hold_untimed = lambda: hold("shared")
    phase.hold_timed = lambda: hold("alone")

    def judge(case, msg, wall_ms, check, check_out, base_seed):
        events.append("judge")
        return 1.5

    phase._judge = judge
    return phase


def test_each_case_makes_its_baseline_and_is_judged_outside_the_hold_of_its_timed_blocks(tmp_path) -> None:
    events: list[str] = []
    answers = [TimeAnswer(baseline="native-compiled", phases_ms={"load": 1.0, "baseline": 900.0}),
               TimeAnswer(baseline_ms=1.0, candidate_ms=0.5, baseline="native-compiled",
                          phases_ms={"load": 1.0, "baseline": 900.0, "warmup": 20.0, "blocks": 30.0}),
               TimeAnswer(phases_ms={"save": 250.0})]
    phase = _phase(tmp_path, answers, events)
    case = SimpleNamespace(tier="full", index=4, seed=7, params={}, id="full/4")
    msg = phase.time_one(case)
    # the checked repetitions are written out (save) after the exclusive hold, beside the judging
    assert events == ["shared+", "prepare", "shared-", "alone+", "time", "alone-", "shared+", "save", "judge",
                      "shared-"]
    assert msg.candidate_ms == 0.5
    cost = phase.harness_ms["full/4"]
    assert cost["baseline"] == 900.0 and cost["device"] == 1.5 and cost["made"] >= 0.0 and cost["save"] == 250.0


def test_a_baseline_failure_at_the_prepare_command_is_the_baselines_and_nothing_is_timed(tmp_path) -> None:
    from kernelgenbench.verify.failures import JobFailed

    events: list[str] = []
    err = {"type": "BaselineFailed", "message": "making the baseline failed: RuntimeError: x", "stage": "baseline",
           "chain": ["BaselineFailed"], "traceback": ""}
    phase = _phase(tmp_path, [TimeAnswer(error=err)], events)
    case = SimpleNamespace(tier="full", index=4, seed=7, params={}, id="full/4")
    with pytest.raises(JobFailed) as info:
        phase.time_one(case)
    assert info.value.cls == "baseline" and events == ["shared+", "prepare", "shared-"]


def test_timing_hold_is_validated() -> None:
    assert Settings().timing_hold == "job"
    assert Settings(timing_hold="case").timing_hold == "case"
    with pytest.raises(ValueError, match="timing_hold='op': expected one of job, case"):
        Settings(timing_hold="op")


def test_kgb_eval_refuses_an_unknown_timing_hold(tmp_path) -> None:
    from typer.testing import CliRunner

    from kernelgenbench.cli import app

    res = CliRunner().invoke(app, ["eval", str(tmp_path), "--timing-hold", "op"])
    assert res.exit_code == 2 and "--timing-hold 'op': expected one of job, case" in res.output


def test_a_job_whose_cases_had_different_baselines_is_labelled_by_the_weakest() -> None:
    """A vLLM case whose torch.compile failed runs against the eager reference; the job's label must not hide it
    behind the last case's (red team 32: the last label won)."""
    from kernelgenbench.suite.baselines import baseline_kind
    from kernelgenbench.verify.timing import job_baseline_label

    comp = "native-compiled (the native PyTorch reference under torch.compile, compiled before timing)"
    eager = "native-eager (the native PyTorch reference, eager); torch.compile failed (OutOfMemoryError: ...)"
    assert job_baseline_label([comp, comp]) == comp
    assert job_baseline_label([]) is None and job_baseline_label([None]) is None
    mixed = job_baseline_label([comp, eager, comp, comp])
    assert mixed.startswith(eager + " [1 of 4 timed cases; the others: 3: native-compiled")
    assert baseline_kind(mixed) == "native-eager"
    assert baseline_kind(job_baseline_label(["vllm (vllm._custom_ops.rms_norm)", comp])) == "native-compiled"


@pytest.mark.parametrize("ooms_during, label, failed", [
    (1, "native-eager (the native PyTorch reference, eager); torch.compile failed (OutOfMemoryError: ...)", True),
    (0, "native-eager (the native PyTorch reference, eager); torch.compile failed (RuntimeError: no compiler)", False),
    (1, "native-compiled (the native PyTorch reference under torch.compile, compiled before timing)", False)])
def test_a_fall_back_to_eager_while_the_device_ran_out_of_memory_is_the_baselines_failure(
        tmp_path, monkeypatch, ooms_during, label, failed) -> None:
    """The device's allocator counting an out-of-memory failure while the reference was compiled (the evidence
    verify/failures.py trusts for oom, not a message) makes a fall back to native-eager the baseline's failure: memory
    the submission holds must not buy it the weaker bar (red team 32)."""
    ch, sent, timed = _child(tmp_path, monkeypatch)
    state = {"ooms": 5}

    def make(call, platform, prefer=None):
        state["ooms"] += ooms_during   # the allocator's count while the reference is compiled
        return (lambda c: None), label

    monkeypatch.setattr(child_mod, "_allocator_ooms", lambda: state["ooms"])
    ch.op.baseline = make
    ch.run_time(TimeCommand(_inp(tmp_path, "a.time.pt", 10), 10, 1.0, prepare=True))
    err = sent.pop().error
    if failed:
        assert err["stage"] == "baseline" and "the device ran out of memory while the reference was compiled" in \
            err["message"]
    else:
        assert err is None


def test_the_checked_repetitions_are_kept_by_the_timed_command_and_written_by_the_save_command(
        tmp_path, monkeypatch) -> None:
    """A timed command without check_out keeps its checked repetitions in the child; the save command that follows
    (outside the GPU's exclusive hold) writes exactly those to its check_out, once, and only for the same case."""
    ch, sent, timed = _child(tmp_path, monkeypatch)
    rep = Call([torch.tensor([1.0, 2.0])], {}, (0,), ())

    def time_case_with_checks(op, impl, base_fn, calls, platform, state, **kw):
        return {"checked": {3: (rep, torch.tensor([5.0]))}, "baseline_ms": 1.0, "candidate_ms": 0.5,
                "warmup_wall_ms": 0.0}

    monkeypatch.setattr("kernelgenbench.sandbox.timed_loop.time_case", time_case_with_checks)
    monkeypatch.setattr(ch, "harness_io", contextlib.nullcontext, raising=False)
    a, b = _inp(tmp_path, "a.time.pt", 10), _inp(tmp_path, "b.time.pt", 20)
    out = tmp_path / "a.timecheck.pt"
    ch.run_time(TimeCommand(a, 10, 1.0, [3]))
    assert sent.pop().error is None and not out.exists()  # kept, not written under the exclusive hold
    ch.run_time(TimeCommand(b, check_out=str(out), save=True))  # another case's save: nothing kept for it
    err = sent.pop().error
    assert err is not None and "no timed repetitions are kept" in err["message"] and not out.exists()
    ch.run_time(TimeCommand(a, 10, 1.0, [3]))
    sent.pop()
    ch.run_time(TimeCommand(a, check_out=str(out), save=True))
    answer = sent.pop()
    assert answer.error is None and answer.phases_ms["save"] >= 0.0
    kept = torch.load(out, weights_only=True)
    assert set(kept) == {"3"} and torch.equal(kept["3"]["args"][0], torch.tensor([1.0, 2.0]))
    assert torch.equal(kept["3"]["ret"], torch.tensor([5.0]))
    ch.run_time(TimeCommand(a, check_out=str(tmp_path / "again.pt"), save=True))  # written once
    assert sent.pop().error is not None and not (tmp_path / "again.pt").exists()


def test_the_save_command_crosses_the_channel() -> None:
    cmd = TimeCommand("a.time.pt", check_out="a.timecheck.pt", save=True)
    back = TimeCommand.from_json(json.loads(json.dumps(cmd.to_json())))
    assert back.save and back.check_out == "a.timecheck.pt" and not back.prepare
    assert not TimeCommand.from_json(TimeCommand("a.time.pt").to_json()).save
