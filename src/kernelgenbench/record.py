"""Typed, versioned records of a run directory (README "Record schema").

One :class:`JobRecord` per line of ``results.jsonl``, with its :class:`CaseRecord` entries and its
:class:`AntiHack` outcome (:class:`L1Record`, :class:`L2Record`, :class:`L3Record`); one
:class:`RunSummary` in ``summary.json``. Each serialises (``to_json``) to the JSON the README documents, with
``schema_version`` first; ``from_json`` reads a record of any known version back.

Versions: 1 is the untyped record written before these classes existed (no ``schema_version`` key; the
same field names); 2 (:data:`SCHEMA_VERSION`) adds ``schema_version`` and writes every field of the job
record, null where it does not apply (a synthetic record: no submission, no device). A reader treats a
record without ``schema_version`` as version 1 (:func:`schema_version`); only the fields that are set
are written for a case record and for the L3 and timing sub-records (as version 1 did), so that a case
that was never timed carries no timing keys.

This module is a leaf (standard library only): the verifier, the scheduler, the LLM track, metrics and
the report all import it; none of them is imported here.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Iterator

#: The version of the records this module writes.
SCHEMA_VERSION = 2
#: The versions a reader accepts (1: records without ``schema_version``).
KNOWN_SCHEMA_VERSIONS = (1, 2)


def schema_version(obj: dict[str, Any]) -> Any:
    """The ``schema_version`` of a record or summary read as JSON: 1 where the key is missing."""
    return obj.get("schema_version", 1)


def _check_version(obj: dict[str, Any], what: str) -> None:
    v = schema_version(obj)
    if v not in KNOWN_SCHEMA_VERSIONS:
        raise ValueError(f"{what} schema_version {v!r} is newer than this kgb reads "
                         f"({', '.join(map(str, KNOWN_SCHEMA_VERSIONS))}); update kernelgenbench")


class _Record:
    """to_json/from_json of a flat record dataclass: the fields in order, ``extra`` (keys this version
    does not know, kept from a record read) last. Fields named in ``_OPTIONAL`` are written only when
    not None; a group in ``_GROUPS`` (leader -> members) is written whole when its leader is not None."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    _GROUPS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def to_json(self) -> dict[str, Any]:
        grouped = {m: lead for lead, members in self._GROUPS.items() for m in members}
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == "extra":
                continue
            v = getattr(self, f.name)
            if f.name in grouped:
                if getattr(self, grouped[f.name]) is None:
                    continue
            elif f.name in self._OPTIONAL and v is None:
                continue
            out[f.name] = v.to_json() if isinstance(v, _Record) else v
        out.update(getattr(self, "extra", None) or {})
        return out

    @classmethod
    def _split(cls, obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}  # type: ignore[arg-type]
        known = {k: v for k, v in obj.items() if k in names}
        extra = {k: v for k, v in obj.items() if k not in names and k != "schema_version"}
        return known, extra

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Any:
        known, extra = cls._split(obj)
        rec = cls(**known)
        if extra and hasattr(rec, "extra"):
            rec.extra = extra  # type: ignore[attr-defined]
        return rec

    def update(self, **values: Any) -> None:
        """Set fields by name (an unknown name raises AttributeError: no typo becomes a new key)."""
        for k, v in values.items():
            if k == "extra" or k not in {f.name for f in dataclasses.fields(self)}:  # type: ignore[arg-type]
                raise AttributeError(f"{type(self).__name__} has no field {k!r}")
            setattr(self, k, v)


#: The fields a timed case adds to its case record (written together, nulls included).
TIMING_FIELDS = ("baseline_ms", "candidate_ms", "speedup", "gbps", "tflops", "sol_pct", "baseline_host_ms",
                 "candidate_host_ms", "input_build_ms", "baseline_spread", "candidate_spread")


