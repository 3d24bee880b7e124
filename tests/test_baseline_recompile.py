"""A compiled vLLM baseline that compiles again inside the timed loop (issue 14: compile time stays outside the
timed region).

A native reference whose shapes depend on its input values (a host read sizing a tensor, as ggml_moe_a8's
``int(counts.max())``) compiles a new graph for every fresh timed input set under ``torch.compile(dynamic=False)``;
an H100 timed 150 ms of compilation as the baseline of two ggml_moe_a8 cases (3fe7849, a 3000x "speedup"). The
compiled baseline counts its compilations (suite/vllm/common.py ``CompiledBaseline``), the timed loop raises
``BaselineRecompiled`` after a block in which it compiled, and the sandbox child times the case again against the
eager reference, labelled with why. Here with the ``eager`` backend of torch.compile (dynamo's graph capture, no
code generation) and the timed loop's device parts faked on the CPU."""
from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from kernelgenbench.sandbox import child as child_mod
from kernelgenbench.sandbox import timed_loop
from kernelgenbench.sandbox.protocol import TimeAnswer, TimeCommand
from kernelgenbench.sandbox.state import State
from kernelgenbench.suite.baselines import baseline_kind
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.vllm.common import CompiledBaseline, pick_baseline


def _value_shaped(call: Call) -> torch.Tensor:
    """out[:k] = 3 cos(2 sin(x[:k]) + 1) with k = the count of positive entries: a host read sizes the work (a
    graph before the read and one after it, whose shapes are k's)."""
    out, x = call.args
    y = torch.sin(x) * 2 + 1
    k = int((x > 0).sum())
    out[:k] = torch.cos(y[:k]) * 3
    return out


def _set(k: int) -> Call:
    x = torch.cat([torch.ones(k), -torch.ones(16 - k)])
    return Call([torch.zeros(16), x], written=(0,))


def test_the_compiled_baseline_counts_the_graphs_it_compiles() -> None:
    fn, label = pick_baseline("toy", _value_shaped, _set(5), backend="eager")
    assert isinstance(fn, CompiledBaseline) and baseline_kind(label) == "native-compiled"
    start = fn.compiles
    fn(_set(5))
    assert fn.compiles == start  # the shape it was compiled for: no new graph
    fn(_set(9))
    assert fn.compiles > start  # a new value of k: a new graph
    again = fn.compiles
    fn(_set(9))
    assert fn.compiles == again
    c, want = _set(11), _set(11)
    fn(c)
    _value_shaped(want)
    assert torch.allclose(c.args[0], want.args[0]) and float(c.args[0][11:].abs().sum()) == 0
    eager, why = fn.eager_fallback(3)
    assert eager is _value_shaped and baseline_kind(why) == "native-eager"
    assert "compiled 3 new graph(s) inside the timed loop" in why


class _FakeEvent:
    def record(self) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, other: "_FakeEvent") -> float:
        return (other.t - self.t) * 1e3


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timed_loop, "_new_event", _FakeEvent)
    monkeypatch.setattr(timed_loop, "_synchronize", lambda: None)
    monkeypatch.setattr(timed_loop, "flush_l2", lambda device, state: None)
    monkeypatch.setattr(timed_loop, "_device_lead", lambda ms: None)


class _DoubleOp:
    nothing_to_compute = False

    def __init__(self, state: State) -> None:
        self.state = state

    def drive_timed(self, call: Call, candidate: Any) -> torch.Tensor:
        self.state.launches.append("k")
        return _value_shaped(call)


def _time(base_fn: Any, fresh: Any) -> dict:
    state = State()
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    return timed_loop.time_case(_DoubleOp(state), impl, base_fn, [_set(4), _set(6)], SimpleNamespace(device="cpu"),
                                state, reps=10, warmup_ms=0.0, block=5, make_set=fresh)


def test_a_compile_inside_a_timed_block_stops_the_timing(fake_cuda: None) -> None:
    fn, _ = pick_baseline("toy", _value_shaped, _set(4), backend="eager")
    # fresh timed sets of new sizes: every one compiles again
    with pytest.raises(timed_loop.BaselineRecompiled) as info:
        _time(fn, lambda k: _set(7 + k % 8))
    assert info.value.graphs >= 1
    # timed sets whose shapes the warm-up already compiled (k = 4 and 6): timed as compiled
    fn, _ = pick_baseline("toy", _value_shaped, _set(4), backend="eager")
    res = _time(fn, lambda k: _set(4 if k % 2 else 6))
    assert len(res["baseline_samples"]) == 10
    # a baseline that is not compiled has no count and is never stopped
    res = _time(_value_shaped, lambda k: _set(7 + k % 8))
    assert len(res["baseline_samples"]) == 10


class _ValueShapedOp:
    """An operator whose native-compiled baseline is :func:`_value_shaped` (the child's side of the protocol)."""

    baseline_kinds = ("native-compiled", "native-eager")

    def build(self, params: dict, device: torch.device, gen: torch.Generator) -> Call:
        k = int(torch.randint(1, 16, (1,), generator=gen))
        return _set(k)

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        return pick_baseline("toy", _value_shaped, call, prefer=prefer, backend="eager")


def test_the_child_times_the_case_again_against_the_eager_reference(tmp_path: Path, monkeypatch) -> None:
    sent: list[Any] = []
    handed: list[Any] = []
    real = timed_loop.time_case

    def time_case(op, impl, base_fn, calls, platform, state, **kw):
        handed.append(base_fn)
        if isinstance(base_fn, CompiledBaseline):
            raise timed_loop.BaselineRecompiled(4)  # what the real loop raises (above)
        return {"checked": {}, "baseline_ms": 1.0, "candidate_ms": 0.5, "warmup_wall_ms": 0.0}

    monkeypatch.setattr(timed_loop, "time_case", time_case)
    monkeypatch.setattr(child_mod.collector, "collect", lambda path: None)
    ch = child_mod.Child.__new__(child_mod.Child)
    ch.prepared, ch.torch, ch.op = None, torch, _ValueShapedOp()
    ch.platform = SimpleNamespace(interpreter=True, device="cpu")
    ch.impl = ch.state = None
    ch.submission_path = tmp_path / "sub.py"
    ch.send = sent.append
    inp = tmp_path / "a.time.pt"
    torch.save({"warmup_seeds": [1, 2], "params": {}, "seed": 3}, inp)
    ch.run_time(TimeCommand(str(inp), 10, 1.0))
    answer = sent.pop()
    assert isinstance(answer, TimeAnswer) and answer.error is None, answer.error
    assert isinstance(handed[0], CompiledBaseline) and handed[1] is _value_shaped and len(handed) == 2
    assert baseline_kind(answer.baseline) == "native-eager"
    assert "compiled 4 new graph(s) inside the timed loop" in answer.baseline
    assert real is not time_case
