"""The local scheduler: one slot per GPU (N slots on the interpreter), jobs from a queue, health
probes after abnormal exits, quarantine and requeue (DESIGN.md "Execution").

A job is a (submission file, operator, tier selection). The trusted verifier of each job runs in a thread of
this process; the candidate runs in a fresh sandbox child per job. Records are appended to the run
directory as soon as each job finishes, so an interrupted run loses nothing and resumes.
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..platforms import Platform, device_count
from ..sandbox.runner import health_probe, kill_all
from .gate import DeviceGate
from ..record import JobRecord, sha256, tier_case_count
from .job import JobSpec, Settings, Verifier
from .rundir import RunDir, job_key


@dataclass
class Slot:
    """One execution slot: a device index (None on the interpreter) and its health."""

    index: int
    device: int | None
    quarantined: bool = False


def make_slots(platform: Platform, jobs: int | None, share: bool = False) -> list[Slot]:
    """One slot per visible GPU, or ``jobs`` slots (default 2) on the interpreter.

    Args:
        share: allow more slots than GPUs (assigned round-robin). The slots of one GPU overlap their
            untimed work (sandbox start-up, correctness, ghost replay); a job times its cases with
            the GPU to itself (:class:`~kernelgenbench.run.gate.DeviceGate`), so sharing changes no
            measurement, only how much of the wall time the GPU sits idle.
    """
    if platform.interpreter:
        n = max(1, jobs or 2)
        return [Slot(i, None) for i in range(n)]
    count = device_count(platform)
    if count == 0:
        raise RuntimeError(f"platform {platform.name}: no device visible")
    n = (jobs if share else min(count, jobs)) if jobs else count
    return [Slot(i, i % count) for i in range(n)]


def spec_key(spec: JobSpec, platform: Platform) -> str:
    """The run directory's key of a job (:func:`~kernelgenbench.run.rundir.job_key`): the submission's
    hash is part of it, so an edited file is a new job."""
    sha = None
    if spec.submission is not None and spec.submission.is_file():
        sha = sha256(spec.submission)
    return job_key(spec.op.id, sha, spec.tier, platform.key, spec.label)


def unfinished(specs: list[JobSpec], platform: Platform, rundir: RunDir) -> list[JobSpec]:
    """The jobs of ``specs`` that ``rundir`` holds no final record of (what a resume runs)."""
    done = rundir.finished_keys()
    return [s for s in specs if spec_key(s, platform) not in done]


def run_jobs(specs: list[JobSpec], platform: Platform, rundir: RunDir, settings: Settings,
             slots: list[Slot], ceilings: dict[int | None, dict[str, Any]],
             on_done: Callable[[dict[str, Any]], None] | None = None, max_requeue: int = 2) -> list[dict[str, Any]]:
    """Run every job not yet finished in ``rundir``; returns the records written by this call.

    Jobs whose device fails the health probe after an abnormal exit are requeued on another slot
    (up to ``max_requeue`` times) and the device is quarantined; a job that never finds a healthy
    device is recorded with failure class ``infrastructure``.

    On KeyboardInterrupt (Ctrl-C) the slots stop taking jobs, every sandbox child is killed, the jobs
    cut short are not recorded (a resume runs them again) and the KeyboardInterrupt propagates.
    """
    todo: "queue.Queue[tuple[JobSpec, int]]" = queue.Queue()
    for spec in unfinished(specs, platform, rundir):
        todo.put((spec, 0))
    written: list[dict[str, Any]] = []
    lock = threading.Lock()
    stop = threading.Event()
    gates = {s.device: DeviceGate() for s in slots}  # one per device: timing excludes the device's other slots

    def worker(slot: Slot) -> None:
        while not slot.quarantined and not stop.is_set():
            try:
                spec, tries = todo.get_nowait()
            except queue.Empty:
                return
            workdir = rundir.job_dir(spec.op.id, spec.label)
            rec = Verifier(spec, platform, slot.device, workdir, settings, ceilings.get(slot.device),
                           gate=gates[slot.device]).run()
            if stop.is_set():
                return  # interrupted: its child was killed, so the record is no verdict
            if rec.get("failure_class") == "infrastructure":
                slot.quarantined = True
                healthy = [s for s in slots if not s.quarantined]
                if healthy and tries < max_requeue:
                    todo.put((spec, tries + 1))
                    continue
            rec["attempt"] = tries + 1
            rundir.append(rec)
            with lock:
                written.append(rec)
            if on_done is not None:
                on_done(rec)

    threads = [threading.Thread(target=worker, args=(s,), daemon=True, name=f"slot-{s.index}") for s in slots]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        stop.set()
        kill_all()
        for t in threads:
            t.join(timeout=10)
        raise
    # Jobs left because every slot was quarantined.
    while not todo.empty():
        spec, tries = todo.get_nowait()
        rec = JobRecord.synthetic(spec.op, spec.label, spec.tier, platform.name, "infrastructure",
                                  "no healthy device left", tier_case_count(spec.op, spec.tier),
                                  submission=str(spec.submission), profile=platform.profile).to_json()
        rundir.append(rec)
        written.append(rec)
        if on_done is not None:
            on_done(rec)
    return written


def probe_all(platform: Platform, slots: list[Slot]) -> None:
    """Health-probe every slot before the run; quarantine the ones that fail."""
    for s in slots:
        ok, _ = health_probe(platform, s.device)
        s.quarantined = not ok


def collect_specs(submissions: Path, ops: list[Any], tier: str, label: str, explicit: bool) -> list[JobSpec]:
    """One job per (file, operator): the operators with a file in ``submissions``, or every operator
    in ``ops`` when they were requested explicitly (a requested operator without a file is a job
    that fails as ``missing``). ``tier`` is a tier selection (``smoke``, ``all``, ``smoke,heldout``); the
    jobs carry its canonical name (:func:`~kernelgenbench.suite.tiers.tier_name`), which records and resume
    keys hold, so that a run of another selection is another configuration.

    Raises:
        ValueError: an unknown tier.
    """
    from ..suite.tiers import tier_name

    tier = tier_name(tier)
    specs = []
    for op in ops:
        path = submissions / op.filename
        if path.is_file():
            specs.append(JobSpec(op, path, tier, label))
        elif explicit:
            specs.append(JobSpec(op, None, tier, label))
    return specs
