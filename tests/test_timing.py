"""The timed loop of the timing protocol (sandbox/timed_loop.py; the verifier's half is verify/timing.py)
with CUDA events, synchronisation and the L2 flush faked on
the CPU: alternation of input sets, the judged timed repetitions, the launch and wall-clock checks.
(The real thing runs on GPUs: bench/h200_full.sh.)"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
import torch

from kernelgenbench.sandbox import timed_loop
from kernelgenbench.sandbox.state import State
from kernelgenbench.suite.spec import Call


class FakeEvent:
    scale = 1.0

    def record(self) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, other: "FakeEvent") -> float:
        return (other.t - self.t) * 1e3 * FakeEvent.scale


@pytest.fixture(autouse=True)
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeEvent.scale = 1.0
    monkeypatch.setattr(timed_loop, "_new_event", FakeEvent)
    monkeypatch.setattr(timed_loop, "_synchronize", lambda: None)
    monkeypatch.setattr(timed_loop, "flush_l2", lambda device, state: None)
    monkeypatch.setattr(timed_loop, "_device_lead", lambda ms: None)


class DoubleOp:
    """out = 2 * x; the candidate records one launch per call unless told otherwise. ``cache``: answers
    every call after the first with the first result; ``memo``: a multi-entry cache keyed by the
    input values (exact, so its hits are right answers: only fresh values defeat it)."""

    nothing_to_compute = False

    def __init__(self, state: State, mode: str = "honest") -> None:
        self.state, self.mode, self.cache = state, mode, None
        self.memo: dict[bytes, torch.Tensor] = {}
        self.hit_keys: list[bytes] = []

    def drive_timed(self, call: Call, candidate) -> torch.Tensor:
        out, x = call.args
        self.state.launches.append("double_kernel")
        if self.mode == "skip_launch" and len(self.state.launches) > 3:
            self.state.launches.pop()
        if self.mode == "cache" and self.cache is not None:
            out.copy_(self.cache)
            return out
        if self.mode == "memo":
            key = x.numpy().tobytes()
            if key in self.memo:
                self.hit_keys.append(key)
                out.copy_(self.memo[key])
                return out
        if self.mode == "partial_skip":
            # red team 32's partial skip: the work (2 ms here) on one call in five after the warm-up, nothing on the
            # rest
            self.calls = getattr(self, "calls", 0) + 1
            if self.calls > 6 and self.calls % 5 != 1:
                return out
            time.sleep(0.002)
        out.copy_(x * 2)
        self.cache = out.clone()
        self.memo[x.numpy().tobytes()] = out.clone()
        return out


def _sets() -> list[Call]:
    return [Call([torch.zeros(8), torch.arange(8.0) + 10 * i], written=(0,)) for i in range(2)]


def _fresh(k: int) -> Call:
    """Timed input set k: values no warm-up set and no other timed set has."""
    return Call([torch.zeros(8), torch.arange(8.0) * (k + 3) + 1000 * (k + 1)], written=(0,))


def _run(op: DoubleOp, state: State, check=(), fresh=True, fastest=0) -> dict:
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    base = lambda c: c.args[0].copy_(c.args[1] * 2)  # noqa: E731
    return timed_loop.time_case(op, impl, base, _sets(), SimpleNamespace(device="cpu"), state, reps=20, warmup_ms=1,
                            block=5, check=check, make_set=_fresh if fresh else None, fastest=fastest)


def test_every_timed_repetition_gets_fresh_inputs_and_the_checked_ones_are_kept() -> None:
    state = State()
    res = _run(DoubleOp(state), state, check=[3, 17])
    assert len(res["candidate_samples"]) == 20 and len(res["baseline_samples"]) == 20
    assert res["baseline_ms"] > 0 and res["candidate_ms"] > 0 and res["launches_per_rep"] == 1
    assert sorted(res["checked"]) == [3, 17]
    for k in (3, 17):
        call, ret = res["checked"][k]
        assert torch.equal(call.args[1], _fresh(k).args[1])          # repetition k ran on set k
        assert torch.equal(call.args[0], 2 * _fresh(k).args[1]) and ret is call.args[0]
    assert state.tracing is True  # restored after timing
    # where the time went (CaseRecord.harness_ms): the warm-up ran at least warmup_ms per side
    assert res["warmup_wall_ms"] >= 2 * 1.0 and res["build_ms"] >= 0
    assert sum(res["wall_ms"].values()) >= sum(res["event_total_ms"].values()) * 0.999


def test_a_value_keyed_result_cache_never_hits_a_timed_repetition() -> None:
    """With reused inputs (make_set None: the two sets alternate) a memo answers every timed call; with
    fresh sets it answers none (its only hits are on the warm-up sets)."""
    state = State()
    reused = DoubleOp(state, mode="memo")
    _run(reused, state, fresh=False)
    assert len(reused.hit_keys) >= 20
    state = State()
    op = DoubleOp(state, mode="memo")
    res = _run(op, state)
    fresh_keys = {_fresh(j).args[1].numpy().tobytes() for j in range(20)}
    assert len(res["candidate_samples"]) == 20 and fresh_keys <= set(op.memo)  # every timed call computed...
    assert not fresh_keys & set(op.hit_keys)                                    # ...and none was a memo hit
    assert op.hit_keys  # the warm-up sets do repeat (the memo is not vacuous)


def test_a_cached_answer_shows_in_the_checked_repetition() -> None:
    state = State()
    res = _run(DoubleOp(state, mode="cache"), state, check=[0, 11])
    call, _ = res["checked"][11]
    assert not torch.equal(call.args[0], 2 * call.args[1])  # the verifier's comparison then fails the job


def test_a_repetition_without_a_launch_is_rejected() -> None:
    state = State()
    with pytest.raises(RuntimeError, match="launched no Triton kernel"):
        _run(DoubleOp(state, mode="skip_launch"), state)


@pytest.mark.parametrize("when", ["warm-up", "timed block"])
def test_a_failing_baseline_is_reported_as_the_baselines(when: str) -> None:
    """vllm::cp_gather_indexer_k_quant_cache's compiled reference faulted on the H200 and the job was charged
    `cuda_fault`: a failure of the baseline side is raised as BaselineFailed (the child reports it with stage
    `baseline`, the verifier records class `baseline`, not the submission's fault); the candidate's stay its own."""
    state = State()
    impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
    calls = {"n": 0}

    def base(c):
        calls["n"] += 1
        if when == "warm-up" or calls["n"] > 3 + 2:  # after the warm-up (at least 3 calls), in a timed block
            raise RuntimeError("CUDA error: device-side assert triggered")
        c.args[0].copy_(c.args[1] * 2)

    def run():
        return timed_loop.time_case(DoubleOp(state), impl, base, _sets(), SimpleNamespace(device="cpu"), state,
                                    reps=20, warmup_ms=0, block=5, make_set=_fresh)
    if when == "timed block":  # warm-up: exactly 3 calls with warmup_ms 0
        with pytest.raises(timed_loop.BaselineFailed, match="the baseline failed in a timed block: RuntimeError: "
                                                            "CUDA error: device-side assert") as info:
            run()
    else:
        with pytest.raises(timed_loop.BaselineFailed, match="the baseline failed while warming up") as info:
            run()
    assert isinstance(info.value.__cause__, RuntimeError)
    # the candidate's own failure is not the baseline's
    state = State()
    with pytest.raises(RuntimeError, match="launched no Triton kernel") as info:
        _run(DoubleOp(state, mode="skip_launch"), state)
    assert not isinstance(info.value, timed_loop.BaselineFailed)


def test_baseline_failures_are_not_the_submissions() -> None:
    from kernelgenbench.run.rundir import RERUN_CLASSES
    from kernelgenbench.verify.failures import FAILURE_CLASSES, NOT_SUBMISSION_FAULT, classify_error

    assert "baseline" in FAILURE_CLASSES and "baseline" in NOT_SUBMISSION_FAULT and "baseline" in RERUN_CLASSES
    # a candidate's exception named like the harness's is classified by what it is, not by its name
    err = {"type": "BaselineFailed", "chain": ["BaselineFailed"], "message": "x", "traceback": "", "stage": "timing"}
    assert classify_error(err, SimpleNamespace(interpreter=False, failure_patterns=())) == "runtime_error"


def test_event_times_beyond_the_host_clock_are_rejected() -> None:
    FakeEvent.scale = 50.0
    state = State()
    with pytest.raises(RuntimeError, match="timing check failed"):
        _run(DoubleOp(state), state)


class _Later:
    """Deferred work: computes ``out = 2 * x`` when the harness drops the tensor it hangs on."""

    def __init__(self, out: torch.Tensor, x: torch.Tensor, log: list) -> None:
        self.out, self.x, self.log = out, x, log

    def __del__(self) -> None:
        self.out.copy_(self.x * 2)
        self.log.append("finalized")


class DeferringOp(DoubleOp):
    """Returns at once and leaves the work to a finalizer tied to an input tensor (``how``: as an
    instance attribute, or through an autograd hook closure on a leaf input)."""

    def __init__(self, state: State, how: str = "attr") -> None:
        super().__init__(state)
        self.how, self.log = how, []

    def drive_timed(self, call: Call, candidate) -> torch.Tensor:
        out, x = call.args
        self.state.launches.append("double_kernel")
        self.log.append("call")
        later = _Later(out, x.clone(), self.log)
        if self.how == "attr":
            x._later = later
        else:
            x.requires_grad_(True)
            x.register_hook(lambda g, _l=later: g)
        return out


@pytest.mark.parametrize("how", ["attr", "hook"])
def test_work_deferred_to_a_finalizer_on_a_harness_tensor_is_rejected(how: str) -> None:
    state = State()
    op = DeferringOp(state, how)
    with pytest.raises(RuntimeError, match="timing check failed: the candidate attached Python objects"):
        _run(op, state)
    # no finalizer ran between the timed repetitions of the block (5 per block): the block's calls
    # are consecutive in the log and their finalizers come after them (the warm-up calls before it
    # do drop their inputs at once: nothing is timed there)
    calls = [i for i, e in enumerate(op.log) if e == "call"]
    last = calls[-5:]
    assert last == list(range(last[0], last[0] + 5))
    assert "finalized" in op.log[:last[0]]


def test_attached_objects_names_what_it_found() -> None:
    x = torch.zeros(3)
    assert timed_loop.attached_objects([(Call([x, [torch.ones(2)]]), x)]) == ""
    y = torch.ones(2)
    y._k = _Later(torch.zeros(1), torch.zeros(1), [])
    found = timed_loop.attached_objects([(Call([x, [y]]), None)])
    assert found == "args[1][0].__dict__['_k'] (a _Later)"


class TorchOnTimedOp(DoubleOp):
    """out = 2 * x through a candidate wrapper (dispatch.traced): ``honest`` writes with an allowed copy of a
    value it was handed; ``switch`` computes with PyTorch (aten::mul) once it is timed, told apart by
    the harness state (red-team: the poison of allocations is missing while timing)."""

    def __init__(self, state, mode: str = "honest") -> None:
        super().__init__(state, mode)
        from kernelgenbench.sandbox.dispatch import traced
        from kernelgenbench.sandbox.state import STATE

        def wrapper(out, x):
            if mode == "switch" and not STATE.tracing:
                out.copy_(torch.mul(x, 2))
            else:
                out.copy_(_double_as_launch(x, torch.empty_like(x)))
            return out

        self.fn = traced(wrapper, "aten::double")

    def drive_timed(self, call: Call, candidate) -> torch.Tensor:
        out, x = call.args
        self.state.launches.append("double_kernel")
        return self.fn(out, x)


def _double_as_launch(x: torch.Tensor, into: torch.Tensor) -> torch.Tensor:
    """What a Triton launch would write into ``into``: computed inside the launch (not traced)."""
    from kernelgenbench.sandbox.state import STATE

    STATE.inside_launch += 1
    try:
        return into.copy_(x * 2)
    finally:
        STATE.inside_launch -= 1


@pytest.mark.parametrize("mode", ["honest", "switch"])
def test_timed_calls_are_traced_and_judged_like_correctness_calls(mode: str) -> None:
    from kernelgenbench.sandbox.state import STATE
    from kernelgenbench.verify import profile

    state = STATE
    res = _run(TorchOnTimedOp(state, mode), state)
    assert state.timed_trace is None and state.tracing  # restored after timing
    verdict = profile.judge_trace(res["timed_trace"], frozenset({"double"}))
    if mode == "honest":
        # a fresh buffer of the call copied whole into the out= tensor as given: an unmarked copy
        assert res["timed_trace"] == {"aten::empty_like": 1, "aten::copy_": 1}
        assert verdict.failure is None
    else:
        assert res["timed_trace"]["aten::mul.Tensor"] == 1  # the most in one call, not the total
        assert verdict.failure == "profile" and "aten::mul.Tensor" in verdict.message


def test_timed_calls_that_return_a_pooled_buffer_are_reported() -> None:
    """Issue 12 class 3: a result must be a new tensor of its call in timed calls too (a pool would let
    them allocate nothing); the child reports it (``stale_outputs``), the verifier fails the job."""
    from kernelgenbench.sandbox.dispatch import traced
    from kernelgenbench.sandbox.state import STATE

    # a fresh slice of the pool per call (a slice written again by a later call also changes an earlier repetition's
    # result after its call returned: test_work_left_for_a_later_call_is_rejected)
    pool, at = torch.empty(8 * 4096), [0]

    class PooledOp(DoubleOp):
        def __init__(self, state, pooled: bool) -> None:
            super().__init__(state)

            def wrapper(out, x):
                at[0] += x.numel()
                res = pool[at[0] - x.numel(): at[0]] if pooled else torch.empty_like(x)
                return _double_as_launch(x, res)

            self.fn = traced(wrapper, "aten::double")

        def drive_timed(self, call: Call, candidate) -> torch.Tensor:
            self.state.launches.append("double_kernel")
            return self.fn(*call.args)

    state = STATE
    res = _run(PooledOp(state, pooled=True), state)
    assert res["stale_outputs"] and res["stale_outputs"][0].startswith(
        "aten::double returned the result in storage that was not allocated during this call")
    assert _run(PooledOp(state, pooled=False), state)["stale_outputs"] == []


@pytest.mark.parametrize("stage, cls", [("baseline", "baseline"), ("timing", "cuda_fault")])
def test_the_verifier_charges_a_baseline_fault_to_the_baseline(tmp_path, stage: str, cls: str) -> None:
    """What the verifier makes of a timing answer with an error: the child's stage decides (`baseline` only for
    the harness's own BaselineFailed); the same device-side assert in the candidate's block is `cuda_fault`."""
    import random

    from kernelgenbench.sandbox.protocol import TimeAnswer
    from kernelgenbench.verify.failures import JobFailed
    from kernelgenbench.verify.timing import TimingPhase

    err = {"type": "AcceleratorError", "chain": ["AcceleratorError"], "message": "CUDA error: device-side assert "
           "triggered", "traceback": "", "stage": stage}
    session = SimpleNamespace(request=lambda cmd, timeout: TimeAnswer(error=err), check_launch=lambda *a: None)
    phase = TimingPhase.__new__(TimingPhase)
    phase.op = SimpleNamespace(baseline_label=lambda: "native-compiled (...)")
    phase.platform = SimpleNamespace(interpreter=False, failure_patterns=())
    phase.settings = SimpleNamespace(reps=10, warmup_ms=10.0, timing_checks=2, time_timeout_s=60.0, baseline=None)
    phase.session, phase.rng, phase.io = session, random.Random(0), tmp_path
    phase.record = SimpleNamespace(baseline=None)
    case = SimpleNamespace(tier="full", index=4, seed=7, params={}, id="full/4")
    with pytest.raises(JobFailed) as info:
        phase.time_one(case)
    assert info.value.cls == cls
    assert str(info.value).startswith("timing case full/4: AcceleratorError: CUDA error: device-side assert")
    assert ("not the submission's fault; the job is run again on resume" in str(info.value)) == (stage == "baseline")


def test_the_fastest_repetitions_are_kept_and_a_skipped_one_is_among_them() -> None:
    """Red team 32's partial skip (work skipped on more than half of the timed repetitions moves the median): the
    skipped repetitions are the fastest, the loop keeps the fastest (``fastest``) beside the random checks, and the
    verifier finds the same ones in the samples (verify/timing.py fastest_repetitions) and judges them."""
    from kernelgenbench.verify.timing import fastest_repetitions

    state = State()
    res = _run(DoubleOp(state, mode="partial_skip"), state, check=[3], fastest=2)
    samples = res["candidate_samples"]
    quick = fastest_repetitions(samples, 2)
    assert len(quick) == 2 and set(res["checked"]) == {3} | set(quick)
    skipped = [k for k in quick if not torch.equal(res["checked"][k][0].args[0], 2 * _fresh(k).args[1])]
    assert skipped == quick  # both fastest skipped their work: judged, they fail
    assert res["candidate_ms"] < 1.0  # the median moved below the 2 ms of the work: the cheat's gain
    # an honest candidate: the fastest are kept and right
    state = State()
    res = _run(DoubleOp(state), state, check=[], fastest=2)
    quick = fastest_repetitions(res["candidate_samples"], 2)
    assert set(res["checked"]) == set(quick)
    assert all(torch.equal(res["checked"][k][0].args[0], 2 * _fresh(k).args[1]) for k in quick)


def test_fastest_repetitions_breaks_ties_by_the_earlier() -> None:
    from kernelgenbench.verify.timing import fastest_repetitions

    assert fastest_repetitions([3.0, 1.0, 2.0, 1.0, 5.0], 2) == [1, 3]
    assert fastest_repetitions([2.0, 1.0, 1.0, 1.0], 2) == [1, 2]
    assert fastest_repetitions([1.0], 2) == [0] and fastest_repetitions([1.0, 2.0], 0) == []


class LaterCallOp(DoubleOp):
    """Red team 38: work left for a later call. Timed repetition ``k`` (told by its fresh values; on a GPU, by counting
    the fresh sets after the warm-up's repeated ones) returns at once, its ``out`` kept by the candidate, unless
    ``k % 4 == 3`` or it is the last (20 at reps=20: timed_repetitions is public), which computes its own result and
    the pending ones (2 ms each): the median is a skipped repetition's, and every judged repetition (random or
    fastest, judged after the loop) was completed by then."""

    def drive_timed(self, call: Call, candidate) -> torch.Tensor:
        out, x = call.args
        self.state.launches.append("double_kernel")
        self.pending = getattr(self, "pending", [])
        k = int(x[0].item()) // 1000 - 1  # -1: a warm-up set
        if k >= 0 and k % 4 != 3 and k != 19:
            self.pending.append((out, x))
            return out
        for o, y in [*self.pending, (out, x)]:
            time.sleep(0.002)
            o.copy_(y * 2)
        self.pending.clear()
        return out


def test_work_left_for_a_later_call_is_rejected() -> None:
    """Each repetition's tensors are fingerprinted when its call returns and again at the block's end (and, for the
    judged ones, after the loop): a repetition whose output a later call completed fails the timing check (before:
    the median was a skipped repetition's, under 1 ms of 2, and the judged fastest were right when judged)."""
    state = State()
    with pytest.raises(RuntimeError, match="timing check failed: timed repetition .* changed after its call returned"):
        _run(LaterCallOp(state), state, check=[3], fastest=2)
    # an honest candidate passes the same check, with its fastest kept and right
    state = State()
    res = _run(DoubleOp(state), state, check=[3], fastest=2)
    assert all(torch.equal(c.args[0], 2 * c.args[1]) for c, _ in res["checked"].values())


def test_digest_sums_only_the_timing_devices_tensors() -> None:
    # a call may hold host tensors beside device ones (vllm::swap_blocks' CPU block mapping, aten::fill_'s CPU value):
    # the sums must stack on one device and stay stream-ordered, so only the timing device's tensors are summed
    a = torch.arange(12, dtype=torch.float32)
    pairs = torch.tensor([[0, 1], [1, 0]], dtype=torch.int64)
    call = Call([a, a[::2], pairs])
    everything = timed_loop.digest((call, a))
    assert everything.shape == (9,)  # a, its strided view and pairs (a once: the same layout), three sums each
    assert timed_loop.digest((call, a), torch.device("cpu")).tolist() == everything.tolist()
    assert timed_loop.digest((call, a), "cuda").numel() == 0  # no tensor on a CUDA device here: nothing summed
    b = a.clone()
    b[5] += 1
    assert timed_loop.digest(b).tolist() != timed_loop.digest(a).tolist()


def test_warm_up_garbage_cycles_are_collected_once_they_pile_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox child runs with automatic collection off: a candidate whose every call leaves a reference cycle
    holding device memory piled it up for the whole warm-up (an H100 at 9530296: 69 GiB at 200 ms). The warm-up
    now runs a guarded young collection each time the calls piled up WARMUP_PILE_BYTES (device bytes faked here:
    1 MiB per live cycle), and none while automatic collection is on."""
    import gc
    import weakref

    class Cycle:
        def __init__(self, t: torch.Tensor) -> None:
            self.me, self.t = self, t

    live: "weakref.WeakSet[Cycle]" = weakref.WeakSet()
    most = [0]
    wheres: list[str] = []

    class CycleOp(DoubleOp):
        def drive_timed(self, call: Call, candidate) -> torch.Tensor:
            live.add(Cycle(call.args[1]))
            most[0] = max(most[0], len(live))
            return super().drive_timed(call, candidate)

    def collect_young(where: str = "") -> None:
        wheres.append(where)
        gc.collect(1)

    monkeypatch.setattr(timed_loop, "_allocated", lambda device: len(live) << 20)
    monkeypatch.setattr(timed_loop, "WARMUP_PILE_BYTES", 4 << 20)
    monkeypatch.setattr(timed_loop.collector, "collect_young", collect_young)
    was = gc.isenabled()
    gc.disable()
    try:
        state = State()
        impl = SimpleNamespace(activate=lambda: None, deactivate=lambda: None)
        base = lambda c: c.args[0].copy_(c.args[1] * 2)  # noqa: E731
        timed_loop.time_case(CycleOp(state), impl, base, _sets(), SimpleNamespace(device="cpu"), state, reps=5,
                             warmup_ms=30, block=5, check=(), make_set=_fresh)
        warm = [w for w in wheres if w == "a collection during the timing warm-up"]
        assert len(warm) >= 2 and most[0] <= 6   # at most the threshold's 4 MiB and the call over it, then collected
    finally:
        if was:
            gc.enable()
    wheres.clear()
    live.clear()
    most[0] = 0
    state = State()
    timed_loop.time_case(CycleOp(state), impl, base, _sets(), SimpleNamespace(device="cpu"), state, reps=5,
                         warmup_ms=30, block=5, check=(), make_set=_fresh)
    assert "a collection during the timing warm-up" not in wheres   # automatic collection on: Python's own


def test_a_call_built_on_the_host_is_placed_as_a_case_load_places_it() -> None:
    """The child's own builds (timed repetitions, warm-up and probe sets) place tensors as torch.load(map_location=
    device) places a case's inputs: every tensor on the device, views kept on one storage with their strides and
    offsets, written arguments cloned; a call already on the device is returned as it is."""
    from kernelgenbench.sandbox.child import placed_as_loaded

    base = torch.arange(20.0).reshape(4, 5)
    call = Call([base, base[:, 1:4], torch.tensor([[0, 1]])], {"k": [torch.ones(2)]}, written=(0,))
    assert placed_as_loaded(call, torch.device("cpu")) is call
    moved = placed_as_loaded(call, torch.device("meta"))
    assert [a.device.type for a in moved.args] == ["meta"] * 3 and moved.kwargs["k"][0].device.type == "meta"
    assert moved.args[1].stride() == (5, 1) and moved.args[1].storage_offset() == 1
    assert moved.args[1].untyped_storage().nbytes() == 80  # a view of the whole storage, not a copy of its elements
    assert moved.written == (0,)


def test_a_host_slot_stays_on_the_host_through_the_load_and_the_childs_own_builds() -> None:
    """aten::fill_'s held-out 0-d CPU value (and masked_fill_'s): torch.load(map_location=device) put it on the device,
    so the case never tested the cross-device value PyTorch allows; Call.host keeps it on the host through the
    child's load (on_host) and its own builds (placed_as_loaded)."""
    from kernelgenbench.sandbox.child import on_host, placed_as_loaded

    x, v = torch.zeros(3), torch.tensor(2.5)
    call = Call([x, v], written=(0,), host=(1,))
    assert Call.loaded(call.saved()).host == (1,) and call.clone().host == (1,)
    moved = placed_as_loaded(call, torch.device("meta"))
    assert moved.args[0].device.type == "meta" and moved.args[1].device.type == "cpu" and moved.host == (1,)
    assert placed_as_loaded(Call([x.to("meta"), v], host=(1,)), torch.device("meta")).args[1] is v  # nothing to move
    class OnDevice:  # a loaded tensor on the device (a test cannot copy a meta tensor to the host)
        def cpu(self) -> str:
            return "moved"

    data = {"args": [x, OnDevice()], "kwargs": {"value": OnDevice(), "other": x}, "host": [1, "value"]}
    assert on_host(data)["args"][1] == "moved" and data["kwargs"]["value"] == "moved"
    assert data["args"][0] is x and data["kwargs"]["other"] is x


