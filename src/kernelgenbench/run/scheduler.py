"""The local scheduler: one or more slots per GPU (N slots on the interpreter), jobs from a queue, a timing gate
per GPU, ceilings per GPU, health probes after abnormal exits, quarantine of the GPU and requeue (DESIGN.md
"Execution"). ``--backend ray`` runs the same jobs on a Ray cluster instead (``run/ray_backend.py``).

A job is a (submission file, operator, tier selection). The trusted verifier of each job runs in a thread of
this process; the candidate runs in a fresh sandbox child per job. Records are appended to the run
directory as soon as each job finishes, so an interrupted run loses nothing and resumes.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ..platforms import Platform, device_count
from ..record import JobRecord, tier_case_count
from ..sandbox.runner import health_probe, kill_all
from .gate import DeviceGate
from .job import JobSpec, Settings, Verifier, device_name
from .rundir import RunDir
from .shards import ShardBook, spec_key


@dataclass
class Slot:
    """One execution slot: a device index (None on the interpreter) and its health.

    ``device`` is this process's index of the GPU (``torch.device("cuda", device)``); the sandbox child is pinned
    to that GPU through the platform's visible-devices variable (:func:`~kernelgenbench.platforms.visible_device`).
    """

    index: int
    device: int | None
    quarantined: bool = False


@contextlib.contextmanager
def stopping() -> Iterator[None]:
    """While a run stops after Ctrl-C (its sandboxes or sessions killed, its threads given a few seconds): a
    second Ctrl-C is ignored, so that it cannot cut the stopping short and leave a thread running into the
    interpreter's exit. Only in the main thread (elsewhere signals cannot be set, nor arrive); the handler
    is put back afterwards."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def start_workers(targets: list[Callable[[], None]], names: list[str]) -> list[threading.Event]:
    """Start one daemon thread per target (named ``names[i]``); returns an event per thread, set when its target
    has returned or raised. Wait on these (:func:`wait_workers`), never with ``Thread.join``: a Ctrl-C inside
    ``join`` can leave a running thread marked as stopped, so that a later ``join`` returns at once
    (CPython gh-90882)."""
    done = []
    for fn, name in zip(targets, names):
        ev = threading.Event()

        def run(fn: Callable[[], None] = fn, ev: threading.Event = ev) -> None:
            try:
                fn()
            finally:
                ev.set()

        threading.Thread(target=run, daemon=True, name=name).start()
        done.append(ev)
    return done


