"""What an agent can reach, and how it is started and stopped.

Three levels, chosen by ``--isolation auto`` (the default) as the strongest the machine allows, and recorded
in the run's ``config.json`` and in every record:

``namespace`` (root, mount namespaces available; the default here and in CI)
    Each parallel slot has its own unprivileged user, ``kgb-agent-<slot>`` (created on demand with
    ``useradd --system``). A session runs as that user inside :mod:`.jail`: a private mount and PID
    namespace whose filesystem holds only the system directories (read-only), the CLI's install and the
    Python the agent may use (read-only), its own workspace, home and self-check socket, and private
    ``/tmp``, ``/dev/shm`` and ``/proc``. The harness checkout (oracle ``solutions/``, the suite tables
    with the held-out parameters, the harness's installation), every run directory, other sessions'
    workspaces and the rest of the disk do not exist there, whatever their permissions; the agent sees
    no other process. The self-check is served by the harness over the socket, so the agent needs none
    of the harness's code.
``user`` (root without mount namespaces, e.g. a container without CAP_SYS_ADMIN)
    The slot's own user, ``setsid``, workspace and home owned by it (mode 0700) and handed back to root
    when the session ends, so other slots' agents cannot read them. Files readable by every user stay
    readable: the harness probes the protected paths as the agent's user before the run and records each
    one it could read in a loud warning (``chmod o-rwx`` them, or give the harness CAP_SYS_ADMIN).
``none`` (not root)
    The agent runs as the harness's own user, in its own session and process group, workspace outside
    the checkout and the run directory, environment scrubbed, but it can read whatever the harness can:
    a loud warning is printed and recorded.

At every level: its own process group, working directory and home (every config/state directory of the
CLI inside it: no memory, sessions or auth caches shared between sessions), a scrubbed environment (the
CLI's credentials only), the device pinned, and at the budget SIGTERM to the group, SIGKILL five seconds
later, then SIGKILL to every process left that belongs to the slot's user.
"""
from __future__ import annotations

import json
import os
import pwd
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

JAIL = Path(__file__).resolve().with_name("jail.py")
LEVELS = ("namespace", "user", "none")
#: The session environment every level gets (the CLI's variables and credentials are added).
BASE_ENV = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "TMPDIR": "/tmp",
            "SHELL": "/bin/bash", "PYTHONDONTWRITEBYTECODE": "1"}
SYSTEM_PATH = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"]


@dataclass
class AgentUser:
    name: str
    uid: int
    gid: int


@dataclass
class Isolation:
    """The isolation level of a run and what it covers.

    Attributes:
        level: ``namespace``, ``user`` or ``none`` (module docstring).
        reason: why this level (what was asked, what the machine allows).
        warnings: loud warnings (recorded in config.json and printed).
        users: the slots' users (levels ``namespace`` and ``user``).
        hidden: what the agent cannot reach, in words.
        readable: protected paths the agent's user could read (level ``user``: probed).
    """

    level: str
    reason: str
    warnings: list[str] = field(default_factory=list)
    users: list[AgentUser] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    readable: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def is_root() -> bool:
    return os.geteuid() == 0


def namespace_available() -> tuple[bool, str]:
    """Whether this process can build the jail (a private mount and PID namespace), and why not."""
    if not is_root():
        return False, "not root"
    if not sys.platform.startswith("linux"):
        return False, f"{sys.platform} has no Linux namespaces"
    env = {"PATH": "/usr/bin:/bin", "KGB_JAIL_SPEC": json.dumps({"probe": True})}
    try:
        out = subprocess.run([sys.executable, "-I", str(JAIL)], env=env, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    if out.returncode != 0:
        return False, (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
    return True, "mount and PID namespaces available"


def ensure_user(slot: int) -> AgentUser:
    """The slot's agent user ``kgb-agent-<slot>``, created (system user, own group, no home, no login shell)
    when missing.

    Raises:
        RuntimeError: ``useradd`` failed.
    """
    name = f"kgb-agent-{slot}"
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        shell = "/usr/sbin/nologin" if Path("/usr/sbin/nologin").exists() else "/bin/false"
        out = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                              "--shell", shell, "--comment", "KernelGenBench agent sandbox", name],
                             capture_output=True, text=True)
        if out.returncode != 0 and "already exists" not in out.stderr:
            raise RuntimeError(f"useradd {name} failed: {out.stderr.strip()}") from None
        pw = pwd.getpwnam(name)
    return AgentUser(name, pw.pw_uid, pw.pw_gid)


