"""Case shards (``kgb eval --shard-cases N``): a job whose tier has more than N cases is judged as n = ceil(cases / N)
shards, shard i judging the interleaved cases ``cases[i::n]`` (each shard mixes small and large sizes). Each shard is
a complete job of its own: its own sandbox child, L1 scan, L2 ghost replay over its cases, L3 checks and timing of
its timed cases, so every guarantee of a job holds per shard. A shard's record goes to the run directory's
``shards.jsonl``; when all n shards of a job are recorded, one merged record (``shards: n``) goes to
``results.jsonl``, which every table reads. A failed shard ends its job at once: the merged record is written
(failed, with that shard's failure) and the job's queued shards are dropped.

A resume runs only the shards not yet recorded by this harness on this device (:class:`ShardBook`): a shard judged
on another device or by another harness commit is judged again, so that one operator's speedup never mixes two
devices. Both backends (``run/scheduler.py``, ``run/ray_backend.py``) share this book-keeping.
"""
from __future__ import annotations

import math
import statistics
import threading
from typing import Any, Iterable, Sequence, TypeVar

from ..metrics import geomean
from ..record import PHASES, CaseRecord, sha256, tier_case_count
from .job import JobSpec
from .rundir import RunDir, harness_commit, harness_tree, job_key

T = TypeVar("T")


def spec_key(spec: JobSpec, platform: Any) -> str:
    """The run directory's key of a job (:func:`~kernelgenbench.run.rundir.job_key`): the submission's
    hash is part of it, so an edited file is a new job. A shard's key is its job's."""
    sha = None
    if spec.submission is not None and spec.submission.is_file():
        sha = sha256(spec.submission)
    return job_key(spec.op.id, sha, spec.tier, platform.key, spec.label)


def shard_count(cases: int, shard_cases: int) -> int:
    """How many shards a job of ``cases`` cases is judged in: 1 (not split) when sharding is off
    (``shard_cases`` 0) or the job has no more than ``shard_cases`` cases, else ``ceil(cases / shard_cases)``."""
    if shard_cases <= 0 or cases <= shard_cases:
        return 1
    return math.ceil(cases / shard_cases)


def shard_of(cases: Sequence[T], shard: tuple[int, int] | None) -> list[T]:
    """The cases shard ``(i, n)`` judges: ``cases[i::n]`` (every case when ``shard`` is None)."""
    if shard is None:
        return list(cases)
    i, n = shard
    return list(cases[i::n])


def split(spec: JobSpec, shard_cases: int) -> list[JobSpec]:
    """``spec`` as its shards (:func:`shard_count` of its tier's cases), or ``[spec]`` when it is not split (a job
    without a submission file is not: it fails as ``missing`` before any case)."""
    if shard_cases <= 0 or spec.submission is None or not spec.submission.is_file():
        return [spec]  # off: no case grid is built
    n = shard_count(tier_case_count(spec.op, spec.tier), shard_cases)
    if n == 1:
        return [spec]
    return [JobSpec(spec.op, spec.submission, spec.tier, spec.label, shard=(i, n)) for i in range(n)]


def _or_ok(values: Iterable[Any]) -> Any:
    """A merged ``ok``: False where any shard's is False, else the first one set, else None."""
    vals = [v for v in values if v is not None]
    if any(v is False for v in vals):
        return False
    return vals[0] if vals else None


def _sum_counts(dicts: Iterable[dict[str, int] | None]) -> dict[str, int] | None:
    out: dict[str, int] = {}
    seen = False
    for d in dicts:
        if d is None:
            continue
        seen = True
        for k, v in d.items():
            out[k] = out.get(k, 0) + v
    return out if seen else None


