"""The timing protocol (verify/timing.py) with CUDA events, synchronisation and the L2 flush faked on
the CPU: alternation of input sets, the judged timed repetitions, the launch and wall-clock checks.
(The real thing runs on GPUs: bench/h200_full.sh.)"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
import torch

from kernelgenbench.sandbox.hooks import State
from kernelgenbench.suite.spec import Call
from kernelgenbench.verify import timing


class FakeEvent:
    scale = 1.0

    def record(self) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, other: "FakeEvent") -> float:
        return (other.t - self.t) * 1e3 * FakeEvent.scale


@pytest.fixture(autouse=True)
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeEvent.scale = 1.0
    monkeypatch.setattr(timing, "_new_event", FakeEvent)
    monkeypatch.setattr(timing, "_synchronize", lambda: None)
    monkeypatch.setattr(timing, "flush_l2", lambda device, state: None)
    monkeypatch.setattr(timing, "_device_lead", lambda ms: None)


class DoubleOp:
    """out = 2 * x; the candidate records one launch per call unless told otherwise."""

    nothing_to_compute = False

    def __init__(self, state: State, mode: str = "honest") -> None:
        self.state, self.mode, self.cache = state, mode, None

    def invoke(self, impl, call: Call, platform) -> torch.Tensor:
        out, x = call.args
        self.state.launches.append("double_kernel")
        if self.mode == "skip_launch" and len(self.state.launches) > 3:
            self.state.launches.pop()
        if self.mode == "cache" and self.cache is not None:
            out.copy_(self.cache)
            return out
        out.copy_(x * 2)
        self.cache = out.clone()
        return out


def _sets() -> list[Call]:
    return [Call([torch.zeros(8), torch.arange(8.0) + 10 * i], written=(0,)) for i in range(2)]


def _run(op: DoubleOp, state: State, check=None) -> dict:
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    base = lambda c: c.args[0].copy_(c.args[1] * 2)  # noqa: E731
    return timing.time_case(op, impl, base, _sets(), SimpleNamespace(device="cpu"), state, reps=20, warmup_ms=1,
                            block=5, check=check)


def test_alternates_input_sets_and_keeps_the_checked_repetitions() -> None:
    state = State()
    res = _run(DoubleOp(state), state, check={0: 3, 1: 7})
    assert len(res["candidate_samples"]) == 20 and len(res["baseline_samples"]) == 20
    assert res["baseline_ms"] > 0 and res["candidate_ms"] > 0 and res["launches_per_rep"] == 1
    for k in (0, 1):
        call, ret = res["checked"][k]
        assert torch.equal(call.args[0], 2 * (torch.arange(8.0) + 10 * k)) and ret is call.args[0]
    assert state.tracing is True  # restored after timing


def test_a_cached_answer_shows_in_the_checked_repetition() -> None:
    state = State()
    res = _run(DoubleOp(state, mode="cache"), state, check={0: 0, 1: 0})
    call, _ = res["checked"][1]
    assert not torch.equal(call.args[0], 2 * call.args[1])  # the verifier's comparison then fails the job


def test_a_repetition_without_a_launch_is_rejected() -> None:
    state = State()
    with pytest.raises(RuntimeError, match="launched no Triton kernel"):
        _run(DoubleOp(state, mode="skip_launch"), state)


def test_event_times_beyond_the_host_clock_are_rejected() -> None:
    FakeEvent.scale = 50.0
    state = State()
    with pytest.raises(RuntimeError, match="timing check failed"):
        _run(DoubleOp(state), state)
