"""The verifier's end of one job's sandbox (DESIGN.md "Execution"): start and close the child, speak the
typed protocol (``sandbox/protocol.py``), and judge what every answer carries beside its payload.

:class:`ChildSession` owns the job's sandbox processes (a job starts a fresh one after a case that was
too slow for the interpreter, and before re-measuring an implausible speedup): :meth:`~ChildSession.start`
imports the submission in a new child and judges the import (its failure class, timer tampering, the
L3 dispatch trace of its module-level code); :meth:`~ChildSession.request` sends one command and reads
the answer; :meth:`~ChildSession.check_launch` applies the launch rule's records that every answer
carries (``sandbox/launch_args.py``) and scans the functions that ran as kernel bodies without L1
holding them to the kernel-body rule; :meth:`~ChildSession.died` and
:meth:`~ChildSession.interpreter_too_slow` classify a child that died or timed out; the job's log
(``child.log``: the sandbox's output, bounded, and the whole traceback of each failure) is kept here.

Trusted side: the child imports the submission, this module never does.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from ..platforms import Platform
from ..record import JobRecord, L3Record
from ..sandbox.protocol import Answer, CaseCommand, Ready, TimeCommand, parse_answer
from ..sandbox.runner import Child, ChildDied, ChildTimeout, health_probe
from ..suite.spec import Case, Operator, shape_elements
from . import profile as l3
from .failures import JobFailed, condense_traceback
from .scan import describe_findings

if TYPE_CHECKING:
    from ..settings import Settings


def check_launch_violations(msg: Answer, where: str, case: Case | None = None) -> None:
    """L3 launch rule: the child recorded a launch that handed a kernel something other than a Triton
    value, or a kernel body that reads a global that is not one (``sandbox/launch_args.py``). The
    record is kept by the child whatever the submission caught, and wins over any error it caused."""
    found = msg.launch_violations
    if found:
        raise JobFailed("profile", f"L3 launch check ({where}): {found[0]}", case)



#: Seconds of interpreter time that one unit of a case's work (:func:`interpreter_work`) may honestly take at
#: most: one floating-point operation, or one element moved, run element by element in Python with a custom
#: combine step (~50-200 us on this interpreter) times a margin of 5-20.
INTERPRETER_S_PER_UNIT = 1e-3


def interpreter_work(op: Operator, params: dict) -> float:
    """A case's work in units for the slow-on-the-interpreter rule: the larger of its cost model's FLOPs and
    the elements it must move (bytes / 2, so half-precision elements count whole); where the cost model has
    neither, the elements of the shapes (lists of integers) among its parameters."""
    cost = op.cost(params)
    work = max(float(cost.flops or 0.0), float(cost.bytes or 0.0) / 2.0)
    return work if work > 0 else shape_elements(params)

class ChildSession:
    """The sandbox processes of one job and their channel.

    Args:
        op: the operator; submission: the submission file.
        platform, device_index: where the child runs (None on the interpreter).
        workdir: the job's work directory (the child's cwd and Triton cache, ``child.log``).
        settings: the job's limits (``import_timeout_s``, ``case_timeout_s``, ``log_limit_bytes``).
        record: the job's record (``missing_optional``, ``log``, ``log_truncated``, L3's ``import_trace``).
    """

    def __init__(self, op: Operator, submission: Path | None, platform: Platform, device_index: int | None,
                 workdir: Path, settings: Settings, record: JobRecord) -> None:
        self.op = op
        self.submission = submission
        self.platform = platform
        self.device_index = device_index
        self.workdir = workdir
        self.settings = settings
        self.record = record
        #: the sandbox process that answers commands now (None once it died, timed out or was closed)
        self.child: Child | None = None
        #: every sandbox process this job started (their logs share the job's log budget)
        self.children: list[Child] = []
        #: (name, line) of functions that ran as kernel bodies and were scanned as such here (check_launch)
        self._scanned_bodies: set[tuple[str, int]] = set()
        self._logged = False

    # -- the process ------------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """Whether a sandbox process is held (to be closed)."""
        return self.child is not None

    def start(self) -> None:
        """Start a sandbox process, which imports the submission, and judge its ``ready`` answer.

        Raises:
            JobFailed: the import timed out, died or failed (its class: ``syntax``, ``import_error``,
                ``missing_wrapper``, ``signature``, ``platform``), broke the launch rule, replaced timers, or
                its module-level code failed L3.
        """
        assert self.submission is not None
        from ..sandbox.forkserver import spawner

        self.child = Child(self.op.id, self.submission, self.platform, self.device_index, self.workdir,
                           self.log_path(), log_limit=max(0, self.settings.log_limit_bytes - self.log_kept()),
                           spawn=spawner(self.platform, getattr(self.settings, "fork_server", None)))
        self.children.append(self.child)
        try:
            raw = self.child.recv(self.settings.import_timeout_s)
        except ChildTimeout:
            raise JobFailed("timeout", f"importing the submission took longer than "
                                       f"{self.settings.import_timeout_s:.0f} s (killed; --import-timeout sets "
                                       f"the limit)") from None
        except ChildDied as exc:
            raise JobFailed("import_error", f"the submission's process died during import: {exc}") from None
        msg = parse_answer(raw)
        if not isinstance(msg, Ready):
            raise JobFailed("platform", f"unexpected first message from the sandbox: {msg.event_name!r}")
        self.check_launch(msg, "importing the submission")
        if not msg.ok:
            err = msg.error or {}
            text = err.get("message", "")
            etype = err.get("type")
            if msg.failure in (None, "import_error", "syntax") and etype and not text.startswith(str(etype)):
                # name the exception, as a case's error does: a KeyError's message is only the key ('BLOCK')
                text = f"{etype}: {text}" if text else str(etype)
            tb = err.get("traceback_full") or err.get("traceback")
            if tb:
                self.log_traceback(f"importing the submission: {msg.failure or 'import_error'}", tb)
                text += "\n" + condense_traceback(tb, self.submission) + self.log_hint()
            raise JobFailed(msg.failure or "import_error", text)
        self.record.missing_optional = msg.missing_optional
        if msg.timers_tampered:
            raise JobFailed("timer_tampering", f"timer functions replaced at import: {msg.timers_tampered}")
        self._judge_import(msg.import_trace, msg.import_sites)

    def _judge_import(self, trace: dict[str, int], sites: dict[str, str] | None = None) -> None:
        """L3 for the submission's import: its module-level code ran under the dispatch trace of a call
        (``dispatch.trace_import``) and is judged by the same allowlist, marks and budgets (host reads,
        fills/copies, tensor data built from host Python). Any finding fails the job as ``profile``:
        results computed once at import and looked up by the kernels are computed all the same (the op
        itself run at import included; it is no dispatch recursion there, the wrapper is not running)."""
        l3rec = self.record.anti_hack.L3 = self.record.anti_hack.L3 or L3Record()
        l3rec.import_trace = dict(trace)
        tv = l3.judge_trace(trace, frozenset(getattr(self.op, "own_ops", frozenset())),
                            getattr(self.op, "allow_copies", True), self.op.allow_trace, self.op.data_movement,
                            host_data_budget=l3.IMPORT_HOST_DATA_BUDGET)
        if tv.failure:
            l3rec.ok = False
            raise JobFailed("profile", f"L3 dispatch trace of the submission's import (module-level code, "
                                       f"{self.op.id}): {tv.message}{l3.where_in_submission(tv, sites or {})}; "
                                       f"work done at import is judged like work done in a call")

    def request(self, command: CaseCommand | TimeCommand, timeout: float) -> Answer:
        """Send one command and return the answer, typed (``sandbox/protocol.py``).

        Raises:
            ChildTimeout: no answer within ``timeout`` (the process group was killed).
            ChildDied: the process exited, or sent something that is not a message.
        """
        assert self.child is not None
        self.child.send(command.to_json())
        return parse_answer(self.child.recv(timeout))

    def drop(self) -> None:
        """Forget the current process without closing it (it timed out or died: the runner killed it)."""
        self.child = None

    def close(self) -> None:
        """Close the current process (ask it to exit, then kill its process group)."""
        if self.child is not None:
            self.child.close()
            self.child = None

    # -- what every answer carries ------------------------------------------------------------------
    def check_launch(self, msg: Answer, where: str, case: Case | None = None) -> None:
        """The launch rule's record in a child's answer (:func:`check_launch_violations`), and the
        submission's functions that ran as kernel bodies although the file-level L1 scan did not hold
        them to the kernel-body rule (``unscanned_bodies``: made kernels in a way the scan does not
        follow): each is scanned once as a kernel body (``verify.scan.scan_kernel_body``); a finding
        fails the job as ``static_scan``, a function the file does not define as ``profile``."""
        check_launch_violations(msg, where, case)
        bodies = [(str(n), int(line)) for n, line in msg.unscanned_bodies]
        bodies = [b for b in bodies if b not in self._scanned_bodies]
        if not bodies or self.submission is None:
            return
        from .scan import scan_kernel_body

        try:
            source = importlib.util.decode_source(Path(self.submission).read_bytes())
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            source = ""
        for name, line in bodies:
            findings = scan_kernel_body(source, name, line, **self.op.scan_policy())
            if findings is None:
                raise JobFailed("profile", f"L3 launch check ({where}): {name} (line {line}) ran as a Triton "
                                           f"kernel body but the submission defines no such function to scan", case)
            if findings:
                raise JobFailed("static_scan", describe_findings(
                    findings, f"L1 static scan of {name} (line {line}), which ran as a Triton kernel body"), case)
            self._scanned_bodies.add((name, line))

    # -- a child that did not answer ------------------------------------------------------------------
    def interpreter_too_slow(self, exc: ChildTimeout, case: Case | None = None) -> str | None:
        """Why a case that reached its timeout on the CPU interpreter was slow rather than stuck, or None.

        Slow: the interpreter's progress counters (programs started, element-by-element steps of reductions
        and scans with a custom combine function, launches) still advanced within the last
        ``max(2 s, 10% of the timeout)`` before the kill. The interpreter runs such kernels in Python, one
        program and one combine step at a time; a GPU runs the same case in microseconds, so the case is
        unsupported here, not the submission's failure. A kernel stuck inside one program (a spin-wait on a
        flag, an endless loop) advances none of the counters and stays a ``timeout``.

        The counters are published by the sandbox process, so they are the submission's word; what the
        verifier knows itself is the case's work (:func:`interpreter_work`). A case too small to keep the
        interpreter busy for the timeout even at :data:`INTERPRETER_S_PER_UNIT` per unit of work is never
        slow: its timeout is the submission's (busy work or endless launches on a small case is how a
        submission would skip the cases it cannot compute)."""
        if not self.platform.interpreter or not exc.progress:
            return None
        p = exc.progress
        idle = p.idle_s
        window = max(2.0, 0.1 * self.settings.case_timeout_s)
        if idle is None or idle > window:
            return None
        if case is not None and interpreter_work(self.op, case.params) * INTERPRETER_S_PER_UNIT \
                < self.settings.case_timeout_s:
            return None
        return (f"the Triton CPU interpreter is too slow for this case: it was still computing when the "
                f"{self.settings.case_timeout_s:.0f} s case timeout ended it ({p.programs} program(s) of "
                f"{p.launches} launch(es) started, the last launch's grid {p.grid}, "
                f"{p.scan_steps} reduction/scan step(s)); a GPU judges it (--case-timeout allows more time "
                f"here)")

    def died(self, exc: ChildDied, case: Case) -> JobFailed:
        """Classify an abnormal child exit during a case; probe the device on GPUs."""
        text = f"{exc} during case {case.id} ({case.describe()})"
        cls = "runtime_error"
        if not self.platform.interpreter:
            ok, why = health_probe(self.platform, self.device_index)
            if not ok:
                return JobFailed("infrastructure", f"{text}; the device then failed its health probe ({why})", case)
            if exc.returncode is not None and exc.returncode < 0:
                cls = "cuda_fault"
        tail = ""
        for c in self.children:  # the dead process's output is all in the log once its pipe is drained
            c.log.finish(timeout=5.0)
        try:
            tail = self.log_path().read_text(errors="replace")[-800:]
        except OSError:
            pass
        return JobFailed(cls, text + (f"\nlast output:\n{tail}" if tail else ""), case)

    # -- the job's log ------------------------------------------------------------------------------
    def log_path(self) -> Path:
        return self.workdir / "child.log"

    def log_traceback(self, title: str, tb: str) -> None:
        """Append a whole traceback to the job's log (the sandbox's output file), marked as the harness's."""
        try:
            self.workdir.mkdir(parents=True, exist_ok=True)
            with open(self.log_path(), "a", errors="replace") as f:
                f.write(f"\n===== kgb: {title}: the whole traceback =====\n{tb.rstrip()}\n===== end =====\n")
            self._logged = True
            self.record.log = str(self.log_path())
        except OSError:
            pass

    def log_hint(self) -> str:
        return f"\n(whole traceback: {self.log_path()})" if self._logged else ""

    def log_kept(self) -> int:
        """Bytes of sandbox output this job's log holds so far (its processes' heads)."""
        return sum(min(c.log.total, c.log.limit) for c in self.children)

    def account_logs(self) -> None:
        """Wait for every sandbox process's log to be written; record ``log_truncated`` when output was
        dropped: ``{"bytes_written", "bytes_dropped", "limit"}`` (the job's log keeps the first ``limit``
        bytes and the last 64 KiB of each process that went over)."""
        for c in self.children:
            c.log.finish(timeout=5.0)
        written = sum(c.log.total for c in self.children)
        dropped = sum(c.log.dropped for c in self.children)
        if any(c.log.truncated for c in self.children):
            self.record.log_truncated = {"bytes_written": written, "bytes_dropped": dropped,
                                         "limit": self.settings.log_limit_bytes}
