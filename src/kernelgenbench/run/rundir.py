"""Run directories: ``runs/<timestamp>-<name>/`` with ``config.json``, ``env.json``,
``results.jsonl`` (append-only, one record per job), ``summary.json`` and per-job work directories
(DESIGN.md "Execution"). Re-running the same command resumes: finished jobs are skipped, none is
lost or counted twice.

Records and summaries are typed and versioned in :mod:`kernelgenbench.record` (README "Record schema");
this module reads records as JSON dicts of any version (a record without ``schema_version`` is version 1)
and writes what the typed classes serialise to."""
from __future__ import annotations

import hashlib
import json
import os
import platform as pyplatform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..record import JobRecord, RunSummary, stamp

#: Failure classes that are not a verdict on the submission: such jobs are re-run on resume.
RERUN_CLASSES = {"infrastructure", "platform", "baseline"}


def job_key(op: str, sha: str | None, tier: str, platform: str, label: str) -> str:
    """A job's resume key. ``tier`` is the canonical name of the tier selection (``smoke``, ``all``,
    ``smoke,heldout``: :func:`~kernelgenbench.suite.tiers.tier_name`): a verdict on one selection never
    stands for another (a record of the full tier is not one of ``all``)."""
    return f"{op}|{label}|{sha or 'missing'}|{tier}|{platform}"


def new_run_path(root: Path, name: str) -> Path:
    """A path for a new run directory: ``root/<YYYYmmdd-HHMMSS>-<name>``, or, when a run of that name
    started in the same second (another tier, say), ``<YYYYmmdd-HHMMSS>.<n>-<name>``: never a directory
    that holds another run (whose config and records it would mix with). Both forms end in ``-<name>``
    and sort by start, latest last."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = root / f"{stamp}-{name}", 2
    while path.exists():
        path, n = root / f"{stamp}.{n}-{name}", n + 1
    return path


class RunDir:
    """One run directory (thread-safe appends)."""

    def __init__(self, path: Path) -> None:
        self.path = path.resolve()
        self.path.mkdir(parents=True, exist_ok=True)
        self.results = self.path / "results.jsonl"
        #: the records of case shards (``kgb eval --shard-cases``: run/shards.py); their jobs' merged records go to
        #: ``results.jsonl``
        self.shards = self.path / "shards.jsonl"
        self._lock = threading.Lock()

    @staticmethod
    def create(root: Path, name: str, config: dict[str, Any], fresh: bool = False) -> "RunDir":
        """A new run directory, or the latest one of the same name and config (resume).

        Args:
            root: the parent folder (``runs/``).
            name: the run's name; a directory is ``<YYYYmmdd-HHMMSS>-<name>``.
            config: the run's configuration; an existing directory is resumed only when its
                ``config.json`` matches (apart from timing knobs).
            fresh: never resume.
        """
        root.mkdir(parents=True, exist_ok=True)
        if not fresh:
            for cand in sorted(root.glob(f"*-{name}"), reverse=True):
                try:
                    old = json.loads((cand / "config.json").read_text())
                except (OSError, json.JSONDecodeError):
                    continue
                if _same_config(old, config):
                    rd = RunDir(cand)
                    return rd
        rd = RunDir(new_run_path(root, name))
        (rd.path / "config.json").write_text(json.dumps(config, indent=2, default=str))
        return rd

    @staticmethod
    def open(path: Path) -> "RunDir":
        """An existing or new run directory at exactly ``path`` (``--out``)."""
        return RunDir(path)

    def write_config(self, config: dict[str, Any]) -> None:
        """Write ``config.json`` once; a resume only brings its ``selected`` (the operators the command
        selected, for ``kgb summary`` to tell what was never recorded) up to date."""
        p = self.path / "config.json"
        if not p.exists():
            p.write_text(json.dumps(config, indent=2, default=str))
            return
        if "selected" in config:
            try:
                old = json.loads(p.read_text())
            except (OSError, json.JSONDecodeError):
                return
            if old.get("selected") != config["selected"]:
                old["selected"] = config["selected"]
                p.write_text(json.dumps(old, indent=2, default=str))

    def write_env(self, env: dict[str, Any]) -> None:
        (self.path / "env.json").write_text(json.dumps(env, indent=2, default=str))

    def records(self) -> list[dict[str, Any]]:
        """Every record written so far, as JSON dicts of their own version (malformed lines, e.g. from a
        killed run, are skipped; :meth:`JobRecord.from_json <kernelgenbench.record.JobRecord.from_json>`
        types one)."""
        return _read_jsonl(self.results)

    def shard_records(self) -> list[dict[str, Any]]:
        """Every shard record of ``shards.jsonl`` (run/shards.py), in the order written."""
        return _read_jsonl(self.shards)

    def finished_keys(self) -> set[str]:
        """Job keys (operator, submission sha256, tier, platform, label) a resume need not run again: those
        of the *latest* record of each job (the one tables and summaries show), unless it failed for a
        reason worth a retry (``RERUN_CLASSES``). An older record of the same file does not count: after
        an edit and a revert, the file's last verdict in the tables would be the edited file's."""
        from ..metrics import latest_records

        keys = set()
        for r in latest_records(self.records()):
            if r.get("failure_class") in RERUN_CLASSES:
                continue
            plat = f"{r['platform']}/{r['profile']}" if r.get("profile") else r["platform"]
            keys.add(job_key(r["op"], r.get("submission_sha256"), r["tier"], plat, r.get("label", "")))
        return keys

    def append(self, record: JobRecord | dict[str, Any]) -> None:
        """Append one job's record (a :class:`~kernelgenbench.record.JobRecord`, or its JSON) as a line."""
        self._append(self.results, record)

    def append_shard(self, record: dict[str, Any]) -> None:
        """Append one shard's record to ``shards.jsonl`` (its ``harness_commit`` and ``harness_tree`` stamped into
        ``record`` too)."""
        if record.get("harness_commit") is None:
            record["harness_commit"] = harness_commit()
        if record.get("harness_tree") is None:
            record["harness_tree"] = harness_tree()
        self._append(self.shards, record)

    def _append(self, path: Path, record: JobRecord | dict[str, Any]) -> None:
        data = record.to_json() if isinstance(record, JobRecord) else dict(record)
        if data.get("harness_commit") is None and "op" in data:
            data["harness_commit"] = harness_commit()
        line = json.dumps(data, default=str)
        with self._lock:
            with open(path, "ab+") as f:
                # a killed run's half line (no newline at the end) must not swallow this record: it starts a line
                if f.seek(0, os.SEEK_END) > 0:
                    f.seek(-1, os.SEEK_END)
                    if f.read(1) != b"\n":
                        line = "\n" + line
                f.write((line + "\n").encode())
                f.flush()
                os.fsync(f.fileno())

    def write_summary(self, summary: RunSummary | dict[str, Any]) -> None:
        """Write ``summary.json``: a :class:`~kernelgenbench.record.RunSummary`, or a summary dict
        (``kgb generate``'s), with ``schema_version`` first."""
        data = summary.to_json() if isinstance(summary, RunSummary) else stamp(summary)
        (self.path / "summary.json").write_text(json.dumps(data, indent=2, default=str))

    def job_dir(self, op_id: str, label: str, shard: tuple[int, int] | None = None) -> Path:
        """A job's work directory (its ``child.log``); a shard's is a folder of its job's, ``shard-<i+1>-of-<n>``
        (shards of one job may run at once)."""
        safe = op_id.replace("::", "__")
        d = self.path / "jobs" / (f"{label}-{safe}" if label else safe)
        return d / f"shard-{shard[0] + 1}-of-{shard[1]}" if shard else d


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path`` (none when it does not exist; malformed lines, e.g. from a killed run, skipped)."""
    out = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def _same_config(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether a run directory of config ``a`` may be resumed by a command of config ``b``: the same
    submissions, operator selection, tier selection (canonical names: ``all`` is not ``full``) and
    platform (and the vendor profile an interpreter run emulates, ``profile``; absent otherwise), forced
    baseline (``kgb eval --baseline``; absent: none forced) and the interpreter's size budget of a case
    (``interpreter_max_mb``: which cases are judged at all; absent on GPU platforms)."""
    keys = ("submissions", "ops", "source", "tier", "platform", "profile", "baseline", "interpreter_max_mb")
    return all(a.get(k) == b.get(k) for k in keys)


