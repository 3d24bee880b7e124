"""The messages between the trusted verifier and the untrusted sandbox child, typed.

The channel (``sandbox/runner.py``): commands go to the child as JSON lines on its stdin, answers come
back as JSON lines on a private descriptor; tensors travel beside them as ``torch.save`` files whose paths
the commands name. Each message is a dataclass with ``to_json`` (what goes on the wire) and ``from_json``
(what the other side reads back): :func:`parse_command` in the child, :func:`parse_answer` in the verifier.

Commands (verifier -> child): :class:`CaseCommand` (run one case, a ghost replay of one, or profile one),
:class:`TimeCommand` (time one case), :class:`ExitCommand`.

Answers (child -> verifier): :class:`Ready` (the submission was imported, or why not), :class:`CaseAnswer`,
:class:`TimeAnswer`, :class:`HarnessError` (the child's own code failed on a command), :class:`Bye`;
an event this module does not know reads as :class:`UnknownAnswer`. Every answer carries the launch rule's
records (``launch_violations``, ``unscanned_bodies``: ``sandbox/launch_args.py``).

An answer is evidence, never a verdict: the child runs the submission, which may write to the channel
itself, so :func:`parse_answer` keeps values as sent (containers missing or empty read as empty) and the
verifier checks what it uses. Errors travel as :class:`ErrorReport` dicts (``sandbox/child.py`` ``_error``;
``verify/failures.py`` classifies them). :class:`Progress` is the interpreter's progress counters a
timeout reports (``interpreter.install_interpreter_progress``; read by the runner, not sent as a message).

This module is pure data (standard library only): both processes import it. :func:`fast_tensor_files` sets how
both sides write the tensor files (it is handed the torch module).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict


class ErrorReport(TypedDict, total=False):
    """An exception the child caught (``sandbox/child.py`` ``_error``).

    Keys: ``type`` (the exception's class name), ``chain`` (class names of the exception and its causes),
    ``origins`` (per exception of the chain, the file it was raised in), ``message``, ``traceback`` (its tail,
    what the failure classifier reads), ``traceback_full`` (the whole text, bounded), ``stage`` (``import``,
    ``interface``, ``register``, ``call``, ``save``, ``timing``, ``harness``).
    """

    type: str
    chain: list[str]
    origins: list[str]
    message: str
    traceback: str
    traceback_full: str
    stage: str


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _read(cls: Any, obj: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``cls`` from a message: values as sent; a container field missing, None or empty gets
    its default (an empty container), a scalar field missing reads as its default."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        v = obj.get(f.name)
        if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            out[f.name] = v if v else f.default_factory()  # type: ignore[misc]
        elif f.name in obj:
            out[f.name] = v
    return out


# -- commands -----------------------------------------------------------------------------------------------


def fast_tensor_files(torch: Any) -> None:
    """Write the channel's tensor files without the zip records' CRC32 checksums (both processes call it once).

    ``torch.save`` checksums every record by default, which took about 60% of the time of writing a case's
    tensors (measured: 525 MB of bf16 tensors to /dev/shm in 544 ms with, 230 ms without). The checksum protects
    nothing here: the files live in the job's private folder for the length of one command, and the child, which
    writes the answers' files, is untrusted anyway (every value it sends is judged, never believed). ``torch.load``
    reads files with or without them. A no-op where torch lacks ``set_crc32_options`` (before 2.6).
    """
    setter = getattr(getattr(torch, "serialization", None), "set_crc32_options", None)
    if setter is not None:
        setter(False)


@dataclass
class CaseCommand:
    """Run the candidate once on the inputs saved at ``inp`` and save its outputs to ``out``.

    Attributes:
        ghost: an L2 ghost replay: every launch a no-op, the host reads and launch outcomes replayed from the
            log the verifier saved with the inputs (``replay``); the answer reports what the replay did.
        alt_poison: outputs the candidate allocates get the alternate poison pattern.
        profile: run under the CUDA profiler and report the device kernels (L3 kernel list).

    A normal run also saves its replay log (its host reads, each marked ``triton`` where it read memory a
    launch of the call received, and its launch outcomes) as ``replay_log`` in the out file.
    """

    cmd: ClassVar[str] = "case"
    inp: str
    out: str
    ghost: bool = False
    alt_poison: bool = False
    profile: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"cmd": self.cmd, **_fields(self)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "CaseCommand":
        return cls(obj["inp"], obj["out"], bool(obj.get("ghost")), bool(obj.get("alt_poison")),
                   bool(obj.get("profile")))


@dataclass
class TimeCommand:
    """Time one case (``sandbox/timed_loop.py``). The input file ``inp`` holds the seeds of the two warm-up sets
    (``warmup_seeds``, built in the child; or the sets themselves, ``sets``), the case's ``params`` and the secret
    ``seed`` of the timed repetitions' input sets (built in the child, one per repetition:
    :func:`~kernelgenbench.verify.timing.timed_set_seed`); the candidate repetitions numbered in ``check`` are kept
    in the child for the verifier to judge; ``baseline`` forces a baseline kind of the operators that offer several
    (vLLM: ``kgb eval --baseline``), None its default. ``prepare``: only build the warm-up sets and make the
    baseline (a vLLM reference's ``torch.compile``; or take the one an ``ahead`` command made), keep them for the
    next time command of the same ``inp`` and answer with the baseline's label and those phases, timing nothing (the
    verifier sends it before the case's timing, under the GPU's shared gate where ``Settings.timing_hold`` is
    ``case``). ``fastest``: how many of the fastest candidate repetitions are kept too
    (``Settings.timing_fastest``). ``save``: only write the repetitions the timed command of the same ``inp`` kept
    to ``check_out`` (the verifier sends it after the timed command, outside the GPU's exclusive hold: the file
    write was up to half of a vLLM case's exclusive time on an H100). ``ahead``: only make the case's baseline as
    ``prepare`` does and keep it (not the warm-up sets) for the case's later ``prepare`` command, answering with its
    label and phases (the verifier sends one per timed case before the job's first timed case, each under the GPU's
    shared gate: a vLLM reference's torch.compile was ~95% of the timing work, and inside the job's exclusive hold
    it kept every other slot of the GPU waiting)."""

    cmd: ClassVar[str] = "time"
    inp: str
    reps: int = 50
    warmup_ms: float = 25.0
    check: list[int] = field(default_factory=list)
    check_out: str | None = None
    baseline: str | None = None
    prepare: bool = False
    fastest: int = 0
    save: bool = False
    ahead: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"cmd": self.cmd, **_fields(self)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "TimeCommand":
        return cls(obj["inp"], int(obj.get("reps", 50)), float(obj.get("warmup_ms", 25.0)),
                   [int(k) for k in (obj.get("check") or [])], obj.get("check_out"), obj.get("baseline"),
                   bool(obj.get("prepare", False)), int(obj.get("fastest", 0)), bool(obj.get("save", False)),
                   bool(obj.get("ahead", False)))


@dataclass
class ExitCommand:
    """Leave the command loop (the child answers :class:`Bye` and exits)."""

    cmd: ClassVar[str] = "exit"

    def to_json(self) -> dict[str, Any]:
        return {"cmd": self.cmd}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "ExitCommand":
        return cls()


Command = CaseCommand | TimeCommand | ExitCommand
_COMMANDS: dict[str, Any] = {c.cmd: c for c in (CaseCommand, TimeCommand, ExitCommand)}


def parse_command(obj: dict[str, Any]) -> Command | None:
    """The command of a line the child read; None for an unknown ``cmd`` (ignored, unanswered).

    Raises:
        KeyError: a command without a field it needs (the child answers :class:`HarnessError`).
    """
    kind = _COMMANDS.get(obj.get("cmd"))  # type: ignore[arg-type]
    return kind.from_json(obj) if kind is not None else None


# -- answers ------------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """What every answer carries.

    Attributes:
        error: the exception that ended the command (:class:`ErrorReport`), or None.
        launch_violations: every launch-rule violation recorded so far in the process (never cleared:
            ``state.STATE.launch_violations``, kept whatever the submission caught).
        unscanned_bodies: ``[name, line]`` of the submission's functions that ran as kernel bodies without the
            file-level L1 scan holding them to the kernel-body rule (``launch_args.UNSCANNED``; the verifier
            scans each).
    """

    event: ClassVar[str] = ""
    error: ErrorReport | None = None
    launch_violations: list[str] = field(default_factory=list)
    unscanned_bodies: list[list[Any]] = field(default_factory=list)

    @property
    def event_name(self) -> Any:
        """The event as sent (``ready``, ``case``, ...)."""
        return self.event

    def to_json(self) -> dict[str, Any]:
        d = _fields(self)
        rule = {k: d.pop(k) for k in ("launch_violations", "unscanned_bodies")}
        return {"event": self.event, **d, **rule}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Any:
        return cls(**_read(cls, obj))


@dataclass
class Ready(Answer):
    """The first answer: the submission was imported (``ok``) or not (``failure``: ``syntax``,
    ``import_error``, ``missing_wrapper``, ``signature``, ``platform``; ``error`` says why).

    Attributes:
        timers_tampered: timer entry points replaced since before the import.
        missing_optional: optional wrappers the submission does not define.
        import_trace: the ATen ops the import ran (traced like a call, ``dispatch.trace_import``).
        import_sites: op key -> where the submission's file first ran it (``"line N in fn"``), for messages.
    """

    event: ClassVar[str] = "ready"
    ok: bool = False
    failure: str | None = None
    timers_tampered: list[str] = field(default_factory=list)
    missing_optional: list[str] = field(default_factory=list)
    import_trace: dict[str, int] = field(default_factory=dict)
    import_sites: dict[str, str] = field(default_factory=dict)


@dataclass
class CaseAnswer(Answer):
    """One case run (:class:`CaseCommand`); its outputs are in the command's ``out`` file.

    Attributes:
        trace: the ATen ops the candidate ran outside Triton launches (op key -> count).
        op_sites: op key -> where the submission's file first ran it (``"line N in fn"``), for messages only.
        launches: the Triton kernels it launched, in order.
        wrapper_calls: calls of the submission's wrappers (name -> count); none means the native op answered.
        ret_alias: the argument index the returned tensor is, or None.
        kernels: device kernels under the profiler (profile runs on CUDA), else None.
        wall_s: the call's wall time in the child.
        timers_tampered: timer entry points replaced.
        replay: a ghost run's replay report (``state.State.end_case``), else None.
        stale_outputs: returned tensors in storage neither allocated during their call nor an argument's.
    """

    event: ClassVar[str] = "case"
    trace: dict[str, int] = field(default_factory=dict)
    op_sites: dict[str, str] = field(default_factory=dict)
    launches: list[str] = field(default_factory=list)
    wrapper_calls: dict[str, int] = field(default_factory=dict)
    ret_alias: int | None = None
    kernels: list[str] | None = None
    wall_s: float | None = None
    timers_tampered: list[str] = field(default_factory=list)
    replay: dict[str, Any] | None = None
    stale_outputs: list[str] = field(default_factory=list)


@dataclass
class TimeAnswer(Answer):
    """One case timed (:class:`TimeCommand`; ``sandbox/timed_loop.py`` ``time_case``); the judged
    repetitions are kept in the child, written by the ``save`` command that follows.

    Attributes:
        baseline_ms, candidate_ms: the median device time per side; *_samples: every repetition's.
        wall_ms, event_total_ms: per side, the host clock of the timed blocks and the events' total.
        baseline_host_ms, candidate_host_ms: median host issue time per call.
        lead_ms: the device lead; launches_per_rep: the fewest launches of a candidate repetition.
        build_ms: host time building the timed input sets (outside the timed region).
        phases_ms: the child's wall time per phase of the command (``load``, ``baseline``, ``warmup``, ``build``,
            ``blocks``, ``save``), in ms.
        timed_trace: ATen op key -> the most times one timed candidate call ran it.
        stale_outputs: as :class:`CaseAnswer`'s, over the timed calls.
        baseline: the baseline's name; timers_tampered: timer entry points replaced.
    """

    event: ClassVar[str] = "time"
    baseline_ms: float | None = None
    candidate_ms: float | None = None
    baseline_samples: list[float] = field(default_factory=list)
    candidate_samples: list[float] = field(default_factory=list)
    wall_ms: dict[str, float] = field(default_factory=dict)
    event_total_ms: dict[str, float] = field(default_factory=dict)
    baseline_host_ms: float | None = None
    candidate_host_ms: float | None = None
    lead_ms: float | None = None
    launches_per_rep: int | None = None
    build_ms: float | None = None
    phases_ms: dict[str, float] = field(default_factory=dict)
    timed_trace: dict[str, int] = field(default_factory=dict)
    stale_outputs: list[str] = field(default_factory=list)
    baseline: str | None = None
    timers_tampered: list[str] = field(default_factory=list)


@dataclass
class HarnessError(Answer):
    """The child's own code failed on a command (a command it could not read, inputs it could not load)."""

    event: ClassVar[str] = "harness_error"


