"""``kgb agent``: one headless coding-agent session per operator, judged by the pipeline of ``kgb eval``.

Per (agent, operator), a session:

1. **Workspace** (outside the checkout and the run directory): ``<workspaces>/<op file stem>/`` holds
   ``work/`` (the agent's working directory: ``PROMPT.md``, the agent-mode prompt of ``kgb prompt --mode
   agent``; ``check``, the self-check client; the submission file it writes), ``home/`` (``HOME`` and every
   config/state directory of the CLI: nothing is shared between sessions) and ``sock/`` (the self-check
   socket), all owned by the slot's agent user (mode 0700), and ``root/`` (the jail's mount point).
2. **Session**: the CLI runs headless at the run's isolation level (:mod:`.isolation`, :mod:`.jail`) with a
   scrubbed environment (its own variables, its credentials, the pinned device), stdout kept as the
   transcript (``agents/<op>/transcript.jsonl``), stderr as ``stderr.log``. At the wall-clock budget the
   whole session is killed (exit reason ``budget``).
3. **Self-checks** while it runs: ``./check`` -> :class:`~.selfcheck.CheckServer` -> ``evaluate_file`` on
   smoke or full (``checks.jsonl`` counts and logs them).
4. **Verdict**: when the session ends (on its own or at the budget), its processes are killed, the
   submission file is copied out of the workspace (never through a link) into ``agents/<op>/submission/``
   and judged by :func:`kernelgenbench.evaluate_file` on the final tier selection (default
   :data:`~kernelgenbench.suite.tiers.VERDICT_TIER`, every tier), anti-hack included; no file: the
   ``missing`` verdict of ``kgb eval``. The workspace goes back to the harness's user (mode 0700).
5. **Record** (``results.jsonl``): the evaluation record, plus the session's cost and how it ended
   (README "kgb agent"); ``agents/<op>/agent.json`` keeps the raw usage objects.

Operators run in parallel (``--jobs``, one session per GPU by default, 2 on the interpreter), each slot
with its own device and agent user. Re-running resumes: operators with a record are not run again (no
request is made); Ctrl-C kills the sessions in flight and keeps every finished record.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shutil
import stat
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..platforms import Platform
from ..run.job import Settings
from ..run.rundir import RERUN_CLASSES, RunDir, new_run_path
from ..suite.spec import Operator
from ..suite.tiers import SHOWN_TIERS, VERDICT_TIER, tier_name, tier_parts
from . import isolation as iso_mod
from .clis import AgentCLI, AgentError, Command, LaunchContext
from .jail import SYSTEM_DIRS
from .selfcheck import CheckServer, check_tiers, client_script
from .usage import AgentUsage, StreamInfo

#: The record label of an agent's verdict (one per operator).
LABEL = "agent"
#: Keys of config.json that must match for a run directory to be resumed.
IDENTITY_KEYS = ("agent", "command_template", "stream_format", "model", "base_url", "tier", "check_tiers", "budget_s",
                 "max_turns", "platform", "profile", "cli_version", "isolation")
#: Exit reasons of a session.
EXIT_REASONS = ("done", "budget", "turn_cap", "error")


@dataclass
class AgentConfig:
    """What ``kgb agent`` does.

    Attributes:
        agent: ``claude-code``, ``codex``, ``opencode``, ``gemini`` or ``command``.
        command: the template of ``--agent command``.
        stream_format: ``--agent command``: which CLI's stream the program prints (for its tokens).
        model: the model to ask the CLI for (None: the CLI's default).
        base_url: the model endpoint (None: the CLI's default or its own variable).
        api_key_env: the variable with the key for ``base_url`` (Codex, OpenCode; default OPENAI_API_KEY).
        ops, source: operator selection, as in ``kgb eval``.
        tier: the final verdict's tier selection (default VERDICT_TIER: every tier).
        check_tiers: the tiers a self-check may run (subset of SHOWN_TIERS; the first is its default).
        budget_s: each session's wall-clock budget, seconds (default 30 minutes).
        max_turns: a turn cap passed to CLIs that have one (Claude Code, Gemini CLI).
        isolation: ``auto``, ``namespace``, ``user`` or ``none`` (:mod:`.isolation`).
        env: names of further environment variables passed to every session.
        expose: further paths readable by the session (read-only) in the jail.
        agent_python: the session may use the harness's Python (torch, triton; the harness package hidden).
        workspaces: where workspaces go (default ``$TMPDIR/kgb-agent/<run dir name>-<hash>``).
        retry_errors: re-run operators whose recorded session ended in ``error``.
    """

    agent: str
    command: str | None = None
    stream_format: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    ops: list[str] | None = None
    source: str | None = None
    tier: str = VERDICT_TIER
    check_tiers: tuple[str, ...] = SHOWN_TIERS
    budget_s: float = 1800.0
    max_turns: int | None = None
    isolation: str = "auto"
    env: list[str] = field(default_factory=list)
    expose: list[Path] = field(default_factory=list)
    agent_python: bool = True
    workspaces: Path | None = None
    retry_errors: bool = False

    def __post_init__(self) -> None:
        self.tier = tier_name(self.tier)
        self.check_tiers = check_tiers(self.check_tiers)
        if self.budget_s <= 0:
            raise ValueError("--budget-minutes must be > 0")
        if self.max_turns is not None and self.max_turns < 1:
            raise ValueError("--max-turns must be >= 1")

    def to_json(self) -> dict[str, Any]:
        """The configuration as config.json holds it (``command`` there is the kgb command, so the template
        is ``command_template``)."""
        d = asdict(self)
        d["command_template"] = d.pop("command")
        d["check_tiers"] = ",".join(self.check_tiers)
        d["expose"] = [str(p) for p in self.expose]
        d["workspaces"] = str(self.workspaces) if self.workspaces else None
        return d


def default_name(cfg: AgentConfig) -> str:
    base = f"agent-{cfg.agent}" + (f"-{cfg.model}" if cfg.model else "")
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in base)[:80]


def open_run(cfg: AgentConfig, platform: Platform, cli_version: str, isolation: str, out: Path | None,
             runs_root: Path, name: str | None, fresh: bool = False) -> RunDir:
    """The run directory: ``out`` exactly, else the latest ``runs_root/*-<name>`` of the same identity
    (:data:`IDENTITY_KEYS`), else a new one.

    Raises:
        ValueError: ``out`` holds a run of another identity.
    """
    config = {"command": "kgb agent", **cfg.to_json(), "platform": platform.name, "cli_version": cli_version,
              "isolation": isolation}
    if platform.profile:  # the interpreter under a vendor profile (--as-profile): another identity
        config["profile"] = platform.profile
    ident = {k: config.get(k) for k in IDENTITY_KEYS}
    if out is not None:
        p = out / "config.json"
        if p.exists():
            old = json.loads(p.read_text())
            diff = [k for k in IDENTITY_KEYS if old.get(k) != ident[k]]
            if diff:
                raise ValueError(f"{out} holds an agent run with different {', '.join(diff)} "
                                 f"({', '.join(f'{k}={old.get(k)!r}' for k in diff)}); use another --out")
            return RunDir.open(out)
        rd = RunDir.open(out)
    else:
        rd = None
        runs_root.mkdir(parents=True, exist_ok=True)
        nm = name or default_name(cfg)
        if not fresh:
            for cand in sorted(runs_root.glob(f"*-{nm}"), reverse=True):
                try:
                    old = json.loads((cand / "config.json").read_text())
                except (OSError, json.JSONDecodeError):
                    continue
                if old.get("command") == "kgb agent" and all(old.get(k) == ident[k] for k in IDENTITY_KEYS):
                    return RunDir(cand)
        rd = RunDir(new_run_path(runs_root, nm))
    (rd.path / "config.json").write_text(json.dumps(config, indent=2, default=str))
    return rd


@dataclass
class Event:
    """Progress for the command line: a session started, resumed or finished."""

    kind: str  # "start", "done", "resumed"
    op: str
    record: dict[str, Any] | None = None


#: What a shell or an interpreter prints when the program or script it was given does not exist.
_NOT_FOUND = re.compile(r"No such file or directory|not found|[Cc]an(no|')t open")
#: An absolute path in such a message (``cp: cannot stat '/data/k.py': ...``, ``sh: 1: /opt/agent: not found``).
_ABS_PATH = re.compile(r"(?<![\w.~-])(/[\w.+@%/-]+)")

_RELATIVE_HINT = (" (hint: the command runs in the operator's workspace, not where kgb agent was started: a program "
                  "or file named by a relative path is looked up there; give absolute paths)")


def not_found_hint(tail: str, level: str, workspace: Path) -> str:
    """The hint a ``--agent command`` session's error gets when its output says something was not found.

    In the ``namespace`` jail only the system directories, the session's workspace and home, the absolute paths
    the command line names and those of ``--expose`` exist: a path that exists on this machine but was not found
    in the session (a folder of kernels the agent's script reads) was hidden by the jail, and the hint names it.
    An absolute path (outside the workspace and the system directories) that exists nowhere on this machine is
    named as such: the relative-path hint told a user who had given an absolute path to give absolute paths.
    Otherwise the usual cause is a path relative to where ``kgb agent`` was started.

    Args:
        tail: the end of the session's stderr.
        level: the isolation level of the run (``namespace``, ``user``, ``none``).
        workspace: the session's workspace directory (its paths are never the jail's doing).
    """
    hidden: list[str] = []
    missing: list[str] = []
    for line in tail.splitlines():
        if not _NOT_FOUND.search(line):
            continue
        for found in _ABS_PATH.findall(line):
            path = Path(found.rstrip("/") or "/")
            if (path == workspace or workspace in path.parents or str(path) in hidden + missing
                    or path == Path("/") or (len(path.parts) > 1 and path.parts[1] in SYSTEM_DIRS)):
                continue  # the session's own files; the system directories, which the jail holds (/bin/sh)
            if not path.exists():
                missing.append(str(path))
            elif level == "namespace":
                hidden.append(str(path))
    if not hidden:
        if missing:
            return (f" (hint: {', '.join(missing)} does not exist on this machine either: check the paths that "
                    f"--command names and the files its program reads)")
        return _RELATIVE_HINT
    return (f" (hint: the session runs in a private filesystem (isolation namespace) that holds the system "
            f"directories, its workspace and home, the absolute paths the command line names and the --expose "
            f"paths, nothing else: {', '.join(hidden)} exist{'s' if len(hidden) == 1 else ''} on this machine but "
            f"not there; name {'it' if len(hidden) == 1 else 'them'} in --command or pass --expose PATH)")


class Interrupted(Exception):
    """Ctrl-C: the sessions in flight were killed; ``recorded`` operators have a record."""

    def __init__(self, path: Path, recorded: int, selected: int) -> None:
        super().__init__(f"interrupted: {recorded} of {selected} operator(s) recorded in {path}")
        self.path, self.recorded, self.selected = path, recorded, selected


def _stem(op: Operator) -> str:
    return op.filename[:-3]


#: A scanned file shares the oracle's text when it holds at least this many of its distinctive lines.
ORACLE_LINES_FLAG = 5


def oracle_overlap(op: Operator, files: list[Path]) -> dict[str, Any]:
    """How much of the oracle solution's text the session's files hold: a canary for an agent that reached
    ``solutions/`` (or was handed it). Distinctive lines are the oracle's stripped lines of 30 characters
    or more that are not comments; each file's count of them is reported, and ``oracle_text_found`` is
    True when a file holds :data:`ORACLE_LINES_FLAG` or more. Held-out parameters are not scanned for (they
    are numbers that a correct kernel's tests may well contain)."""
    from .clis import CHECKOUT

    oracle = CHECKOUT / "solutions" / op.filename
    if not oracle.is_file():
        return {"oracle": None, "note": "no oracle solution in this checkout"}
    lines = {ln.strip() for ln in oracle.read_text(errors="replace").splitlines()}
    lines = {ln for ln in lines if len(ln) >= 30 and not ln.startswith("#")}
    found: dict[str, int] = {}
    for f in files:
        try:
            text = f.read_text(errors="replace") if f.is_file() and not f.is_symlink() else ""
        except OSError:
            continue
        if f.suffix == ".jsonl":  # a transcript: its strings, unescaped
            text = text.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
        have = {ln.strip() for ln in text.splitlines()}
        n = len(lines & have)
        if n:
            found[str(f)] = n
    return {"oracle": str(oracle), "distinctive_lines": len(lines), "found_in": found,
            "oracle_text_found": any(n >= ORACLE_LINES_FLAG for n in found.values())}


class AgentRun:
    """One ``kgb agent`` run over a set of operators.

    Args:
        cfg: the configuration.
        rundir: the run directory (:func:`open_run`).
        platform: where submissions are judged (and the device the sessions are pinned to).
        cli: the agent's adapter; ``cli_path`` its executable; ``cli_version`` what ``--version`` said.
        iso: the isolation (:func:`.isolation.choose`), with one user per slot where it has users.
        settings: the verifier's limits (self-checks and verdicts).
        jobs: parallel sessions (default: one per GPU, 2 on the interpreter).
        on_event: progress callback (from worker threads).
        device_name: the device's name for the prompt.
    """

    def __init__(self, cfg: AgentConfig, rundir: RunDir, platform: Platform, cli: AgentCLI, cli_path: Path,
                 cli_version: str, iso: iso_mod.Isolation, *, settings: Settings | None = None,
                 jobs: int | None = None, on_event: Callable[[Event], None] | None = None,
                 device_name: str | None = None) -> None:
        from ..run.scheduler import make_slots

        self.cfg, self.rundir, self.platform, self.cli = cfg, rundir, platform, cli
        self.cli_path, self.cli_version, self.iso = cli_path, cli_version, iso
        self.settings = settings or Settings()
        self.on_event = on_event
        self.device_name = device_name
        self.slots = make_slots(platform, jobs)
        self.stop = threading.Event()
        self._procs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.workspaces = cfg.workspaces or self.default_workspaces(rundir.path)
        self.run_now: list[dict[str, Any]] = []

    @staticmethod
    def default_workspaces(run_path: Path) -> Path:
        """``$TMPDIR/kgb-agent/<run dir name>-<8 hex of its path>``: outside the checkout and the run
        directory, one folder per run."""
        import tempfile

        h = hashlib.sha256(str(run_path.resolve()).encode()).hexdigest()[:8]
        return Path(tempfile.gettempdir()) / "kgb-agent" / f"{run_path.name}-{h}"

    # -- the run ----------------------------------------------------------------------------------------
    def finished(self, op_id: str) -> dict[str, Any] | None:
        """The operator's final record in this run directory, if it has one that a resume keeps."""
        found = None
        for r in self.rundir.records():
            if (r.get("op") == op_id and r.get("label") == LABEL and r.get("tier") == self.cfg.tier
                    and r.get("platform") == self.platform.name and r.get("profile") == self.platform.profile):
                found = r
        if found is None or found.get("failure_class") in RERUN_CLASSES:
            return None
        if self.cfg.retry_errors and found.get("exit_reason") == "error":
            return None
        return found

    def run(self, ops: list[Operator]) -> dict[str, Any]:
        """Run a session for every operator without a record, then write and return ``summary.json``.

        Raises:
            Interrupted: Ctrl-C (the finished records are kept).
        """
        from ..run.rundir import environment
        from .summary import summarize_agent_run

        t0 = time.time()
        env = environment(self.platform)
        env["agent_cli"] = {"name": self.cli.name, "path": str(self.cli_path), "version": self.cli_version}
        self.rundir.write_env(env)
        self._write_isolation()
        todo: "queue.Queue[Operator]" = queue.Queue()
        for op in ops:
            rec = self.finished(op.id)
            if rec is not None:
                if self.on_event:
                    self.on_event(Event("resumed", op.id, rec))
            else:
                todo.put(op)
        self.workspaces.mkdir(parents=True, exist_ok=True)
        os.chmod(self.workspaces, 0o711)
        errors: list[BaseException] = []

        def worker(slot_index: int) -> None:
            while not self.stop.is_set():
                try:
                    op = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    rec = self.session(op, slot_index)
                except BaseException as exc:  # noqa: BLE001 - a harness bug stops the run after the others
                    if not self.stop.is_set():
                        errors.append(exc)
                    self.stop.set()
                    return
                if rec is not None:
                    with self._lock:
                        self.run_now.append(rec)
                    if self.on_event:
                        self.on_event(Event("done", op.id, rec))

        from ..run.scheduler import start_workers, stopping, wait_workers

        n = len(self.slots)
        done = start_workers([lambda i=i: worker(i) for i in range(n)], [f"agent-slot-{i}" for i in range(n)])
        try:
            wait_workers(done)
        except KeyboardInterrupt:
            with stopping():  # a second Ctrl-C meanwhile is ignored
                self.stop.set()
                self._kill_all()
                wait_workers(done, 60.0)
            done = sum(1 for op in ops if self.finished(op.id) is not None)
            raise Interrupted(self.rundir.path, done, len(ops)) from None
        if errors:
            raise errors[0]
        summary = summarize_agent_run([(o.id, o.source) for o in ops], self.rundir.records(), tier=self.cfg.tier,
                                      platform=self.platform.name)
        summary.update(wall_s=round(time.time() - t0, 2), sessions_run=len(self.run_now), tier=self.cfg.tier,
                       tiers=list(tier_parts(self.cfg.tier)), check_tiers=list(self.cfg.check_tiers),
                       platform=self.platform.name, agent=self.cli.name, cli_version=self.cli_version,
                       model=self.cfg.model, isolation=self.iso.level)
        if self.platform.profile:
            summary["profile"] = self.platform.profile
        self.rundir.write_summary(summary)
        return summary

    def _write_isolation(self) -> None:
        p = self.rundir.path / "config.json"
        try:
            conf = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            conf = {}
        conf["isolation_detail"] = self.iso.to_json()
        conf["workspaces"] = str(self.workspaces)
        if self.iso.warnings:
            conf["warnings"] = self.iso.warnings
        p.write_text(json.dumps(conf, indent=2, default=str))

    def _kill_all(self) -> None:
        with self._lock:
            procs = list(self._procs.values())
        for proc, user in procs:
            iso_mod.stop(proc, grace_s=2.0)
            iso_mod.kill_user(user)
        from ..sandbox.runner import kill_all

        kill_all()  # the sandboxes of self-checks in progress

    # -- one session ----------------------------------------------------------------------------------
    def _judge(self, path: Path | None, op: Operator, tier: str, workdir: Path, label: str,
               device: int | None) -> dict[str, Any]:
        """The pipeline of ``kgb eval`` on one file: :func:`~kernelgenbench.evaluate_file`, or, with no
        file, the ``missing`` job ``kgb eval`` records for a requested operator without a file."""
        if path is not None:
            from ..run.evaluate import evaluate_file

            return evaluate_file(path, op.id, tier, platform=self.platform.name, settings=self.settings,
                                 workdir=workdir, device=device, label=label, as_profile=self.platform.profile)
        from ..run.job import JobSpec, Verifier

        return Verifier(JobSpec(op, None, tier_name(tier), label), self.platform, device, workdir, self.settings,
                        None).run()

    def _python(self) -> tuple[list[Path], list[str], list[Path]]:
        """The Python a session may use: (read-only paths, PATH entries, paths to hide in them)."""
        if not self.cfg.agent_python:
            return [], [], []
        import kernelgenbench

        ro = []
        for p in {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}:
            if not any(str(p).startswith(f"/{d}") for d in ("usr", "bin", "lib", "etc")):
                ro.append(p)
        pkg = Path(kernelgenbench.__file__).resolve().parent
        hide = [pkg] if any(pkg.is_relative_to(r) for r in ro) else []
        for r in ro:  # an installed (non-editable) package's metadata lists its files
            for d in r.glob("lib/python*/site-packages/kernelgenbench*"):
                if d.resolve() not in hide:
                    hide.append(d.resolve())
        return sorted(ro), [str(Path(sys.prefix) / "bin")], hide

    def _credentials(self) -> dict[str, str]:
        names = [*self.cli.credentials, *self.cfg.env]
        if self.cfg.api_key_env:
            names.append(self.cfg.api_key_env)
        elif self.cfg.base_url and self.cli.name in ("codex", "opencode"):
            names.append("OPENAI_API_KEY")
        return {n: os.environ[n] for n in names if n in os.environ}

    def session(self, op: Operator, slot_index: int) -> dict[str, Any] | None:
        """Run one operator's session and judge it; returns its record (None when interrupted)."""
        from ..llm.prompt import build_prompt

        slot = self.slots[slot_index]
        user = self.iso.users[slot_index] if self.iso.users else None
        stem = _stem(op)
        box = self.workspaces / stem
        if box.exists():  # an earlier, unfinished attempt: set aside, never reused
            box.rename(box.with_name(f"{stem}.aborted-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"))
        work, home, sock, jail_root = box / "work", box / "home", box / "sock", box / "root"
        for d in (work, home, sock, jail_root):
            d.mkdir(parents=True)
        os.chmod(box, 0o755)
        os.chmod(jail_root, 0o700)
        store = self.rundir.path / "agents" / stem
        if store.exists():
            shutil.rmtree(store)
        store.mkdir(parents=True)
        submission = work / op.filename
        check_cmd = "./check"
        gpu = self.platform.timing and not self.platform.interpreter
        prompt = build_prompt(op, self.platform, "agent", self.device_name, agent={
            "workspace": str(work), "file": str(submission), "check": check_cmd,
            "check_tiers": list(self.cfg.check_tiers), "budget_minutes": self.cfg.budget_s / 60,
            "python": self.cfg.agent_python})
        text = f"{prompt.system.rstrip()}\n\n{prompt.user}"
        (work / "PROMPT.md").write_text(text)
        (store / "prompt.md").write_text(text)
        (work / "check").write_text(client_script(op.id, op.filename, sock, self.cfg.check_tiers, gpu))
        os.chmod(work / "check", 0o755)
        (store / "checks.jsonl").touch()
        server = CheckServer(op.id, op.filename, sock, store, self.cfg.check_tiers,
                             lambda p, tier, wd, label: self._judge(p, op, tier, wd, label, slot.device),
                             self.platform.key, owner=(user.uid, user.gid) if user else None)
        ctx = LaunchContext(op.id, work, home, work / "PROMPT.md", text, submission, check_cmd, slot.device,
                            self.cfg.model, self.cfg.base_url, self.cfg.api_key_env, self.cfg.max_turns,
                            self.cfg.budget_s, as_root=iso_mod.is_root() and user is None)
        transcript, errlog = store / "transcript.jsonl", store / "stderr.log"
        started = time.time()
        proc = None
        launch_error = None
        secrets: dict[str, str] = {}
        code: int | None = None
        killed = False
        try:
            launch = self.cli.launch(ctx, self.cli_path)  # writes the CLI's config into the home
            for d in (work, home):
                iso_mod.give_tree(d, user)
            py_ro, py_path, hide = self._python()
            device_env = dict(self.platform.env)
            if self.platform.visible_devices_var and slot.device is not None:
                from ..platforms import visible_device

                device_env[self.platform.visible_devices_var] = visible_device(self.platform, slot.device)
                device_env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
            bin_dirs = [str(Path(launch.argv[0]).parent)] if launch.argv[0].startswith("/") else []
            creds = self._credentials()
            secrets = iso_mod.secret_values(creds)
            env = iso_mod.session_env(launch.env, home, [*py_path, *bin_dirs], creds, device_env, user)
            ro = [*launch.expose, *self.cfg.expose, *py_ro]
            if self.cli.name == "command" and isinstance(self.cli, Command):
                ro += self.cli.named_paths()
            with open(transcript, "wb") as out, open(errlog, "wb") as err:
                with self._lock:
                    if self.stop.is_set():
                        raise KeyboardInterrupt
                    proc = iso_mod.start(self.iso, slot_index, launch.argv, env, work, launch.stdin, out, err,
                                         jail_root, ro, [work, home, sock], hide)
                    self._procs[op.id] = (proc, user)
                if self.on_event:
                    self.on_event(Event("start", op.id))
                try:
                    code = proc.wait(timeout=self.cfg.budget_s)
                except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: the budget
                    killed = True
                    iso_mod.stop(proc)
                    code = proc.returncode
        except AgentError as exc:
            launch_error = str(exc)
        except OSError as exc:
            launch_error = f"the agent could not be started: {exc}"
        finally:
            if proc is not None:
                if proc.poll() is None:
                    iso_mod.stop(proc)
                iso_mod.kill_user(user)
            with self._lock:
                self._procs.pop(op.id, None)
            server.close()
        session_wall = time.time() - started
        if self.stop.is_set():
            return None  # interrupted: no verdict; a resume runs this operator again
        final = self._collect(work, submission, store)
        iso_mod.take_back(work)
        iso_mod.take_back(home)
        iso_mod.take_back(sock)
        redacted = iso_mod.redact([box, store], secrets)
        info = self.cli.parse(transcript, home)
        self._keep_session_logs(home, store)
        iso_mod.take_back(box)
        exit_reason, error = self._exit_reason(info, code, killed, launch_error, errlog, work)
        rec = self._judge(final, op, self.cfg.tier, self.rundir.job_dir(op.id, LABEL), LABEL, slot.device)
        if self.stop.is_set():
            return None  # interrupted while judging: the sandbox was killed, so the record is no verdict
        rec = self._record(rec, op, info, exit_reason, error, code, session_wall, server.count, work, box, store,
                           started, final)
        rec["secrets_redacted"] = [str(Path(f).relative_to(box)) if Path(f).is_relative_to(box) else
                                   str(Path(f).relative_to(self.rundir.path)) for f in redacted]
        scanned = [p for p in work.rglob("*") if p.is_file() and not p.is_symlink() and p.stat().st_size < (8 << 20)]
        rec["oracle_overlap"] = oracle_overlap(op, [*scanned, store / "transcript.jsonl"])
        self.rundir.append(rec)
        (store / "agent.json").write_text(json.dumps({
            "op": op.id, "agent": self.cli.name, "cli_version": self.cli_version, "exit_reason": exit_reason,
            "exit_code": code, "error": error, "usage": info.usage.to_json(), "session_id": info.session_id,
            "tool_calls": info.tool_calls, "final_text": (info.final_text or "")[:4000],
            "self_checks": server.count, "session_wall_s": round(session_wall, 3)}, indent=2, default=str))
        return rec

    @staticmethod
    def _collect(work: Path, submission: Path, store: Path) -> Path | None:
        """Copy the submission out of the workspace into the run directory without following a link (the
        workspace's owner could point one at a file only the harness can read); None when there is none
        (or it is not a regular file)."""
        try:
            dfd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            fd = os.open(submission.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        except OSError:
            return None
        finally:
            os.close(dfd)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = f.read(64 << 20)
        dst = store / "submission" / submission.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        return dst

    def _keep_session_logs(self, home: Path, store: Path) -> None:
        """Copy the CLI's own session logs (the fallback for a killed session's usage) into the run directory;
        never its config or auth files."""
        globs = {"claude-code": [".claude/projects/**/*.jsonl"], "codex": [".codex/sessions/**/*.jsonl"],
                 "gemini": [".gemini/tmp/*/chats/*"]}.get(self.cli.name if not isinstance(self.cli, Command)
                                                          else (self.cli.stream or ""), [])
        for g in globs:
            for f in home.glob(g):
                if f.is_file() and not f.is_symlink():
                    dst = store / "session" / f.relative_to(home)
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(f, dst)

    def _exit_reason(self, info: StreamInfo, code: int | None, killed: bool, launch_error: str | None,
                     errlog: Path, work: Path) -> tuple[str, str | None]:
        if launch_error:
            return "error", launch_error
        if killed:
            return "budget", f"killed at the budget of {self.cfg.budget_s:g} s"
        if info.status == "turn_cap" or self.cli.turn_cap_exit(code):
            return "turn_cap", info.error or f"the CLI stopped at its turn cap (exit status {code})"
        if code == 0 and info.status != "error":
            return "done", None
        tail = ""
        try:
            tail = errlog.read_text(errors="replace")[-2000:].strip()
        except OSError:
            pass
        msg = info.error or (f"exit status {code}" + (f": {tail}" if tail else ""))
        if self.cli.name == "command" and (code in (126, 127) or _NOT_FOUND.search(tail)):
            msg += not_found_hint(tail, self.iso.level, work)
        return "error", msg

    def _record(self, rec: dict[str, Any], op: Operator, info: StreamInfo, exit_reason: str, error: str | None,
                code: int | None, session_wall: float, checks: int, work: Path, box: Path, store: Path,
                started: float, final: Path | None) -> dict[str, Any]:
        u: AgentUsage = info.usage
        judge_wall = float(rec.get("wall_s") or 0.0)
        rec = dict(rec)
        rec.update({
            "label": LABEL, "agent": self.cli.name, "cli_version": self.cli_version, "model": self.cfg.model,
            "model_served": u.model_served, "exit_reason": exit_reason, "exit_code": code, "error": error,
            "budget_s": self.cfg.budget_s,
            "tokens_in": u.input_tokens, "tokens_out": u.output_tokens, "cache_read": u.cache_read_tokens,
            "cache_write": u.cache_write_tokens, "reasoning": u.reasoning_tokens, "requests": u.requests,
            "turns": u.turns, "cost_usd": u.cost_usd, "usage": u.generate_usage(),
            "usage_source": u.source, "usage_complete": u.complete, "usage_notes": u.notes,
            "self_checks": checks, "session_wall_s": round(session_wall, 3), "judge_wall_s": judge_wall,
            "wall_s": round(session_wall + judge_wall, 3), "session_started_at": round(started, 3),
            "workspace": str(work), "workspace_box": str(box), "agent_dir": str(store),
            "transcript": str(store / "transcript.jsonl"), "stderr_log": str(store / "stderr.log"),
            "checks_log": str(store / "checks.jsonl"), "prompt": str(store / "prompt.md"),
            "submission_in_workspace": str(work / op.filename) if final else None,
            "isolation": self.iso.level, "check_tiers": ",".join(self.cfg.check_tiers), "attempt": 1,
        })
        return rec