_COMMIT: list[str | None] = []


def harness_commit() -> str | None:
    """The commit of the harness that judges: ``$KGB_COMMIT`` where set (the bench/ scripts pass the commit they
    were given: a copied tree's git metadata can name an older commit), else ``git rev-parse HEAD`` of this
    package's checkout, else None. Stamped on every record (``harness_commit``) and in env.json."""
    if not _COMMIT:
        commit = os.environ.get("KGB_COMMIT") or None
        if commit is None:
            try:
                commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                                        capture_output=True, text=True, timeout=10).stdout.strip() or None
            except (OSError, subprocess.TimeoutExpired):
                commit = None
        _COMMIT.append(commit)
    return _COMMIT[0]


_TREE: list[str] = []


def harness_tree() -> str:
    """A fingerprint of the harness that judges: sha256 (hex) over the relative path and bytes of every ``.py`` file
    of the ``kernelgenbench`` package, in path order. Unlike :func:`harness_commit` it ignores what cannot change a
    verdict or a timing (README, bench/, tests/, a commit that only records results) and needs no git metadata, so a
    run resumed on a later commit of the same package keeps its shards. Stamped on every record (``harness_tree``)
    and in env.json."""
    if not _TREE:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for f in sorted(root.rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
        _TREE.append(h.hexdigest())
    return _TREE[0]


def environment(platform: Any) -> dict[str, Any]:
    """Versions, device, driver and clocks (env.json)."""
    import numpy
    import torch
    import triton

    env: dict[str, Any] = {
        "python": sys.version.split()[0], "torch": torch.__version__, "triton": triton.__version__,
        "numpy": numpy.__version__, "host": pyplatform.node(), "os": pyplatform.platform(),
        "platform": platform.to_json(), "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if getattr(platform, "profile", None):  # an emulated profile: what this machine's PyTorch would detect
        from ..platforms import detect_from, evidence_for, probe

        facts = probe()
        env["profile_check"] = {"probe": facts, "detected": detect_from(facts).name,
                                "matches_profile": detect_from(facts).name == platform.profile,
                                "evidence": evidence_for(platform.profile, facts)}
    env["kernelgenbench_commit"] = harness_commit()
    env["kernelgenbench_tree"] = harness_tree()
    if not platform.interpreter and torch.cuda.is_available():
        env["cuda"] = torch.version.cuda
        env["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
                                "power.limit,temperature.gpu", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20)
            env["nvidia_smi"] = q.stdout.strip().splitlines()
        except (OSError, subprocess.TimeoutExpired):
            env["nvidia_smi"] = None
    return env
