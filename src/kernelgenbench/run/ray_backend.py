"""The Ray backend: the jobs of a run as Ray tasks on a cluster (``kgb eval --backend ray [--address ...]``).

The local scheduler (``run/scheduler.py``) stays the default; this module is imported only when the Ray backend is
asked for, and nothing on the judging path (``run/job.py``, ``verify/``, ``sandbox/``) imports ray.

Each job is one Ray task that holds one GPU (``num_gpus=1``: the job has the GPU to itself, so its timing needs no
gate) or, on the CPU interpreter, ``cpus_per_job`` CPUs. The task runs :class:`~kernelgenbench.run.job.Verifier`,
the same pipeline and sandbox as the local scheduler, on the GPU Ray gave it (Ray sets the visible-devices variable
of the worker; the sandbox child is pinned to that GPU through
:func:`~kernelgenbench.platforms.visible_device`). On a GPU platform the worker measures its GPU's ceilings once
per worker process (when the tier times anything) and returns them with the record.

Records stream back to the driver, which appends each to the one run directory as its task finishes (so an
interrupted run keeps every finished job and re-running the command resumes, also on a restarted cluster: the
run directory, not the cluster, holds the state). A worker on the driver's node works in the run directory
itself; a worker on another node gets the submission's bytes, works in a temporary directory, and sends back the
job's ``child.log``, which the driver writes where the local scheduler would have; paths in the record are
rewritten to the driver's.

A task whose worker process or node is lost (``WorkerCrashedError``, ``NodeDiedError``, ...) is retried as
infrastructure up to ``max_retries`` times and never charged to the submission; after that the job is recorded
as ``infrastructure`` (a class a resume runs again). Each lost attempt is logged in the run directory's
``infrastructure.jsonl``. A task that raises in the harness's own code is recorded as ``platform`` (a harness
error), not retried. Ray's own task retries are off (``max_retries=0``) so that the driver sees every loss.
A sandbox child orphaned by a lost worker exits when it reads the closed command pipe, at the end of its case.
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from ..platforms import Platform
from ..record import JobRecord, sha256, tier_case_count
from ..settings import Settings
from .job import JobSpec
from .rundir import RunDir
from .scheduler import unfinished
from .shards import ShardBook

#: what to install where ray is missing
RAY_HINT = "the Ray backend needs the optional extra: pip install 'kernelgenbench[ray]' (or pip install ray)"


def import_ray() -> Any:
    """``import ray``, or a clear error naming the extra to install.

    Raises:
        RuntimeError: ray is not installed.
    """
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError(RAY_HINT) from exc
    return ray


def join_hint(address: str | None, exc: BaseException) -> str:
    """What to try when joining the cluster at ``address`` failed with ``exc``.

    ``ray start`` turns on Ray's token authentication by default; a driver without ``RAY_AUTH_MODE=token`` then
    never sends the token (even with ``~/.ray/auth_token`` beside it): Ray retries for about 20 s, logs
    ``InvalidAuthToken`` and raises a bare ``ConnectionError``.
    """
    if address is None or not isinstance(exc, ConnectionError) or os.environ.get("RAY_AUTH_MODE") == "token":
        return ""
    return (" (if the head was started by `ray start`, which turns on token authentication by default, run with "
            "RAY_AUTH_MODE=token and the cluster's token: ~/.ray/auth_token as ray start wrote it on the head, or "
            "RAY_AUTH_TOKEN; else check the address and that the head is up)")


@dataclass
class RayOptions:
    """How the Ray backend runs a run's jobs.

    Attributes:
        address: the cluster to join (``host:port`` of the head's GCS, or ``auto`` for ``RAY_ADDRESS`` / the local
            running cluster); None starts a Ray instance on this machine for the run and stops it at the end.
        cpus_per_job: CPUs a job holds on the interpreter platform (the verifier and its sandbox child).
        gpus_per_job: GPUs a job holds on a GPU platform (1: the job has its GPU alone, timing included).
        local_cpus: CPUs of the Ray instance started when ``address`` is None (default: the machine's; on the
            interpreter ``kgb eval --jobs N`` gives N, the local scheduler's parallelism).
        max_retries: how many times a job whose worker or node was lost is run again before it is recorded as
            ``infrastructure``.
        ship_code: send this process's ``kernelgenbench`` package to the workers (a Ray ``py_modules`` runtime
            environment), so that every node judges with exactly the driver's harness; off: the workers import
            the ``kernelgenbench`` installed on their nodes.
    """

    address: str | None = None
    cpus_per_job: float = 1.0
    gpus_per_job: float = 1.0
    local_cpus: int | None = None
    max_retries: int = 2
    ship_code: bool = True


def execute(payload: dict[str, Any]) -> dict[str, Any]:
    """Run one job on a Ray worker (the body of the Ray task; also callable in-process).

    Args:
        payload: what :func:`make_payload` built on the driver: the operator id, tier, label, platform name,
            settings, the submission's driver path, bytes and sha256, the driver's job directory and node id.

    Returns:
        ``record`` (the job record as JSON, paths the driver's), ``log`` (the ``child.log`` bytes when the job
        ran on another node than the driver, else None), ``node``, ``host``, ``gpu`` (the visible-devices value
        Ray gave the worker, None on the interpreter) and ``ceilings`` (the GPU's measured ceilings or None).
    """
    import shutil

    from ..platforms import PROFILES, emulate
    from ..suite.registry import get_operator
    from .job import Verifier

    plat = emulate(payload["profile"]) if payload.get("profile") else PROFILES[payload["platform"]]
    op = get_operator(payload["op"])
    node = _node_id()
    local = node is not None and node == payload["driver_node"]
    tmp: list[Path] = []

    def scratch() -> Path:  # a private directory on this node (a job off the driver's node)
        if not tmp:
            tmp.append(Path(tempfile.mkdtemp(prefix="kgb-ray-")))
        return tmp[0]

    sub: Path | None = None
    if payload["submission"] is not None:
        driver_sub = Path(payload["submission"])
        if local and driver_sub.is_file() and sha256(driver_sub) == payload["sha256"]:
            sub = driver_sub
        elif payload["content"] is not None:
            sub = scratch() / "submission" / driver_sub.name
            sub.parent.mkdir(parents=True)
            sub.write_bytes(payload["content"])
        else:
            sub = driver_sub  # no file on the driver either: the job fails as missing, as it does locally
    workdir = Path(payload["workdir"]) if local else scratch() / "job"
    device = None if plat.interpreter else 0  # the one GPU Ray gave this worker
    ceilings = _worker_ceilings(plat) if payload["measure_ceilings"] else None
    settings = Settings(**payload["settings"])
    try:
        shard = tuple(payload["shard"]) if payload.get("shard") else None  # a case shard (run/shards.py)
        rec = Verifier(JobSpec(op, sub, payload["tier"], payload["label"], shard=shard),  # type: ignore[arg-type]
                       plat, device, workdir, settings, ceilings).run()
        log = None
        if not local:
            p = workdir / "child.log"
            log = p.read_bytes() if p.is_file() else b""
            text = json.dumps(rec)
            for mine, theirs in ((str(sub) if sub else None, payload["submission"]),
                                 (str(workdir), payload["workdir"])):
                if mine and theirs:
                    text = text.replace(json.dumps(mine)[1:-1], json.dumps(theirs)[1:-1])
            rec = json.loads(text)
    finally:
        for d in tmp:
            shutil.rmtree(d, ignore_errors=True)
    var = plat.visible_devices_var
    return {"record": rec, "log": log, "node": node, "host": socket.gethostname(),
            "gpu": os.environ.get(var) if var and not plat.interpreter else None, "ceilings": ceilings}


def _node_id() -> str | None:
    try:
        import ray

        if not ray.is_initialized():  # a direct call outside Ray (get_runtime_context would start an instance)
            return None
        return ray.get_runtime_context().get_node_id()
    except Exception:  # noqa: BLE001 - outside Ray: no node
        return None


#: this worker process's ceilings, per visible GPU (a worker may be reused for later jobs on the same GPU)
_CEILINGS: dict[str, dict[str, Any]] = {}


def _worker_ceilings(plat: Platform) -> dict[str, Any]:
    import torch

    from ..verify.ceilings import measure

    key = os.environ.get(plat.visible_devices_var or "", "0")
    if key not in _CEILINGS:
        _CEILINGS[key] = measure(torch.device(plat.device, 0))
    return _CEILINGS[key]


def make_payload(spec: JobSpec, platform: Platform, rundir: RunDir, settings: Settings, driver_node: str | None,
                 measure_ceilings: bool) -> dict[str, Any]:
    """What a task needs to run ``spec`` anywhere in the cluster (plain data: no operator objects)."""
    sub = spec.submission
    has = sub is not None and sub.is_file()
    return {"op": spec.op.id, "tier": spec.tier, "label": spec.label, "platform": platform.name,
            "profile": getattr(platform, "profile", None), "settings": asdict(settings),
            "submission": str(sub) if sub is not None else None,
            "content": sub.read_bytes() if has else None, "sha256": sha256(sub) if has else None,
            "workdir": str(rundir.job_dir(spec.op.id, spec.label, spec.shard)), "driver_node": driver_node,
            "measure_ceilings": measure_ceilings, "shard": list(spec.shard) if spec.shard else None}


class RayBackend:
    """Runs a run's jobs as Ray tasks (see the module's docstring). Use :meth:`start`, :meth:`run_jobs`, then
    :meth:`close` (which stops the Ray instance only when :meth:`start` started it)."""

    def __init__(self, platform: Platform, options: RayOptions) -> None:
        self.platform = platform
        self.options = options
        self.ray: Any = None
        self._started_here = False
        #: per GPU (``host/visible-device``) the ceilings its worker measured, for env.json
        self.ceilings: dict[str, dict[str, Any]] = {}

    def start(self) -> dict[str, Any]:
        """Join (or start) the cluster and check it can run a job of this platform.

        Returns:
            what env.json records of it: ``backend``, ``address``, ``ray`` (version), ``nodes``, ``resources``,
            ``slots`` (jobs the cluster can run at once).

        Raises:
            RuntimeError: ray is missing, the cluster cannot be reached, or it has no GPU (CPU) for a job.
        """
        ray = self.ray = import_ray()
        o = self.options
        if not ray.is_initialized():
            kw: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False}
            if o.ship_code:
                kw["runtime_env"] = {"py_modules": [str(Path(__file__).resolve().parents[1])]}
            if o.address is None:
                kw.update(include_dashboard=False, num_cpus=o.local_cpus)
            try:
                ray.init(address=o.address, **kw)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - ConnectionError, Ray's errors, its sys.exit
                raise RuntimeError(f"cannot start or join the Ray cluster"
                                   f"{f' at {o.address}' if o.address else ''}: {type(exc).__name__}: {exc}"
                                   f"{join_hint(o.address, exc)}") from exc
            self._started_here = True
        res = ray.cluster_resources()
        if self.platform.interpreter:
            need, have = o.cpus_per_job, float(res.get("CPU", 0))
            what = "CPU"
        else:
            need, have = o.gpus_per_job, float(res.get("GPU", 0))
            what = "GPU"
        if have < need:
            self.close()
            raise RuntimeError(f"the Ray cluster{f' at {o.address}' if o.address else ''} has {have:g} {what}(s); a "
                               f"job of platform {self.platform.name} holds {need:g}")
        return {"backend": "ray", "address": o.address, "ray": ray.__version__,
                "nodes": sum(1 for n in ray.nodes() if n.get("Alive")),
                "resources": {k: v for k, v in res.items() if k in ("CPU", "GPU", "memory")},
                "slots": int(have // need)}

    def close(self) -> None:
        """Stop the Ray instance if :meth:`start` started it (a joined cluster is left running)."""
        if self.ray is not None and self._started_here and self.ray.is_initialized():
            self.ray.shutdown()
        self._started_here = False

    def run_jobs(self, specs: list[JobSpec], rundir: RunDir, settings: Settings, measure_ceilings: bool = False,
                 on_done: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        """Run every job of ``specs`` not yet finished in ``rundir``; returns the records this call wrote.

        Records are appended as tasks finish (in completion order). On KeyboardInterrupt every task in flight is
        cancelled (its worker killed; those jobs are not recorded, a resume runs them) and it propagates.

        Case shards (``settings.shard_cases``) as in the local scheduler (run/shards.py): each shard a task, its record
        in ``shards.jsonl``, the job's merged record in ``results.jsonl`` once all its shards are recorded or one
        failed. Every task is submitted at once, so a failed shard's siblings still run (they are recorded and change
        nothing). The driver does not know the cluster's GPUs: a resume keeps a job's recorded shards when they all
        name one device.
        """
        ray = self.ray
        plat = self.platform
        task = self._task()
        driver_node = ray.get_runtime_context().get_node_id()
        written: list[dict[str, Any]] = []
        pending: dict[Any, tuple[JobSpec, int]] = {}

        def submit(spec: JobSpec, tries: int) -> None:
            pending[task.remote(make_payload(spec, plat, rundir, settings, driver_node, measure_ceilings))] = (spec,
                                                                                                              tries)

        book = ShardBook(rundir, plat, settings.shard_cases, None)
        planned, ready = book.plan(unfinished(specs, plat, rundir))
        for rec in ready:  # every shard recorded by an earlier call, cut off before the merge
            rundir.append(rec)
            written.append(rec)
            if on_done is not None:
                on_done(rec)
        for spec in planned:
            submit(spec, 0)
        try:
            while pending:
                (ref,), _ = ray.wait(list(pending), num_returns=1)
                spec, tries = pending.pop(ref)
                rec = self._collect(ref, spec, tries, rundir)
                if rec is None:  # lost: retried
                    submit(spec, tries + 1)
                    continue
                rec["attempt"] = tries + 1
                merged = rec
                if spec.shard is not None:
                    merged = book.finish(spec, rec)
                    for again in book.take_rerun():  # an earlier call's shards of another device
                        submit(again, 0)
                    if on_done is not None:
                        on_done(rec)
                if merged is None:
                    continue
                rundir.append(merged)
                written.append(merged)
                if on_done is not None:
                    on_done(merged)
        except KeyboardInterrupt:
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - already finished or lost
                    pass
            raise
        return written

    def _task(self) -> Any:
        """The Ray remote function of a job: :func:`execute` holding one GPU (or ``cpus_per_job`` CPUs), with Ray's
        own retries off (the driver retries a lost job itself, as infrastructure)."""
        o = self.options
        if self.platform.interpreter:
            res: dict[str, Any] = {"num_cpus": o.cpus_per_job, "num_gpus": 0}
        else:
            res = {"num_cpus": 1, "num_gpus": o.gpus_per_job}
        return self.ray.remote(max_retries=0, **res)(execute)

    def judge(self, spec: JobSpec, rundir: RunDir, settings: Settings,
              measure_ceilings: bool = False) -> dict[str, Any]:
        """Run one job on the cluster and wait for its record (``kgb generate``'s judging of one sample; safe to call
        from several threads at once). A lost worker is retried as in :meth:`run_jobs`; the record is not
        appended to ``rundir`` (the caller does), but its log is written there. Returns the record with
        ``attempt`` set."""
        task = self._task()
        driver_node = self.ray.get_runtime_context().get_node_id()
        tries = 0
        while True:
            ref = task.remote(make_payload(spec, self.platform, rundir, settings, driver_node, measure_ceilings))
            self.ray.wait([ref], num_returns=1)
            rec = self._collect(ref, spec, tries, rundir)
            if rec is not None:
                rec["attempt"] = tries + 1
                return rec
            tries += 1

    def _collect(self, ref: Any, spec: JobSpec, tries: int, rundir: RunDir) -> dict[str, Any] | None:
        """The record of a finished task, or None when its worker was lost and the job is to run again."""
        ray = self.ray
        exc_mod = ray.exceptions
        try:
            out = ray.get(ref)
        except exc_mod.RayTaskError as exc:  # the harness's own code raised on the worker
            return JobRecord.synthetic(spec.op, spec.label, spec.tier, self.platform.name, "platform",
                                       f"harness error on the Ray worker: {str(exc)[-2000:]}",
                                       tier_case_count(spec.op, spec.tier),
                                       submission=str(spec.submission)).to_json()
        except exc_mod.RayError as exc:  # the worker process or its node was lost; the task was cancelled
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            self._note(rundir, spec, tries, why)
            if tries < self.options.max_retries:
                return None
            return JobRecord.synthetic(spec.op, spec.label, spec.tier, self.platform.name, "infrastructure",
                                       f"the Ray worker running this job was lost {tries + 1} time(s) (last: {why})",
                                       tier_case_count(spec.op, spec.tier),
                                       submission=str(spec.submission)).to_json()
        rec = out["record"]
        if out.get("log") is not None:
            d = rundir.job_dir(spec.op.id, spec.label, spec.shard)
            d.mkdir(parents=True, exist_ok=True)
            (d / "child.log").write_bytes(out["log"])
        if out.get("ceilings") is not None:
            self.ceilings[f"{out['host']}/{out.get('gpu')}"] = out["ceilings"]
        if rec.get("failure_class") == "infrastructure" and tries < self.options.max_retries:
            # the GPU failed its health probe after the job's child died: run the job again elsewhere
            self._note(rundir, spec, tries, f"infrastructure on {out['host']} GPU {out.get('gpu')}: "
                                            f"{(rec.get('first_failure') or {}).get('message', '')[:500]}")
            return None
        return rec

    def _note(self, rundir: RunDir, spec: JobSpec, tries: int, why: str) -> None:
        line = {"time": time.time(), "backend": "ray", "op": spec.op.id, "label": spec.label, "attempt": tries + 1,
                "error": why, "retried": tries < self.options.max_retries}
        with open(rundir.path / "infrastructure.jsonl", "a") as f:
            f.write(json.dumps(line) + "\n")