#: user number -> the open lock file this process holds for it (:func:`claim_users`); released when the process exits
_HELD_USERS: dict[int, IO[bytes]] = {}


def _slot_lock_dir() -> Path:
    """Where the agent users' lock files live: root's own folder (mode 0700), so no agent user can hold one."""
    base = Path("/run") if os.access("/run", os.W_OK) else Path("/tmp")
    d = base / "kgb-agent-users"
    d.mkdir(mode=0o700, exist_ok=True)
    return d


def claim_users(slots: int, limit: int = 256) -> list[AgentUser]:
    """``slots`` agent users (:func:`ensure_user`) that no other process on this machine is using: each is held by an
    exclusive ``flock`` on its lock file for as long as this process lives (later runs of the same process reuse
    them). Every session ends by killing whatever its user still runs (:func:`kill_user`), so two runs on one
    machine (two terminals, two test runs) that shared ``kgb-agent-0`` killed each other's agent CLIs mid-session
    (seen as an agent's ``exit status 137`` when a CI run and another ``kgb agent`` overlapped).

    Raises:
        RuntimeError: fewer than ``slots`` free users among the first ``limit``, or ``useradd`` failed.
    """
    import fcntl

    got = [ensure_user(n) for n in sorted(_HELD_USERS)[:slots]]  # the users this process holds already come first
    lock_dir = None
    for n in range(limit):
        if len(got) == slots:
            break
        if n in _HELD_USERS:
            continue
        lock_dir = lock_dir or _slot_lock_dir()
        f = open(lock_dir / f"kgb-agent-{n}.lock", "ab")  # noqa: SIM115 - held open: the lock lives with it
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue  # another run on this machine uses this user
        _HELD_USERS[n] = f
        got.append(ensure_user(n))
    if len(got) < slots:
        raise RuntimeError(f"only {len(got)} of {slots} agent users are free on this machine (the others are held by "
                           f"other kgb agent runs)")
    return got


def choose(requested: str, slots: int) -> Isolation:
    """The isolation of a run of ``slots`` parallel sessions (``requested``: auto or a level).

    Raises:
        ValueError: a level the machine cannot provide was asked for, or an unknown one.
    """
    if requested not in ("auto", *LEVELS):
        raise ValueError(f"--isolation {requested!r}: expected auto, {', '.join(LEVELS)}")
    root = is_root()
    ns_ok, why = namespace_available() if requested in ("auto", "namespace") else (False, "not asked")
    if requested == "namespace" and not ns_ok:
        raise ValueError(f"--isolation namespace is not available here: {why}")
    if requested == "user" and not root:
        raise ValueError("--isolation user needs root (to run the agent as another user)")
    if requested == "auto":
        level = "namespace" if ns_ok else ("user" if root else "none")
        reason = {"namespace": "auto: root with mount and PID namespaces",
                  "user": f"auto: root, but no mount namespace ({why})",
                  "none": "auto: not root, so the agent cannot run as another user"}[level]
    else:
        level, reason = requested, f"--isolation {requested}"
    iso = Isolation(level, reason)
    if level != "none":
        iso.users = claim_users(slots)
    if level == "namespace":
        iso.hidden = ["the harness checkout (oracle solutions/, the suite tables with the held-out parameters), the "
                      "harness's installation and every run directory: not in the agent's filesystem view",
                      "other sessions' workspaces and the rest of the disk (/root, /home, /work, ...): not in its view",
                      "other processes: a private PID namespace", "/tmp, /var/tmp, /dev/shm: private"]
    elif level == "user":
        iso.hidden = ["other slots' workspaces and homes (mode 0700, another user)",
                      "files not readable by every user"]
        iso.warnings.append(f"isolation level 'user': {reason}. The agent runs as its own user but sees every "
                            "world-readable file; the protected paths it could read are listed under 'readable'")
    else:
        iso.warnings.append(f"NO ISOLATION: {reason}. The agent runs as {pwd.getpwuid(os.getuid()).pw_name} and can "
                            "read everything the harness can: the oracle solutions, the held-out parameters in the "
                            "harness's source and other runs. Verdicts of this run are not trustworthy against an "
                            "agent that looks; run as root for a jailed agent")
    return iso


