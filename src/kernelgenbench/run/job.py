"""One job: one (submission file, operator) pair, judged end to end (DESIGN.md "Pipeline").

The :class:`Verifier` is a pipeline over phases, each a module a reader can open alone:

    L1 static scan        verify/scan          rejects before any code runs
    sandbox session       verify/session.py      a child imports the submission (sandbox/child.py), answers
                                               typed messages (sandbox/protocol.py); import judged
    cases, L2 interleaved verify/judge.py      correctness of each case (inputs, reference, run, judge)
                          verify/ghost.py      L2 ghost replay: re-runs and replays among the cases, verdict
    L3 kernel list        verify/judge.py      CUDA profiler on one case (verify/profile.py judges)
    timing (GPU only)     verify/timing.py     the child's half is sandbox/timed_loop.py
    one result record     record.py            JobRecord, CaseRecord, AntiHack (results.jsonl)

This module is the trusted side: it never imports the submission. Every phase stops the job by raising
:class:`~kernelgenbench.verify.failures.JobFailed` or records a failure on the job's
:class:`~kernelgenbench.record.JobRecord` (the first one recorded stays the job's).
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

import torch

from ..platforms import Platform
from ..record import CaseRecord, JobRecord, L1Record, L3Record, PhaseTimes, sha256
from ..sandbox.protocol import fast_tensor_files
from ..settings import Settings
from ..suite.spec import Case, Operator
from ..verify.failures import JobFailed, condense_traceback
from ..verify.ghost import GhostReplay
from ..verify.judge import CaseJudge
from ..verify.scan import describe_findings, findings_record, scan_file
from ..verify.session import ChildSession
from ..verify.timing import TimingPhase, not_applicable
from .gate import DeviceGate

_LINALG_LOCK = threading.Lock()
_LINALG_LOADED: list[bool] = []


def load_lazy_linalg(device: torch.device) -> None:
    """Load PyTorch's CUDA linear-algebra library into this process once, under a lock, before a job's thread
    computes a reference. PyTorch loads it lazily (``BUILD_LAZY_CUDA_LINALG``,
    ``aten/src/ATen/native/cuda/LinearAlgebraStubs.cpp``): the first linalg call of a process opens it, and
    threads that enter the stubs meanwhile fail with "lazy wrapper should be called at most once". The verifier
    runs a thread per slot: at aadd375 on an H100, ``cublasStrsm_v2``'s reference (``torch.linalg.
    solve_triangular``) failed so beside ``cublasZtrsmBatched``'s (the oracle's job failed as ``platform``:
    a harness error); 8 threads on a fresh CUDA process: 7 of 8 failed, none after one call first.
    ``device`` is a CUDA device; a failure here is left to the reference that needs the library."""
    with _LINALG_LOCK:
        if _LINALG_LOADED:
            return
        _LINALG_LOADED.append(True)
        try:
            eye = torch.ones(1, 1, device=device)
            torch.linalg.solve_triangular(eye, eye, upper=True)
        except Exception:  # noqa: BLE001 - no linalg library: the references that need it say so themselves
            pass


@dataclass
class JobSpec:
    """What to evaluate: an operator, a submission file (None when missing), a tier; ``shard`` ``(i, n)``: judge
    only the tier's cases ``cases[i::n]`` as a job of its own (``kgb eval --shard-cases``: run/shards.py)."""

    op: Operator
    submission: Path | None
    tier: str
    label: str = ""
    shard: tuple[int, int] | None = None

    def cases(self) -> list[Case]:
        """The cases this job judges: the tier's, or its shard's ``cases[i::n]``."""
        cases = self.op.cases(self.tier)
        return cases if self.shard is None else cases[self.shard[0]::self.shard[1]]

    def case_count(self) -> int:
        """How many cases this job judges (0 when the tier cannot be built)."""
        try:
            return len(self.cases())
        except Exception:  # noqa: BLE001 - a record must be written even if the grid cannot be built
            return 0


