"""The pipeline as a library: :func:`evaluate` (a directory of submissions, a run directory) and
:func:`evaluate_file` (one submission, one operator, no run directory).

``kgb eval`` is a thin layer over :func:`evaluate` (arguments, progress display, tables); the LLM track,
the agent track's self-check and the tests call the same functions, so every path judges with the same
pipeline (DESIGN.md "Pipeline for one job"):

    >>> import kernelgenbench as kgb
    >>> run = kgb.evaluate("solutions", ops=["aten::add"], tier="smoke")
    >>> run.summary["overall"]["accuracy"]
    1.0
"""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..record import RunSummary
from .job import JobSpec, Settings, Verifier


class EvaluationError(ValueError):
    """A usage error, found before anything runs: an unknown operator, source or tier, a platform without
    its device, a run directory holding another configuration, no submission for the selection."""


class EvaluationInterrupted(Exception):
    """Ctrl-C during :func:`evaluate`: every sandbox was killed; the jobs recorded so far are in ``path``
    (running the same call again resumes)."""

    def __init__(self, path: Path, recorded: int, selected: int) -> None:
        super().__init__(f"interrupted: {recorded} of {selected} job(s) recorded in {path}")
        self.path, self.recorded, self.selected = path, recorded, selected


@dataclass
class RunStart:
    """What :func:`evaluate` is about to do (handed to ``on_start``, before the first job).

    Attributes:
        path: the run directory.
        jobs: jobs selected; ``to_run``: those not recorded yet (a resume runs only these).
        slots: parallel slots; ``device``: the device's name ("Triton CPU interpreter" there).
        tier: the canonical tier selection; ``platform``: the platform's name.
        ignored: files in the submissions directory that name no operator.
        interpreter_max_mb: the CPU interpreter's size budget of a case in MiB (``Settings.interpreter_max_mb``;
            cases over it are reported unsupported without running); None: no budget, or a GPU platform.
        judged_again: the jobs to run that the run directory already has a record of, with the reason
            (``"aten::neg (its file changed since its record)"``; :func:`~kernelgenbench.run.scheduler.judged_again`).
        backend: where the jobs run when not in this process's slots (``"Ray: 1 node, a local instance for this
            run"``), else empty.
        shards: ``(jobs, shards)``: how many of the jobs to run are split into case shards (``Settings.shard_cases``,
            run/shards.py), and into how many shards in all; ``(0, 0)``: none.
    """

    path: Path
    jobs: int
    to_run: int
    slots: int
    device: str
    tier: str
    platform: str
    ignored: list[str] = field(default_factory=list)
    interpreter_max_mb: float | None = None
    judged_again: list[str] = field(default_factory=list)
    backend: str = ""
    shards: tuple[int, int] = (0, 0)