def test_fill_marks_a_value_built_on_another_device_as_host() -> None:
    """On a GPU, fill_'s and masked_fill_'s held-out value is built on the CPU beside a device self (meta stands for
    the device here): the case marks it host; on the interpreter, whose device is the host, nothing is marked."""
    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator

    cpu, meta = torch.device("cpu"), torch.device("meta")
    for name, slot in (("aten::fill_", 1), ("aten::masked_fill_", 2)):
        op = get_operator(name)
        held = [p for p in op.grid("heldout") if p.get("value_device") == "cpu"][0]
        on_gpu = op.build(held, meta, generator(cpu, 1))
        assert on_gpu.host == (slot,) and on_gpu.args[slot].device == cpu and on_gpu.args[0].device == meta
        assert op.build(held, cpu, generator(cpu, 1)).host == ()
        plain = [p for p in op.grid("heldout") if "value_device" not in p][0]
        assert op.build(plain, meta, generator(cpu, 1)).host == ()


def test_every_calls_tensors_are_walked_in_a_list_of_repetitions() -> None:
    """A Call's arguments are walked as a temporary list; a freed one's id went to the next Call's list, which was
    then skipped as seen: the tensors and attached objects of every Call after the first went unseen (the block's
    attached-object check, the scrub of a set's tensors)."""
    for _ in range(20):
        calls = [Call([torch.zeros(8), torch.ones(8)], written=(0,)) for _ in range(3)]
        objs = [(c, c.args[0]) for c in calls]
        assert len(timed_loop._tensors(objs)) == 6
        for c in calls:
            c.args[1].kgb_later = 1
            assert timed_loop.attached_objects(objs) == "args[1].__dict__['kgb_later'] (a int)"
            del c.args[1].kgb_later
