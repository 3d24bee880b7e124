"""A job's compiled baselines, made before its first timed case (bc42; Settings.baseline_ahead).

A vLLM reference's torch.compile was ~95% of a vLLM job's timing work (call 6: 252 s of 264 s over 63 timed cases),
made in each case's ``prepare`` command, inside the job's exclusive hold of the GPU under Settings.timing_hold ``job``.
Now the verifier sends one ``ahead`` command per timed case first, each under the GPU's shared gate, and the child
keeps each case's baseline (not its warm-up sets) for the case's prepare command. So that the compiled baselines of
a job's cases survive one another, each case's ``core`` has its own code object (suite/vllm/common.py ``own_code``)
instead of a ``torch._dynamo.reset()`` per case, which dropped every graph made before it.

On the CPU with the sandbox child's command handlers and the verifier's TimingPhase; the timed loop, the session and
the gate's holders are faked as in tests/test_timing_hold.py; torch.compile's backend is ``eager`` or a recording
one (dynamo's caches, guards and recompile limit are the same for every backend)."""
from __future__ import annotations

import contextlib
import gc
import random
import weakref
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from kernelgenbench.sandbox import child as child_mod
from kernelgenbench.sandbox import timed_loop
from kernelgenbench.sandbox.protocol import TimeAnswer, TimeCommand
from kernelgenbench.suite.baselines import baseline_kind
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.vllm import common as vc

#: more cases than dynamo's recompile limit: with one code object for all, the later ones would run eagerly
CASES = torch._dynamo.config.recompile_limit + 3


def _native(c: Call) -> Any:
    x, w = c.args
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)) * w


class ShapedOp:
    """An operator whose case ``n`` is a [n + 1, 8] input (each case its own static shape) and whose baseline is
    ``native-compiled`` by :func:`~kernelgenbench.suite.vllm.common.pick_baseline` with ``backend``."""

    baseline_kinds = ("native-compiled", "native-eager")

    def __init__(self, backend: Any = "eager") -> None:
        self.backend = backend
        self.built: list[weakref.ref] = []

    def build(self, params: dict, device: torch.device, gen: torch.Generator) -> Call:
        x = torch.randn(params["n"] + 1, 8, generator=gen)
        self.built.append(weakref.ref(x))
        return Call([x, torch.randn(8, generator=gen)], {}, (), ())

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        return vc.pick_baseline("toy", _native, call, prefer=prefer, backend=self.backend)


def _child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, op: Any) -> tuple[Any, list[Any], list[Any]]:
    """A sandbox child (its command handlers only) whose timed loop records the baseline and warm-up sets handed
    to it, and checks as the real loop does that a compiled baseline compiles nothing while it is timed."""
    sent: list[Any] = []
    timed: list[Any] = []

    def time_case(op, impl, base_fn, calls, platform, state, **kw):
        before = getattr(base_fn, "compiles", None)
        outs = [base_fn(c.clone()) for c in calls]
        if before is not None and base_fn.compiles > before:
            raise timed_loop.BaselineRecompiled(base_fn.compiles - before)
        timed.append((base_fn, calls, outs))
        return {"checked": {}, "baseline_ms": 1.0, "candidate_ms": 0.5, "warmup_wall_ms": 0.0}

    monkeypatch.setattr(timed_loop, "time_case", time_case)
    monkeypatch.setattr(child_mod.collector, "collect_command", lambda path: 2)
    monkeypatch.setattr(vc, "vllm_ops", lambda: None)
    ch = child_mod.Child.__new__(child_mod.Child)
    ch.prepared, ch.ahead, ch.torch, ch.op = None, {}, torch, op
    ch.platform = SimpleNamespace(interpreter=True, device="cpu")
    ch.impl = ch.state = None
    ch.submission_path = tmp_path / "sub.py"
    ch.send = sent.append
    return ch, sent, timed