def protected_paths(extra: list[Path]) -> list[Path]:
    """What an agent must not read: the checkout's solutions and sources, the package, ``extra`` (run
    directory, workspaces root)."""
    import kernelgenbench

    pkg = Path(kernelgenbench.__file__).resolve().parent
    out = [pkg]
    checkout = pkg.parents[1]
    for name in ("solutions", "src", "tests"):
        if (checkout / name).is_dir():
            out.append(checkout / name)
    return out + [p for p in extra if p.exists()]


def readable_by(user: AgentUser, paths: list[Path]) -> list[str]:
    """The paths ``user`` can read (list a folder, or open a file), probed as that user."""
    out = []
    for p in paths:
        cmd = ["/bin/ls", str(p)] if p.is_dir() else ["/usr/bin/head", "-c1", str(p)]
        try:
            r = subprocess.run(cmd, user=user.uid, group=user.gid, extra_groups=[], capture_output=True, timeout=30,
                               env={"PATH": "/usr/bin:/bin"}, cwd="/")
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            out.append(str(p))
    return out


def unreachable_by(user: AgentUser, paths: list[Path]) -> list[str]:
    """The paths ``user`` cannot reach (``test -e`` as that user fails: a folder on the way is not
    traversable). At the ``user`` level the workspace and the CLI must be reachable."""
    out = []
    for p in paths:
        try:
            r = subprocess.run(["/usr/bin/test", "-e", str(p)], user=user.uid, group=user.gid, extra_groups=[],
                               capture_output=True, timeout=30, env={"PATH": "/usr/bin:/bin"}, cwd="/")
        except (OSError, subprocess.TimeoutExpired):
            r = None
        if r is None or r.returncode != 0:
            out.append(str(p))
    return out


def session_env(launch_env: dict[str, str], home: Path, path_extra: list[str], credentials: dict[str, str],
                device_env: dict[str, str], user: AgentUser | None) -> dict[str, str]:
    """A session's whole environment: nothing of the harness's but what is named here."""
    env = dict(BASE_ENV)
    env["PATH"] = ":".join([*path_extra, *SYSTEM_PATH])
    env["HOME"] = str(home)
    name = user.name if user else pwd.getpwuid(os.getuid()).pw_name
    env["USER"] = env["LOGNAME"] = name
    env.update(device_env)
    env.update(credentials)
    env.update(launch_env)
    return env


def start(iso: Isolation, slot: int, argv: list[str], env: dict[str, str], cwd: Path, stdin: Path | None,
          stdout: IO[bytes], stderr: IO[bytes], jail_root: Path, ro: list[Path], rw: list[Path],
          hide: list[Path]) -> subprocess.Popen:
    """Start a session at the run's isolation level (its own session and process group)."""
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    try:
        if iso.level == "namespace":
            u = iso.users[slot]
            spec = {"root": str(jail_root), "uid": u.uid, "gid": u.gid, "cwd": str(cwd), "argv": argv,
                    "ro": [str(p) for p in ro], "rw": [str(p) for p in rw], "hide": [str(p) for p in hide]}
            return subprocess.Popen([sys.executable, "-I", str(JAIL)], env={**env, "KGB_JAIL_SPEC": json.dumps(spec)},
                                    cwd="/", stdin=fin, stdout=stdout, stderr=stderr, start_new_session=True)
        if iso.level == "user":
            u = iso.users[slot]
            return subprocess.Popen(argv, env=env, cwd=str(cwd), stdin=fin, stdout=stdout, stderr=stderr,
                                    start_new_session=True, user=u.uid, group=u.gid, extra_groups=[])
        return subprocess.Popen(argv, env=env, cwd=str(cwd), stdin=fin, stdout=stdout, stderr=stderr,
                                start_new_session=True)
    finally:
        if stdin:
            fin.close()  # type: ignore[union-attr]