@dataclass
class Run:
    """The result of :func:`evaluate`.

    Attributes:
        path: the run directory (``config.json``, ``env.json``, ``results.jsonl``, ``summary.json``, ``jobs/``).
        config: the run's configuration (what was selected, tier, platform).
        records: every job record of ``results.jsonl`` (README "Run directory"), older ones of re-run jobs included.
        written: the records this call wrote (a resume writes only the jobs not recorded before).
        summary: ``summary.json`` (:class:`~kernelgenbench.record.RunSummary` as JSON): accuracy per source and
            overall, geomean/median/IQM speedup (GPU), tiers, ``per_operator`` rows, ``schema_version``.
        wall_s: seconds this call took.
    """

    path: Path
    config: dict[str, Any]
    records: list[dict[str, Any]]
    written: list[dict[str, Any]]
    summary: dict[str, Any]
    wall_s: float

    @property
    def latest(self) -> list[dict[str, Any]]:
        """The latest record of each job (what the tables show)."""
        from ..metrics import latest_records

        return latest_records(self.records)

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The latest records whose status is ``failed``."""
        return [r for r in self.latest if r.get("status") == "failed"]


def closest_filename(name: str, cutoff: float = 0.6) -> str | None:
    """The operator file name closest to ``name`` (``aten__ad.py`` → ``aten__add.py``; difflib's ratio at least
    ``cutoff``), or None where none is close."""
    import difflib

    from ..suite.registry import all_operators

    close = difflib.get_close_matches(name, sorted(o.filename for o in all_operators()), n=1, cutoff=cutoff)
    return close[0] if close else None


def ignored_files(directory: Path) -> list[str]:
    """``.py`` files in a submissions directory that name no operator (likely typos), each with the closest
    operator file name: ``["aten__ad.py (did you mean aten__add.py?)"]``."""
    from ..suite.registry import by_filename

    out = []
    for p in sorted(Path(directory).glob("*.py")):
        if p.name.startswith("_") or by_filename(p.name) is not None:
            continue
        close = closest_filename(p.name)
        out.append(f"{p.name} (did you mean {close}?)" if close else p.name)
    return out


def _check_baseline(kind: str | None, selected: list[Any], plat: Any) -> None:
    """Refuse a forced baseline (``kgb eval --baseline``) that is no kind of the vLLM operators, that no
    selected operator offers, or ``vllm`` where ``vllm._custom_ops`` does not import on a timing platform.

    Raises:
        EvaluationError: with the reason.
    """
    if kind is None:
        return
    from ..suite.baselines import BASELINE_KINDS

    if kind not in BASELINE_KINDS:
        raise EvaluationError(f"unknown baseline {kind!r}: expected one of {', '.join(BASELINE_KINDS)}")
    if not any(kind in getattr(o, "baseline_kinds", ()) for o in selected):
        raise EvaluationError(f"--baseline {kind}: no selected operator offers a choice of baseline (vLLM operators "
                              f"do; ATen and cuBLAS operators are timed against their own)")
    if kind == "vllm" and plat.timing:
        from ..suite.vllm.common import vllm_ops
    if kind == "vllm" and plat.timing and vllm_ops() is None:
        raise EvaluationError("--baseline vllm: vllm._custom_ops is not importable here (install vLLM, or use "
                              "native-compiled / native-eager)")


def evaluate(submissions: str | Path, ops: Iterable[str] | None = None, source: str | None = None,
             tier: str = "smoke", platform: str | None = None, out: str | Path | None = None,
             jobs: int | None = None, name: str = "eval", fresh: bool = False, runs_root: str | Path = "runs",
             settings: Settings | None = None, on_start: Callable[[RunStart], None] | None = None,
             on_record: Callable[[dict[str, Any]], None] | None = None,
             on_status: Callable[[str], Any] | None = None, as_profile: str | None = None,
             backend: str = "local", address: str | None = None,
             on_progress: Callable[[JobSpec, str, int, int], None] | None = None) -> Run:
    """Evaluate a directory of submissions (one file per operator, ``aten__add.py``, ...) and write a run
    directory; re-running the same call resumes it.

    Args:
        submissions: the directory of submission files.
        ops: operator ids to evaluate (``aten::add``); with ``ops`` or ``source`` every selected operator is
            evaluated and one without a file fails as ``missing``; without either, the operators that have a file.
        source: ``aten``, ``vllm`` or ``cublas``: every operator of that source.
        tier: ``smoke``, ``full``, ``heldout``, ``all`` or a comma list (suite/tiers.py).
        platform: a platform name (``cuda``, ``interpreter``, ...); None detects it.
        as_profile: run the CPU interpreter under this vendor's profile (``rocm``, ``ascend``, ...:
            :func:`~kernelgenbench.platforms.emulate`); the platform must be the interpreter or None.
        out: the run directory (default ``runs_root/<timestamp>-<name>``, resuming the latest of that name and
            configuration); an ``out`` that holds another configuration is refused.
        jobs: parallel slots (default: one per GPU; 2 on the interpreter).
        name: the run's name; fresh: start over (with ``out``: the old records are set aside, not deleted).
        settings: limits and timing knobs (:class:`~kernelgenbench.run.job.Settings`; default values).
        on_start: called once with a :class:`RunStart` before the first job.
        on_record: called with each record as its job finishes (from worker threads, one at a time); with
            ``settings.shard_cases``, also with each shard's record as it finishes (it has ``shard: [i, n]``; only
            the job's merged record, with ``shards``, is in ``results.jsonl``).
        on_status: ``on_status(text)`` returns a context manager shown around slow set-up steps (the
            measurement of device ceilings); None shows nothing.
        on_progress: ``on_progress(spec, stage, done, total)`` while a job runs (``"cases"``, ``"timing"``; the
            local backend only), from worker threads.
        backend: ``local`` (the default: slots in this process, ``run/scheduler.py``) or ``ray`` (each job a Ray
            task holding one GPU, or CPUs on the interpreter: ``run/ray_backend.py``; needs the ``ray`` extra).
            The verdicts do not depend on it; a run directory may be resumed with either.
        address: with ``backend="ray"``, the cluster to join (``host:port``, ``auto``); None starts a Ray
            instance on this machine for the run (``jobs`` CPUs on the interpreter).

    Returns:
        the :class:`Run` (records, summary, path).

    Raises:
        EvaluationError: a usage error (nothing ran; no run directory was made unless the error is about it).
        EvaluationInterrupted: Ctrl-C; the records written so far are kept.
    """
    from .. import platforms
    from ..metrics import latest_records, operator_rows, summarize
    from ..suite.registry import select
    from ..suite.tiers import tier_name, tier_parts
    from .rundir import RunDir, environment
    from .scheduler import collect_specs, make_slots, run_jobs, unfinished

    directory = Path(submissions)
    try:
        tier = tier_name(tier)  # the canonical name: records, config and resume keys hold it
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    if not directory.is_dir():
        raise EvaluationError(f"{directory} is not a directory")
    op_list = list(ops) if ops else None
    try:
        selected = select(op_list, source)
        plat = platforms.detect(platform, as_profile)
    except (KeyError, ValueError) as exc:
        raise EvaluationError(exc.args[0] if exc.args else str(exc)) from None
    if backend not in ("local", "ray"):
        raise EvaluationError(f"unknown backend {backend!r}; known: local, ray")
    if address is not None and backend != "ray":
        raise EvaluationError("an address is a Ray cluster's: use it with backend 'ray'")
    ray_backend = None
    if backend == "ray":  # the cluster's GPUs, not this machine's: no local slots
        try:
            from .ray_backend import RayOptions, import_ray

            import_ray()
        except RuntimeError as exc:
            raise EvaluationError(str(exc)) from None
        slots = []
    else:
        try:  # before any run directory exists: a platform without a device leaves nothing behind
            slots = make_slots(plat, jobs, share=True)
        except RuntimeError as exc:
            raise EvaluationError(f"{exc} (use platform 'interpreter', or run on a machine with the device)") from None
    specs = collect_specs(directory, selected, tier, directory.name, explicit=bool(op_list) or bool(source))
    ignored = ignored_files(directory)
    if not specs:
        raise EvaluationError(
            f"no submission files for the selected operators in {directory} (expected names like aten__add.py, "
            f"vllm__rms_norm.py, cublas__cublasSgemm_v2.py; `kgb show OP` prints an operator's file name)"
            + (f"; ignored files that name no operator: {', '.join(ignored)}" if ignored else ""))
    try:
        settings = settings or Settings()  # its default budget reads KGB_INTERPRETER_MAX_MB
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    _check_baseline(settings.baseline, selected, plat)
    config = {"submissions": str(directory.resolve()),
              "ops": sorted(o.id for o in selected) if (op_list or source) else None,
              "source": source, "tier": tier, "platform": plat.name, "reps": settings.reps, "command": "kgb eval",
              "selected": sorted(s.op.id for s in specs)}
    if plat.profile:
        config["profile"] = plat.profile
    if settings.baseline is not None:
        config["baseline"] = settings.baseline
    if settings.timing_hold != "job":  # each timed record's timing.method says which hold timed it
        config["timing_hold"] = settings.timing_hold
    if plat.interpreter:  # the size budget of a case (MiB; None: none); GPU platforms have none
        config["interpreter_max_mb"] = settings.interpreter_max_mb or None
    out_path = Path(out) if out is not None else None
    # the case shards' records too: kept, a --fresh run merged them without judging anything (bs41)
    if out_path is not None and fresh and any((out_path / f).exists() for f in ("results.jsonl", "shards.jsonl")):
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for f in ("results.jsonl", "shards.jsonl", "summary.json", "config.json"):
            if (out_path / f).exists():
                (out_path / f).rename(out_path / f"{f}.replaced-{stamp}")
    if out_path is not None and (out_path / "config.json").exists():
        old = json.loads((out_path / "config.json").read_text())
        diff = [k for k in ("submissions", "ops", "source", "tier", "platform", "profile", "baseline",
                            "interpreter_max_mb")
                if old.get(k) != config.get(k)]
        if diff:
            # both values, so that the refusal says what differs (fresh user 32 saw only "ops: None")
            what = "; ".join(f"{k}: {old.get(k)!r} there, {config.get(k)!r} now" for k in diff)
            if "ops" in diff:
                what += "; ops None: every operator that has a file"
            raise EvaluationError(f"{out_path} holds a run with another configuration ({what}); use another out "
                                  f"directory (or name) so results are not mixed, or add --fresh (fresh=True) to set "
                                  f"its records aside (kept as results.jsonl.replaced-<time>) and start this run "
                                  f"there. One run directory holds one configuration: to judge several operators in "
                                  f"one run, name them all (--op A --op B) or put their files in one folder")
    rundir = RunDir.open(out_path) if out_path else RunDir.create(Path(runs_root), name, config, fresh=fresh)
    rundir.write_config(config)
    todo = unfinished(specs, plat, rundir)
    t0 = time.time()
    timed = plat.timing and not plat.interpreter and "full" in tier_parts(tier)  # only full cases are timed
    try:
        env = environment(plat)
        from ..sandbox import forkserver

        # how this run's sandbox children start (not part of the run's configuration: verdicts do not depend on it)
        env["fork_server"] = forkserver.enabled(plat, settings.fork_server)
        ceilings: dict[Any, dict[str, Any]] = {}
        n_slots = len(slots)
        if backend == "ray" and todo:  # nothing to run: no cluster needed
            from .ray_backend import RayBackend

            ray_backend = RayBackend(plat, RayOptions(address=address, local_cpus=(jobs or 2) if plat.interpreter
                                                      else None))
            try:
                env["backend"] = ray_backend.start()
            except RuntimeError as exc:
                raise EvaluationError(str(exc)) from None
            n_slots = env["backend"]["slots"]
        elif timed and todo:
            import contextlib

            from .scheduler import measure_ceilings

            with (on_status("measuring device ceilings (copy bandwidth, matmul rates)") if on_status
                  else contextlib.nullcontext()):
                ceilings = measure_ceilings(plat, slots)  # each GPU once; a job is judged against its own GPU's
            env["ceilings"] = ceilings
        if todo or not (rundir.path / "env.json").exists():  # a finished run keeps the env it ran in
            rundir.write_env(env)
        if on_start is not None:
            device = env.get("devices", ["cpu"])[0] if not plat.interpreter else "Triton CPU interpreter"
            from .scheduler import judged_again

            ray_info = env.get("backend") if isinstance(env.get("backend"), dict) else None
            where = "" if ray_info is None else (
                f"Ray: {ray_info['nodes']} node{'s' if ray_info['nodes'] != 1 else ''}, "
                + (f"at {address}" if address else "a local instance for this run"))
            from .shards import split_counts

            on_start(RunStart(rundir.path, len(specs), len(todo), n_slots, str(device), tier, plat.key, ignored,
                              config.get("interpreter_max_mb"), judged_again(todo, rundir), where,
                              split_counts(todo, settings.shard_cases)))
        if backend == "ray":
            written = [] if ray_backend is None else ray_backend.run_jobs(
                specs, rundir, settings, measure_ceilings=timed, on_done=on_record)
            if ray_backend is not None and ray_backend.ceilings:
                env["ceilings"] = ray_backend.ceilings  # measured by the workers, one entry per GPU of the cluster
                rundir.write_env(env)
        else:
            written = run_jobs(specs, plat, rundir, settings, slots, ceilings, on_done=on_record,
                               on_progress=on_progress)
    except KeyboardInterrupt:
        recorded = len(specs) - len(unfinished(specs, plat, rundir))
        raise EvaluationInterrupted(rundir.path, recorded, len(specs)) from None
    finally:
        if ray_backend is not None:
            ray_backend.close()
        from ..sandbox.forkserver import shutdown_all

        shutdown_all()  # the run's fork servers (sandbox/forkserver.py): the next run starts its own
    wall = time.time() - t0
    records = rundir.records()
    summary = RunSummary(**summarize(records), wall_s=round(wall, 2), jobs_run=len(written), jobs_selected=len(specs),
                         tier=tier, tiers=list(tier_parts(tier)), platform=plat.name,
                         per_operator=operator_rows(records),
                         harness_commits=list(dict.fromkeys(str(r["harness_commit"]) for r in latest_records(records)
                                                            if r.get("harness_commit"))))
    if plat.profile:
        summary.extra["profile"] = plat.profile
    rundir.write_summary(summary)
    return Run(rundir.path, config, records, written, summary.to_json(), wall)


def evaluate_file(path: str | Path, op: str, tier: str = "smoke", platform: str | None = None,
                  settings: Settings | None = None, workdir: str | Path | None = None,
                  device: int | None = None, label: str | None = None,
                  ceilings: dict[str, float] | None = None, as_profile: str | None = None) -> dict[str, Any]:
    """Judge one submission file for one operator with the whole pipeline (L1, the sandbox, every case of
    ``tier``, L2, L3, timing on GPUs for full-tier cases), without a run directory.

    Args:
        path: the submission file (any name; the operator is ``op``).
        op: the operator id (``vllm::rms_norm``).
        tier: as :func:`evaluate`.
        platform: a platform name; None detects it.
        settings: limits and timing knobs.
        workdir: where the job's sandbox works and logs (``child.log``); None: a temporary directory, removed
            afterwards (the record's ``log`` then names a file that no longer exists).
        device: the GPU index (default 0; ignored on the interpreter).
        label: the record's label (default: the name of the file's folder).
        ceilings: the device's measured ceilings (``verify/ceilings.py``) for % of speed-of-light; None: none.
        as_profile: run the CPU interpreter under this vendor's profile (as :func:`evaluate`).

    Returns:
        the job's record as JSON (README "Run directory", "Record schema": a
        :class:`~kernelgenbench.record.JobRecord`'s ``to_json``).

    Raises:
        EvaluationError: an unknown operator or tier, a platform without its device, a missing file.
    """
    from .. import platforms
    from ..suite.registry import get_operator
    from ..suite.tiers import tier_name

    sub = Path(path)
    if not sub.is_file():
        raise EvaluationError(f"{sub} is not a file")
    try:
        operator = get_operator(op)
        tier = tier_name(tier)
        plat = platforms.detect(platform, as_profile)
    except (KeyError, ValueError) as exc:
        raise EvaluationError(exc.args[0] if exc.args else str(exc)) from None
    if not plat.interpreter and platforms.device_count(plat) == 0:
        raise EvaluationError(f"platform {plat.name}: no device visible (use platform 'interpreter')")
    tmp = None
    if workdir is None:
        tmp = Path(tempfile.mkdtemp(prefix="kgb-job-"))
        workdir = tmp
    try:
        spec = JobSpec(operator, sub.resolve(), tier, label=sub.parent.name if label is None else label)
        rec = Verifier(spec, plat, None if plat.interpreter else (device or 0), Path(workdir),
                       settings or Settings(), ceilings).run()
        if tmp is not None:
            rec = _without_temporary_log(rec, tmp)
        return rec
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _without_temporary_log(rec: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """``rec`` with its pointers into the temporary folder :func:`evaluate_file` removes said so: ``log`` None,
    and a message's ``(whole traceback: <path>)`` naming the removed log instead (fresh user 33: ``kgb check`` and
    API users were sent to a file that no longer existed)."""
    import re

    root = str(tmp)
    note = ("(the whole traceback was in the job's log, removed with its temporary folder; kgb eval DIR --op OP, or "
            "evaluate_file(..., workdir=...), keeps it)")

    def fix(value: Any) -> Any:
        if isinstance(value, str) and root in value:
            return re.sub(r"\(whole traceback: [^)]*\)", note, value)
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    rec = fix(rec)
    if isinstance(rec.get("log"), str) and rec["log"].startswith(root):
        rec["log"] = None
    return rec
