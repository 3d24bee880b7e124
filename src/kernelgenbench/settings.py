"""The limits and knobs of a run (:class:`Settings`): what ``kgb eval``'s options set and every phase of a job
reads (the verifier's pipeline, the session, the judge, L2, timing). Standard library only, so that any
module of the harness can import it without importing the pipeline."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from .platforms import INTERPRETER_MAX_MB_ENV
from .sandbox.runner import LOG_LIMIT_BYTES

#: The default of :attr:`Settings.interpreter_max_mb` (``kgb eval --interpreter-max-mb``, env
#: ``KGB_INTERPRETER_MAX_MB``): MiB a case's tensors may move on the CPU interpreter (its cost model's bytes:
#: inputs read once, outputs written once). Measured on the 2-core CPU of the development machine (one call of
#: a case, Triton 3.6's interpreter): the oracle aten::neg moves 63 MB in 0.5 s, the oracle vllm::moe_sum 16 MB
#: in 6.7 s and 42 MB in 8.5 s, while a plain submission's aten::neg (256-element programs) took 1.6 s at 1 MB,
#: 11.7 s at 4.2 MB and 66 s at 24 MB, its vllm::moe_sum 9.5 s at 3.2 MB; a job runs a case two or three times
#: (L2's re-run and ghost replay).
#: At 16 MiB every smoke case of every operator (the largest moves 0.8 MB) and most full cases are judged, and a
#: held-out case such as vllm::moe_sum's 528 MB one is reported unsupported at once instead of after the
#: 300 s case timeout.
INTERPRETER_MAX_MB = 16.0


def interpreter_max_mb_default() -> float | None:
    """:attr:`Settings.interpreter_max_mb` when not given: ``KGB_INTERPRETER_MAX_MB`` where set (``0``: no budget,
    returned as None), else :data:`INTERPRETER_MAX_MB`.

    Raises:
        ValueError: the variable is set to something other than a finite number >= 0, naming it and its value.
    """
    raw = os.environ.get(INTERPRETER_MAX_MB_ENV, "").strip()
    if not raw:
        return INTERPRETER_MAX_MB
    try:
        mb = float(raw)
    except ValueError:
        mb = math.nan
    if not math.isfinite(mb) or mb < 0:
        raise ValueError(f"{INTERPRETER_MAX_MB_ENV}={raw!r}: the CPU interpreter's case budget is a number of MiB "
                         f">= 0 (0 lifts it)")
    return mb or None


#: How long a job holds its GPU alone while it times (:attr:`Settings.timing_hold`).
TIMING_HOLDS = ("job", "case")


@dataclass
class Settings:
    """Limits and knobs of a run.

    Attributes:
        import_timeout_s: seconds for the child to import the submission and answer.
        case_timeout_s: seconds for one case (interpreter cases include Triton's interpretation).
        time_timeout_s: seconds for timing one case.
        reps: timed repetitions per side per case.
        warmup_ms: warm-up per side per case, in ms.
        timing_checks: timed candidate repetitions per case whose outputs are judged (chosen at
            random among the timed repetitions; each had fresh inputs).
        timing_fastest: the fastest timed candidate repetitions per case (by device time) judged too, beside the
            random ones: a candidate that skips its work on some repetitions makes them its fastest (red team 32's
            partial skip escaped the random checks with probability (1-f)^2).
        ghost_cases: the most cases L2 replays per job (all in smoke/held-out tiers when smaller);
            each replayed case costs ``ghost_reruns + 1`` extra normal runs and one ghost replay
            (``Verifier._l2_plan``).
        ghost_reruns: decoy re-runs of each replayed case's inputs, placed at random with the replay
            after the case's warm re-run (:func:`ghost_schedule`; the warm re-run, always the second
            sighting of the inputs, keeps the replay off the first sighting's log and is not counted
            here): a candidate that remembers the inputs it has seen and misbehaves on one later
            sighting escapes one replayed case with probability 1 / (ghost_reruns + 1).
        l2_salt: the salt of the replayed cases' input seeds (``case.seed ^ salt``); None (the
            default) draws it secretly per job. A fixed value reproduces a run's L2 inputs (debugging
            a failure: the record's ``input_seed``); 0 keeps the public case seeds.
        implausible_speedup: a case faster than this (x baseline) is re-measured in a fresh
            sandbox process, and the slower of the two measurements is kept.
        keep_workdir: keep tensors exchanged with the child (for debugging).
        baseline: the baseline kind to time vLLM operators against (``vllm``, ``native-compiled``,
            ``native-eager``; ``kgb eval --baseline``); None: ``vllm`` where importable, else
            ``native-compiled`` (eager where compilation fails). Operators of other sources keep their own.
        log_limit_bytes: the most of the sandbox's output (the submission's prints, warnings,
            tracebacks) one job keeps in its ``child.log``: the first part as written and the last 64 KiB;
            the record's ``log_truncated`` says how much was dropped (``sandbox/runner.py`` LogPump).
        fork_server: fork each job's sandbox child from a clean pre-imported interpreter
            (``sandbox/forkserver.py``, ``kgb eval --fork-server/--no-fork-server``) instead of starting a fresh
            one; None (the default): on, on every platform (``sandbox/forkserver.py`` ``enabled``).
        timing_hold: how long a job holds its GPU alone while it times (run/gate.py): ``"job"`` (the default) from
            its first timed case to its last, everything in between included; ``"case"`` only while each case's
            warm-up and timed blocks run: making the case's baseline before them (a vLLM reference's
            ``torch.compile``, its first run and Inductor's autotuning, the eager cross-check) and judging the
            checked repetitions after them then share the GPU with the other slots' untimed work, as the
            candidate's own compilation and autotuning do in the correctness phase. Every timed block runs
            alone in both (``kgb eval --timing-hold``; the record's ``timing.method`` says which).
        interpreter_max_mb: on the CPU interpreter only, the most MiB one case's tensors may move (its cost
            model's bytes: each input read once, each output written once); a case over it is reported
            ``unsupported`` before it runs, never judged (``Platform.oversize_reason``). None or 0: no budget.
            GPU platforms never apply it. Default: ``KGB_INTERPRETER_MAX_MB`` where set, else
            :data:`INTERPRETER_MAX_MB` (:func:`interpreter_max_mb_default`).
        baseline_ahead: make every timed case's compiled baseline (a vLLM reference under torch.compile) before the
            job's first timed case, each case's under the GPU's shared gate, outside the job's exclusive hold
            (verify/timing.py ``TimingPhase.make_ahead``; ``kgb eval --no-baseline-ahead`` makes each in its case, as
            before, for a measurement of the difference). The timed baseline is the same either way.
        shard_cases: ``kgb eval --shard-cases N``: a job whose tier has more than N cases is judged as
            ``ceil(cases / N)`` shards, shard i judging the cases ``cases[i::n]`` as a job of its own, merged into one
            record (``run/shards.py``); 0 (the default): every job is judged whole.

    ``import_timeout_s`` bounds the import of the submission (module-level code, compilation it
    triggers) until the sandbox reports ready; ``case_timeout_s`` one case; ``time_timeout_s`` the
    timing of one case. A job that exceeds any of them fails as ``timeout``, its process group killed.
    """

    import_timeout_s: float = 180.0
    case_timeout_s: float = 300.0
    time_timeout_s: float = 300.0
    reps: int = 30
    warmup_ms: float = 25.0
    timing_checks: int = 2
    timing_fastest: int = 2
    ghost_cases: int = 16
    ghost_reruns: int = 1
    l2_salt: int | None = None
    implausible_speedup: float = 20.0
    keep_workdir: bool = False
    log_limit_bytes: int = LOG_LIMIT_BYTES
    baseline: str | None = None
    fork_server: bool | None = None
    interpreter_max_mb: float | None = field(default_factory=interpreter_max_mb_default)
    timing_hold: str = "job"
    shard_cases: int = 0
    baseline_ahead: bool = True

    def __post_init__(self) -> None:
        if self.shard_cases < 0:
            raise ValueError(f"shard_cases={self.shard_cases}: expected 0 (off) or a positive number of cases")
        if self.timing_hold not in TIMING_HOLDS:
            raise ValueError(f"timing_hold={self.timing_hold!r}: expected one of {', '.join(TIMING_HOLDS)}")