def _inp(tmp_path: Path, n: int, seed: bool = True) -> str:
    path = tmp_path / f"full-{n}.time.pt"
    torch.save({"warmup_seeds": [100 + n, 200 + n], "params": {"n": n}, **({"seed": 300 + n} if seed else {})},
               path)
    return str(path)


def _made_ahead(ch: Any, sent: list[Any], tmp_path: Path, cases: int) -> list[TimeAnswer]:
    answers = []
    for n in range(cases):
        ch.run_time(TimeCommand(_inp(tmp_path, n, seed=False), 10, 1.0, ahead=True))
        answers.append(sent.pop())
    return answers


def _time(ch: Any, sent: list[Any], tmp_path: Path, n: int) -> TimeAnswer:
    inp = _inp(tmp_path, n)
    ch.run_time(TimeCommand(inp, 10, 1.0, prepare=True))
    ready = sent.pop()
    assert ready.error is None, ready.error
    ch.run_time(TimeCommand(inp, 10, 1.0))
    return sent.pop()


def test_compiled_baselines_made_ahead_are_the_ones_timed_and_compile_nothing_more(tmp_path, monkeypatch) -> None:
    """More cases than the recompile limit, all made before the first is timed: each case is timed against the
    baseline its ahead command made (the same object), which still holds its own graph and compiles nothing when
    timed; the warm-up sets are the ones the case's seeds give. With the former ``torch._dynamo.reset()`` per case,
    every baseline but the last lost its graph and compiled again in its timed loop."""
    ch, sent, timed = _child(tmp_path, monkeypatch, ShapedOp())
    answers = _made_ahead(ch, sent, tmp_path, CASES)
    assert all(a.error is None and a.baseline == vc.NATIVE_COMPILED for a in answers), answers[0]
    assert all(a.phases_ms["baseline"] > 0.0 for a in answers)
    made = {inp: fn for inp, (fn, _, _) in ch.ahead.items()}
    assert len(made) == CASES and all(isinstance(fn, vc.CompiledBaseline) for fn in made.values())
    assert len({fn.code for fn in made.values()}) == CASES  # a code object of its own per case
    for n in range(CASES):
        answer = _time(ch, sent, tmp_path, n)
        assert answer.error is None, answer.error
        assert answer.baseline == vc.NATIVE_COMPILED
        assert answer.phases_ms["baseline"] == 0.0 and answer.phases_ms["ahead_baseline"] > 0.0
        base_fn, calls, outs = timed.pop()
        assert base_fn is made[_inp(tmp_path, n)] and base_fn.compiles == 0 and base_fn.graphs_kept() == 1
        assert [list(c.args[0].shape) for c in calls] == [[n + 1, 8]] * 2
        for c, out in zip(calls, outs):
            assert torch.allclose(out, _native(c.clone()))
    assert not ch.ahead  # each taken once


def test_no_case_made_ahead_runs_eagerly_where_it_compiled(tmp_path, monkeypatch) -> None:
    """A recording backend counts the calls of each compiled graph: every timed call of every case runs its own
    graph (one call per warm-up set), none runs the reference eagerly. A shared code object without a reset would
    compile the first ``recompile_limit`` cases and run the rest eagerly without compiling (nothing counted)."""
    runs: dict[int, int] = {}

    def recording(gm, example_inputs):
        key = len(runs)
        runs[key] = 0

        def run(*args):
            runs[key] += 1
            return gm.forward(*args)
        return run

    ch, sent, timed = _child(tmp_path, monkeypatch, ShapedOp(recording))
    _made_ahead(ch, sent, tmp_path, CASES)
    assert len(runs) == CASES  # one graph per case
    made = dict(runs)
    for n in range(CASES):
        assert _time(ch, sent, tmp_path, n).error is None
    assert len(runs) == CASES  # nothing compiled while timed
    assert all(runs[k] == made[k] + 2 for k in runs), (made, runs)


