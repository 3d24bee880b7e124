"""A fork server ("zygote"): sandbox children forked from one pre-imported, never-used interpreter
(issue 18 item 2; DESIGN.md "Execution").

A fresh sandbox child spends 1.5-3 s importing torch and Triton before it reads its submission. The fork
server pays that once per run: it is a process of its own, started like a child (``subprocess.Popen`` of
``python -m kernelgenbench.sandbox.forkserver``, never a fork of the verifier; its own session; the scrubbed
environment of :func:`~kernelgenbench.sandbox.runner.child_env` for the platform, with no device pinned),
that imports torch, triton, triton.language, numpy and the child's own modules, and then only waits for
requests. Per job the verifier sends it, over a Unix socket (``SOCK_SEQPACKET``, the descriptors as
``SCM_RIGHTS``), the child's three pipe ends (commands in, output out, answers out), its arguments (those of
``python -m kernelgenbench.sandbox.child``), its environment (exactly ``child_env(platform, device, workdir)``)
and its working directory. The server forks; the forked process becomes that job's child
(:func:`_become_child`) and the server answers with its pid, reaps it and reports its exit status, in
``Popen.returncode``'s convention (a negative number: killed by that signal).

What the forked children share with the server and each other: the modules imported before the fork (the
code of torch, Triton, numpy and the harness, as copy-on-write memory that every child may change only in
its own copy), and Python's string-hash seed. Nothing else: the server never imports a submission or an
operator family, never runs a kernel, a torch operation or a Triton compilation, never touches a device
(it never calls ``torch.cuda.is_available()``, and refuses to fork once ``torch.cuda.is_initialized()``), and
forks only while it is single-threaded (one Python thread and one OS thread), so that no lock is held and no
thread's state is half-copied. A submission's import runs in its own forked copy after the fork, so
whatever it changes (module globals, monkeypatches, the registry of torch ops, the Triton cache) dies with
that copy: the next job forks again from the untouched server.

Why a forked child equals a fresh one to the harness: everything a child reads from its environment is read after
the fork (``TRITON_CACHE_DIR`` and ``TRITON_INTERPRET`` through ``triton.knobs``, read at access time; the
visible-devices variable when CUDA initialises, which happens only in the child); the variables read at import
(``OMP_NUM_THREADS`` by torch, the platform's ``env``) are the server's own, and the server is started with the same
environment less the per-job ``TRITON_CACHE_DIR``, ``TORCHINDUCTOR_CACHE_DIR`` (Inductor reads it when it caches,
never imported by the server) and device pin, so one server serves one such environment (:func:`spawner` keys
servers by it). The child gets a new session (``os.setsid``, so a timeout kills its whole group as before), its own
descriptors only, the job's environment, working directory, ``sys.argv`` and ``sys.path[0]``, and reseeded
``random`` and ``numpy.random`` generators (a fresh process seeds them from the OS; forks would otherwise share
them).

The verifier side is :class:`ForkServer` (one server) and :class:`ForkedProc` (a Popen-like handle of one
forked child: ``pid``, ``stdin``, ``poll()``, ``wait(timeout)``, ``returncode``), used by
:class:`~kernelgenbench.sandbox.runner.Child` through ``spawn=``. When the server refuses, died or cannot
start, the job gets a fresh process as before (logged once per server): the server never fails a job.

The setting (``Settings.fork_server``, ``kgb eval --fork-server/--no-fork-server``) is on by default on every
platform (GPU platforms since session 33: :func:`enabled`).

Known limits: a child's ``atexit`` handlers do not run (it ends with ``os._exit`` after flushing its
streams); a server killed while a child runs loses that child's exit status (``poll()`` then stays None and
``wait()`` returns None once the process is gone: the runner reports "stopped answering").
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

_LOG = logging.getLogger("kernelgenbench.forkserver")

#: the most bytes of one request or reply (JSON)
_MSG_MAX = 1 << 20
#: seconds a server may take to import torch and Triton and say it is ready
START_TIMEOUT_S = 180.0
#: seconds the verifier waits for the pid of a forked child
SPAWN_TIMEOUT_S = 60.0
#: modules the server imports before it forks (none of them touches a device at import)
PREIMPORT = ("numpy", "torch", "triton", "triton.language", "kernelgenbench.sandbox.child",
             "kernelgenbench.sandbox.protocol", "kernelgenbench.sandbox.state", "kernelgenbench.sandbox.dispatch",
             "kernelgenbench.sandbox.drive", "kernelgenbench.sandbox.host_reads",
             "kernelgenbench.sandbox.interpreter", "kernelgenbench.sandbox.launch",
             "kernelgenbench.sandbox.launch_args", "kernelgenbench.sandbox.timed_loop",
             "kernelgenbench.platforms", "kernelgenbench.suite.registry", "kernelgenbench.verify.scan")


class ForkServerError(RuntimeError):
    """The fork server could not fork this child (it refused, died, or never started): use a fresh process."""


# ----------------------------------------------------------------------------------------------------------
# the server process
# ----------------------------------------------------------------------------------------------------------
def fork_refusal() -> str | None:
    """Why this process must not fork a sandbox child now (None when it may): more than one Python or OS
    thread (a lock may be held, a thread's state would be half-copied), or CUDA initialised."""
    if threading.active_count() != 1:
        return f"{threading.active_count()} Python threads"
    try:
        tasks = len(os.listdir("/proc/self/task"))
    except OSError:
        tasks = 1
    if tasks != 1:
        return f"{tasks} OS threads"
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return "CUDA is initialised"
    return None


def _send(sock: socket.socket, obj: dict[str, Any]) -> None:
    sock.send(json.dumps(obj).encode())


def serve(sock: socket.socket) -> None:
    """The server's loop: import, say ready, then fork a child per request and report exits, until the
    verifier closes its end or sends ``{"op": "exit"}``. Runs in the server process only."""
    import importlib

    for name in PREIMPORT:
        importlib.import_module(name)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: set[int] = set()

    def reap() -> None:
        for pid in list(children):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                children.discard(pid)
                continue
            if done:
                children.discard(pid)
                _send(sock, {"exit": pid, "rc": os.waitstatus_to_exitcode(status)})

    _send(sock, {"ready": True, "pid": os.getpid(), "refusal": fork_refusal()})
    while True:
        ready, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in ready:
            try:
                while os.read(wake_r, 4096):
                    pass
            except BlockingIOError:
                pass
        reap()
        if sock not in ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(sock, _MSG_MAX, 8)
        except OSError:
            break
        if not data:
            break  # the verifier is gone
        req = json.loads(data)
        if req.get("op") == "exit":
            for fd in fds:
                os.close(fd)
            break
        reply: dict[str, Any] = {"req": req.get("req")}
        try:
            refusal = fork_refusal()
            if refusal is not None:
                reply["error"] = f"refused to fork: {refusal}"
            elif len(fds) != 3:
                reply["error"] = f"expected 3 descriptors, got {len(fds)}"
            else:
                pid = os.fork()
                if pid == 0:  # the job's child: never returns
                    _become_child(req, fds, [sock.fileno(), wake_r, wake_w])
                children.add(pid)
                reply["pid"] = pid
        except Exception as exc:  # noqa: BLE001 - the verifier falls back to a fresh process
            reply["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            for fd in fds:
                os.close(fd)
        _send(sock, reply)
        reap()
    signal.set_wakeup_fd(-1)


def _place_fds(wanted: dict[int, int]) -> None:
    """Put each descriptor ``wanted[target]`` at number ``target`` and close every other descriptor."""
    top = max(wanted) + 1
    high = {t: _dup_above(fd, top) for t, fd in wanted.items()}
    for fd in set(wanted.values()):  # the copies above every target stand in for them now
        os.close(fd)
    for target, fd in high.items():
        os.dup2(fd, target)
    for fd in high.values():
        os.close(fd)
    keep = sorted(wanted)
    lo = 0
    for k in keep:
        if k > lo:
            os.closerange(lo, k)
        lo = k + 1
    os.closerange(lo, _max_fd())


def _dup_above(fd: int, low: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD, low)


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


def _become_child(req: dict[str, Any], fds: list[int], server_fds: list[int]) -> None:
    """In the forked process: become the job's sandbox child (see the module docstring) and exit with its
    status. Never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        argv = [str(a) for a in req["argv"]]
        resp_target = int(argv[argv.index("--resp-fd") + 1])
        stdin_fd, out_fd, resp_fd = fds
        for fd in server_fds:  # the server's socket and wake-up pipe: never the child's
            if fd not in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
        _place_fds({0: stdin_fd, 1: out_fd, 2: out_fd, resp_target: resp_fd})
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in req["env"].items()})
        server_cwd = os.getcwd()
        os.chdir(req["cwd"])
        if sys.path and sys.path[0] == server_cwd:  # ``python -m`` puts its working directory first
            sys.path[0] = os.getcwd()
        import random

        random.seed(os.urandom(32))
        import numpy as np

        np.random.seed(np.frombuffer(os.urandom(16), dtype=np.uint32))
        import torch

        try:
            torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
        except ValueError:
            pass
        import importlib

        # imported by the server (PREIMPORT), by name: the verifier's side of this module never imports the child
        child = importlib.import_module(__package__ + ".child")
        sys.argv = [child.__file__, *argv]
        try:
            child.main(argv)
            code = 0
        except SystemExit as exc:  # as the interpreter maps it
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code & 0xFF
            else:
                print(exc.code, file=sys.stderr)
                code = 1
    except BaseException:  # noqa: BLE001 - as an uncaught exception of a fresh process: traceback, exit 1
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001
                pass
        os._exit(code)


def main(argv: list[str] | None = None) -> None:
    """``python -m kernelgenbench.sandbox.forkserver --sock FD``: the server process (started by
    :class:`ForkServer`)."""
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--sock", type=int, required=True)
    args = ap.parse_args(argv)
    sock = socket.socket(fileno=args.sock)
    try:
        serve(sock)
    finally:
        sock.close()


# ----------------------------------------------------------------------------------------------------------
# the verifier side
# ----------------------------------------------------------------------------------------------------------
class ForkedProc:
    """A Popen-like handle of a child forked by a :class:`ForkServer`.

    Attributes:
        pid: the child's pid (also its process group and session id).
        stdin: the write end of its command pipe (binary, buffered, as ``Popen(stdin=PIPE).stdin``).
        returncode: None while it runs; its exit code, or minus the signal that killed it (as Popen).
        args: the child's arguments.
    """

    def __init__(self, server: ForkServer, pid: int, stdin: Any, args: list[str]) -> None:
        self.server = server
        self.pid = pid
        self.stdin = stdin
        self.args = args
        self.returncode: int | None = None
        self.lost = False  # the server died before it reported this child's exit: the status is unknown

    def poll(self) -> int | None:
        """The exit status once the server reported it (None while running or when it is unknown)."""
        if self.returncode is None and not self.lost:
            with self.server.cond:
                if self.pid in self.server.exits:
                    self.returncode = self.server.exits.pop(self.pid)
                elif self.server.dead and not _running(self.pid):
                    self.lost = True
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for the exit; raises ``subprocess.TimeoutExpired`` after ``timeout`` seconds. Returns None at
        once for a child whose status was lost with its server (see the module docstring)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.poll() is not None or self.lost:
                return self.returncode
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            with self.server.cond:
                if self.pid not in self.server.exits:
                    self.server.cond.wait(0.2 if left is None else min(left, 0.2))


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


class ForkServer:
    """One fork server process and its socket (the verifier's side).

    Args:
        env: the server's environment (``child_env`` of the platform, no device pinned).

    Raises:
        ForkServerError: it did not start and say ready within :data:`START_TIMEOUT_S`.
    """

    def __init__(self, env: dict[str, str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="kgb-forkserver-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.cond = threading.Condition()
        self.send_lock = threading.Lock()
        self.exits: dict[int, int] = {}
        self.replies: dict[int, dict[str, Any]] = {}
        self.dead = False
        #: the harness stopped it itself (:meth:`close`, :meth:`kill`: the end of a run, or an interrupted run's
        #: ``kill_all``): a spawn it leaves unanswered is no news (:func:`spawner` does not warn of it)
        self.stopped = False
        self.forks = 0
        self._next = 0
        env = dict(env)
        env["TRITON_CACHE_DIR"] = str(self.dir / "triton-cache")
        env["TORCHINDUCTOR_CACHE_DIR"] = str(self.dir / "inductor-cache")
        self.log_path = self.dir / "server.log"
        try:
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen([sys.executable, "-m", "kernelgenbench.sandbox.forkserver", "--sock",
                                              str(theirs.fileno())], stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT, cwd=self.dir, env=env,
                                             pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        try:
            ready, _, _ = select.select([ours], [], [], START_TIMEOUT_S)
            hello = json.loads(ours.recv(_MSG_MAX) or b"{}") if ready else {}
        except (OSError, ValueError):
            hello = {}
        if not hello.get("ready"):
            self.close()
            raise ForkServerError(f"the fork server did not start: {self.log_tail()}")
        if hello.get("refusal"):
            self.close()
            raise ForkServerError(f"the fork server cannot fork: {hello['refusal']}")
        self.pid = int(hello["pid"])
        self._reader = threading.Thread(target=self._read, name="kgb-forkserver", daemon=True)
        self._reader.start()

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-1500:] or "(no output)"
        except OSError:
            return "(no log)"

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(_MSG_MAX)
            except OSError:
                data = b""
            if not data:
                break
            try:
                msg = json.loads(data)
            except ValueError:
                continue
            with self.cond:
                if "exit" in msg:
                    self.exits[int(msg["exit"])] = int(msg["rc"])
                elif msg.get("req") is not None:
                    self.replies[int(msg["req"])] = msg
                self.cond.notify_all()
        with self.cond:
            self.dead = True
            self.cond.notify_all()

    @property
    def alive(self) -> bool:
        return not self.dead and self.proc.poll() is None

    def spawn(self, argv: list[str], env: dict[str, str], cwd: Path, stdin_r: int, out_w: int,
              resp_w: int) -> tuple[int, float]:
        """Ask the server to fork a child; returns ``(pid, seconds the request took)``. The descriptors stay
        the caller's to close.

        Raises:
            ForkServerError: it refused, died, or gave no pid within :data:`SPAWN_TIMEOUT_S`.
        """
        t0 = time.monotonic()
        if not self.alive:
            raise ForkServerError("the fork server is not running")
        with self.cond:
            self._next += 1
            req = self._next
        payload = json.dumps({"op": "spawn", "req": req, "argv": argv, "env": env, "cwd": str(cwd)}).encode()
        try:
            with self.send_lock:
                socket.send_fds(self.sock, [payload], [stdin_r, out_w, resp_w])
        except OSError as exc:
            raise ForkServerError(f"the fork server is gone ({exc})") from exc
        deadline = t0 + SPAWN_TIMEOUT_S
        with self.cond:
            while req not in self.replies and not self.dead and time.monotonic() < deadline:
                self.cond.wait(min(1.0, max(0.0, deadline - time.monotonic())))
            reply = self.replies.pop(req, None)
        if reply is None:
            raise ForkServerError("the fork server gave no answer" + (" (it died)" if self.dead else ""))
        if "pid" not in reply:
            raise ForkServerError(str(reply.get("error", "no pid")))
        self.forks += 1
        return int(reply["pid"]), time.monotonic() - t0

    def close(self) -> None:
        """Stop the server (its forked children are not touched: each job kills its own)."""
        self.stopped = True
        try:
            with self.send_lock:
                self.sock.send(json.dumps({"op": "exit"}).encode())
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
        except AttributeError:
            pass
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def kill(self) -> None:
        """Kill the server at once (an interrupted run)."""
        self.stopped = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):
            pass
        try:
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, AttributeError):
            pass


# ----------------------------------------------------------------------------------------------------------
# servers of this process: one per environment, started lazily once per run (shutdown_all ends the run)
# ----------------------------------------------------------------------------------------------------------
_SERVERS: dict[tuple, ForkServer] = {}
_STARTED: set[tuple] = set()
_WARNED: set[tuple] = set()
_LOCK = threading.Lock()
#: children forked by a server, and jobs that asked for one but got a fresh process (this process, all runs)
STATS = {"forks": 0, "fallbacks": 0}


def server_env(platform: Any) -> dict[str, str]:
    """The environment of ``platform``'s fork server: a child's (``child_env``) with no device pinned."""
    from .runner import child_env

    env = child_env(platform, None, Path(tempfile.gettempdir()))
    if platform.visible_devices_var:
        env.pop(platform.visible_devices_var, None)
    return env


def _key(env: dict[str, str], platform: Any) -> tuple:
    skip = {"TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", platform.visible_devices_var}
    return tuple(sorted((k, v) for k, v in env.items() if k not in skip))


def enabled(platform: Any, setting: bool | None) -> bool:
    """Whether jobs on ``platform`` fork their children from a server: ``setting`` when given; by default (None) on
    every platform. GPU platforms were off until session 33: an H100's held-out run spent 926 s of its 3170 s of job
    wall (29%) starting fresh children (``import_s``, 3fe7849), and the server falls back to a fresh process wherever
    it cannot fork (a CUDA-initialised server never forks), so the gate's held-out run and GPU tests judge it."""
    if setting is not None:
        return bool(setting)
    return True


def _warn_once(key: tuple, text: str) -> None:
    with _LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    _LOG.warning("kgb: %s; sandbox children start as fresh processes instead", text)


def get_server(platform: Any, env: dict[str, str]) -> ForkServer | None:
    """The running server for the job environment ``env``, started on first use; None when there is none:
    it did not start, or it died (it is not restarted before the run ends: :func:`shutdown_all`), or ``env``
    is not the platform's (both logged once)."""
    key = _key(env, platform)
    err: str | None = None
    with _LOCK:
        server = _SERVERS.get(key)
        if server is not None and server.alive:
            return server
        if server is not None:
            err = f"the fork server (pid {server.proc.pid}) died: {server.log_tail()}"
        elif key not in _STARTED:
            _STARTED.add(key)
            senv = server_env(platform)
            if _key(senv, platform) != key:
                err = "the job's environment is not the platform's"
            else:
                try:
                    server = ForkServer(senv)
                except (ForkServerError, OSError) as exc:
                    err = str(exc)
                else:
                    _SERVERS[key] = server
                    return server
    if err is not None:
        _warn_once(key, err)
    return None


def spawner(platform: Any, setting: bool | None) -> Any:
    """The ``spawn`` of :class:`~kernelgenbench.sandbox.runner.Child` for ``platform`` (None when the fork server
    is off): ``spawn(argv, env, cwd, stdin_r, out_w, resp_w)`` returns a :class:`ForkedProc` without its stdin,
    or None when the job must start a fresh process (the server refused, died, or did not start)."""
    if not enabled(platform, setting):
        return None

    def spawn(argv: list[str], env: dict[str, str], cwd: Path, stdin_r: int, out_w: int, resp_w: int) -> Any:
        server = get_server(platform, env)
        pid = None
        if server is not None:
            try:
                pid, _ = server.spawn(argv, env, cwd, stdin_r, out_w, resp_w)
            except ForkServerError as exc:
                if not server.stopped:  # stopped by the run itself (Ctrl-C: kill_all), it did not die (fresh44)
                    _warn_once(_key(env, platform) + ("spawn",), str(exc))
        with _LOCK:
            STATS["forks" if pid is not None else "fallbacks"] += 1
        return None if pid is None else ForkedProc(server, pid, None, argv)

    return spawn


def shutdown_all(kill: bool = False) -> int:
    """Stop every server of this process (the end of a run; ``kill``: at once, an interrupted run). Returns
    how many were stopped. The next job starts a new one."""
    with _LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
        _STARTED.clear()
        _WARNED.clear()
    for server in servers:
        if kill:
            server.kill()
        server.close()
    return len(servers)


atexit.register(shutdown_all)


if __name__ == "__main__":
    main()
