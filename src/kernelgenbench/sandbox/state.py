"""Per-process instrumentation state of the sandbox child: :class:`State` and its one instance
:data:`STATE`, which every hook reads and writes (one candidate call at a time).

It holds what the hooks record for the verifier (Triton launches, the ATen dispatch trace, wrapper calls,
launch-rule violations, stale outputs, the timed calls' trace), the switches the child sets around a
case (ghost mode, the alternate poison, tracing off while timing) and the L2 replay log: a normal case
run logs the candidate's host reads and launch outcomes (:meth:`State.begin_case`), a ghost replay of
the same inputs consumes that log (:meth:`State.next_logged`, :meth:`State.diverge`) and reports what it
replayed (:meth:`State.end_case`).
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .provenance import CallEvidence


class State:
    """Per-process instrumentation state (one candidate call at a time).

    Replay log (L2): ``log`` is ``{"reads": [...], "launches": [...]}`` while a normal case run records
    (each read ``{"kind", "shape", "dtype", "extra", "value"}``, each launch ``{"kernel", "error"}``);
    ``replay`` is such a log while a ghost replay consumes it, ``report`` what the replay did.
    """

    def __init__(self) -> None:
        self.inside_launch = 0
        #: > 0 while the interpreter executes a kernel body (host reads there are not the wrapper's and
        #: do not happen in a ghost replay: they are neither logged nor replayed)
        self.in_kernel = 0
        self.ghost = False
        #: > 0 while a ghost launch runs Triton's GPU launch path: the patched launcher passes an empty
        #: grid to the compiled launch entry, which then processes every argument and starts no kernel
        #: (:func:`install_launch_hooks`)
        self.empty_grid = 0
        #: allocations get the alternate poison pattern (ghost mode implies it; the verifier's
        #: alternate-poison re-run of a passed case sets it alone, with launches left on)
        self.alt_poison = False
        self.log: dict[str, list[Any]] | None = None
        self.replay: dict[str, list[Any]] | None = None
        self.report: dict[str, Any] | None = None
        self._pos = {"reads": 0, "launches": 0}
        self.launches: list[str] = []
        self.trace: Counter[str] = Counter()
        #: per op key of ``trace`` (and of the import's trace), the first line of the submission's own file that
        #: ran it, ``"line N in fn"`` (:func:`.dispatch.note_site`): named in L3's verdict, never judged
        self.op_sites: dict[str, str] = {}
        self.import_sites: dict[str, str] = {}
        self.wrapper_calls: Counter[str] = Counter()
        self.active_wrappers: list[str] = []
        self.poison_allocations = True
        self.tracing = True  # False while timing: no poisoning, replay or signature binding
        #: while timing (verify/timing.py): per op key, the most times one timed candidate call ran it
        #: (:class:`TimedTraceMode`); None otherwise
        self.timed_trace: Counter[str] | None = None
        self._call_trace: Counter[str] | None = None
        #: ATen overloads the candidate's registration replaces in this process (set by the child on
        #: GPUs): the poisoning of allocations must not dispatch into them (see poison_allocation)
        self.registered: frozenset[str] = frozenset()
        #: the candidate's registration itself (``drive.AtenImpl``, set by the child with ``registered``): lifted
        #: around Triton's autotune benchmarking (:class:`.window.registration_lifted`)
        self.registration: Any = None
        #: violations of the launch rule (:mod:`.launch_args`), recorded before the launch raises and
        #: never cleared: the child reports them with every answer, the verifier fails the job on them
        #: (a submission that catches the error does not undo the record)
        self.launch_violations: list[str] = []
        #: memory provenance of the candidate call in progress (the outermost traced wrapper call), or
        #: of the submission's import (:func:`trace_import`); None between calls (:class:`CallEvidence`)
        self.call: CallEvidence | None = None
        #: storage data pointers of the case's read-only inputs (call tensors not in ``written``), set by
        #: the child around a case: a host read of them is never Triton's work (:func:`host_read`)
        self.readonly_inputs: frozenset[int] = frozenset()
        #: returned outputs that live in storage neither allocated during their call nor an argument's,
        #: one message each (at most 8), since the case (or timing command) began; the verifier fails the
        #: job on them as ``profile`` (:meth:`CallEvidence.stale_returns`)
        self.stale_outputs: list[str] = []
        #: the op counter of the submission's import while it runs (:func:`trace_import`), else None
        self._import_trace: Counter[str] | None = None
        #: overload keys (``"add.Tensor"``, ``"reshape"``) the candidate's wrappers replace, on every
        #: platform (set by the child): the modes do not decompose those composite ops (a call of one is a
        #: call of the op itself, as it is on GPUs, where it reaches the candidate's registration)
        self.replaced: frozenset[str] = frozenset()

    def note_violation(self, msg: str) -> None:
        """Record a launch-rule violation once (at most 8 kept): the child sends them with every answer and the
        verifier fails the job on them as ``profile`` (verify/session.py ``check_launch_violations``)."""
        if msg not in self.launch_violations and len(self.launch_violations) < 8:
            self.launch_violations.append(msg)

    def reset(self) -> None:
        self.launches = []
        self.trace = Counter()
        self.op_sites = {}
        self.wrapper_calls = Counter()
        self.stale_outputs = []

    def begin_case(self, ghost: bool, replay: dict[str, list[Any]] | None = None) -> None:
        """Start one case run: a normal run logs its host reads and launch outcomes; a ghost run
        (``ghost``) replays ``replay``, the log of a normal run on the same inputs (None: nothing to
        replay, every read is live)."""
        self.reset()
        self.ghost = ghost
        self._pos = {"reads": 0, "launches": 0}
        if ghost:
            self.log = None
            self.replay = {"reads": list((replay or {}).get("reads") or []),
                           "launches": list((replay or {}).get("launches") or [])}
            self.report = {"reads_replayed": 0, "triton_reads_replayed": 0, "launches_replayed": 0,
                           "errors_replayed": 0, "divergence": None}
        else:
            self.log = {"reads": [], "launches": []}
            self.replay = None
            self.report = None

    def end_case(self) -> tuple[dict[str, list[Any]] | None, dict[str, Any] | None]:
        """Finish a case run. Returns ``(log, report)``: the normal run's log (None in a ghost run) and
        the ghost run's replay report (None in a normal run): counts of replayed reads, launches and
        raised errors, ``divergence`` (the first difference from the log, or None) and the log entries
        the replay never reached (``unused_reads``, ``unused_launches``)."""
        log, report = self.log, self.report
        if report is not None and self.replay is not None:
            report["unused_reads"] = len(self.replay["reads"]) - self._pos["reads"]
            report["unused_launches"] = len(self.replay["launches"]) - self._pos["launches"]
        elif report is not None:  # diverged: the replay stopped where it diverged
            report["unused_reads"] = report["unused_launches"] = 0
        self.ghost = False
        self.log = self.replay = self.report = None
        return log, report

    def next_logged(self, stream: str) -> dict[str, Any] | None:
        """The next entry of ``stream`` (``"reads"`` or ``"launches"``) of the log being replayed, or
        None when the log is used up (or no replay is active)."""
        if self.replay is None:
            return None
        items = self.replay[stream]
        i = self._pos[stream]
        if i >= len(items):
            return None
        self._pos[stream] = i + 1
        return items[i]

    def diverge(self, stream: str, got: dict[str, Any], want: dict[str, Any] | None) -> None:
        """Record the replay's first divergence from the log and stop replaying (what follows is live):
        the candidate did something else than in the normal run on the same inputs."""
        if self.report is not None and self.report["divergence"] is None:
            n = self._pos[stream]
            self.report["divergence"] = {"stream": stream, "index": n, "replay": got,
                                         "normal": None if want is None else
                                         {k: v for k, v in want.items() if k != "value"}}
        self.replay = None


STATE = State()