def test_the_warm_up_sets_of_cases_made_ahead_are_not_kept(tmp_path, monkeypatch) -> None:
    """Memory: only the baselines stay alive between a case's ahead command and its prepare command."""
    op = ShapedOp()
    ch, sent, timed = _child(tmp_path, monkeypatch, op)
    _made_ahead(ch, sent, tmp_path, 3)
    gc.collect()
    assert len(op.built) == 3 * 5  # two warm-up sets and three probe sets a case
    assert [r for r in op.built if r() is not None] == []
    assert all(not isinstance(x, Call) for entry in ch.ahead.values() for x in entry)


def test_a_baseline_made_ahead_that_lost_its_graph_fails_the_baseline_and_is_not_timed(tmp_path, monkeypatch) -> None:
    """Something that dropped dynamo's caches between a case's ahead command and its timing (a reset) would make
    the baseline compile again in the timed loop or, past the recompile limit, run eagerly unseen: the prepare
    command refuses it as the baseline's failure before anything is timed."""
    ch, sent, timed = _child(tmp_path, monkeypatch, ShapedOp())
    _made_ahead(ch, sent, tmp_path, 2)
    torch._dynamo.reset()
    inp = _inp(tmp_path, 0)
    ch.run_time(TimeCommand(inp, 10, 1.0, prepare=True))
    err = sent.pop().error
    assert err["stage"] == "baseline" and "no longer holds its compiled graph" in err["message"]
    assert not timed and ch.prepared is None


def test_a_compile_that_fails_ahead_falls_back_to_native_eager_with_its_label(tmp_path, monkeypatch) -> None:
    def broken(gm, example_inputs):
        raise RuntimeError("no C++ compiler")

    ch, sent, timed = _child(tmp_path, monkeypatch, ShapedOp(broken))
    (answer,) = _made_ahead(ch, sent, tmp_path, 1)
    assert baseline_kind(answer.baseline) == "native-eager"
    assert answer.baseline.endswith("torch.compile failed (BackendCompilerFailed: backend='broken' raised:)")
    timed_answer = _time(ch, sent, tmp_path, 0)
    assert timed_answer.baseline == answer.baseline
    base_fn, _, _ = timed.pop()
    assert base_fn is _native


def test_a_baseline_that_fails_ahead_is_reported_as_the_baselines(tmp_path, monkeypatch) -> None:
    op = ShapedOp()

    def broken(call, platform, prefer=None):
        raise RuntimeError("Inductor crashed")

    op.baseline = broken
    ch, sent, timed = _child(tmp_path, monkeypatch, op)
    (answer,) = _made_ahead(ch, sent, tmp_path, 1)
    assert answer.error["stage"] == "baseline"
    assert "making the baseline failed: RuntimeError: Inductor crashed" in answer.error["message"]
    assert not ch.ahead and not timed


def _breaking(c: Call) -> Any:
    """A reference with a graph break in the middle (as a host read makes one): dynamo compiles a graph, the break,
    and a resume frame whose code every case shares."""
    x, w = c.args
    y = torch.sin(x) * 2 + 1
    torch._dynamo.graph_break()
    return torch.cos(y) * w


def test_a_reference_that_graph_breaks_is_not_made_ahead_and_each_case_compiles_it_alone(tmp_path,
                                                                                         monkeypatch) -> None:
    """Its frames' caches are shared by every case, so the child keeps no baseline made ahead (``ahead_kept`` 0) and
    each case compiles its own after a reset, as before this pass: more cases than the recompile limit, and every
    case's timed calls still run graphs compiled for that case (none falls back to eager, none compiles while
    timed). Kept ahead without a reset, the shared resume frame would hit its recompile limit and run eagerly."""
    graphs: list[list[int]] = []

    def recording(gm, example_inputs):
        runs = [0]
        graphs.append(runs)

        def run(*args):
            runs[0] += 1
            return gm.forward(*args)
        return run

    op = ShapedOp(recording)
    op.baseline = lambda call, platform, prefer=None: vc.pick_baseline("toy", _breaking, call, prefer=prefer,
                                                                       backend=recording)
    ch, sent, timed = _child(tmp_path, monkeypatch, op)
    answers = _made_ahead(ch, sent, tmp_path, 2)
    assert [a.phases_ms.get("ahead_kept") for a in answers] == [0.0, 0.0] and not ch.ahead
    assert all(a.baseline == "not made ahead: the reference compiles to 2 graph(s) and 2 graph break(s), frames whose "
               "caches every case shares" for a in answers), answers[0].baseline
    for n in range(CASES):
        graphs.clear()
        answer = _time(ch, sent, tmp_path, n)
        assert answer.error is None and answer.baseline == vc.NATIVE_COMPILED, answer.baseline
        base_fn, calls, outs = timed.pop()
        assert base_fn.isolated is False and base_fn.compiles == 0
        # each graph ran 7 times: the compiling run, the other warm-up set and 3 probe sets, the 2 timed calls
        assert len(graphs) == 2 and [r[0] for r in graphs] == [7, 7]
        for c, out in zip(calls, outs):
            assert torch.allclose(out, _breaking(c.clone()))