def device_name(platform: Platform, device: torch.device | int | None) -> str:
    """The name a record gives the device a job ran on (``record.device``)."""
    if platform.interpreter:
        return "cpu (Triton interpreter)"
    try:
        return torch.cuda.get_device_name(device if device is not None else 0)
    except Exception:  # noqa: BLE001
        return platform.device


def _shm_io_dir(shm: Path) -> Path:
    """A fresh ``kgb-io-<pid>-*`` folder in ``shm`` (memory) for one job's tensors, after removing the folders
    of processes that no longer run (a run killed with SIGKILL, or by the OOM killer, cannot clean up, and
    memory-backed files outlive it: gigabytes for the full tier)."""
    for old in shm.glob("kgb-io-*-*"):
        pid = old.name.split("-")[2]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except PermissionError:  # another user's live process
            pass
    return Path(tempfile.mkdtemp(prefix=f"kgb-io-{os.getpid()}-", dir=shm))

class Verifier:
    """Evaluates one job on one device slot and returns its record (see :meth:`run`)."""

    def __init__(self, spec: JobSpec, platform: Platform, device_index: int | None, workdir: Path,
                 settings: Settings, ceilings: dict[str, float] | None = None, gate: DeviceGate | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> None:
        self.spec = spec
        #: ``progress(stage, done, total)``: ``"cases"`` after each correctness run, ``"timing"`` after each
        #: timed case (the console's per-job bar; called from the slot's thread)
        self.progress = progress
        #: shared by the slots of this device: untimed GPU work shared, timing exclusive (run/gate.py)
        self.gate = gate or DeviceGate()
        self.op = spec.op
        self.platform = platform
        self.device_index = device_index
        self.workdir = workdir
        self.settings = settings
        self.ceilings = ceilings or {}
        if platform.interpreter:
            self.device = torch.device("cpu")
        else:
            self.device = torch.device(platform.device, device_index or 0)
        #: the verifier's secret RNG: L2's choice of cases, their input seeds and the replay positions,
        #: then each timed case's seed and judged repetitions (drawn in that order)
        self._rng = random.Random(os.urandom(8))
        # Tensors exchanged with the child go through memory-backed files where the host has them, written without
        # checksums (sandbox/protocol.py fast_tensor_files)
        fast_tensor_files(torch)
        shm = Path("/dev/shm")
        self.io = _shm_io_dir(shm) if shm.is_dir() and os.access(shm, os.W_OK) else workdir / "io"
        self.record = JobRecord(op=self.op.id)
        #: where the job's wall time goes (seconds), written into the record as ``time_s``
        self.times = PhaseTimes()
        self._cases: list[Case] = []
        #: case id -> the ATen ops of its correctness run (compared with its timed calls)
        self._case_traces: dict[str, dict[str, int]] = {}

    def _new_record(self) -> JobRecord:
        sub = self.spec.submission
        return JobRecord(op=self.op.id, source=self.op.source, category=self.op.category,
                         submission=str(sub) if sub else None,
                         submission_sha256=sha256(sub) if sub and sub.is_file() else None,
                         label=self.spec.label, tier=self.spec.tier, platform=self.platform.name,
                         profile=self.platform.profile, platform_profile=self.platform.record_info(),
                         device=device_name(self.platform, self.device),
                         shard=list(self.spec.shard) if self.spec.shard else None)

    # -- the pipeline -------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Judge the job. Never raises for anything the submission does; returns the record as JSON
        (:meth:`JobRecord.to_json <kernelgenbench.record.JobRecord.to_json>`; the typed record is ``self.record``)."""
        t0 = time.time()
        self.record = self._new_record()
        self.record.started_at = t0
        self.session = ChildSession(self.op, self.spec.submission, self.platform, self.device_index, self.workdir,
                                    self.settings, self.record)
        self.judge = CaseJudge(self.op, self.platform, self.device, self.settings, self.session, self.record,
                               self.times, self.io)
        try:
            if self.platform.device == "cuda" and not self.platform.interpreter:
                torch.cuda.set_device(self.device)
                load_lazy_linalg(self.device)
            self._run()
        except JobFailed as jf:
            self.record.fail(jf.cls, str(jf), jf.case)
        except Exception as exc:  # noqa: BLE001 - a harness error must not lose the job
            tb = traceback.format_exc()
            self.session.log_traceback("harness error in the verifier", tb)
            self.record.fail("platform", f"harness error: {type(exc).__name__}: {exc}\n"
                                         f"{condense_traceback(tb, self.spec.submission)}{self.session.log_hint()}")
        finally:
            if self.session.alive:
                with self.gate.shared():  # a process leaving the GPU is GPU work: not while another job times
                    self.session.close()
            self.session.account_logs()
        self._conclude(t0)
        if not self.settings.keep_workdir:
            shutil.rmtree(self.io, ignore_errors=True)
        return self.record.to_json()

    def _run(self) -> None:
        sub = self.spec.submission
        if sub is None or not sub.is_file():
            raise JobFailed("missing", f"no submission file {self.op.filename} for {self.op.id}")
        self._l1(sub)
        t_w = time.perf_counter()
        with self.gate.shared():
            self.times["gate_wait_s"] += time.perf_counter() - t_w
            self._verify()
        if self.record.failed:
            return
        if not self.platform.timing:
            not_applicable(self.record, self.op, self.platform)
            return
        timing = TimingPhase(self.op, self.platform, self.device, self.settings, self.session, self.judge,
                             self.record, self._rng, self.io, self.ceilings, self._case_traces)
        timing.progress = self.progress
        if not any(c.timed for c in self._cases):
            # Nothing of this tier is timed (smoke, held-out): record that, without taking the GPU alone
            # (waiting for every other slot's untimed work would time nothing).
            timing.run(self._cases)
            return
        self._time(timing)

    def _time(self, timing: TimingPhase) -> None:
        """Time the job's timed cases (``timing``: its TimingPhase) under Settings.timing_hold: their baselines made
        first (:meth:`TimingPhase.make_ahead`, each case's under the GPU's shared gate), then every case timed, the
        job holding the GPU alone from its first timed case to its last (``job``) or per case (``case``)."""
        # The timed cases' baselines (a vLLM reference's torch.compile, ~4 s a case on a GPU), made first, each
        # case's under the shared gate: beside the other slots' untimed work, not inside the exclusive hold
        timing.hold_ahead = lambda: self._hold(self.gate.shared, "gate_wait_s")
        waited = self.times["gate_wait_s"]
        t_a = time.perf_counter()
        timing.make_ahead(self._cases)
        self.times["ahead_s"] += time.perf_counter() - t_a - (self.times["gate_wait_s"] - waited)
        # Timing: the device alone (other slots of this GPU wait), for the whole phase or per case -----------
        if self.settings.timing_hold == "case":
            waited = self.times["gate_wait_timing_s"] + self.times["gate_wait_s"]
            timing.hold_untimed = lambda: self._hold(self.gate.shared, "gate_wait_s")
            timing.hold_timed = lambda: self._hold(self.gate.exclusive, "gate_wait_timing_s")
            t_t = time.perf_counter()
            timing.run(self._cases)
            waited = self.times["gate_wait_timing_s"] + self.times["gate_wait_s"] - waited
            self.times["timing_s"] += time.perf_counter() - t_t - waited
            with self.gate.shared():
                self.session.close()
            return
        with self._hold(self.gate.exclusive, "gate_wait_timing_s"):
            t_t = time.perf_counter()
            timing.run(self._cases)
            self.times["timing_s"] += time.perf_counter() - t_t
            self.session.close()

    @contextmanager
    def _hold(self, how: Callable[[], ContextManager[Any]], wait_key: str) -> Iterator[None]:
        """Hold this device's gate (``how``: its ``shared`` or ``exclusive``), the wait added to ``times[wait_key]``."""
        t_w = time.perf_counter()
        with how():
            self.times[wait_key] += time.perf_counter() - t_w
            yield

    def _l1(self, sub: Path) -> None:
        """L1: the static scan of the file, before any of its code runs."""
        t_l1 = time.perf_counter()
        findings = scan_file(sub, **self.op.scan_policy())
        self.times["l1_s"] += time.perf_counter() - t_l1
        self.record.anti_hack.L1 = L1Record.from_json(findings_record(findings))
        if findings:
            rules = {f.rule for f in findings}
            cls = "syntax" if "syntax" in rules else ("dispatch_recursion" if "dispatch-recursion" in rules
                                                      else "static_scan")
            # every finding, the most relevant first; a file that does not parse was not scanned: its message
            # does not read as an L1 interception (kgb report counts none for it)
            raise JobFailed(cls, describe_findings(findings, header="the file does not parse" if cls == "syntax"
                                                   else "L1 static scan"))

    def _verify(self) -> None:
        """Sandbox start-up, every case, L2 ghost replay and the L3 kernel list (no timing)."""
        self.io.mkdir(parents=True, exist_ok=True)
        self.record.log = str(self.session.log_path())
        with self.times.phase("import_s"):  # a failed or timed-out import took its time too
            self.session.start()
        cases = self._cases = self.spec.cases()
        if not cases:
            raise JobFailed("platform", f"{self.op.id} has no cases in tier {self.spec.tier}")
        entries: dict[int, CaseRecord] = {}
        judged: list[Case] = []
        for case in cases:
            entry = entries[case.index] = CaseRecord(case.id, case.params)
            self.record.cases.append(entry)
            # a dtype the platform cannot judge, or a case over the interpreter's size budget: never run
            reason = self.platform.case_unsupported_reason(self.op, case, self.settings.interpreter_max_mb)
            if reason:
                entry.update(status="unsupported", message=reason)
                self.record.note_unsupported(reason)
                continue
            if self.platform.tolerance_scale != 1.0:  # the scale this case's comparison applies (platforms.py)
                entry.tolerance_scale = self.platform.tolerance_scale
            judged.append(case)
        # every correctness run, with L2's re-runs and ghost replays interleaved (verify/ghost.py) ---------
        l2 = GhostReplay(self.judge, self.op, self.settings, self._rng, self.record, self.times)
        l2.progress = self.progress
        runs = l2.run(judged, entries)
        self._case_traces.update(runs.case_traces)
        l3rec = self.record.anti_hack.L3 = self.record.anti_hack.L3 or L3Record()
        l3rec.update(ok=self.record.failure_class not in ("profile", "dispatch_recursion", "not_exercised"),
                     trace=runs.trace, launches=runs.launches)
        l2.verdict(runs)
        if self.record.failed:
            return
        # L3 kernel list (CUDA) -----------------------------------------------------------------------
        if self.platform.profiler and runs.profile_case is not None:
            t_p = time.perf_counter()
            self.judge.kernel_list(runs.profile_case)
            self.times["profile_s"] += time.perf_counter() - t_p

    def _conclude(self, t0: float) -> None:
        """The case counts, the status of a job with no failure, the clock."""
        rec = self.record
        # the tier's case count, also when the job failed before its cases ran (missing, syntax,
        # missing_wrapper, import_error: 0 of them passed); ``cases`` holds the cases that ran
        rec.cases_total = len(rec.cases) or self.spec.case_count()
        rec.cases_passed = sum(1 for c in rec.cases if c.status == "passed")
        rec.cases_unsupported = sum(1 for c in rec.cases if c.status == "unsupported")
        judged = rec.cases_total - rec.cases_unsupported
        if rec.failure_class is None:
            rec.status = "unsupported" if judged == 0 and rec.cases_total > 0 else "passed"
            if rec.status == "passed" and rec.unsupported_by_kernel:
                # Cases the submission's own kernels made unjudgeable here (an interpreter limit they hit, still
                # computing at the timeout) are cases it may have chosen to skip: not passed, not failed.
                rec.status = "unsupported"
                rec.unsupported_reason = (
                    f"{rec.unsupported_by_kernel} case(s) could not be judged on {self.platform.name} with this "
                    f"submission's kernels (first: {rec.first_unsupported_by_kernel}); "
                    f"the {judged} judged case(s) passed, "
                    f"a GPU judges the rest")
        rec.finished_at = time.time()
        rec.wall_s = round(rec.finished_at - t0, 3)
        rec.time_s = self.times.to_json()
