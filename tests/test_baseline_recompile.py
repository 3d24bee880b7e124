"""A compiled vLLM baseline whose graphs depend on its input values (issue 14: compile time stays outside the timed
region).

A native reference whose shapes depend on its input values (a host read sizing a tensor, as ggml_moe_a8's
``int(counts.max())``) compiles a new graph for every fresh timed input set under ``torch.compile(dynamic=False)``;
an H100 timed 150 ms of compilation as the baseline of two ggml_moe_a8 cases (3fe7849, a 3000x "speedup"). The
compiled baseline counts its compilations (suite/vllm/common.py ``CompiledBaseline``); the sandbox child runs it on
fresh probe sets before timing and times such a case against the eager reference from the start, labelled why
(sandbox/child.py ``probe_baseline``); a compile seen only inside a timed block stops the timing
(``BaselineRecompiled``) and fails the baseline, never timed again on values already drawn (red team 33,
tests/test_rt33_baseline_state.py). Here with the ``eager`` backend of torch.compile (dynamo's graph capture, no code
generation) and the timed loop's device parts faked on the CPU."""
from __future__ import annotations

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
    eager, why = fn.eager_fallback(3, 5)
    assert eager is _value_shaped and baseline_kind(why) == "native-eager"
    assert "compiled 3 new graph(s) on 5 fresh input sets of the case" in why


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


def test_a_compile_inside_a_timed_block_stops_the_timing(timed_loop_on_cpu: None) -> None:
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


def _child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, op: Any, recompile: bool) -> tuple[Any, list, list]:
    """A sandbox child (its command handlers only) whose timed loop records the baseline it is handed, and raises
    BaselineRecompiled as the real loop does for a compiled baseline when ``recompile``."""
    sent: list[Any] = []
    handed: list[Any] = []

    def time_case(op, impl, base_fn, calls, platform, state, **kw):
        handed.append(base_fn)
        if recompile and isinstance(base_fn, CompiledBaseline):
            raise timed_loop.BaselineRecompiled(4)
        return {"checked": {}, "baseline_ms": 1.0, "candidate_ms": 0.5, "warmup_wall_ms": 0.0}

    monkeypatch.setattr(timed_loop, "time_case", time_case)
    monkeypatch.setattr(child_mod.collector, "collect_command", lambda path: 2)
    ch = child_mod.Child.__new__(child_mod.Child)
    ch.prepared, ch.ahead, ch.torch, ch.op = None, {}, torch, op
    ch.platform = SimpleNamespace(interpreter=True, device="cpu")
    ch.impl = ch.state = None
    ch.submission_path = tmp_path / "sub.py"
    ch.send = sent.append
    return ch, sent, handed


def _time_child(ch: Any, tmp_path: Path) -> Any:
    inp = tmp_path / "a.time.pt"
    torch.save({"warmup_seeds": [1, 2], "params": {}, "seed": 3}, inp)
    ch.run_time(TimeCommand(str(inp), 10, 1.0, prepare=True))
    ch.run_time(TimeCommand(str(inp), 10, 1.0))
    return ch.send.__self__[-1]


class _StaticOp(_ValueShapedOp):
    """The same reference on sets whose value-dependent size never changes (k = 8): no new graph on fresh sets."""

    def build(self, params: dict, device: torch.device, gen: torch.Generator) -> Call:
        c = _set(8)
        c.args[1].mul_(torch.rand(16, generator=gen) + 0.5)
        return c


def test_a_reference_that_compiles_on_fresh_probe_sets_is_timed_eagerly_from_the_start(tmp_path, monkeypatch) -> None:
    ch, sent, handed = _child(tmp_path, monkeypatch, _ValueShapedOp(), recompile=False)
    answer = _time_child(ch, tmp_path)
    assert isinstance(answer, TimeAnswer) and answer.error is None, answer.error
    assert handed == [_value_shaped]  # timed once, against the eager reference
    assert baseline_kind(answer.baseline) == "native-eager"
    assert "new graph(s) on 4 fresh input sets of the case" in answer.baseline  # the other warm-up set + 3 probes


def test_a_static_reference_keeps_the_compiled_bar_and_a_compile_only_while_timed_fails_the_baseline(
        tmp_path, monkeypatch) -> None:
    ch, sent, handed = _child(tmp_path, monkeypatch, _StaticOp(), recompile=False)
    answer = _time_child(ch, tmp_path)
    assert answer.error is None and baseline_kind(answer.baseline) == "native-compiled", answer.baseline
    assert len(handed) == 1 and isinstance(handed[0], CompiledBaseline)
    # the same reference compiling only inside a timed block: not shown to be the reference's doing
    ch, sent, handed = _child(tmp_path, monkeypatch, _StaticOp(), recompile=True)
    answer = _time_child(ch, tmp_path)
    assert answer.error is not None and answer.error["stage"] == "baseline" and answer.baseline_ms is None
    assert ("though it compiled none on the other warm-up set and 3 fresh probe sets of the case "
            "before timing") in answer.error["message"]
    assert len(handed) == 1  # never timed again


class _BoomOp(_StaticOp):
    """A compiled baseline that raises when the probe sets run it (as a device out of memory would)."""

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        def boom(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("probe boom")
        return CompiledBaseline(boom, _value_shaped), "native-compiled (under torch.compile)"


def test_a_baseline_that_fails_on_a_probe_set_is_the_baselines_failure(tmp_path, monkeypatch) -> None:
    ch, sent, handed = _child(tmp_path, monkeypatch, _BoomOp(), recompile=False)
    inp = tmp_path / "a.time.pt"
    torch.save({"warmup_seeds": [1, 2], "params": {}, "seed": 3}, inp)
    ch.run_time(TimeCommand(str(inp), 10, 1.0, prepare=True))
    answer = sent[-1]
    assert answer.error is not None and answer.error["stage"] == "baseline", answer.error
    assert "making the baseline failed on a probe set: RuntimeError: probe boom" in answer.error["message"]
    assert not handed  # nothing timed