def test_a_refused_pass_stops_and_each_case_makes_its_own(tmp_path) -> None:
    events: list[str] = []
    phase = _phase(tmp_path, events, kept=False)
    phase.make_ahead(_cases())
    assert [e for e in events if "@" in e] == ["ahead@shared"]  # no more after the first refusal
    assert phase.ahead_ms == {} and phase.ahead_refused == vc.NATIVE_COMPILED
    phase.run(_cases())
    assert "ahead" not in phase.harness_ms["full/0"]
    assert "made before the job's first timed case" not in phase.record.timing.method
    assert "baselines made in each case" in phase.record.timing.method


# ------------------------------------------------------------------------------------------- the verifier's side
def _phase(tmp_path: Path, events: list[str], op_label: str = vc.NATIVE_COMPILED, ahead: bool = True,
           kept: bool = True) -> Any:
    """A TimingPhase whose session answers every command and records it with the hold it ran under."""
    from kernelgenbench.verify.timing import TimingPhase

    held: list[str] = []

    def request(cmd: TimeCommand, timeout: float) -> TimeAnswer:
        kind = "ahead" if cmd.ahead else "prepare" if cmd.prepare else "save" if cmd.save else "time"
        events.append(f"{kind}@{held[-1] if held else 'none'}")
        if cmd.ahead:
            data = torch.load(cmd.inp, weights_only=True)
            assert "seed" not in data and data["warmup_seeds"]  # the timed sets' secret seed not sent ahead
            return TimeAnswer(baseline=vc.NATIVE_COMPILED,
                              phases_ms={"load": 1.0, "baseline": 4000.0, "ahead_kept": float(kept)})
        if cmd.prepare:
            return TimeAnswer(baseline=vc.NATIVE_COMPILED, phases_ms={"load": 1.0, "baseline": 0.0,
                                                                      "ahead_baseline": 4000.0})
        if cmd.save:
            return TimeAnswer(phases_ms={"save": 1.0})
        return TimeAnswer(baseline_ms=1.0, candidate_ms=0.5, baseline=vc.NATIVE_COMPILED,
                          phases_ms={"load": 1.0, "baseline": 0.0, "ahead_baseline": 4000.0, "blocks": 3.0})

    phase = TimingPhase.__new__(TimingPhase)
    phase.op = SimpleNamespace(baseline_label=lambda: op_label, baseline_kinds=("native-compiled", "native-eager"),
                               cost=lambda p: SimpleNamespace(bytes=0, flops=0, compute="none"))
    phase.platform = SimpleNamespace(interpreter=False, failure_patterns=())
    phase.settings = SimpleNamespace(reps=10, warmup_ms=10.0, timing_checks=2, timing_fastest=2,
                                     time_timeout_s=60.0, baseline=None, timing_hold="job", implausible_speedup=20.0,
                                     baseline_ahead=ahead)
    phase.session = SimpleNamespace(request=request, check_launch=lambda *a: None)
    phase.rng, phase.io, phase.harness_ms, phase.ahead_ms, phase.ceilings = random.Random(0), tmp_path, {}, {}, {}
    phase.progress = None
    phase.record = SimpleNamespace(
        baseline=None, timing=None, speedup=None, sol_pct=None,
        cases=[SimpleNamespace(id=f"full/{i}", untimed=None, update=lambda **kw: None) for i in range(3)])

    @contextlib.contextmanager
    def hold(name: str):
        held.append(name)
        events.append(f"{name}+")
        try:
            yield
        finally:
            held.pop()
            events.append(f"{name}-")

    phase.hold_ahead = lambda: hold("shared")
    phase.hold_untimed = lambda: hold("shared")
    phase.hold_timed = lambda: hold("alone")
    phase._judge = lambda case, msg, wall_ms, check, check_out, base_seed: 1.5
    return phase