@dataclass
class CaseRecord(_Record):
    """One case of a job (``cases[i]`` of a job record). Only ``id``, ``params`` and ``status`` are always
    written; the other fields appear once set.

    Attributes:
        id: ``tier/index`` (``smoke/0``); params: the case's grid parameters.
        status: ``pending`` (never ran: the job stopped before it), ``passed``, ``failed`` or ``unsupported``.
        input_seed: the secret seed L2 drew this case's inputs from (a replayed case; ``kgb repro`` uses it).
        launches, wall_s, kernels: Triton launches of its correctness run, the child's wall time (s), up to 8
            kernel names.
        max_abs, max_rel, rule: the comparison's largest errors and the tolerance rule applied.
        failure_class, message: why it failed or is unsupported.
        untimed: why a timed case was not timed (empty output, a no-op, unsupported).
        alt_poison_rerun, alt_poison_slots: the case ran again with the alternate poison pattern, for these
            slots (:func:`~kernelgenbench.verify.judge.unproven_writes`).
        remeasured: an implausible speedup measured again in a fresh sandbox (``first_ms``, ``fresh_ms``).
        harness_ms: where the wall time of timing this case went (GPU), in ms: ``prep`` (the verifier writes the
            command), ``ahead`` (the verifier's wall clock of the case's ``ahead`` command, which made its compiled
            baseline before the job's first timed case under the GPU's shared gate: Settings.baseline_ahead),
            ``ahead_baseline`` (making it there: a vLLM operator's torch.compile, the eager cross-check, the probe
            sets), ``made`` (the verifier's wall clock of the ``prepare`` command, which builds the warm-up sets
            and makes the baseline before the timed command, or takes the one made ahead; held apart from it where
            Settings.timing_hold is ``case``), ``load``, ``baseline`` (making the baseline in the prepare command: 0
            where it was made ahead), ``warmup``,
            ``build`` (the timed input sets), ``blocks`` (the timed blocks, device
            lead and flushes included), ``save`` (the child writes the checked repetitions, in a save command after the
            timed one), ``collect`` (the child's garbage collection before the command: the young generations, every
            16th command a full one), ``handler`` (the child's whole handling of the timed command,
            until its answer), ``check`` (the verifier
            loads, rebuilds and judges them), ``command`` (the verifier's wall clock of the whole command) and
            ``device`` (the device time measured, both sides): issue 18's harness cost per timed case.
        tolerance_scale: the platform's tolerance scale, where it is not 1.0 (``rule`` was scaled by it;
            the job's ``platform_profile`` says why).
        baseline: the baseline this case was timed against, written only where the job's timed cases were not all
            timed against the same one (a vLLM case whose torch.compile failed ran eagerly; the job's ``baseline``
            then names the weakest kind first and counts them).
        baseline_ms ... candidate_spread: :data:`TIMING_FIELDS`, the timing of a timed case (GPU).
        extra: keys a newer writer added (kept when read back).
    """

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({
        "input_seed", "launches", "wall_s", "kernels", "max_abs", "max_rel", "rule", "failure_class", "message",
        "untimed", "alt_poison_rerun", "alt_poison_slots", "remeasured", "tolerance_scale", "harness_ms",
        "baseline"})
    _GROUPS: ClassVar[dict[str, tuple[str, ...]]] = {"candidate_ms": TIMING_FIELDS}

    id: str
    params: dict[str, Any]
    status: str = "pending"
    input_seed: int | None = None
    launches: int | None = None
    wall_s: float | None = None
    kernels: list[str] | None = None
    max_abs: float | None = None
    max_rel: float | None = None
    rule: str | None = None
    failure_class: str | None = None
    message: str | None = None
    untimed: str | None = None
    alt_poison_rerun: bool | None = None
    alt_poison_slots: list[str] | None = None
    remeasured: dict[str, Any] | None = None
    harness_ms: dict[str, float] | None = None
    tolerance_scale: float | None = None
    baseline: str | None = None
    baseline_ms: float | None = None
    candidate_ms: float | None = None
    speedup: float | None = None
    gbps: float | None = None
    tflops: float | None = None
    sol_pct: float | None = None
    baseline_host_ms: float | None = None
    candidate_host_ms: float | None = None
    input_build_ms: float | None = None
    baseline_spread: float | None = None
    candidate_spread: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class FirstFailure(_Record):
    """The job's first failure: the failing case's parameters and id (None for a job-level failure) and
    the message."""

    case: dict[str, Any] | None
    case_id: str | None
    message: str