@dataclass
class Bye(Answer):
    """The child leaves its command loop."""

    event: ClassVar[str] = "bye"


@dataclass
class UnknownAnswer(Answer):
    """An answer of an event this module does not know (``name``: the event as sent)."""

    name: Any = None

    @property
    def event_name(self) -> Any:
        return self.name

    def to_json(self) -> dict[str, Any]:
        d = super().to_json()
        d["event"] = d.pop("name")
        return d


_ANSWERS: dict[str, Any] = {a.event: a for a in (Ready, CaseAnswer, TimeAnswer, HarnessError, Bye)}


def parse_answer(obj: dict[str, Any]) -> Answer:
    """The typed answer of a message the verifier received (a JSON object)."""
    kind = _ANSWERS.get(obj.get("event"))  # type: ignore[arg-type]
    if kind is None:
        return UnknownAnswer(**_read(Answer, obj), name=obj.get("event"))
    return kind.from_json(obj)


# -- progress -----------------------------------------------------------------------------------------------


@dataclass
class Progress:
    """The interpreter's progress counters at a timeout (``ChildTimeout.progress``).

    Attributes:
        launches, programs, scan_steps: launches, programs started and element-by-element steps of reductions
            and scans with a custom combine function, so far.
        grid: the last launch's grid size.
        idle_s: seconds the counters had not changed before the kill (None when they never changed during
            the wait).
    """

    launches: int
    programs: int
    scan_steps: int
    grid: int
    idle_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return _fields(self)