def _cases(n: int = 3) -> list[Any]:
    return [SimpleNamespace(tier="full", index=i, seed=7 + i, params={"n": i}, id=f"full/{i}", timed=True)
            for i in range(n)]


def test_every_baseline_is_made_ahead_under_the_shared_gate_before_the_first_timed_case(tmp_path) -> None:
    events: list[str] = []
    phase = _phase(tmp_path, events)
    phase.make_ahead(_cases())
    phase.run(_cases())
    commands = [e for e in events if "@" in e]
    assert commands[:3] == ["ahead@shared"] * 3  # one command per case, each under its own shared hold
    assert events[:9] == ["shared+", "ahead@shared", "shared-"] * 3
    assert "ahead@alone" not in events and commands.count("ahead@shared") == 3
    assert commands[3:6] == ["prepare@shared", "time@alone", "save@shared"]
    cost = phase.harness_ms["full/0"]
    assert cost["ahead"] >= 0.0 and cost["baseline"] == 0.0 and cost["ahead_baseline"] == 4000.0
    assert "made before the job's first timed case" in phase.record.timing.method


@pytest.mark.parametrize("label, forced, ahead, made", [
    ("vllm (vllm._custom_ops.rms_norm)", None, True, False),     # vLLM's kernel: nothing compiled
    ("ATen (native op, same device)", None, True, False),         # another source's baseline
    (vc.NATIVE_COMPILED, "native-eager", True, False),           # forced eager
    (vc.NATIVE_COMPILED, None, False, False),                    # kgb eval --no-baseline-ahead
    (vc.NATIVE_COMPILED, None, True, True)])
def test_only_compiled_baselines_are_made_ahead(tmp_path, label, forced, ahead, made) -> None:
    events: list[str] = []
    phase = _phase(tmp_path, events, op_label=label, ahead=ahead)
    phase.settings.baseline = forced
    phase.make_ahead(_cases())
    assert (events != []) == made


def test_the_job_makes_its_baselines_outside_its_exclusive_hold(tmp_path) -> None:
    """run/job.py under Settings.timing_hold ``job``: the ahead commands hold the gate shared, one case at a time (a
    writer waiting between two of them gets in: no drain of the whole pre-pass); the timed cases hold it alone."""
    from kernelgenbench.record import PhaseTimes
    from kernelgenbench.run.gate import DeviceGate
    from kernelgenbench.run.job import Verifier
    from kernelgenbench.settings import Settings

    gate = DeviceGate()
    seen: list[tuple[str, int, bool]] = []

    class Timing:
        hold_ahead = hold_untimed = hold_timed = staticmethod(contextlib.nullcontext)

        def make_ahead(self, cases):
            for _ in cases:
                with self.hold_ahead():
                    seen.append(("ahead", gate._readers, gate._writer))

        def run(self, cases):
            seen.append(("run", gate._readers, gate._writer))

    for hold in ("job", "case"):
        seen.clear()
        v = Verifier.__new__(Verifier)
        v.gate, v.times, v.settings, v._cases = gate, PhaseTimes(), Settings(timing_hold=hold), _cases()
        v.session = SimpleNamespace(close=lambda: None)
        v._time(Timing())
        assert seen[:3] == [("ahead", 1, False)] * 3, (hold, seen)
        assert seen[3] == ("run", 0, hold == "job"), (hold, seen)
        assert v.times["ahead_s"] >= 0.0 and gate._readers == 0 and not gate._writer