def stop(proc: subprocess.Popen, grace_s: float = 5.0) -> None:
    """SIGTERM to the session's process group, SIGKILL after ``grace_s`` if anything is left."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
            try:
                os.killpg(proc.pid, 0)  # the leader is gone; is anything of its group left?
            except ProcessLookupError:
                return
        except subprocess.TimeoutExpired:
            continue


def kill_user(user: AgentUser | None) -> int:
    """SIGKILL every process of ``user`` (what a session left behind, e.g. a daemon that left the process
    group); returns how many were signalled."""
    if user is None or not Path("/proc").is_dir():
        return 0
    n = 0
    for _ in range(5):
        found = 0
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                if d.stat().st_uid != user.uid:
                    continue
                os.kill(int(d.name), signal.SIGKILL)
                found += 1
            except (OSError, ValueError):
                continue
        n += found
        if not found:
            break
        time.sleep(0.2)
    return n


#: Environment variable names whose values are secrets (redacted from every file a session leaves).
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL")


def secret_values(env: dict[str, str]) -> dict[str, str]:
    """The values of ``env`` that are secrets (by the variable's name; 8 characters or more)."""
    return {k: v for k, v in env.items() if any(w in k.upper() for w in SECRET_WORDS) and len(v) >= 8}


def redact(roots: list[Path], secrets: dict[str, str]) -> list[str]:
    """Mask every occurrence of the ``secrets``' values in the files under ``roots`` (links not followed),
    in place and with the same length (a database stays readable): an agent can print its own key (``env``
    in a shell tool lands in the transcript) and a CLI can write it into its state. Returns the files
    changed."""
    if not secrets:
        return []
    vals = [v.encode() for v in secrets.values()]
    changed = []
    for root in roots:
        files = [root] if root.is_file() else (root.rglob("*") if root.is_dir() else [])
        for f in files:
            try:
                if f.is_symlink() or not f.is_file():
                    continue
                data = f.read_bytes()
            except OSError:
                continue
            new = data
            for v in vals:
                if v in new:
                    new = new.replace(v, (b"KGB-REDACTED-" * (len(v) // 13 + 1))[:len(v)])
            if new != data:
                f.write_bytes(new)
                changed.append(str(f))
    return changed


def give(path: Path, user: AgentUser | None) -> None:
    """Hand a folder to the agent's user (mode 0700)."""
    if user is not None:
        os.chown(path, user.uid, user.gid)
    os.chmod(path, 0o700)


def give_tree(path: Path, user: AgentUser | None) -> None:
    """Hand a folder and everything in it (links not followed) to the agent's user; the folder itself
    becomes mode 0700."""
    if user is not None:
        for dirpath, dirnames, filenames in os.walk(path):
            for name in [*dirnames, *filenames]:
                os.lchown(os.path.join(dirpath, name), user.uid, user.gid)
    give(path, user)


def take_back(path: Path) -> None:
    """Hand a finished session's folder (recursively, links not followed) back to the harness's user, mode
    0700 at the top: no later agent (of any slot) can read it."""
    if not path.exists():
        return
    uid, gid = os.getuid(), os.getgid()
    if is_root():
        for dirpath, dirnames, filenames in os.walk(path):
            for name in [*dirnames, *filenames]:
                try:
                    os.lchown(os.path.join(dirpath, name), uid, gid)
                except OSError:
                    pass
        os.lchown(path, uid, gid)
    os.chmod(path, 0o700)
