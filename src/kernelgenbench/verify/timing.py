"""GPU timing of one job, the verifier's side (DESIGN.md "Timing").

The timing protocol has two halves, split by the trust boundary rather than kept in one module:

* the timed loop runs inside the untrusted sandbox child, beside the candidate (it must: the candidate
  runs there): ``sandbox/timed_loop.py`` (warm-up, alternating blocks, fresh input sets per repetition,
  L2 flush, device lead, CUDA events, the checks made where the calls happen; its docstring gives the
  method);
* this module is the verifier's half: :class:`TimingPhase` sends each timed case to the child
  (:class:`~kernelgenbench.sandbox.protocol.TimeCommand`), judges the integrity of what comes back (the
  error it reports, timer tampering, the L3 dispatch trace and memory provenance of the timed calls, ops
  beyond the case's correctness run (:func:`timed_ops_beyond`), device time beyond the verifier's own
  wall clock, the judged timed repetitions against references it rebuilds itself), re-measures an
  implausible speedup in a fresh sandbox, and records speedups, GB/s, TFLOP/s and % of speed-of-light
  (the operator's speedup: :func:`~kernelgenbench.metrics.geomean` over its timed cases).

It also holds what both halves share: :data:`BLOCK`, :func:`timed_repetitions` and :func:`timed_set_seed`
(the child builds repetition ``k``'s inputs from that seed, the verifier rebuilds the judged ones from it).
"""
from __future__ import annotations

import contextlib
import math
import random
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager

import torch

from ..metrics import geomean
from ..platforms import Platform
from ..record import CaseRecord, JobRecord, TimingInfo
from ..sandbox.protocol import TimeAnswer, TimeCommand
from ..sandbox.runner import ChildDied, ChildTimeout
from ..suite.common import generator
from ..suite.spec import Case, Operator
from . import profile as l3
from .failures import JobFailed, classify_error

if TYPE_CHECKING:
    from ..settings import Settings
    from .judge import CaseJudge
    from .session import ChildSession


#: What ``timing.method`` says of each Settings.timing_hold (run/gate.py: the GPU's shared and exclusive gate).
HOLD_TEXT = {
    "job": "the job has the GPU alone from its first timed case to its last (other slots of the GPU wait: "
           "run/gate.py)",
    "case": "each case's warm-up and timed blocks have the GPU alone (other slots of the GPU wait: run/gate.py); "
            "making the case's baseline before them and judging its checked repetitions after them share the GPU "
            "with other slots' untimed work",
}

#: What ``timing.method`` adds where the job's compiled baselines were made ahead (TimingPhase.make_ahead).
AHEAD_TEXT = ("each case's compiled baseline made before the job's first timed case, under the GPU's shared gate "
              "(the same graph, cross-check and probe sets as made in its case); ")

#: Repetitions per block before the sides switch (time_case's default).
BLOCK = 10

#: XORed into a case's seed for its two warm-up input sets (built by the child; never the correctness run's).
WARMUP_SALTS = (0x9E3779B1, 0x85EBCA6B)