# ------------------------------------------------------------------------------------------- a real sandbox child
@pytest.mark.slow
def test_a_real_child_times_each_case_against_the_baseline_it_made_ahead(tmp_path: Path) -> None:
    """vllm::rms_norm's oracle in a real sandbox child (Inductor on the CPU): three cases of different shapes made
    ahead, in the verifier's order (correctness runs, then every case's ahead command, then each case's prepare, timed
    and save commands); every case is timed against the native-compiled baseline made ahead, nothing is made again."""
    from child_driver import DrivenChild

    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator

    root = Path(__file__).resolve().parents[1]
    op = get_operator("vllm::rms_norm")
    cpu = torch.device("cpu")
    shapes = [[8, 64], [12, 64], [8, 128]]
    with DrivenChild("vllm::rms_norm", root / "solutions" / "vllm__rms_norm.py", tmp_path) as ch:
        assert ch.ready.get("ok"), ch.ready
        inps = []
        for i, shape in enumerate(shapes):
            params = dict(shape=shape, dtype="fp32", eps=1e-6, weight="randn")
            case_in, case_out = tmp_path / f"{i:05d}.in.pt", tmp_path / f"{i:05d}.out.pt"
            torch.save(op.build(params, cpu, generator(cpu, 500 + i)).saved(), case_in)
            assert ch.ask({"cmd": "case", "inp": str(case_in), "out": str(case_out)}).get("error") is None
            inp = tmp_path / f"full-{i}.time.pt"
            torch.save({"warmup_seeds": [11 + i, 22 + i], "params": params}, inp)
            inps.append((inp, params))
        for inp, _ in inps:
            made = ch.ask({"cmd": "time", "inp": str(inp), "reps": 10, "warmup_ms": 1.0, "ahead": True})
            assert made.get("error") is None and made["baseline"] == vc.NATIVE_COMPILED, made
            assert made["phases_ms"]["ahead_kept"] == 1.0 and made["phases_ms"]["baseline"] > 0.0
        for i, (inp, params) in enumerate(inps):
            torch.save({"warmup_seeds": [11 + i, 22 + i], "params": params, "seed": 1000 + i}, inp)
            ready = ch.ask({"cmd": "time", "inp": str(inp), "reps": 10, "warmup_ms": 1.0, "prepare": True})
            assert ready.get("error") is None, ready.get("error")
            assert ready["phases_ms"]["baseline"] == 0.0 and ready["phases_ms"]["ahead_baseline"] > 0.0
            timed = ch.ask({"cmd": "time", "inp": str(inp), "reps": 10, "warmup_ms": 1.0, "check": [3]})
            assert timed.get("error") is None, timed.get("error")
            assert timed["baseline"] == vc.NATIVE_COMPILED and not timed.get("launch_violations")
            assert timed["baseline_ms"] > 0 and timed["candidate_ms"] > 0
            saved = ch.ask({"cmd": "time", "inp": str(inp), "check_out": str(tmp_path / f"c{i}.pt"), "save": True})
            assert saved.get("error") is None


@pytest.mark.parametrize("flag, want", [([], True), (["--no-baseline-ahead"], False), (["--baseline-ahead"], True)])
def test_kgb_eval_passes_baseline_ahead_to_the_run(tmp_path, monkeypatch, flag, want) -> None:
    from typer.testing import CliRunner

    from kernelgenbench import cli
    from kernelgenbench.run import evaluate as ev

    seen: list[Any] = []

    def fake_evaluate(directory, settings, **kw):
        seen.append(settings)
        raise ev.EvaluationError("no submission files here")
    monkeypatch.setattr(ev, "evaluate", fake_evaluate)
    res = CliRunner().invoke(cli.app, ["eval", str(tmp_path), *flag])
    assert res.exit_code == 2 and [s.baseline_ahead for s in seen] == [want], res.output
