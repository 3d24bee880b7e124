"""Units of the verifier's case bookkeeping (verify/judge.py, verify/ghost.py, verify/timing.py): when a no-op would
pass a case, and which passed cases need the alternate-poison re-run."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from kernelgenbench.suite.spec import Call, Expected, Tolerance, written_expected
from kernelgenbench.suite.tensors import INT_POISON, INT_POISON_ALT, poison_, poison_variant
from kernelgenbench.verify.judge import _all_outputs_empty, _trivial, _unproven_writes


def _axpy_like(y: torch.Tensor, delta: torch.Tensor) -> tuple[list[Expected], Call]:
    exp = Expected("arg.1", (y + delta).clone(), Tolerance(), region=torch.ones(y.numel(), dtype=torch.bool))
    return [exp], Call([torch.zeros_like(y), y.clone()], written=(1,))


def test_a_change_below_the_tolerance_makes_the_case_trivial() -> None:
    y = torch.tensor([2.0, -3.0, 5.0])
    # fp32 rtol is 1.3e-6, atol 1e-4: a 1e-6 change is invisible, a 1e-2 change is not
    assert _trivial(*_axpy_like(y, torch.full_like(y, 1e-6)))
    assert not _trivial(*_axpy_like(y, torch.full_like(y, 1e-2)))


def test_exact_equality_is_trivial_and_a_custom_judge_never_is() -> None:
    y = torch.tensor([1.0, 2.0])
    exps, before = _axpy_like(y, torch.zeros_like(y))
    assert _trivial(exps, before)
    exps[0].check = lambda actual, out: None
    assert not _trivial(exps, before)


def test_platform_scale_widens_the_no_op_test() -> None:
    y = torch.tensor([1.0])
    exps, before = _axpy_like(y, torch.tensor([3e-4]))  # beyond atol 1e-4 (+ rtol), within 10x of it
    assert not _trivial(exps, before, 1.0)
    assert _trivial(exps, before, 10.0)


def test_empty_outputs() -> None:
    assert _all_outputs_empty([Expected("return", torch.empty(0, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", torch.empty(1, 3), Tolerance())])
    assert not _all_outputs_empty([Expected("return", None, Tolerance(), alias="arg.0")])


# -- alternate-poison re-run: which passed slots may hold elements nobody wrote ----------------------------
def _never(*_a):
    raise AssertionError("alt_build must not be called")


def test_returned_bool_equal_to_the_poison_needs_a_rerun() -> None:
    ref = torch.tensor([True, False, True])
    exp = [Expected("return", ref, Tolerance())]
    assert _unproven_writes(exp, {"ret": ref.clone()}, Call([]), _never) == ["return"]
    no_true = torch.tensor([False, False])
    assert _unproven_writes([Expected("return", no_true, Tolerance())], {"ret": no_true.clone()}, Call([]),
                            _never) == []


def test_int_and_float_returns() -> None:
    i8 = torch.tensor([1, INT_POISON[torch.int8], 3], dtype=torch.int8)
    assert _unproven_writes([Expected("return", i8, Tolerance())], {"ret": i8.clone()}, Call([]), _never) == ["return"]
    i8b = torch.tensor([1, INT_POISON_ALT[torch.int8]], dtype=torch.int8)  # the alternate value is no hit
    assert _unproven_writes([Expected("return", i8b, Tolerance())], {"ret": i8b.clone()}, Call([]), _never) == []
    f = torch.tensor([float("nan"), 1.0])  # float poison is a payload NaN the comparison already tells apart
    assert _unproven_writes([Expected("return", f, Tolerance())], {"ret": f.clone()}, Call([]), _never) == []


def _out_case(before_out: torch.Tensor, alt_out: torch.Tensor, result: torch.Tensor, slot: int | str = "out"):
    args, kw = ([before_out], {}) if slot == 0 else ([], {"out": before_out})
    before = Call(args, kw, written=(slot,))
    alt_args, alt_kw = ([alt_out], {}) if slot == 0 else ([], {"out": alt_out})
    calls = []

    def alt_build() -> Call:
        calls.append(1)
        return Call(alt_args, alt_kw, written=(slot,))

    exp = written_expected(f"arg.{slot}", before_out, result, Tolerance())
    out = {"args": [result.clone()] if slot == 0 else [], "kwargs": {} if slot == 0 else {"out": result.clone()}}
    return [exp], out, before, alt_build, calls


def test_out_argument_poisoned_by_build_needs_a_rerun() -> None:
    res = torch.tensor([True, False, True, True])
    main = poison_(torch.empty(4, dtype=torch.bool))
    with poison_variant(True):
        alt = poison_(torch.empty(4, dtype=torch.bool))
    exp, out, before, alt_build, calls = _out_case(main, alt, res)
    assert _unproven_writes(exp, out, before, alt_build) == ["arg.out"]
    assert calls == [1]


def test_in_place_self_is_not_rerun_where_the_input_already_equals_the_result() -> None:
    # relu_-like on bool: the input is real data, identical in both builds; an element left at its
    # input value is right, and a complete no-op is the case's _trivial matter
    x = torch.tensor([True, True, False, True])
    res = torch.tensor([True, False, False, True])
    exp, out, before, alt_build, calls = _out_case(x.clone(), x.clone(), res, slot=0)
    assert _unproven_writes(exp, out, before, alt_build) == []
    assert calls == [1]  # region elements equal the pattern: the builds were compared


def test_views_and_unspecified_contents_are_skipped() -> None:
    t = torch.ones(3, dtype=torch.bool)
    view = Expected("return", t, Tolerance(), rule="view", alias_of="arg.0")
    alloc = Expected("return", t, Tolerance(), rule="allocation", check_values=False)
    assert _unproven_writes([view], {"ret": t}, Call([t]), _never) == []
    assert _unproven_writes([alloc], {"ret": t}, Call([]), _never) == []


def test_allocations_get_the_alternate_poison_when_the_child_is_told() -> None:
    from kernelgenbench.sandbox.dispatch import CandidateMode
    from kernelgenbench.sandbox.state import STATE

    try:
        with CandidateMode():
            main = torch.empty(4, dtype=torch.bool)
        STATE.alt_poison = True
        with CandidateMode():
            alt = torch.empty(4, dtype=torch.bool)
            alt8 = torch.empty(2, dtype=torch.int8)
    finally:
        STATE.alt_poison = False
        STATE.reset()
    assert main.tolist() == [True] * 4 and alt.tolist() == [False] * 4
    assert alt8.tolist() == [INT_POISON_ALT[torch.int8]] * 2


# -- L2: the schedule of replays (verify/ghost.py ghost_schedule) -----------------------------------------

def test_ghost_schedule_keeps_cases_in_order_and_replays_after_a_warm_rerun() -> None:
    """Correctness runs in grid order; every run of a replayed case after its correctness run, and its
    first re-run (the warm one) before its replay, so the replay never follows the first sighting."""
    import random

    from kernelgenbench.verify.ghost import ghost_schedule

    idx = [0, 2, 3, 5, 7]
    for reruns in (0, 1, 2):
        for seed in range(50):
            sched = ghost_schedule(idx, {0, 3, 7}, random.Random(seed), reruns=reruns)
            assert [i for k, i in sched if k == "case"] == idx
            assert sorted(i for k, i in sched if k == "ghost") == [0, 3, 7]
            assert sorted(i for k, i in sched if k == "rerun") == sorted([0, 3, 7] * (reruns + 1))
            for i in (0, 3, 7):
                runs = [k for k, j in sched if j == i]
                assert runs[0] == "case" and runs[1] == "rerun", (reruns, seed, sched)
                assert runs.count("case") == 1 and runs.count("ghost") == 1


def test_ghost_schedule_puts_the_replay_at_a_random_rank_after_the_warm_rerun() -> None:
    """Of a replayed case's runs after the warm re-run (decoy re-runs and the replay), the replay is at
    each rank about equally often, and at many different call numbers: neither a call count nor the
    number of times the inputs were seen tells the replay apart."""
    import random
    from collections import Counter

    from kernelgenbench.verify.ghost import ghost_schedule

    rng = random.Random(1234)
    for reruns in (1, 2):
        ranks: Counter[int] = Counter()
        calls: Counter[int] = Counter()
        trials = 3000
        for _ in range(trials):
            sched = ghost_schedule(list(range(4)), {1}, rng, reruns=reruns)
            later = [k for k, i in sched if i == 1 and k != "case"]
            assert later[0] == "rerun" and len(later) == reruns + 2
            ranks[later[1:].index("ghost")] += 1
            calls[sched.index(("ghost", 1))] += 1
        expect = trials / (reruns + 1)
        assert set(ranks) == set(range(reruns + 1)), ranks
        assert all(abs(ranks[r] - expect) < 0.1 * expect for r in ranks), ranks
        assert len(calls) >= 4, calls


def test_ghost_schedule_without_replays_is_the_grid_order() -> None:
    import random

    from kernelgenbench.verify.ghost import ghost_schedule

    assert ghost_schedule([4, 1, 9], set(), random.Random(0)) == [("case", 4), ("case", 1), ("case", 9)]


def test_divergence_is_described_in_words() -> None:
    from kernelgenbench.verify.ghost import _divergence

    assert _divergence(None) is None
    assert _divergence({"divergence": None, "unused_reads": 0, "unused_launches": 0}) is None
    text = _divergence({"divergence": {"stream": "reads", "index": 2,
                                       "replay": {"kind": "item", "shape": [], "dtype": "torch.int32"},
                                       "normal": {"kind": "item", "shape": [1], "dtype": "torch.int32"}}})
    assert text is not None and "host read #2" in text and "[1]" in text
    text = _divergence({"divergence": {"stream": "launches", "index": 0, "replay": {"kernel": "_k"},
                                       "normal": None}})
    assert text is not None and "launch of _k" in text and "no more" in text
    assert "fewer" in str(_divergence({"divergence": None, "unused_reads": 1, "unused_launches": 0}))


_TB = '''Traceback (most recent call last):
  File "/venv/triton/runtime/interpreter.py", line 1357, in __call__
    self.fn(**args)
  File "/subs/aten__neg.py", line 34, in _contig_kernel
    offs = pid * BLOCK + tl.arange(0, 1000)
                         ^^^^^^^^^^^^^^^^^^
  File "/venv/triton/language/core.py", line 1644, in arange
    return _semantic.arange(start, end)
  File "/venv/triton/language/semantic.py", line 583, in arange
    raise ValueError("arange's range must be a power of 2")
ValueError: arange's range must be a power of 2

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/src/kernelgenbench/sandbox/child.py", line 238, in run_case
    ret = self.op.invoke(self.impl, call, self.platform)
  File "/src/kernelgenbench/sandbox/hooks.py", line 696, in wrapper
    return fn(*args, **kwargs)
  File "/subs/aten__neg.py", line 117, in _launch
    _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,
  File "/src/kernelgenbench/sandbox/hooks.py", line 495, in run
    ret = interpreted_launch(self, args, kwargs)
  File "/venv/triton/runtime/interpreter.py", line 1361, in __call__
    raise InterpreterError(repr(e)) from e
triton.runtime.errors.InterpreterError: ValueError("arange's range must be a power of 2")
'''


def test_condensed_traceback_keeps_the_submissions_frames_and_the_exceptions() -> None:
    from kernelgenbench.verify.failures import condense_traceback

    text = condense_traceback(_TB, Path("/subs/aten__neg.py"))
    lines = text.splitlines()
    assert '  File "/subs/aten__neg.py", line 34, in _contig_kernel' in lines
    assert "    offs = pid * BLOCK + tl.arange(0, 1000)" in lines
    assert '  File "/subs/aten__neg.py", line 117, in _launch' in lines
    assert "ValueError: arange's range must be a power of 2" in lines
    assert lines[-1] == 'triton.runtime.errors.InterpreterError: ValueError("arange\'s range must be a power of 2")'
    assert "hooks.py" not in text and "semantic.py" not in text
    assert lines.count("  [... 2 frames outside the submission omitted ...]") == 3
    assert "  [... 1 frame outside the submission omitted ...]" in lines


def test_condensed_traceback_without_submission_frames_keeps_the_last_ones() -> None:
    from kernelgenbench.verify.failures import condense_traceback

    text = condense_traceback(_TB, Path("/subs/other.py"))
    # each of the two tracebacks keeps its last two frames
    assert 'semantic.py", line 583' in text and 'interpreter.py", line 1361' in text
    assert "child.py" not in text


def test_condensed_traceback_is_cut_at_line_boundaries() -> None:
    from kernelgenbench.verify.failures import condense_traceback

    tb = "Traceback (most recent call last):\n" + "".join(
        f'  File "/subs/aten__neg.py", line {i}, in f\n    word{i} = call_something_long(argument)\n'
        for i in range(400)) + "RuntimeError: the end\n"
    text = condense_traceback(tb, "/subs/aten__neg.py", limit=2000)
    assert len(text) <= 2200
    assert text.splitlines()[0] == "Traceback (most recent call last):"
    assert text.splitlines()[-1] == "RuntimeError: the end"
    cut = [ln for ln in text.splitlines() if ln.startswith("[... ")]
    assert len(cut) == 1 and "lines (" in cut[0] and "characters) cut" in cut[0]
    # every kept line is a whole line of the original
    original = set(tb.splitlines())
    assert all(ln in original for ln in text.splitlines() if not ln.startswith("[... "))


@pytest.mark.slow
def test_time_phases_of_a_job_do_not_overlap(tmp_path, monkeypatch) -> None:
    """The time line's phases partition a job's wall time: the L2 runs' candidate calls, inputs, transfers
    and judging count in those phases, not again in ``ghost_s`` (a fresh user saw the parts of a
    full-tier job add up to more than its overhead). Each L2 run here spends 0.6 s more in its
    candidate calls: that must show in ``candidate_s`` only."""
    from pathlib import Path

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.verify.judge import CaseJudge

    orig = CaseJudge.run_case
    l2_runs = []

    def slow_l2(self, case, entry, seed=None, mode="normal", **kw):
        if mode != "normal":
            l2_runs.append(mode)
            time.sleep(0.6)
            self.times["candidate_s"] += 0.6
        return orig(self, case, entry, seed=seed, mode=mode, **kw)

    monkeypatch.setattr(CaseJudge, "run_case", slow_l2)
    op = get_operator("aten::neg")
    sub = Path(__file__).resolve().parent.parent / "solutions" / op.filename
    rec = Verifier(JobSpec(op, sub, "smoke"), PROFILES["interpreter"], None, tmp_path / "job", Settings()).run()
    assert rec["status"] == "passed", rec["first_failure"]
    t = rec["time_s"]
    # counted again in ghost_s, the 0.6 s of each L2 run would add 0.6 s per run; its own bookkeeping stays
    # under half of that even on a loaded 2-core machine (0.15 s per run failed there at a load average of 6.7)
    assert l2_runs and 0 < t["ghost_s"] < 0.3 * len(l2_runs), (len(l2_runs), t)
    parts = ("l1_s", "import_s", "reference_s", "save_s", "candidate_s", "load_s", "judge_s", "ghost_s",
             "profile_s", "timing_s", "hung_s")
    assert sum(t.get(k, 0.0) for k in parts) <= rec["wall_s"] * 1.01 + 0.05, (t, rec["wall_s"])


def test_timed_calls_may_not_run_ops_beyond_the_correctness_run() -> None:
    """A candidate that, once timed, fills its output with allowed copies (zero_/copy_) beside a token
    launch: the judged timed outputs are right and the L3 allowlist admits copies, so only the
    comparison with the same case's correctness run (red-team) shows it. Views/metadata are free;
    counts may differ (they may follow the input values)."""
    from kernelgenbench.verify.timing import timed_ops_beyond

    correctness = {"aten::empty.memory_format": 1, "aten::view": 2, "aten::fill_.Scalar": 1}
    honest = {"aten::empty.memory_format": 3, "aten::view": 5, "aten::fill_.Scalar": 2}
    switched = {"aten::empty.memory_format": 1, "aten::zero_": 1, "aten::copy_": 1}
    assert timed_ops_beyond(honest, correctness) == ""  # counts may follow the values
    assert timed_ops_beyond({}, correctness) == ""
    assert timed_ops_beyond(switched, correctness) == "aten::copy_ x1, aten::zero_ x1"
    assert timed_ops_beyond({"aten::_local_scalar_dense": 1}, correctness) == "aten::_local_scalar_dense x1"
    assert timed_ops_beyond(switched, None) == ""


def test_a_file_that_does_not_parse_is_not_reported_as_an_l1_interception(tmp_path: Path) -> None:
    """A syntax error fails the job as ``syntax`` before anything runs; its message says the file does not
    parse rather than naming the L1 scan, which kgb report does not count it under (report/model.py
    ``interception``), so that the console and the report agree (fresh user 29)."""
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.report.model import interception
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.suite.registry import get_operator

    op = get_operator("aten::neg")
    sub = tmp_path / op.filename
    sub.write_text("import triton\n\ndef neg(x:\n    return x\n")
    rec = Verifier(JobSpec(op, sub, "smoke"), PROFILES["interpreter"], None, tmp_path / "w", Settings()).run()
    assert rec["status"] == "failed" and rec["failure_class"] == "syntax"
    msg = rec["first_failure"]["message"]
    assert msg.startswith("the file does not parse: line 3:") and "(rule syntax)" in msg, msg
    assert not msg.startswith("L1 ") and interception(rec) is None


def test_a_failing_argument_slot_is_named_by_its_parameter() -> None:
    """fresh user 32: `arg.5: 1 of 1 elements outside tolerance` of cublasSdot_v2 did not say which argument
    arg.5 is; where the interface names its parameters (vLLM, cuBLAS) the message names it, list items too."""
    from kernelgenbench.suite.compare import name_arg_slot
    from kernelgenbench.suite.registry import get_operator

    params = get_operator("cublas::cublasSdot_v2").interface.params
    assert name_arg_slot("arg.5: 1 of 1 elements outside tolerance", params) == \
        "arg.5 (result): 1 of 1 elements outside tolerance"
    assert name_arg_slot("arg.0.1: 3 of 8 elements differ", ("key_caches", "value_caches")) == \
        "arg.0.1 (key_caches[1]): 3 of 8 elements differ"
    for msg in ("arg.9: beyond the parameters", "return: shape (2,) != expected (3,)", None):
        assert name_arg_slot(msg, params) == msg
    assert name_arg_slot("arg.0: 4 of 4 elements differ", ()) == "arg.0: 4 of 4 elements differ"  # ATen
    assert get_operator("aten::neg").interface.params == ()


def test_the_lazy_linalg_library_is_loaded_once_before_any_thread_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """run/job.py load_lazy_linalg: slot threads starting together make one linalg call in all, and each returns
    only after it finished (PyTorch's lazy CUDA linalg stubs fail when two threads enter them first: gate at
    aadd375). The call is counted on the CPU; the race itself needs a GPU."""
    import threading

    from kernelgenbench.run import job

    calls: list[str] = []
    done = threading.Event()

    def slow_solve(a: torch.Tensor, b: torch.Tensor, *, upper: bool) -> torch.Tensor:
        calls.append(threading.current_thread().name)
        time.sleep(0.05)
        done.set()
        return b

    monkeypatch.setattr(torch.linalg, "solve_triangular", slow_solve)
    monkeypatch.setattr(job, "_LINALG_LOADED", [])
    after: list[bool] = []

    def slot() -> None:
        job.load_lazy_linalg(torch.device("cpu"))
        after.append(done.is_set())

    threads = [threading.Thread(target=slot, name=f"slot{i}") for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and after == [True] * 8
    job.load_lazy_linalg(torch.device("cpu"))
    assert len(calls) == 1
