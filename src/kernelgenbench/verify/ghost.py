"""L2 ghost replay (DESIGN.md "Anti-hack", L2): the results must be computed by the Triton kernels.

L2 is interleaved with the correctness runs so that the candidate cannot tell a replay from a normal run:
:meth:`GhostReplay.plan` picks the replayed cases and gives their correctness runs secret inputs,
:func:`ghost_schedule` places each one's judged re-runs and ghost replay at random positions after it,
the child replays the host reads and launch outcomes of the latest normal run on the same inputs
(``sandbox/host_reads.py``, ``sandbox/launch.py``), :func:`judge_ghost` judges each replay and
:meth:`GhostReplay.verdict` decides.
A replay never follows the first sighting of its inputs: a warm re-run always comes between them, so
one-time work of a legal wrapper (a workspace zeroed by a kernel on the first call) is not in the log
replayed. Cost per replayed case: the warm re-run, ``Settings.ghost_reruns`` decoy re-runs and the replay.

:meth:`GhostReplay.run` is the job's loop over its cases (the correctness runs, in grid order, with the
L2 runs between them); every run goes through :class:`~kernelgenbench.verify.judge.CaseJudge`. The
verifier's secret RNG draws the replayed cases, their input salt and the positions, in that order.

Trusted side: nothing here imports the submission.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import torch

from ..record import CaseRecord, JobRecord, L2Record, PhaseTimes
from ..suite.spec import Case, Expected, Operator, shape_elements, storage_view
from .compare import compare_slot
from .judge import CaseEvidence, CaseJudge, GhostRun, resolve_slot, run_check

if TYPE_CHECKING:
    from ..settings import Settings


#: Phases a correctness run records itself (``CaseJudge.run_case``), also when L2 makes the run.
_L2_INNER_PHASES = ("reference_s", "save_s", "candidate_s", "load_s", "judge_s", "hung_s")


def ghost_schedule(indices: list[int], replayed: set[int], rng: random.Random,
                   reruns: int = 1) -> list[tuple[str, int]]:
    """The order of a job's runs (L2 interleaved with the correctness runs).

    Every case in ``indices`` gets its correctness run ``("case", i)``, in grid order. Each case in
    ``replayed`` also gets, drawn from ``rng`` (the verifier's secret RNG):

    * one warm re-run ``("rerun", i)`` (a normal run on the same inputs, judged like a correctness
      run) at a uniformly random time between its correctness run and the end of the job;
    * ``reruns`` decoy re-runs ``("rerun", i)`` and a ghost replay ``("ghost", i)``, each at an
      independent uniformly random time between the warm re-run and the end of the job.

    The warm re-run makes the ghost replay follow the log of a non-first sighting of its inputs
    (the latest normal run): one-time work a legal wrapper does on the first call on a device or a
    shape (a lock or workspace buffer zeroed by a kernel, a lazily built table) is in the first
    sighting's log but not in later runs, and a replay of that log would diverge. Among the runs
    after the warm one, the ghost replay is at a uniformly random rank and at no fixed call number: a
    candidate that counts its calls, or remembers the inputs it has seen and misbehaves on some later
    sighting, cannot tell the replay from a judged re-run — the warm re-run is always the second
    sighting, so misbehaving there is caught by its judgement, and any later sighting is the replay
    with probability 1 / (reruns + 1): one replayed case escapes with that probability, all k replayed
    cases with probability (reruns + 1)^-k.

    Returns:
        ``[(kind, index), ...]``: kind ``"case"``, ``"rerun"`` or ``"ghost"``; a case's correctness run
        always precedes its re-runs and replay, and its first re-run (the warm one) its replay.
    """
    n = len(indices)
    # (time, tie-break, kind, index): at equal times a correctness run goes first, then the runs in
    # the order they were drawn (a warm re-run before the runs placed after it)
    timeline: list[tuple[float, int, str, int]] = [(float(k), 0, "case", i) for k, i in enumerate(indices)]
    for k, i in enumerate(indices):
        if i in replayed:
            warm = rng.uniform(k, n)
            timeline.append((warm, len(timeline), "rerun", i))
            for kind in ("rerun",) * reruns + ("ghost",):
                timeline.append((rng.uniform(warm, n), len(timeline), kind, i))
    timeline.sort(key=lambda t: (t[0], t[1]))
    return [(kind, i) for _, _, kind, i in timeline]


def _divergence(report: dict[str, Any] | None) -> str | None:
    """What a ghost replay did differently from the normal run it replayed (its report from the child),
    in words, or None when it did the same."""
    if not isinstance(report, dict):
        return None
    d = report.get("divergence")
    if isinstance(d, dict):
        i = int(d.get("index") or 0)
        what = "host read" if d.get("stream") == "reads" else "launch"

        def desc(e: Any) -> str:
            if not isinstance(e, dict):
                return "nothing (the normal run made no more)"
            if "kernel" in e:
                return f"a launch of {e['kernel']}"
            return f"{e.get('kind')} of a {e.get('dtype')} tensor of shape {e.get('shape')}"

        return (f"the replay's {what} #{i} was {desc(d.get('replay'))} where the normal run on the same inputs "
                f"made {desc(d.get('normal'))}")
    if report.get("unused_reads") or report.get("unused_launches"):
        return (f"the replay stopped short of the normal run on the same inputs ({report.get('unused_reads')} "
                f"host read(s) and {report.get('unused_launches')} launch(es) fewer)")
    return None


def triton_read_values(log: dict[str, Any] | None, report: dict[str, Any] | None, limit: int = 4096) -> list[Any]:
    """The values a ghost replay handed back for host reads of Triton-derived memory: the entries of
    the normal run's replay ``log`` marked ``triton`` (memory a launch of the call received, other than
    a read-only input; ``host_reads.host_read``) among the reads the replay consumed (``report``'s
    ``reads_replayed``, the first ones of the log), as Python numbers (a logged tensor copy gives its
    elements; string reads give none). At most ``limit`` values."""
    if not isinstance(log, dict) or not isinstance(report, dict):
        return []
    reads = list(log.get("reads") or [])[: int(report.get("reads_replayed") or 0)]
    values: list[Any] = []
    for r in reads:
        if not isinstance(r, dict) or not r.get("triton"):
            continue
        v = r.get("value")
        if isinstance(v, torch.Tensor):
            values.extend(v.reshape(-1)[: limit].tolist())
        elif isinstance(v, (bool, int, float, complex)):
            values.append(v)
        if len(values) >= limit:
            break
    return values[:limit]


def from_triton_reads(expected: list[Expected], out: dict[str, Any], values: list[Any]) -> bool:
    """Whether a passing ghost replay's result could be made of ``values``, the values Triton-derived
    host reads handed back (:func:`triton_read_values`): every compared output element equals one of
    them (converted to the output's dtype; NaN matches NaN), and the compared elements are no more
    than the values (each result element needs a read of its own). Then the replay's right result
    proves nothing against the kernels: it is their result, read back and re-wrapped. False when no
    output is compared."""
    if not values:
        return False
    total = 0
    for exp in expected:
        if exp.value is None and exp.check is None:
            continue
        actual = resolve_slot(exp.slot, out)
        if isinstance(actual, (bool, int, float, complex)):
            actual = torch.tensor(actual)
        if not isinstance(actual, torch.Tensor) or actual.is_meta:
            return False
        vals = actual.detach().reshape(-1)
        if exp.region is not None and exp.slot.startswith("arg."):
            flat = storage_view(actual)
            region = exp.region.to(flat.device)
            if flat.numel() == region.numel():
                vals = flat[region]
        total += vals.numel()
        if total > len(values):
            return False
        if not vals.numel():
            continue
        try:
            cand = _as_values(values, vals.dtype).to(vals.device)
        except (RuntimeError, TypeError, OverflowError, ValueError):
            return False
        hit = vals[:, None] == cand[None, :]
        if vals.is_floating_point() or vals.is_complex():
            hit |= torch.isnan(vals)[:, None] & torch.isnan(cand)[None, :]
        if not bool(hit.any(dim=1).all()):
            return False
    return total > 0


def _as_values(values: list[Any], dtype: torch.dtype) -> torch.Tensor:
    """``values`` (Python numbers) as a tensor of ``dtype``, keeping only those the dtype holds exactly
    as numbers (integral values in range for integer dtypes; any for bool, as truth values; complex
    ones only for complex dtypes): rounding a float read into an integer output is no re-wrapping."""
    if dtype == torch.bool:
        return torch.tensor([bool(v) for v in values], dtype=torch.bool)
    if dtype.is_complex:
        return torch.tensor([complex(v) for v in values], dtype=torch.complex128).to(dtype)
    reals = [v for v in values if not isinstance(v, complex)]
    if dtype.is_floating_point:
        return torch.tensor([float(v) for v in reals], dtype=torch.float64).to(dtype)
    info = torch.iinfo(dtype)
    ints = [int(v) for v in reals if math.isfinite(float(v)) and float(v).is_integer() and info.min <= v <= info.max]
    return torch.tensor(ints, dtype=torch.int64).to(dtype)


def _ghost_outcome(res: GhostOutcome) -> str:
    """One word for a ghost replay's result in the record."""
    if res.ghost_passed:
        return "still passed"
    if res.from_triton_reads:
        return "passed from Triton-derived host reads"
    if res.diverged:
        return "diverged"
    if res.uninformative:
        return "uninformative"
    return "no-op output rejected"


def _equals_ghost_poison(exp: Expected) -> bool:
    """Whether the compared values of ``exp`` all equal the ghost replay's poison value (integer and
    bool outputs only; float poison is a NaN payload no result equals)."""
    from .compare import INT_POISON_ALT

    v = exp.value
    if v is None or v.dtype not in INT_POISON_ALT:
        return False
    vals = v[exp.region.to(v.device)] if exp.region is not None else v
    return vals.numel() > 0 and bool((vals == INT_POISON_ALT[v.dtype]).all())


def case_size(op: Operator, params: dict[str, Any]) -> float:
    """A case's size for choosing cheap L2 replays: its cost-model bytes, or where the cost model has
    none, the sum of the products of the integer lists among its parameters (shapes), plus 1."""
    b = op.cost(params).bytes
    return float(b) if b else 1.0 + shape_elements(params)


@dataclass
class GhostOutcome:
    """What one ghost replay showed (:func:`judge_ghost`); all False/None for a replay that could not run.

    Attributes:
        replay: the child's replay report (``state.State.end_case``).
        diverged: what the replay did differently from the normal run it replayed, in words, or None.
        ghost_passed: the replay still produced the right result (every launch a no-op).
        uninformative: no output can tell a no-op from a kernel (all expected values equal the poison).
        from_triton_reads: the right result was made of the values this many Triton-derived host reads
            handed back (not counted as passed), else None.
    """

    replay: dict[str, Any] | None = None
    diverged: str | None = None
    ghost_passed: bool = False
    uninformative: bool = False
    from_triton_reads: int | None = None


def judge_ghost(run: GhostRun, tolerance_scale: float) -> GhostOutcome:
    """A replayed case "still passes" only if every output is right and at least one output
    differs from the ghost poison pattern (an expected all-False bool result is exactly what an
    unwritten output holds: such a case cannot tell a no-op from a kernel), and its result could not
    be made of the values that Triton-derived host reads handed back (``run.log``: the normal run's
    replay log, whose reads of memory a launch of the call received are marked ``triton``;
    :func:`from_triton_reads`): a kernel's result read back with ``.item()`` and returned or
    re-wrapped is the kernel's work, which the replay hands back. ``run.report`` is the child's replay
    report (:meth:`state.State.end_case`); the result carries it, and ``diverged`` says what the
    replay did differently from the normal run it replayed (None when nothing)."""
    out, expected, replay = run.out, run.expected, run.report
    res = GhostOutcome(replay=replay, diverged=_divergence(replay))
    if all((exp.value is None and exp.check is None) or _equals_ghost_poison(exp) for exp in expected):
        res.uninformative = True
        return res
    passed = True
    for exp in expected:
        if exp.value is None and exp.check is None:
            continue
        try:
            actual = resolve_slot(exp.slot, out)
            ok = (run_check(exp, actual, out) if exp.check is not None
                  else compare_slot(exp, actual, tolerance_scale)).ok
        except Exception:  # noqa: BLE001 - uncomparable output: it did not pass
            ok = False
        if not ok:
            passed = False
            break
    if passed:
        values = triton_read_values(run.log, replay)
        if values and from_triton_reads(expected, out, values):
            res.from_triton_reads = len(values)
            return res
    res.ghost_passed = passed
    return res


@dataclass
class CaseRuns:
    """What the job's case loop (:meth:`GhostReplay.run`) leaves for the later phases.

    Attributes:
        trace: the ATen ops of every correctness run, summed; launches: their Triton launches.
        profile_case: the first passed case that launched and is no no-op (L3's kernel list profiles it).
        case_traces: case id -> the ATen ops of its correctness run (compared with its timed calls).
        done: the runs made, in order (``c3``, ``r3``, ``g3``); ghosts: replay outcomes by case index;
        l2_cases: the L2 record's ``cases``; by_index: the judged cases by index.
    """

    trace: dict[str, int] = field(default_factory=dict)
    launches: int = 0
    profile_case: Case | None = None
    case_traces: dict[str, dict[str, int]] = field(default_factory=dict)
    done: list[str] = field(default_factory=list)
    ghosts: dict[int, GhostOutcome] = field(default_factory=dict)
    l2_cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_index: dict[int, Case] = field(default_factory=dict)


class GhostReplay:
    """The job's case runs with L2 interleaved, and L2's verdict.

    Args:
        judge: runs and judges each run (:class:`~kernelgenbench.verify.judge.CaseJudge`).
        op: the operator; settings: ``ghost_cases``, ``ghost_reruns``, ``l2_salt``.
        rng: the verifier's secret RNG (the replayed cases, their input seeds, the positions).
        record: the job's record (failures, the L2 sub-record); times: the job's phase times (``ghost_s``).
    """

    def __init__(self, judge: CaseJudge, op: Operator, settings: Settings, rng: random.Random, record: JobRecord,
                 times: PhaseTimes) -> None:
        self.judge = judge
        self.op = op
        self.settings = settings
        self.rng = rng
        self.record = record
        self.times = times
        #: called as ``progress("cases", done, total)`` after each correctness run (the console's per-job bar)
        self.progress: Callable[[str, int, int], None] | None = None

    def plan(self, judged: list[Case]) -> dict[int, int]:
        """Choose the cases L2 replays and the secret seeds of their inputs: ``{case index: seed}``.

        Every judged case when there are at most ``ghost_cases``; else the first case, the smallest
        half of the others (replays cost little) and the rest drawn at random by the verifier's secret
        RNG, so that a candidate cannot confine a cheat to cases it knows are never replayed. Size is
        the case's cost-model bytes (a shape-derived proxy where the cost model has none).

        A replayed case's correctness run draws its inputs from ``case.seed ^ salt`` (a 62-bit salt
        drawn per job from ``os.urandom``; recorded as the entry's ``input_seed``) instead of
        ``case.seed``: the candidate cannot have seen or precomputed them. The ghost replay's host reads
        are replayed from a later normal run on them (the warm re-run or a decoy, :func:`ghost_schedule`),
        never from this first sighting.
        """
        n = self.settings.ghost_cases
        pool = list(judged)
        if len(pool) > n:
            first, rest = pool[0], pool[1:]
            small = sorted(rest, key=lambda c: (case_size(self.op, c.params), c.index))[: n // 2]
            others = [c for c in rest if c not in small]
            pool = [first, *small, *self.rng.sample(others, max(0, n - 1 - len(small)))]
        salt = self.rng.getrandbits(62) if self.settings.l2_salt is None else self.settings.l2_salt
        return {c.index: c.seed ^ salt for c in pool}

    def run(self, judged: list[Case], entries: dict[int, CaseRecord]) -> CaseRuns:
        """Every correctness run of ``judged`` in grid order, with the L2 re-runs and ghost replays placed
        between them (:func:`ghost_schedule`). After a failure the remaining L2 runs are skipped (the
        correctness runs go on: every case's entry is filled)."""
        seeds = self.plan(judged)
        runs = CaseRuns(by_index={c.index: c for c in judged})
        schedule = ghost_schedule([c.index for c in judged], set(seeds), self.rng, self.settings.ghost_reruns)
        logs: dict[int, Any] = {}          # replay log of the latest normal run of a replayed case's inputs
        for kind, index in schedule:
            case, entry = runs.by_index[index], entries[index]
            seed = seeds.get(index)
            if kind == "case":
                runs.done.append(f"c{index}")
                if seed is not None:
                    entry.input_seed = seed
                res = self.judge.run_case(case, entry, seed=seed)
                if self.progress is not None:
                    self.progress("cases", sum(1 for d in runs.done if d[0] == "c"), len(judged))
                if res is None:
                    continue
                assert isinstance(res, CaseEvidence)
                runs.case_traces[case.id] = dict(res.trace)
                for k, v in res.trace.items():
                    runs.trace[k] = runs.trace.get(k, 0) + v
                runs.launches += len(res.launches)
                if res.launches and not res.trivial and runs.profile_case is None:
                    runs.profile_case = case
                if seed is not None:
                    why = ("no Triton kernel was launched" if not res.launches else
                           "a no-op is right for these inputs" if res.trivial else
                           "nothing to compute: no launch is needed" if not res.needs_launch else None)
                    runs.l2_cases[case.id] = {"input_seed": seed}
                    if why is None:
                        logs[index] = res.replay_log
                    else:
                        runs.l2_cases[case.id]["skipped"] = why
                continue
            if index not in logs or self.record.failed:
                continue  # not replayable, or the job already failed: the rest of L2 is moot
            t_l2 = time.perf_counter()
            # the run's candidate calls, inputs, transfers and judging count in their own phases; ghost_s
            # keeps the rest of the L2 run, so that the phases of the time line partition the job's wall
            inner = sum(self.times[k] for k in _L2_INNER_PHASES)
            runs.done.append(f"{kind[0]}{index}")
            if kind == "rerun":  # warm re-run or decoy: a normal run on the same inputs, judged like a case
                res = self.judge.run_case(case, entry, seed=seed, mode="rerun")
                if res is None:
                    logs.pop(index)
                else:
                    assert isinstance(res, CaseEvidence)
                    logs[index] = res.replay_log
                    runs.l2_cases[case.id]["reruns_passed"] = runs.l2_cases[case.id].get("reruns_passed", 0) + 1
            else:
                ghost = self.judge.run_case(case, entry, seed=seed, mode="ghost", replay=logs[index])
                assert ghost is None or isinstance(ghost, GhostRun)
                runs.ghosts[index] = (judge_ghost(ghost, self.judge.platform.tolerance_scale) if ghost is not None
                                      else GhostOutcome())
                runs.l2_cases[case.id]["ghost"] = _ghost_outcome(runs.ghosts[index])
            self.times["ghost_s"] += max(0.0, time.perf_counter() - t_l2
                                         - (sum(self.times[k] for k in _L2_INNER_PHASES) - inner))
        return runs

    def verdict(self, runs: CaseRuns) -> None:
        """L2's record and verdict, once every run of the schedule is done (``runs.done``: the runs made, in
        order, ``c3``/``r3``/``g3`` for case 3's correctness run, re-run and ghost replay; ``runs.ghosts``:
        the replays' results by case index; ``runs.l2_cases``: per replayed case, its input seed and what
        became of its re-runs and replay). The job fails as ``ghost``
        when a ghost replay still produced the right result, or when it diverged from the normal run it
        replayed (another host read or launch than in the normal run on the same inputs: behaviour that
        depends on being replayed — or on having seen the inputs before — is exactly what L2 must not
        let decide the verdict). A correctness failure is reported first (the replays after it are
        skipped); a job that failed before any replay gets no L2 record (null: never reached)."""
        by_index, ghosts = runs.by_index, runs.ghosts
        if self.record.failed and not ghosts:
            # the job stopped (a wrong result, L3's dispatch trace, a crash) before any replay: L2 was never
            # reached, which the record says with null (README "Job records"), not with ok and 0 checked
            self.record.anti_hack.L2 = None
            return
        still = [by_index[i] for i, g in ghosts.items() if g.ghost_passed]
        diverged = [(by_index[i], g.diverged) for i, g in ghosts.items() if g.diverged]
        self.record.anti_hack.L2 = L2Record(
            ok=not still and not diverged, checked=len(ghosts),
            passed_without_triton=[c.id for c in still], diverged=[c.id for c, _ in diverged],
            # host reads of memory a launch of the call received, replayed (values a kernel computed), and
            # the replays whose right result was made of such values (not counted as passed without Triton)
            triton_derived_reads=sum(int((g.replay or {}).get("triton_reads_replayed") or 0)
                                     for g in ghosts.values()),
            passed_from_triton_reads=[by_index[i].id for i, g in ghosts.items() if g.from_triton_reads],
            cases=runs.l2_cases, order=" ".join(runs.done),
            method="replayed cases run on secret inputs; each is run again normally (a warm re-run, then "
                   "decoy re-runs) and replayed with launches as no-ops after the warm re-run, at random "
                   "positions, host reads and launch outcomes replayed from the latest normal run on the "
                   "same inputs (never the first sighting)")
        if self.op.nothing_to_compute and not ghosts:
            self.record.anti_hack.L2.note = (
                f"nothing to compute ({self.op.nothing_to_compute.kind}): no case needs a Triton launch, so there "
                f"is nothing to replay")
        if self.record.failed:
            return
        if still:
            c = still[0]
            self.record.fail("ghost", f"L2 ghost replay: case {c.id} ({c.describe()}) still produced the right "
                                      f"result with every Triton launch turned into a no-op ({len(still)} of "
                                      f"{len(ghosts)} replayed cases); the result was not computed by Triton", c)
        elif diverged:
            c, why = diverged[0]
            self.record.fail("ghost", f"L2 ghost replay: case {c.id} ({c.describe()}): {why}; a wrapper given the "
                                      f"same inputs and reading the same values must make the same host reads and "
                                      f"launches, whether or not it has seen the inputs before — one that behaves "
                                      f"differently when replayed cannot be judged by its kernels", c)