@dataclass
class L1Record(_Record):
    """L1 static scan (``verify/scan``): ``ok``, ``count`` (every finding), ``rules`` (rule -> count, the most
    relevant first) and ``findings`` (the messages of at most 100). Records written before ``count``
    existed have only ``ok`` and ``findings``."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"count", "rules"})

    ok: bool
    count: int | None = None
    rules: dict[str, int] | None = None
    findings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class L2Record(_Record):
    """L2 ghost replay (``verify/ghost.py``).

    Attributes:
        ok: no replay still passed and none diverged.
        checked: ghost replays made.
        passed_without_triton: ids of the cases whose replay still produced the right result.
        diverged: ids of the cases whose replay made other host reads or launches than the normal run.
        triton_derived_reads: replayed host reads of memory a launch of the call received.
        passed_from_triton_reads: ids of the replays whose right result was made of such reads.
        cases: per replayed case id: ``input_seed``, and ``skipped`` (why it was not replayed),
            ``reruns_passed``, ``ghost`` (the replay's outcome in words) as they apply.
        order: the runs made, in order (``c3`` case 3's correctness run, ``r3`` a re-run, ``g3`` its replay).
        method: the method in words; note: why there was nothing to replay (nothing-to-compute operators).
    """

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"note"})

    ok: bool
    checked: int = 0
    passed_without_triton: list[str] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)
    triton_derived_reads: int = 0
    passed_from_triton_reads: list[str] = field(default_factory=list)
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    order: str = ""
    method: str = ""
    note: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class L3Record(_Record):
    """L3 trace and kernel checks (``verify/profile.py``); fields appear as the job reaches them.

    Attributes:
        import_trace: the ATen ops the submission's import ran (op key -> count).
        ok: no L3 failure (dispatch trace, memory provenance, kernel list, launch rule).
        trace: the ATen ops of every correctness run, summed; launches: their Triton launches.
        kernels: the device kernels of the profiled case (up to 20; CUDA); profiled_case: its id.
    """

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"import_trace", "ok", "trace", "launches", "kernels", "profiled_case"})

    import_trace: dict[str, int] | None = None
    ok: bool | None = None
    trace: dict[str, int] | None = None
    launches: int | None = None
    kernels: list[str] | None = None
    profiled_case: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AntiHack(_Record):
    """The anti-hack outcome of a job: one sub-record per level, None where the job never reached it."""

    L1: L1Record | None = None
    L2: L2Record | None = None
    L3: L3Record | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "AntiHack":
        obj = obj or {}
        return cls(*(kind.from_json(obj[k]) if isinstance(obj.get(k), dict) else None
                     for k, kind in (("L1", L1Record), ("L2", L2Record), ("L3", L3Record))))


@dataclass
class TimingInfo(_Record):
    """How a job was timed: ``applicable`` False with the ``reason`` (a platform that reports no times),
    else the repetitions, warm-up, method in words, ``timed_cases`` and ``untimed_cases`` (timed cases left
    untimed: empty output, a no-op, unsupported)."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"reason", "reps", "warmup_ms", "method", "timed_cases", "untimed_cases"})

    applicable: bool
    reason: str | None = None
    reps: int | None = None
    warmup_ms: float | None = None
    method: str | None = None
    timed_cases: int | None = None
    untimed_cases: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class JobRecord(_Record):
    """One job's record: a line of ``results.jsonl`` (README "Run directory", "Record schema").

    Attributes:
        op, source, category: the operator. submission, submission_sha256: the file judged (None when
            missing or for a synthetic record). label: the submissions' label (a folder, a sample round).
        tier: the tier selection judged (``smoke``, ``all``); platform: its name; device: the device's name.
        profile: the vendor profile an interpreter run emulated (``--as-profile``; absent otherwise);
            platform_profile: what that profile, or a vendor platform's, applied (``Platform.record_info``:
            pinning variable, dtype limits, tolerance scale, anti-hack tiers; absent on CUDA and the plain
            interpreter).
        status: ``passed``, ``failed`` or ``unsupported`` (no case could be judged on the platform, or the
            submission's kernels made some cases unjudgeable there and every other case passed).
        failure_class, first_failure: the first failure (``verify/failures.py`` classes).
        cases_total: the tier's case count (also when the job failed before running any); cases_passed,
            cases_unsupported; unsupported_reason: the first case's reason.
        speedup: geomean over the timed cases; sol_pct: median % of speed-of-light; baseline: the timed
            baseline's name.
        cases: the cases that ran (:class:`CaseRecord`); anti_hack: :class:`AntiHack`; timing: :class:`TimingInfo`.
        missing_optional: optional wrappers the submission does not define. log: the job's ``child.log``.
        started_at, finished_at, wall_s: the job's clock (s); log_truncated: how much of the sandbox's output
            the log dropped (only when it did); time_s: seconds per phase (:class:`PhaseTimes`).
        attempt: which try recorded it (the scheduler requeues jobs whose device failed); sample_id: the LLM
            sample it judges (``kgb generate``'s synthetic records); rejudged_alone: why the job was judged again
            with its GPU to itself (an out-of-memory failure while other jobs shared the GPU: run/scheduler.py).
        harness_commit: the harness's commit that judged the job (``run/rundir.py`` ``harness_commit``; stamped
            when the record is written): a run resumed on another commit mixes harness versions, and says so.
        shard: ``[i, n]`` on a shard's record (``shards.jsonl``: the cases ``cases[i::n]`` judged as a job of their
            own, ``kgb eval --shard-cases``); shards: on a job's record merged of its n shards' (run/shards.py).
        extra: keys a newer writer added (kept when read back).
    """

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"log_truncated", "attempt", "sample_id", "profile",
                                                     "platform_profile", "rejudged_alone", "harness_commit",
                                                     "shard", "shards"})

    op: str
    source: str | None = None
    category: str | None = None
    submission: str | None = None
    submission_sha256: str | None = None
    label: str = ""
    tier: str = ""
    platform: str = ""
    profile: str | None = None
    platform_profile: dict[str, Any] | None = None
    device: str | None = None
    status: str = "failed"
    failure_class: str | None = None
    first_failure: FirstFailure | None = None
    cases_total: int = 0
    cases_passed: int = 0
    cases_unsupported: int = 0
    unsupported_reason: str | None = None
    speedup: float | None = None
    sol_pct: float | None = None
    cases: list[CaseRecord] = field(default_factory=list)
    anti_hack: AntiHack = field(default_factory=AntiHack)
    baseline: str | None = None
    timing: TimingInfo | None = None
    missing_optional: list[str] = field(default_factory=list)
    log: str | None = None
    started_at: float | None = None
    log_truncated: dict[str, int] | None = None
    finished_at: float | None = None
    wall_s: float | None = None
    time_s: dict[str, float] | None = None
    attempt: int | None = None
    sample_id: str | None = None
    rejudged_alone: str | None = None
    harness_commit: str | None = None
    shard: list[int] | None = None
    shards: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """Whether a failure has been recorded."""
        return self.failure_class is not None

    def fail(self, cls: str, message: str, case: Any = None) -> None:
        """Record a failure: the first one recorded stays the job's (``case``: the failing
        :class:`~kernelgenbench.suite.spec.Case`, None for a job-level failure)."""
        if self.failure_class is None:
            self.failure_class = cls
            self.first_failure = FirstFailure(case.params if case else None, case.id if case else None, message)
        self.status = "failed"

    def note_unsupported(self, reason: str, by_kernel: bool = False) -> None:
        """A case the platform cannot judge: the job's ``unsupported_reason`` is the first one. ``by_kernel``:
        the case could not be judged because of what the submission's kernels did on this platform (an
        interpreter limit its kernel hit, a kernel still computing at the timeout), not because of the case's
        dtypes; such a job is not ``passed`` (``run/job.py``: a submission must not choose which cases are
        judged)."""
        self.unsupported_reason = self.unsupported_reason or reason
        if by_kernel:
            self.__dict__["_unsupported_by_kernel"] = self.__dict__.get("_unsupported_by_kernel", 0) + 1
            self.__dict__.setdefault("_first_by_kernel", reason)

    @property
    def first_unsupported_by_kernel(self) -> str | None:
        """The first reason :meth:`note_unsupported` was given with ``by_kernel``."""
        return self.__dict__.get("_first_by_kernel")

    @property
    def unsupported_by_kernel(self) -> int:
        """How many cases :meth:`note_unsupported` was told the submission's kernels made unjudgeable."""
        return int(self.__dict__.get("_unsupported_by_kernel", 0))

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["cases"] = [c.to_json() for c in self.cases]
        return {"schema_version": SCHEMA_VERSION, **out}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "JobRecord":
        """A record read from ``results.jsonl`` (version 1 or 2; ValueError for another)."""
        _check_version(obj, "record")
        known, extra = cls._split(obj)
        if isinstance(known.get("first_failure"), dict):
            known["first_failure"] = FirstFailure.from_json(known["first_failure"])
        known["cases"] = [CaseRecord.from_json(c) for c in known.get("cases") or [] if isinstance(c, dict)]
        known["anti_hack"] = AntiHack.from_json(known.get("anti_hack") or {})
        if isinstance(known.get("timing"), dict):
            known["timing"] = TimingInfo.from_json(known["timing"])
        return cls(**known, extra=extra)

    @classmethod
    def synthetic(cls, op: Any, label: str, tier: str, platform: str, failure_class: str, message: str,
                  cases_total: int, submission: str | None = None, **fields: Any) -> "JobRecord":
        """A failed job's record made without a verifier: the scheduler's ``infrastructure`` record (no
        healthy device left) and the LLM track's ``no_code``/``truncated`` record (a reply without code).
        ``op`` is the :class:`~kernelgenbench.suite.spec.Operator`; ``fields`` sets further fields."""
        rec = cls(op=op.id, source=op.source, category=getattr(op, "category", None), submission=submission,
                  label=label, tier=tier, platform=platform, cases_total=cases_total)
        rec.fail(failure_class, message)
        rec.update(**fields)
        return rec