def timed_repetitions(reps: int, block: int = BLOCK) -> int:
    """How many timed repetitions each side runs for ``reps`` requested: whole blocks, at least one."""
    return max(1, -(-reps // block)) * block


def fastest_repetitions(samples: list[float], n: int) -> list[int]:
    """The numbers of the ``n`` fastest repetitions of ``samples`` (device ms in repetition order; ties: the
    earlier), sorted. The child keeps them for the verifier (sandbox/timed_loop.py ``time_case`` ``fastest``), and
    the verifier picks the same ones from the samples the child reports and judges them: a candidate that skips its
    work on some timed repetitions (red team 32: more than half of them, at random, moves the median) makes those its
    fastest, so a skipped repetition is always among the judged ones, wherever the median lies."""
    return sorted(sorted(range(len(samples)), key=lambda k: (samples[k], k))[:max(0, n)])


def timed_set_seed(base: int, k: int) -> int:
    """The generator seed of timed input set ``k`` of a case whose timing seed is ``base`` (a secret
    the verifier draws per case; it rebuilds the judged repetitions' inputs from the same seeds)."""
    return (int(base) + (k + 1) * 0x9E3779B97F4A7C15) % (1 << 63)



def timed_ops_beyond(timed: dict[str, int], correctness: dict[str, int] | None) -> str:
    """The ATen ops a timed candidate call ran beyond its case's correctness run: ``""`` when none.

    Args:
        timed: op key -> the most times one timed call of the case ran it (``timed_trace``).
        correctness: op key -> times the case's correctness run ran it (all its candidate calls),
            or None when the case has no correctness trace (nothing compared).

    Compared are the ops that can write or read results outside a kernel (fills, copies, host reads,
    random draws): a timed call may run none the correctness run did not run at all. A candidate that
    tells timing apart and then computes with allowed copies plus a token launch is caught here (its
    judged timed repetitions are right, and the L3 allowlist admits copies). Counts are not compared,
    nor are views, metadata and allocations: they may follow the input values (a boolean mask's
    count of true elements), which differ between the correctness run and the timed repetitions."""
    if correctness is None:
        return ""
    # host_read_widened weighs reads the correctness run made too (the budget judges it): an honest read of memory a
    # launch received weighs more in a timed call, where no snapshot tells that the launch left it unchanged
    judged = (l3._FILL_COPY_OPS | l3._ITEM_OPS | {"random_draw"}) - {"host_read_widened"}
    new = [f"{k} x{n}" for k, n in sorted(timed.items())
           if n and l3._base(k) in judged and not correctness.get(k)]
    return ", ".join(new[:5])


def not_applicable(record: JobRecord, op: Operator, platform: Platform) -> None:
    """Record that ``platform`` reports no times (the CPU interpreter)."""
    record.timing = TimingInfo(applicable=False, reason=f"timing is not reported on the {platform.name} platform")
    record.baseline = f"{op.baseline_label()} (not timed on {platform.name})"


class TimingPhase:
    """Times a job's timed cases in its sandbox and judges what the child reports.

    Args:
        op, platform, device: the operator, the platform and the verifier's device.
        settings: ``reps``, ``warmup_ms``, ``timing_checks``, ``time_timeout_s``, ``implausible_speedup``.
        session: the job's sandbox (a fresh one re-measures an implausible speedup).
        judge: the job's case judge (its comparison judges the checked timed repetitions).
        record: the job's record (timing, baseline, speedup, sol_pct, failures).
        rng: the verifier's secret RNG (each case's timing seed, the judged repetitions).
        io: the folder of the tensors exchanged with the child.
        ceilings: the device's measured ceilings (``verify/ceilings.py``) for % of speed-of-light.
        case_traces: case id -> the ATen ops of its correctness run (:func:`timed_ops_beyond`).
    """

    #: context-manager factories around each case's untimed GPU work (making its baseline before, judging its
    #: checked repetitions after) and around its timed blocks; the job sets them from Settings.timing_hold
    #: (``case``: the GPU's shared and exclusive gate); no-ops where the job holds the GPU for all of timing
    hold_untimed: Callable[[], ContextManager[Any]] = contextlib.nullcontext
    hold_timed: Callable[[], ContextManager[Any]] = contextlib.nullcontext
    #: the context-manager factory around each ``ahead`` command of :meth:`make_ahead` (the job: the GPU's shared gate,
    #: per case, outside the job's exclusive hold under either Settings.timing_hold)
    hold_ahead: Callable[[], ContextManager[Any]] = contextlib.nullcontext
    #: why the child kept no baseline made ahead (:meth:`make_ahead`), or None
    ahead_refused: str | None = None
    #: ms the verifier spent judging the last case's checked repetitions
    _check_ms: float = 0.0

    def __init__(self, op: Operator, platform: Platform, device: torch.device, settings: Settings,
                 session: ChildSession, judge: CaseJudge, record: JobRecord, rng: random.Random, io: Path,
                 ceilings: dict[str, float], case_traces: dict[str, dict[str, int]]) -> None:
        self.op = op
        self.platform = platform
        self.device = device
        self.settings = settings
        self.session = session
        self.judge = judge
        self.record = record
        self.rng = rng
        self.io = io
        self.ceilings = ceilings
        self.case_traces = case_traces
        #: case id -> where the wall time of timing it went, in ms (CaseRecord.harness_ms)
        self.harness_ms: dict[str, dict[str, float]] = {}
        #: called as ``progress("timing", done, total)`` after each timed case (the console's per-job bar)
        self.progress: Callable[[str, int, int], None] | None = None
        #: case id -> the verifier's wall clock of the case's ``ahead`` command, ms (:meth:`make_ahead`)
        self.ahead_ms: dict[str, float] = {}

    def timed_cases(self, cases: list[Case]) -> list[Case]:
        """The cases of ``cases`` that :meth:`run` times: timed, and not left untimed by the correctness phase."""
        by_id = {e.id: e for e in self.record.cases}
        return [c for c in cases if c.timed and not by_id[c.id].untimed]

    def ahead_wanted(self) -> bool:
        """Whether the job's baselines are made ahead (:meth:`make_ahead`): ``Settings.baseline_ahead`` and a
        baseline that is compiled (``native-compiled``: forced, or the operator's default where vLLM does not
        import); other baselines cost nothing to make."""
        from ..suite.baselines import baseline_kind

        if not getattr(self.settings, "baseline_ahead", True):
            return False
        forced = self.settings.baseline
        if forced is not None and forced in getattr(self.op, "baseline_kinds", ()):
            return forced == "native-compiled"
        return baseline_kind(self.op.baseline_label()) == "native-compiled"

    def make_ahead(self, cases: list[Case]) -> None:
        """Make the baseline of every case :meth:`run` will time before the first is timed: one ``ahead`` command
        per case (:class:`~kernelgenbench.sandbox.protocol.TimeCommand`), each under :attr:`hold_ahead`; the child
        keeps each case's baseline (not its warm-up sets) for the case's ``prepare`` command. A vLLM reference's
        torch.compile was ~95% of a vLLM job's timing work (4 s a timed case; 252 s of 264 s over call 6's 63 timed
        cases): made here, it is shared work beside the other slots, not time the job holds the GPU alone. The
        timed artefact is the same: the same compiled graph of the same warm-up set, checked against the eager
        reference and probed on the same sets before any candidate call is timed. Nothing where
        :meth:`ahead_wanted` is false. Raises JobFailed (``baseline``: making one failed) as :meth:`time_one`."""
        if not self.ahead_wanted():
            return
        for case in self.timed_cases(cases):
            inp = self._inp(case)
            torch.save({"warmup_seeds": [case.seed ^ salt for salt in WARMUP_SALTS], "params": case.params}, inp)
            with self.hold_ahead():
                t0 = time.perf_counter()
                msg = self._request(case, TimeCommand(str(inp), self.settings.reps, self.settings.warmup_ms,
                                                      baseline=self.settings.baseline, ahead=True))
                self.ahead_ms[case.id] = (time.perf_counter() - t0) * 1e3
            if not (msg.phases_ms or {}).get("ahead_kept", 0.0):
                # the child kept none (a reference that graph-breaks: its frames' caches are every case's): each
                # case makes its baseline in its prepare command, as without this pass
                self.ahead_refused = str(msg.baseline or "the child kept no baseline made ahead")
                self.ahead_ms.clear()
                return

    def _inp(self, case: Case) -> Path:
        """The file of ``case``'s time commands (its name keys what the child keeps for the case)."""
        return self.io / f"{case.tier}-{case.index}.time.pt"

    def run(self, cases: list[Case]) -> None:
        """Time every timed case of ``cases`` that ran and was not left untimed; record the results."""
        by_id = {e.id: e for e in self.record.cases}
        timed = self.timed_cases(cases)
        self.record.timing = TimingInfo(
            applicable=True, reps=self.settings.reps, warmup_ms=self.settings.warmup_ms,
            method="device time: alternating blocks, fresh input values every repetition (both sides "
                   "the same), L2 flush (256 MB), "
                   "device spin so the host is ahead, CUDA events, median; host issue "
                   "time per call reported beside it (*_host_ms); "
                   f"{HOLD_TEXT[self.settings.timing_hold]}; "
                   f"{AHEAD_TEXT if self.ahead_ms else ''}"
                   f"{f'baselines made in each case ({self.ahead_refused}); ' if self.ahead_refused else ''}"
                   f"{self.settings.timing_checks} random and the {self.settings.timing_fastest} fastest timed "
                   "candidate repetitions judged",
            timed_cases=len(timed))
        skipped = sum(1 for c in cases if c.timed and by_id[c.id].untimed)
        if skipped:
            self.record.timing.untimed_cases = skipped
        speedups: list[float] = []
        sols: list[float] = []
        answers: dict[str, TimeAnswer] = {}
        for case in timed:
            answers[case.id] = self.time_one(case)
            if self.progress is not None:
                self.progress("timing", len(answers), len(timed))

        def ratio(m: TimeAnswer) -> float:
            return float(m.baseline_ms) / float(m.candidate_ms)  # type: ignore[arg-type]

        implausible = [case for case in timed if ratio(answers[case.id]) > self.settings.implausible_speedup]
        if implausible:
            # Implausible speedups: measure those cases again in one fresh process (one restart per job, not
            # per case: each restart costs seconds) and keep the slower candidate time of the two.
            with self.hold_untimed():
                self.session.close()
                self.session.start()
            for case in implausible:
                first, again = answers[case.id], self.time_one(case)
                by_id[case.id].remeasured = {
                    "first_ms": [round(float(first.baseline_ms), 5), round(float(first.candidate_ms), 5)],  # type: ignore[arg-type]
                    "fresh_ms": [round(float(again.baseline_ms), 5), round(float(again.candidate_ms), 5)]}  # type: ignore[arg-type]
                if ratio(again) < ratio(first):
                    answers[case.id] = again
        labels = [answers[case.id].baseline for case in timed]
        self.record.baseline = job_baseline_label(labels)
        for case in timed:
            msg = answers[case.id]
            b, c = float(msg.baseline_ms), float(msg.candidate_ms)  # type: ignore[arg-type]
            if len(set(labels)) > 1:
                by_id[case.id].baseline = msg.baseline
            self._record_case(by_id[case.id], case, msg, b, c, speedups, sols)
            if case.id in self.harness_ms:
                by_id[case.id].harness_ms = self.harness_ms[case.id]
        if speedups:
            self.record.speedup = round(geomean(speedups), 4)  # type: ignore[arg-type]
        if sols:
            self.record.sol_pct = round(statistics.median(sols), 2)

    def _record_case(self, entry: CaseRecord, case: Case, msg: TimeAnswer, b: float, c: float,
                     speedups: list[float], sols: list[float]) -> None:
        cost = self.op.cost(case.params)
        sp = b / c
        gbps = cost.bytes / (c * 1e-3) / 1e9 if cost.bytes else None
        tflops = cost.flops / (c * 1e-3) / 1e12 if cost.flops else None
        sol = self.sol(cost, c)
        entry.update(baseline_ms=round(b, 5), candidate_ms=round(c, 5), speedup=round(sp, 4),
                     gbps=round(gbps, 2) if gbps else None, tflops=round(tflops, 3) if tflops else None,
                     sol_pct=round(sol, 2) if sol is not None else None,
                     baseline_host_ms=_round(msg.baseline_host_ms),
                     candidate_host_ms=_round(msg.candidate_host_ms),
                     input_build_ms=_round(msg.build_ms),
                     baseline_spread=_spread(msg.baseline_samples),
                     candidate_spread=_spread(msg.candidate_samples))
        speedups.append(sp)
        if sol is not None:
            sols.append(sol)

    def time_one(self, case: Case) -> TimeAnswer:
        """Time one case in the child; judge the integrity of what it reports.

        The warm-up calls use two input sets drawn with seeds other than the correctness run's; every
        timed repetition gets a fresh input set the child builds from its own seed
        (:func:`timed_set_seed` of a secret per-case seed), so no
        timed call sees values seen before. ``Settings.timing_checks`` randomly chosen timed
        candidate repetitions are sent back and judged like a correctness case against a reference
        the verifier computes from its own rebuild of their inputs, and so are the ``Settings.timing_fastest``
        fastest ones (the verifier finds them in the reported samples: a skipped repetition is a fast one): a
        candidate that behaves differently when it is timed, skips work on some repetitions, or answers from a
        cache, fails.

        Three commands, each under its hold (:attr:`hold_untimed`, :attr:`hold_timed`): the child first builds
        the warm-up sets and makes the baseline, or takes the one :meth:`make_ahead` made (``prepare``), then warms up
        and times (keeping the checked repetitions), then writes them out (``save``, outside the exclusive hold) and
        the verifier judges them.
        """
        t_prep = time.perf_counter()
        base_seed = self.rng.getrandbits(62)
        inp = self._inp(case)
        # the child builds the two warm-up sets from these seeds, as it builds the timed sets from base_seed (a
        # set it builds wrong fails the judged repetitions, rebuilt here; warm-up values are never judged)
        torch.save({"warmup_seeds": [case.seed ^ salt for salt in WARMUP_SALTS], "params": case.params,
                    "seed": base_seed}, inp)
        total = timed_repetitions(self.settings.reps)
        check = sorted(self.rng.sample(range(total), min(total, self.settings.timing_checks)))
        check_out = self.io / f"{case.tier}-{case.index}.timecheck.pt"
        prep_ms = (time.perf_counter() - t_prep) * 1e3
        with self.hold_untimed():
            t_made = time.perf_counter()
            self._request(case, TimeCommand(str(inp), self.settings.reps, self.settings.warmup_ms,
                                            baseline=self.settings.baseline, prepare=True))
            made_ms = (time.perf_counter() - t_made) * 1e3
        with self.hold_timed():
            t0 = time.perf_counter()
            msg = self._request(case, TimeCommand(str(inp), self.settings.reps, self.settings.warmup_ms, check,
                                                  None, self.settings.baseline,
                                                  fastest=self.settings.timing_fastest))
            wall_ms = (time.perf_counter() - t0) * 1e3
        with self.hold_untimed():
            # the checked repetitions, kept by the child, written out after the exclusive hold
            saved = self._request(case, TimeCommand(str(inp), check_out=str(check_out), save=True))
            reported = self._judge(case, msg, wall_ms, check, check_out, base_seed)
        child = {k: float(v) for k, v in (msg.phases_ms or {}).items() if isinstance(v, (int, float))}
        child["save"] = float((saved.phases_ms or {}).get("save", 0.0))
        self.harness_ms[case.id] = {
            "prep": round(prep_ms, 3), "made": round(made_ms, 3), **{k: round(v, 3) for k, v in child.items()},
            "check": round(self._check_ms, 3), "command": round(wall_ms, 3), "device": round(reported, 3)}
        if case.id in self.ahead_ms:
            self.harness_ms[case.id]["ahead"] = round(self.ahead_ms[case.id], 3)
        return msg

    def _request(self, case: Case, cmd: TimeCommand) -> TimeAnswer:
        """Send one time command (a ``prepare`` one too) and check its answer's error and launch records.

        Raises:
            JobFailed: ``timeout``, the child's death, ``baseline`` (the child's own BaselineFailed), the
                candidate's error classes, ``platform`` for an unexpected answer.
        """
        try:
            msg = self.session.request(cmd, self.settings.time_timeout_s)
        except ChildTimeout:
            self.session.drop()
            raise JobFailed("timeout", f"timing case {case.id} exceeded {self.settings.time_timeout_s:.0f} s",
                            case) from None
        except ChildDied as exc:
            self.session.drop()
            raise self.session.died(exc, case) from None
        self.session.check_launch(msg, f"timing case {case.id}", case)
        if msg.error:
            err = msg.error
            text = f"{err.get('type')}: {err.get('message')}"
            if err.get("stage") == "baseline":
                # the child sets this stage only for its own BaselineFailed (sandbox/timed_loop.py), never for an
                # exception the candidate raises, whatever its name
                raise JobFailed("baseline", f"timing case {case.id}: {text} (the baseline: "
                                            f"{self.record.baseline or self.op.baseline_label()}; not the "
                                            f"submission's fault; the job is run again on resume)", case)
            cls = "timer_tampering" if "timing check failed" in text else (
                "not_exercised" if "launched no Triton kernel" in text else classify_error(err, self.platform))
            raise JobFailed(cls, f"timing case {case.id}: {text}", case)
        if not isinstance(msg, TimeAnswer):
            raise JobFailed("platform", f"unexpected message from the sandbox: {msg.event_name!r}", case)
        if msg.timers_tampered:
            raise JobFailed("timer_tampering", f"timer functions replaced: {msg.timers_tampered}", case)
        return msg

    def _judge(self, case: Case, msg: TimeAnswer, wall_ms: float, check: list[int], check_out: Path,
               base_seed: int) -> float:
        """Judge a timing answer: the timed calls' trace, the device time against the host clock, the checked
        repetitions against the verifier's own references. Returns the device time the child reported (ms);
        sets ``_check_ms``. Raises JobFailed (``profile``, ``timer_tampering``, ``wrong_result``)."""
        # the timed calls' ATen ops, judged like a correctness call's (a candidate that computes with
        # PyTorch or a vendor library only when it is timed fails here)
        tv = l3.judge_trace(msg.timed_trace, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement)
        if tv.failure:
            raise JobFailed(tv.failure, f"timing case {case.id}: L3 dispatch trace of the timed candidate calls "
                                        f"(the most of each op in one call): {tv.message}", case)
        if msg.stale_outputs:
            raise JobFailed("profile", f"timing case {case.id}: L3 memory provenance of the timed candidate calls: "
                                       f"{msg.stale_outputs[0]}", case)
        extra = timed_ops_beyond(msg.timed_trace, self.case_traces.get(case.id))
        if extra:
            raise JobFailed("profile", f"timing case {case.id}: a timed candidate call ran ATen ops its correctness "
                                       f"run on the same case did not ({extra}); a candidate must compute the same "
                                       f"way when it is timed (the ghost replay that proves a Triton kernel "
                                       f"computes the result cannot run inside timing)", case)
        b, c = float(msg.baseline_ms), float(msg.candidate_ms)  # type: ignore[arg-type]
        reported = sum(msg.event_total_ms.values())
        if reported > wall_ms * 1.05 + 1.0:
            raise JobFailed("timer_tampering", f"timing case {case.id}: the child reported {reported:.2f} ms of "
                                               f"device time in a command the verifier saw take {wall_ms:.2f} ms", case)
        if not (math.isfinite(b) and math.isfinite(c) and b > 0 and c > 0):
            raise JobFailed("timer_tampering", f"timing case {case.id}: implausible times {b}, {c}", case)
        t_check = time.perf_counter()
        try:
            kept = torch.load(check_out, map_location=self.device, weights_only=True)
        except Exception as exc:  # noqa: BLE001
            raise JobFailed("timer_tampering", f"timing case {case.id}: the checked timed repetitions were not "
                                               f"returned ({type(exc).__name__})", case) from None
        # the random repetitions, and the fastest ones by the samples the child reported (a repetition that skipped
        # its work is a fast one); the child saved both
        samples = [float(t) for t in (msg.candidate_samples or [])]
        quick = set(fastest_repetitions(samples, self.settings.timing_fastest))
        for k in sorted(set(check) | quick):
            out = kept.get(str(k)) if isinstance(kept, dict) else None
            if not isinstance(out, dict):
                raise JobFailed("timer_tampering", f"timing case {case.id}: timed repetition {k} missing", case)
            call = self.op.build(case.params, self.device, generator(self.device, timed_set_seed(base_seed, k)))
            exp = self.op.reference(case.params, call.clone())
            try:
                bad, _ = self.judge.judge_values(out, exp)
            except Exception as exc:  # noqa: BLE001
                bad = f"{type(exc).__name__}: {exc}"
            if bad is not None:
                which = f"{k}, one of the {len(quick)} fastest," if k in quick else f"{k}"
                raise JobFailed("wrong_result", f"timing case {case.id}: the output of timed candidate repetition "
                                                f"{which} (fresh inputs) is wrong ({bad}); a kernel must compute the "
                                                f"same function when it is timed", case)
        self._check_ms = (time.perf_counter() - t_check) * 1e3
        return reported

    def sol(self, cost: Any, ms: float) -> float | None:
        """% of speed-of-light: the floor time from the cost model and the measured ceilings, over
        the measured time."""
        bw = self.ceilings.get("bandwidth_gbps")
        floors = []
        if bw and cost.bytes:
            floors.append(cost.bytes / (bw * 1e9))
        peak = self.ceilings.get(f"{cost.compute}_tflops") if cost.compute != "none" else None
        if peak and cost.flops:
            floors.append(cost.flops / (peak * 1e12))
        if not floors:
            return None
        return 100.0 * max(floors) / (ms * 1e-3)


def job_baseline_label(labels: list[str | None]) -> str | None:
    """The job's ``baseline`` from its timed cases' labels: the one label where all agree; else the weakest kind's
    label first (so that ``baseline_kind`` and ``by_baseline`` count the job under the weakest baseline any of its
    speedups was measured against) with how many cases each label timed, e.g.
    ``native-eager; torch.compile failed (...) [3 of 16 timed cases; the other 13: native-compiled (...)]``."""
    from ..suite.baselines import BASELINE_KINDS, baseline_kind

    known = [x for x in labels if x]
    if not known:
        return None
    counts: dict[str, int] = {}
    for x in known:
        counts[x] = counts.get(x, 0) + 1
    if len(counts) == 1:
        return known[0]

    def strength(label: str) -> int:
        kind = baseline_kind(label)
        return BASELINE_KINDS.index(kind) if kind in BASELINE_KINDS else -1

    order = sorted(counts, key=lambda x: (-strength(x), -counts[x]))
    head, rest = order[0], order[1:]
    others = "; ".join(f"{counts[x]}: {x}" for x in rest)
    return f"{head} [{counts[head]} of {len(known)} timed cases; the others: {others}]"


def _round(ms: Any) -> float | None:
    return round(float(ms), 5) if isinstance(ms, (int, float)) else None


def _spread(samples: Any) -> float | None:
    """Relative interquartile spread of timing samples (IQR / median)."""
    if not samples or len(samples) < 4:
        return None
    q = statistics.quantiles(samples, n=4)
    med = statistics.median(samples)
    return round((q[2] - q[0]) / med, 4) if med > 0 else None