def merge_anti_hack(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``anti_hack`` of a job judged in shards (``parts``: the shards' ``anti_hack``, in shard order). A check
    failed if it failed in any shard; counts are summed, lists concatenated. L1 scans the same file in every shard:
    its findings are the first failing shard's (or the first shard's), not summed."""
    out: dict[str, Any] = {}
    l1s = [p["L1"] for p in parts if isinstance(p.get("L1"), dict)]
    if l1s:
        out["L1"] = dict(next((x for x in l1s if x.get("ok") is False), l1s[0]))
        out["L1"]["ok"] = _or_ok(x.get("ok") for x in l1s)
    l2s = [p["L2"] for p in parts if isinstance(p.get("L2"), dict)]
    if l2s:
        l2 = dict(l2s[0])
        l2["ok"] = _or_ok(x.get("ok") for x in l2s)
        for k in ("checked", "triton_derived_reads"):
            l2[k] = sum(int(x.get(k) or 0) for x in l2s)
        for k in ("passed_without_triton", "diverged", "passed_from_triton_reads"):
            l2[k] = [v for x in l2s for v in (x.get(k) or [])]
        l2["cases"] = {k: v for x in l2s for k, v in (x.get("cases") or {}).items()}
        l2["order"] = " | ".join(str(x.get("order") or "") for x in l2s)  # one shard's runs after another's
        notes = [x["note"] for x in l2s if x.get("note")]
        if notes:
            l2["note"] = notes[0]
        out["L2"] = l2
    l3s = [p["L3"] for p in parts if isinstance(p.get("L3"), dict)]
    if l3s:
        l3 = dict(l3s[0])
        l3["ok"] = _or_ok(x.get("ok") for x in l3s)
        for k in ("trace", "import_trace"):
            if any(k in x for x in l3s):
                # the import runs in each shard's sandbox: its trace is the first shard's (the same file); the
                # correctness runs' trace is summed over the shards
                l3[k] = _sum_counts(x.get(k) for x in l3s) if k == "trace" else next(
                    (x[k] for x in l3s if x.get(k) is not None), None)
        if any("launches" in x for x in l3s):
            l3["launches"] = sum(int(x.get("launches") or 0) for x in l3s)
        profiled = [str(x["profiled_case"]) for x in l3s if x.get("profiled_case")]
        if profiled:
            l3["profiled_case"] = ", ".join(profiled)  # each shard profiles one of its cases
        out["L3"] = l3
    return out


def merge_records(op: Any, tier: str, records: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """One job record of the shard records ``records`` (any order; all ``n`` of them, or those recorded when a
    failed shard ended the job: the dropped shards' cases are listed as never run, ``pending``, as a whole failed
    job lists its cases after the first failure). Cases are concatenated in case order; case counts, anti-hack
    counts and phase times summed; status by the rule of :meth:`~kernelgenbench.run.job.Verifier._conclude`;
    speedup the geomean of every timed case's speedup and sol_pct their median (as ``verify/timing.py`` computes
    them for one job); started_at the earliest, finished_at the latest, wall_s their difference; ``shards: n``. A
    failed shard's failure is the job's (the first recorded, where several failed)."""
    from ..verify.timing import job_baseline_label

    recs = sorted(records, key=lambda r: r["shard"][0])
    grid = op.cases(tier)
    order = {c.id: k for k, c in enumerate(grid)}
    cases = [c for r in recs for c in r.get("cases") or []]
    if len(recs) < n:  # a failed shard ended the job: the dropped shards' cases were never run, as a whole job's
        seen = {c.get("id") for c in cases}
        cases += [CaseRecord(c.id, c.params).to_json() for c in grid if c.id not in seen]
    cases.sort(key=lambda c: order.get(c.get("id"), len(order)))
    failed = [r for r in records if r.get("status") == "failed"]  # in the order recorded
    first = failed[0] if failed else recs[0]
    out = {k: v for k, v in recs[0].items() if k not in ("shard", "job_key")}
    out["cases"] = cases
    complete = len(recs) == n
    out["cases_total"] = sum(int(r.get("cases_total") or 0) for r in recs) if complete else tier_case_count(op, tier)
    out["cases_passed"] = sum(int(r.get("cases_passed") or 0) for r in recs)
    out["cases_unsupported"] = sum(int(r.get("cases_unsupported") or 0) for r in recs)
    reasons = [r.get("unsupported_reason") for r in recs if r.get("unsupported_reason")]
    out["unsupported_reason"] = reasons[0] if reasons else None
    judged = out["cases_total"] - out["cases_unsupported"]
    if failed:
        out.update(status="failed", failure_class=first.get("failure_class"), first_failure=first.get("first_failure"),
                   log=first.get("log"))
    else:
        out.update(failure_class=None, first_failure=None)
        # a shard the submission's kernels made partly unjudgeable (unsupported with judged cases) makes the job so
        by_kernel = [r for r in recs if r.get("status") == "unsupported"
                     and int(r.get("cases_total") or 0) > int(r.get("cases_unsupported") or 0)]
        if judged == 0 and out["cases_total"] > 0:
            out["status"] = "unsupported"
        elif by_kernel:
            out["status"] = "unsupported"
            out["unsupported_reason"] = by_kernel[0].get("unsupported_reason")
        else:
            out["status"] = "passed"
    speedups = [c.get("speedup") for c in cases if c.get("speedup") is not None]
    g = geomean(speedups)
    out["speedup"] = round(g, 4) if g is not None else None
    sols = [float(c["sol_pct"]) for c in cases if c.get("sol_pct") is not None]
    out["sol_pct"] = round(statistics.median(sols), 2) if sols else None
    out["anti_hack"] = merge_anti_hack([r.get("anti_hack") or {} for r in recs])
    timings = [r["timing"] for r in recs if isinstance(r.get("timing"), dict)]
    if timings:
        t = dict(timings[0])
        for k in ("timed_cases", "untimed_cases"):
            if any(x.get(k) is not None for x in timings):
                t[k] = sum(int(x.get(k) or 0) for x in timings)
        out["timing"] = t
    baselines = [r.get("baseline") for r in recs if r.get("baseline")]
    if len(set(baselines)) > 1:
        out["baseline"] = job_baseline_label([c.get("baseline") or r.get("baseline") for r in recs
                                              for c in r.get("cases") or [] if c.get("speedup") is not None])
    out["time_s"] = {k: round(sum(float((r.get("time_s") or {}).get(k) or 0.0) for r in recs), 3)
                     for k in dict.fromkeys([*PHASES, *(k for r in recs for k in (r.get("time_s") or {}))])}
    starts = [r["started_at"] for r in recs if r.get("started_at") is not None]
    ends = [r["finished_at"] for r in recs if r.get("finished_at") is not None]
    out["started_at"] = min(starts) if starts else None
    out["finished_at"] = max(ends) if ends else None
    out["wall_s"] = round(out["finished_at"] - out["started_at"], 3) if starts and ends else None
    devices = list(dict.fromkeys(str(r.get("device")) for r in recs if r.get("device")))
    out["device"] = " + ".join(devices) if devices else None
    alone = [r["rejudged_alone"] for r in recs if r.get("rejudged_alone")]
    if alone:
        out["rejudged_alone"] = alone[0]
    if any(r.get("log_truncated") for r in recs):
        out["log_truncated"] = _sum_counts(r.get("log_truncated") for r in recs)
    out["attempt"] = max(int(r.get("attempt") or 1) for r in recs)
    out["shards"] = n
    return out


class ShardBook:
    """The shards of one run (either backend): which to run, what each finished shard adds, when a job is merged.

    Args:
        rundir: the run directory (``shards.jsonl`` beside ``results.jsonl``).
        platform: the run's platform (its ``key`` is part of a job's key).
        shard_cases: ``--shard-cases`` (0: off; every job is run whole).
        devices: the device names of this run's slots (``job.device_name``); a shard already recorded is kept only
            when its device is one of them. None (a Ray cluster, whose GPUs the driver does not know): kept when the
            job's recorded shards all name one device, and judged again once a shard of this call is judged on another
            (:meth:`take_rerun`).
    """

    def __init__(self, rundir: RunDir, platform: Any, shard_cases: int, devices: set[str] | None) -> None:
        self.rundir = rundir
        self.platform = platform
        self.shard_cases = shard_cases
        self.devices = devices
        self._lock = threading.Lock()
        self._groups: dict[str, dict[str, Any]] = {}  # job key -> {"n", "done": {i: rec}, "closed", "op", "tier"}
        # (op, label, tier, file) -> the job key planned (the file's hash then): a file edited during the run must
        # not move its shards to another job's book
        self._planned: dict[tuple[str, str, str, str], str] = {}
        self._rerun: list[JobSpec] = []  # shards of an earlier call to judge again (:meth:`take_rerun`)

    def _key(self, spec: JobSpec) -> str:
        """The key ``spec``'s job was planned under (its file's hash at :meth:`plan`), else its key now."""
        planned = self._planned.get((spec.op.id, spec.label, spec.tier, str(spec.submission)))
        return planned if planned is not None else spec_key(spec, self.platform)

    def plan(self, specs: list[JobSpec]) -> tuple[list[JobSpec], list[dict[str, Any]]]:
        """The jobs and shards to run for ``specs`` (the unfinished jobs), and the merged records of jobs whose
        shards are all recorded already (a run cut off between its last shard and its merge), to append now."""
        stored = self._stored() if self.shard_cases > 0 else {}
        todo: list[JobSpec] = []
        ready: list[dict[str, Any]] = []
        for spec in specs:
            parts = split(spec, self.shard_cases)
            if parts[0].shard is None:
                todo.append(spec)
                continue
            key, n = spec_key(spec, self.platform), len(parts)
            self._planned[(spec.op.id, spec.label, spec.tier, str(spec.submission))] = key
            kept = self._keep(stored.get((key, n), {}))
            self._groups[key] = {"n": n, "done": dict(kept), "closed": False, "op": spec.op, "tier": spec.tier,
                                 "earlier": set(kept)}
            if len(kept) == n:
                self._groups[key]["closed"] = True
                ready.append(merge_records(spec.op, spec.tier, list(kept.values()), n))
                continue
            todo.extend(p for p in parts if p.shard[0] not in kept)  # type: ignore[index]
        return todo, ready

    def _stored(self) -> dict[tuple[str, int], dict[int, dict[str, Any]]]:
        """Recorded shards that passed (or were unsupported) by this harness: (job key, n) -> {i: the latest record}.
        The harness is the same when the shard's ``harness_tree`` (the package's fingerprint) is this one's, or, for
        a shard recorded without one, when its ``harness_commit`` is this one's. A failed shard is judged again (its
        failure ended the job; a resume reruns only jobs whose failure is worth a retry, or whose merge was cut
        off)."""
        commit, tree = harness_commit(), harness_tree()
        out: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
        for r in self.rundir.shard_records():
            shard = r.get("shard")
            if not (isinstance(shard, list) and len(shard) == 2 and r.get("job_key")):
                continue
            slot = out.setdefault((str(r["job_key"]), int(shard[1])), {})
            same = r["harness_tree"] == tree if r.get("harness_tree") else r.get("harness_commit") == commit
            if not same or r.get("status") == "failed":
                slot.pop(int(shard[0]), None)  # the latest record of a shard decides
                continue
            slot[int(shard[0])] = r
        return out

    def _keep(self, recs: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        if self.devices is not None:
            return {i: r for i, r in recs.items() if r.get("device") in self.devices}
        names = {r.get("device") for r in recs.values()}
        return recs if len(names) <= 1 else {}

    def take_rerun(self) -> list[JobSpec]:
        """The shards :meth:`finish` set to be judged again (recorded by an earlier call on another device than a
        shard of this call), to queue now; each is returned once."""
        with self._lock:
            out, self._rerun = self._rerun, []
        return out

    def closed(self, spec: JobSpec) -> bool:
        """Whether ``spec`` is a shard of a job already ended (merged after a failed shard): not to be run."""
        if spec.shard is None:
            return False
        with self._lock:
            g = self._groups.get(self._key(spec))
            return bool(g and g["closed"])

    def close(self, spec: JobSpec) -> None:
        """End shard ``spec``'s job without a merge (the caller wrote its record: no healthy device left)."""
        with self._lock:
            g = self._groups.get(self._key(spec))
            if g is not None:
                g["closed"] = True

    def finish(self, spec: JobSpec, rec: dict[str, Any]) -> dict[str, Any] | None:
        """Record shard ``spec``'s final record ``rec`` in ``shards.jsonl`` (with ``shard``, ``job_key``, the
        harness commit). Returns the job's merged record when this shard completes it or failed first (the caller
        appends it to ``results.jsonl``), else None; a shard of a job already ended changes nothing.

        A shard that judged another version of the file than the one its job was planned with (the file was edited
        during the run: the record's ``submission_sha256`` says which) is recorded under that version's key and
        ends its job without a merge (one record must not mix two files' verdicts): a later call judges the job of
        the file as it is then, keeping the shards recorded for that version."""
        assert spec.shard is not None
        planned = self._key(spec)
        key = planned
        if rec.get("submission_sha256"):
            key = job_key(spec.op.id, rec["submission_sha256"], spec.tier, self.platform.key, spec.label)
        rec["shard"] = list(spec.shard)
        rec["job_key"] = key
        self.rundir.append_shard(rec)
        with self._lock:
            g = self._groups[planned]
            if key != planned:
                g["closed"] = True
            if g["closed"]:
                return None
            if rec.get("device"):
                # shards an earlier call recorded on another device (a Ray cluster of other GPUs: its driver cannot
                # tell at plan time) are judged again rather than merged with this one (bs41)
                for i in sorted(g["earlier"]):
                    if g["done"][i].get("device") != rec["device"]:
                        del g["done"][i]
                        g["earlier"].discard(i)
                        self._rerun.append(JobSpec(spec.op, spec.submission, spec.tier, spec.label, shard=(i, g["n"])))
            g["done"][spec.shard[0]] = rec
            if rec.get("status") != "failed" and len(g["done"]) < g["n"]:
                return None
            g["closed"] = True
            done = list(g["done"].values())
        if rec.get("status") == "failed":  # the failed shard's failure is the job's
            done = [rec] + [r for r in done if r is not rec]
        return merge_records(spec.op, spec.tier, done, g["n"])


def split_counts(specs: list[JobSpec], shard_cases: int) -> tuple[int, int]:
    """(jobs split, shards in all) of ``specs`` under ``shard_cases`` (the eval header's line)."""
    if shard_cases <= 0:
        return 0, 0
    ns = [len(split(s, shard_cases)) for s in specs]
    return sum(1 for n in ns if n > 1), sum(n for n in ns if n > 1)