def cases_cell(r: dict[str, Any]) -> str:
    """A job record's cases as every console line shows them: ``passed/total``, then the unsupported ones (cases
    the platform cannot judge) and, for a failed job, those never judged (it stopped at its first failure):
    ``"5/6 (1 unsupported)"``, so that a ✓ beside ``5/6`` is not read as a failed case; a record merged of case
    shards says how many (``"6/6 (3 shards)"``)."""
    cases = f"{r.get('cases_passed', 0)}/{r.get('cases_total', 0)}"
    notes = []
    if r.get("cases_unsupported"):
        notes.append(f"{r['cases_unsupported']} unsupported")
    not_run = sum(1 for c in (r.get("cases") or []) if isinstance(c, dict) and c.get("status") in ("pending", None))
    if r.get("status") == "failed" and not_run:
        notes.append(f"{not_run} not run")
    if r.get("shards"):  # judged in case shards (kgb eval --shard-cases), merged into this record
        notes.append(f"{r['shards']} shards")
    return cases + (f" ({', '.join(notes)})" if notes else "")


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file (a record's ``submission_sha256``)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tier_case_count(op: Any, tier: str) -> int:
    """How many cases ``op`` has in ``tier`` (0 when the tier cannot be built)."""
    try:
        return len(op.cases(tier))
    except Exception:  # noqa: BLE001 - a record must be written even if the grid cannot be built
        return 0


#: The phases of a job's ``time_s``, in the order they are written.
PHASES = ("l1_s", "import_s", "reference_s", "save_s", "child_case_s", "candidate_s", "load_s", "judge_s",
          "ghost_s", "profile_s", "ahead_s", "timing_s", "gate_wait_s", "gate_wait_timing_s", "hung_s")


class PhaseTimes(dict):  # type: ignore[type-arg]
    """Where a job's wall time goes: phase -> seconds (a record's ``time_s``).

    gate_wait_s: this job's untimed GPU work waited while another slot of the GPU timed (or queued to time);
    gate_wait_timing_s: its timing waited for the other slots' untimed GPU work (sandbox start-up, cases,
    ghost replay, profiling, teardown) to stop; hung_s: cases that did not answer before the case timeout
    (the candidate's time, until the process group was killed); ahead_s: making the timed cases' compiled baselines
    before the job's first timed case (verify/timing.py ``TimingPhase.make_ahead``; shared GPU work, gate waits not
    counted); timing_s: timing, the baselines made ahead not counted. candidate_s is the time the sandbox spent
    inside candidate calls; everything else is harness overhead.
    """

    def __init__(self) -> None:
        super().__init__({k: 0.0 for k in PHASES})

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the time of the ``with`` block to ``name`` (also when it raises)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self[name] += time.perf_counter() - t0

    def to_json(self) -> dict[str, float]:
        return {k: round(v, 3) for k, v in self.items()}


@dataclass
class RunSummary(_Record):
    """``summary.json`` of ``kgb eval`` (:func:`~kernelgenbench.run.evaluate.evaluate`).

    Attributes:
        by_source: source -> :func:`~kernelgenbench.metrics.group_summary` (accuracy, geomean/median/IQM speedup,
            failure classes); overall: the same over every source; time_s: seconds per phase, summed over jobs.
        wall_s: the call's seconds; jobs_run: jobs this call ran; jobs_selected: jobs selected.
        tier: the canonical tier selection; tiers: its parts; platform: the platform's name.
        per_operator: one row per operator (:func:`~kernelgenbench.metrics.operator_row`).
        harness_commits: the distinct ``harness_commit`` values of the records summarised, in order of first
            appearance (more than one: a resumed run mixes harness versions).
    """

    by_source: dict[str, Any] = field(default_factory=dict)
    overall: dict[str, Any] = field(default_factory=dict)
    time_s: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    jobs_run: int = 0
    jobs_selected: int = 0
    tier: str = ""
    tiers: list[str] = field(default_factory=list)
    platform: str = ""
    per_operator: list[dict[str, Any]] = field(default_factory=list)
    harness_commits: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, **super().to_json()}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "RunSummary":
        """A ``summary.json`` of ``kgb eval`` (version 1 or 2; ValueError for another)."""
        _check_version(obj, "summary")
        return super().from_json(obj)


def stamp(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary written as a plain dict (``kgb generate``'s) with ``schema_version`` first."""
    return {"schema_version": SCHEMA_VERSION, **{k: v for k, v in summary.items() if k != "schema_version"}}