def wait_workers(done: list[threading.Event], timeout_s: float | None = None) -> bool:
    """Wait until every event of :func:`start_workers` is set, or ``timeout_s`` seconds in all have passed
    (None: no limit); a Ctrl-C meanwhile raises KeyboardInterrupt. Returns whether every worker ended."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    for ev in done:
        while not ev.wait(timeout=0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))):
            if deadline is not None and time.monotonic() >= deadline:
                return False
    return True


def make_slots(platform: Platform, jobs: int | None, share: bool = False, count: int | None = None) -> list[Slot]:
    """One slot per visible GPU, or ``jobs`` slots (default 2) on the interpreter.

    Args:
        jobs: the number of slots (default: one per GPU); without ``share`` at most one per GPU.
        share: allow more slots than GPUs, assigned round-robin (slot ``i`` on GPU ``i % count``: the first
            ``count`` slots cover every GPU once, so a run with fewer jobs than slots still spreads over the
            GPUs). The slots of one GPU overlap their untimed work (sandbox start-up, correctness, ghost
            replay); a job times its cases with the GPU to itself
            (:class:`~kernelgenbench.run.gate.DeviceGate`, one per GPU), so sharing changes no measurement,
            only how much of the wall time the GPU sits idle.
        count: the number of GPUs (default :func:`~kernelgenbench.platforms.device_count`; tests pass a fake one).

    Raises:
        RuntimeError: a GPU platform with no device visible.
    """
    if platform.interpreter:
        n = max(1, jobs or 2)
        return [Slot(i, None) for i in range(n)]
    if count is None:
        count = device_count(platform)
    if count == 0:
        raise RuntimeError(f"platform {platform.name}: no device visible")
    n = (jobs if share else min(count, jobs)) if jobs else count
    return [Slot(i, i % count) for i in range(n)]


def devices(slots: list[Slot]) -> list[int | None]:
    """The distinct devices of ``slots``, in slot order."""
    out: list[int | None] = []
    for s in slots:
        if s.device not in out:
            out.append(s.device)
    return out


def quarantine(slots: list[Slot], slot: Slot) -> list[Slot]:
    """Take ``slot`` out of the run after its job ended as ``infrastructure`` (its device failed the health
    probe): every slot of the same GPU with it, since the fault is the GPU's; on the interpreter (no device)
    the slot alone. Returns the slots quarantined."""
    hit = [s for s in slots if s is slot or (slot.device is not None and s.device == slot.device)]
    for s in hit:
        s.quarantined = True
    return hit


def measure_ceilings(platform: Platform, slots: list[Slot],
                     measure: Callable[[Any], dict[str, Any]] | None = None) -> dict[int | None, dict[str, Any]]:
    """The ceilings (copy bandwidth, matmul rates: ``verify/ceilings.py``) of every GPU the slots use, measured on
    each GPU once (a GPU of several slots is measured once; each job's % of speed-of-light is against the GPU it
    ran on). ``measure(torch.device)`` defaults to :func:`kernelgenbench.verify.ceilings.measure`."""
    import torch

    if measure is None:
        from ..verify.ceilings import measure
    return {d: measure(torch.device(platform.device, d or 0)) for d in devices(slots)}


def unfinished(specs: list[JobSpec], platform: Platform, rundir: RunDir) -> list[JobSpec]:
    """The jobs of ``specs`` that ``rundir`` holds no final record of (what a resume runs)."""
    done = rundir.finished_keys()
    return [s for s in specs if spec_key(s, platform) not in done]


def judged_again(todo: list[JobSpec], rundir: RunDir) -> list[str]:
    """The jobs of ``todo`` (:func:`unfinished`) that ``rundir`` already holds a record of, each as ``"<op>
    (<why>)"``: a submission whose file changed since its record (the key holds its SHA-256), or a record whose
    failure a resume retries (``RERUN_CLASSES``). What a resume's header names, so that a new verdict of an
    operator the run had already judged is not silent."""
    from ..metrics import latest_records
    from .rundir import RERUN_CLASSES

    last = {(r.get("op"), r.get("label") or ""): r for r in latest_records(rundir.records())}
    ids = [s.op.id for s in todo]
    out = []
    for s in todo:
        rec = last.get((s.op.id, s.label or ""))
        if rec is None:
            continue
        name = f"{s.op.id} ({s.label})" if s.label and ids.count(s.op.id) > 1 else s.op.id  # labels where needed
        if rec.get("failure_class") in RERUN_CLASSES:
            out.append(f"{name} (its {rec['failure_class']} failure is retried)")
        else:
            out.append(f"{name} (its file changed since its record)")
    return out


#: ``run_job(spec, slot, gate, workdir, ceilings) -> record``: how a slot runs one job (default: the Verifier)
JobRunner = Callable[[JobSpec, Slot, DeviceGate, Path, "dict[str, Any] | None"], dict[str, Any]]


def run_jobs(specs: list[JobSpec], platform: Platform, rundir: RunDir, settings: Settings,
             slots: list[Slot], ceilings: dict[int | None, dict[str, Any]],
             on_done: Callable[[dict[str, Any]], None] | None = None, max_requeue: int = 2,
             run_job: JobRunner | None = None,
             on_progress: Callable[[JobSpec, str, int, int], None] | None = None) -> list[dict[str, Any]]:
    """Run every job not yet finished in ``rundir``; returns the records written by this call.

    Each slot takes jobs from one queue; the slots of one GPU share that GPU's timing gate (one
    :class:`~kernelgenbench.run.gate.DeviceGate` per GPU, none shared between GPUs) and each job gets its GPU's
    ceilings. A job whose record is ``infrastructure`` (its device failed the health probe after an abnormal
    exit) quarantines its GPU (every slot of it, :func:`quarantine`) and is requeued for another GPU (up to
    ``max_requeue`` times); a slot with an empty queue waits while jobs are in flight, since one of them may come
    back. A job that never finds a healthy device is recorded as ``infrastructure``. A record's ``attempt``
    counts its tries.

    Out of memory while sharing: a job that fails for want of device memory (:func:`out_of_memory`) on a GPU
    other slots share is judged again alone
    (:data:`OOM_ALONE`): it waits until no other job of the run is on that GPU and holds it for its whole run
    while the GPU's other slots wait, after the verifier's cached GPU memory is released. The other jobs' sandboxes
    and references had filled the GPU (an H100 gate at 5aa46ce: 19 held-out jobs and 9 tests failed as ``oom`` or
    with out-of-memory errors beside 19 other processes); only what the job runs out of memory on alone is its own
    failure. The record's ``rejudged_alone`` says so and keeps the first verdict (class and message). A submission
    can raise an out-of-memory error of its own to get this second run: it gains a run with the GPU to itself, once
    per job, and nothing else (the second verdict is judged as any).

    Args:
        run_job: how a slot runs a job (default: :class:`~kernelgenbench.run.job.Verifier` on the slot's device);
            tests pass a fake one to check the scheduling alone.
        on_progress: ``on_progress(spec, stage, done, total)`` while a job runs (``"cases"``: correctness runs
            done; ``"timing"``: timed cases done), from the slot's thread: the console's per-job bars.

    Case shards (``settings.shard_cases`` > 0, run/shards.py): a job of more cases is queued as its shards, each a
    job of its own (requeued alone after an infrastructure failure, judged alone after running out of memory, as
    any job). Each shard's record goes to ``shards.jsonl`` (``on_done`` sees it too: it has ``shard``); when a job's
    last shard is recorded, or one of its shards failed, its merged record goes to ``results.jsonl`` and its queued
    shards are dropped. A resume runs only the shards not yet recorded on a device of these slots by this harness.

    On KeyboardInterrupt (Ctrl-C) the slots stop taking jobs, every sandbox child is killed, the jobs
    cut short are not recorded (a resume runs them again; finished shards are kept) and the KeyboardInterrupt
    propagates.
    """
    if run_job is None:
        def run_job(spec: JobSpec, slot: Slot, gate: DeviceGate, workdir: Path,
                    ceil: dict[str, Any] | None) -> dict[str, Any]:
            progress = None if on_progress is None else functools.partial(on_progress, spec)
            return Verifier(spec, platform, slot.device, workdir, settings, ceil, gate=gate, progress=progress).run()

    book = ShardBook(rundir, platform, settings.shard_cases, {device_name(platform, s.device) for s in slots})
    planned, ready = book.plan(unfinished(specs, platform, rundir))
    # (job, tries, why it is judged alone on its GPU or None)
    todo: "collections.deque[tuple[JobSpec, int, str | None]]" = collections.deque((spec, 0, None) for spec in planned)
    written: list[dict[str, Any]] = []
    callback_errors: list[BaseException] = []

    def record(rec: dict[str, Any], results: bool = True) -> None:
        """Append ``rec`` to results.jsonl (``results``; a shard's record is already in shards.jsonl), then show it."""
        if results:
            rundir.append(rec)
            with cond:
                written.append(rec)
        if on_done is not None:
            try:
                on_done(rec)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - the caller's display, not the run
                # (rich raised SystemExit on a closed pipe: it ended a slot's thread silently, and the jobs
                # left were recorded as 'no healthy device left'); raised after every job is recorded
                with cond:
                    callback_errors.append(exc)

    cond = threading.Condition()
    in_flight = 0
    stop = threading.Event()
    gates = {d: DeviceGate() for d in devices(slots)}  # one per GPU: timing excludes that GPU's other slots
    # one per GPU, held for a whole job: shared by jobs that share the GPU, alone by a job judged alone
    alone_gates = {d: DeviceGate() for d in devices(slots)}
    sharers = collections.Counter(s.device for s in slots)
    for rec in ready:  # jobs whose every shard an earlier call recorded, cut off before their merge
        record(rec)

    def worker(slot: Slot) -> None:
        nonlocal in_flight
        while True:
            with cond:
                while not todo and in_flight and not (slot.quarantined or stop.is_set()):
                    cond.wait(0.5)  # a job in flight may be requeued
                if slot.quarantined or stop.is_set() or not todo:
                    return
                spec, tries, alone = todo.popleft()
                if book.closed(spec):
                    continue  # a shard of a job that another shard's failure ended
                in_flight += 1
            requeued = False
            try:
                workdir = rundir.job_dir(spec.op.id, spec.label, spec.shard)
                held = alone_gates[slot.device]
                with held.exclusive() if alone else held.shared():
                    if alone:
                        release_cached_memory(platform)
                    rec = run_job(spec, slot, gates[slot.device], workdir, ceilings.get(slot.device))
                release_cached_memory(platform)  # this job's references: not held while others need the memory
                if stop.is_set():
                    return  # interrupted: its child was killed, so the record is no verdict
                if rec.get("failure_class") == "infrastructure":
                    with cond:
                        quarantine(slots, slot)
                        if tries < max_requeue and any(not s.quarantined for s in slots):
                            todo.append((spec, tries + 1, alone))
                            requeued = True
                elif out_of_memory(rec) and alone is None and slot.device is not None and sharers[slot.device] > 1:
                    msg = ((rec.get("first_failure") or {}).get("message") or "")[:300]
                    first = f"{rec.get('failure_class')}: {msg}"
                    with cond:
                        todo.appendleft((spec, tries, OOM_ALONE.format(n=sharers[slot.device] - 1, first=first)))
                        requeued = True
                if requeued:
                    continue
                rec["attempt"] = tries + 1
                if alone:
                    rec["rejudged_alone"] = alone
                if spec.shard is None:
                    record(rec)
                    continue
                merged = book.finish(spec, rec)
                again = book.take_rerun()  # an earlier call's shards of another device (slots of two GPU models)
                if again:
                    with cond:
                        todo.extend((s, 0, None) for s in again)
                record(rec, results=False)
                if merged is not None:
                    if merged.get("status") == "failed":
                        with cond:  # the job is ended: its queued shards are dropped
                            kept = [e for e in todo if not book.closed(e[0])]
                            todo.clear()
                            todo.extend(kept)
                    record(merged)
            finally:
                with cond:
                    in_flight -= 1
                    cond.notify_all()

    done = start_workers([lambda s=s: worker(s) for s in slots], [f"slot-{s.index}" for s in slots])
    try:
        wait_workers(done)
    except KeyboardInterrupt:
        with stopping():
            stop.set()
            kill_all()
            wait_workers(done, 10.0)
        raise
    if todo and not all(s.quarantined for s in slots):
        # a slot's thread ended with jobs left and healthy devices: a harness error, not the devices' nor the
        # submissions' (nothing is recorded for them: a resume runs them)
        raise RuntimeError(f"the slots stopped with {len(todo)} job(s) left and healthy devices (a harness error); "
                           f"run the same command again to resume")
    # Jobs left because every slot was quarantined (a job cut into shards: one record, its shards dropped).
    while todo:
        spec, tries, _ = todo.popleft()
        if book.closed(spec):
            continue
        rec = JobRecord.synthetic(spec.op, spec.label, spec.tier, platform.name, "infrastructure",
                                  "no healthy device left", tier_case_count(spec.op, spec.tier),
                                  submission=str(spec.submission), profile=platform.profile).to_json()
        rec["attempt"] = tries + 1
        if spec.shard is not None:
            rec["shards"] = spec.shard[1]
            book.close(spec)
        record(rec)
    if callback_errors:
        raise callback_errors[0]  # every record is written; the caller's display failed
    return written


#: The record's ``rejudged_alone`` of a job judged again alone on its GPU (run_jobs).
OOM_ALONE = ("out of memory while {n} other slot(s) shared the GPU: judged again with the GPU to itself (no other job "
             "of the run on it, the verifier's cached memory released); the first verdict, set aside: {first}")


def out_of_memory(rec: dict[str, Any]) -> bool:
    """Whether a job's record failed for want of device memory: class ``oom``, or ``platform`` where the harness's
    own code in the sandbox ran out of it (building a case's inputs)."""
    cls = rec.get("failure_class")
    msg = str((rec.get("first_failure") or {}).get("message") or "").lower()
    return cls == "oom" or (cls == "platform" and "out of memory" in msg)


def release_cached_memory(platform: Platform) -> None:
    """Give the GPU memory this process's caching allocator holds unused back to the device (the verifier's
    references of finished jobs), so that the sandboxes of the jobs still running can have it. A no-op on the
    interpreter and where the platform's torch module has no cache to empty."""
    if platform.interpreter:
        return
    import torch

    mod = getattr(torch, platform.device, None)  # torch.cuda (also ROCm's), or the vendor's module
    empty = getattr(mod, "empty_cache", None)
    if empty is not None and getattr(mod, "is_initialized", lambda: True)():
        empty()


def probe_all(platform: Platform, slots: list[Slot],
              probe: Callable[[Platform, int | None], tuple[bool, str]] | None = None) -> dict[int | None, str]:
    """Health-probe every device of ``slots`` once (one probe per GPU, however many slots it has) before the
    run; quarantine every slot of a device that fails. Returns ``{device: message}`` of the failed devices.
    ``probe`` defaults to :func:`~kernelgenbench.sandbox.runner.health_probe`."""
    probe = probe or health_probe
    failed: dict[int | None, str] = {}
    for d in devices(slots):
        ok, why = probe(platform, d)
        if not ok:
            failed[d] = why
        for s in slots:
            if s.device == d:
                s.quarantined = not ok
    return failed


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
