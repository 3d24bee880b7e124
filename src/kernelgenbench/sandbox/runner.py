"""Start, talk to and kill the untrusted child (DESIGN.md "Execution").

Each child is a fresh process (``subprocess.Popen``, never a fork of the verifier), or, with ``spawn``, a
fork of the fork server's clean pre-imported interpreter (``sandbox/forkserver.py``; a fresh process whenever
the server cannot fork), in its own process group and session, with its own working directory and
``TRITON_CACHE_DIR``, a scrubbed environment (no API keys or tokens), pinned visible devices, and
stdout/stderr in a log file. Timeouts kill the whole process group.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable

from .protocol import ExitCommand, Progress

#: Environment variables a child may inherit (everything else is dropped: keys never reach it).
_ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "CUDA_HOME",
             "LD_LIBRARY_PATH", "CUDA_DEVICE_ORDER", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
             "NVSHMEM_DISABLE_NVLS",
             # the interpreter's GPU compile check: its off switch and measurement (sandbox/gpu_compile.py ENV_SETTINGS)
             "KGB_GPU_COMPILE_CHECK", "KGB_GPU_COMPILE_LOG", "KGB_GPU_COMPILE_FULL")


#: children started and not yet closed (for :func:`kill_all`, on an interrupted run)
_LIVE: "weakref.WeakSet[Child]" = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


def kill_all() -> int:
    """Kill the process group of every live child (an interrupted run: the children are in their own
    sessions, so Ctrl-C does not reach them). Returns how many were killed."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for child in live:
        child.kill()
    forkserver = sys.modules.get(__package__ + ".forkserver")
    if forkserver is not None:  # the fork servers of the run: nothing more to fork
        forkserver.shutdown_all(kill=True)
    return len(live)


class ChildDied(RuntimeError):
    """The child exited (or was killed) before answering."""

    def __init__(self, message: str, returncode: int | None) -> None:
        super().__init__(message)
        self.returncode = returncode


class ChildTimeout(RuntimeError):
    """The child did not answer within the time limit (it has been killed).

    Attributes:
        progress: on the interpreter, the progress counters the child published (``launches``,
            ``programs``, ``scan_steps``, ``grid``: see ``interpreter.install_interpreter_progress``) when it was
            killed, and ``idle_s``, the seconds they had not changed before the kill (None when they never
            changed during the wait): a :class:`~kernelgenbench.sandbox.protocol.Progress`; None when the
            child publishes none.
    """

    def __init__(self, message: str, progress: Progress | None = None) -> None:
        super().__init__(message)
        self.progress = progress


def child_env(platform: Any, device_index: int | None, workdir: Path) -> dict[str, str]:
    """The scrubbed environment of a child pinned to ``device_index`` (this process's numbering of its devices:
    :func:`~kernelgenbench.platforms.visible_device`), or, for the interpreter under a vendor profile
    (``--as-profile``), to that vendor's device 0.

    Raises:
        ValueError: ``device_index`` is past the devices this process sees.
    """
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP}
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["TRITON_CACHE_DIR"] = str(workdir / "triton-cache")
    # Inductor's caches (the compiled vLLM baselines' FX graphs and autotuning) per job too: by default they live in
    # one directory of the machine (/tmp/torchinductor_<user>), shared by every job and run, where a submission that
    # wrote a cache entry would choose what another case's baseline runs
    env["TORCHINDUCTOR_CACHE_DIR"] = str(workdir / "inductor-cache")
    # dynamo collects the young generations after every compile (torch._dynamo.config.run_gc_after_compile), outside
    # the child's guard (sandbox/collector.py): finalizers of the submission's garbage would run there unrecorded.
    # Off; the child collects, guarded, after making a compiled baseline (sandbox/child.py make_baseline). (Red team
    # 34: none ran there on CPython 3.11/3.12, where a command's guarded collection leaves no young garbage of the
    # submission's before the compile, but on 3.14 a generation-1 collection also scans an increment of the old
    # generation, where collector.collect_command now leaves garbage for up to FULL_EVERY commands.)
    env["TORCH_DYNAMO_RUN_GC_AFTER_COMPILE"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["OMP_NUM_THREADS"] = env.get("OMP_NUM_THREADS", "1")
    env.update(platform.env)
    if platform.visible_devices_var and device_index is not None:
        # this process's device ``device_index``, also where it sees only some devices (a Ray task's GPU)
        from ..platforms import visible_device

        env[platform.visible_devices_var] = visible_device(platform, device_index)
    elif platform.visible_devices_var and getattr(platform, "profile", None):
        # the interpreter under a vendor profile (--as-profile): pinned as to that vendor's device 0
        env[platform.visible_devices_var] = "0"
    return env


#: Default cap on what one job's sandbox processes may write to its log (bytes): the first part is kept
#: as written, the rest dropped except a tail of :data:`LOG_TAIL_BYTES` (the error that ended the run).
LOG_LIMIT_BYTES = 4 << 20
LOG_TAIL_BYTES = 64 << 10


class LogPump:
    """Copies a child's stdout/stderr (a pipe) into the job's log file, bounded (DESIGN.md "Execution").

    Runs in the trusted verifier, on a thread: the first ``limit`` bytes are written as they come; past
    that, output is read and dropped, keeping only the last :data:`LOG_TAIL_BYTES`, which are written
    after a marker line when the pipe closes (the child exited or was killed). A submission that prints
    without end therefore costs disk space only up to the cap and never blocks on a full pipe.

    Attributes:
        total: bytes the child wrote.
        dropped: bytes not kept (neither in the head nor in the tail).
    """

    def __init__(self, fd: int, path: Path, limit: int) -> None:
        self.fd = fd
        self.path = path
        self.limit = max(0, int(limit))
        self.total = 0
        self.dropped = 0
        self._tail = bytearray()
        self._thread = threading.Thread(target=self._run, name=f"kgb-log-{path.parent.name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with open(self.path, "ab") as log:
            while True:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                keep = max(0, min(len(chunk), self.limit - self.total))
                if keep:
                    log.write(chunk[:keep])
                    log.flush()
                rest = chunk[keep:]
                self.total += len(chunk)
                if rest:
                    self._tail += rest
                    if len(self._tail) > LOG_TAIL_BYTES:
                        self.dropped += len(self._tail) - LOG_TAIL_BYTES
                        del self._tail[:len(self._tail) - LOG_TAIL_BYTES]
            if self._tail:
                log.write(f"\n===== kgb: the sandbox wrote {self.total} bytes; the job's log keeps the first "
                          f"{self.limit} and the last {len(self._tail)} ({self.dropped} dropped) =====\n".encode())
                log.write(bytes(self._tail))
        try:
            os.close(self.fd)
        except OSError:
            pass

    def finish(self, timeout: float = 10.0) -> None:
        """Wait until the pipe is drained and the log written (the child has exited)."""
        self._thread.join(timeout)

    @property
    def truncated(self) -> bool:
        return self.total > self.limit


class Child:
    """One sandbox child process and its JSON-lines channel.

    Args:
        log_limit: bytes of its output kept in ``log_path`` (see :class:`LogPump`).
        spawn: None for a fresh process; else ``spawn(argv, env, cwd, stdin_r, out_w, resp_w)`` (the fork
            server's, ``forkserver.spawner``), which starts the child with the arguments of
            ``python -m kernelgenbench.sandbox.child``, that environment and working directory, and those
            descriptors as its stdin, stdout/stderr and answer channel, and returns a Popen-like handle
            (``pid``, ``poll``, ``wait``; ``stdin`` is set here), or None: then a fresh process starts.

    Attributes:
        forked: whether the child was forked by the fork server.
    """

    def __init__(self, op_id: str, submission: Path, platform: Any, device_index: int | None,
                 workdir: Path, log_path: Path, log_limit: int = LOG_LIMIT_BYTES,
                 spawn: Callable[..., Any] | None = None) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "cwd").mkdir(exist_ok=True)
        from ..suite.registry import defining_module

        try:  # the child imports only the family that defines the operator
            module = ["--op-module", defining_module(op_id)]
        except KeyError:
            module = []  # not a registered id: the child's registry lookup reports it
        rfd, wfd = os.pipe()
        out_r, out_w = os.pipe()
        cmd = [sys.executable, "-m", "kernelgenbench.sandbox.child", "--op", op_id, *module,
               "--submission", str(submission.resolve()), "--platform", platform.name, "--resp-fd", str(wfd)]
        #: the interpreter's progress counters (sandbox/interpreter.py install_interpreter_progress), read while waiting
        self.progress_path: Path | None = workdir / "progress" if getattr(platform, "interpreter", False) else None
        if self.progress_path is not None:
            self.progress_path.unlink(missing_ok=True)
            cmd += ["--progress", str(self.progress_path)]
        env = child_env(platform, device_index, workdir)
        self.forked = False
        try:
            proc = self._forked(spawn, cmd[3:], env, workdir / "cwd", out_w, wfd) if spawn is not None else None
            if proc is None:
                proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out_w, stderr=subprocess.STDOUT,
                                        cwd=workdir / "cwd", env=env, pass_fds=(wfd,), start_new_session=True)
            self.proc = proc
        finally:
            os.close(wfd)
            os.close(out_w)
        self.log = LogPump(out_r, log_path, log_limit)
        self.resp = os.fdopen(rfd, "r")
        self.buf = ""
        self.started = time.monotonic()
        with _LIVE_LOCK:
            _LIVE.add(self)

    def _forked(self, spawn: Callable[..., Any], argv: list[str], env: dict[str, str], cwd: Path, out_w: int,
                resp_w: int) -> Any:
        """The child forked by ``spawn`` with a new command pipe, or None (a fresh process starts instead: the
        fork server never fails a job)."""
        in_r, in_w = os.pipe()
        try:
            proc = spawn(argv, env, cwd, in_r, out_w, resp_w)
        except Exception:  # noqa: BLE001 - a fork server's failure is never the job's
            proc = None
        finally:
            os.close(in_r)
        if proc is None:
            os.close(in_w)
            return None
        proc.stdin = os.fdopen(in_w, "wb")
        self.forked = True
        return proc

    def send(self, msg: dict[str, Any]) -> None:
        """Send one command (a JSON object: ``sandbox/protocol.py``'s ``to_json``)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ChildDied(f"the sandbox process is gone ({exc})", self.proc.poll()) from exc

    def read_progress(self) -> tuple[int, ...] | None:
        """The interpreter's progress counters as the child last published them (None when there are none)."""
        if self.progress_path is None:
            return None
        try:
            with open(self.progress_path, "rb") as f:
                raw = f.read(32)
        except OSError:
            return None
        if len(raw) < 32:
            return None
        import struct

        return struct.unpack("<4q", raw)

    def recv(self, timeout: float) -> dict[str, Any]:
        """The next message as a JSON object (``sandbox/protocol.py`` ``parse_answer`` types it); raises
        :class:`ChildTimeout` (after killing) or :class:`ChildDied`."""
        deadline = time.monotonic() + timeout
        fd = self.resp.fileno()
        seen = self.read_progress()
        changed_at: float | None = None
        while "\n" not in self.buf:
            now = time.monotonic()
            left = deadline - now
            cur = self.read_progress()
            if cur is not None and cur != seen:
                seen, changed_at = cur, now
            if left <= 0:
                self.dump_stacks()
                self.kill()
                progress = None
                if seen is not None:
                    progress = Progress(*seen, idle_s=None if changed_at is None else round(now - changed_at, 1))
                raise ChildTimeout(f"no answer within {timeout:.0f} s", progress)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    rc = self.proc.wait(timeout=30)
                    raise ChildDied(_exit_text(rc), rc)
                self.buf += chunk.decode(errors="replace")
        line, self.buf = self.buf.split("\n", 1)
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as exc:
            self.kill()
            raise ChildDied(f"the sandbox process sent a malformed message ({exc})", None) from exc
        if not isinstance(msg, dict):
            self.kill()
            raise ChildDied("the sandbox process sent a malformed message", None)
        return msg

    def dump_stacks(self, wait_s: float = 0.5) -> None:
        """Ask a child that timed out for its Python stacks (SIGUSR1: ``faulthandler`` writes every thread's
        stack to its stderr, the job's log), and give it ``wait_s`` to write them."""
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGUSR1)
                time.sleep(wait_s)
            except (ProcessLookupError, PermissionError):
                pass

    def kill(self) -> None:
        """Kill the child's whole process group."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        else:  # the leader exited; sweep anything it left in its group
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.send(ExitCommand().to_json())
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        except ChildDied:
            pass
        finally:
            self.kill()
            with _LIVE_LOCK:
                _LIVE.discard(self)
            self.resp.close()
            self.log.finish()
            if self.proc.stdin:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass


def _exit_text(rc: int | None) -> str:
    if rc is None:
        return "the sandbox process stopped answering"
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        return f"the sandbox process was killed by signal {name}"
    return f"the sandbox process exited with code {rc}"


def health_probe(platform: Any, device_index: int | None, timeout: float = 120.0) -> tuple[bool, str]:
    """Run a tiny device computation in a fresh process pinned to ``device_index``.

    Returns:
        ``(healthy, message)``. On the interpreter the probe runs a one-element Triton-free torch op.
    """
    code = ("import torch,sys\n"
            f"d = {platform.device!r}\n"
            "x = torch.arange(1024, dtype=torch.float32, device=d if d != 'cpu' else 'cpu')\n"
            "s = float(x.sum()); assert s == 523776.0, s\n"
            "print('ok')\n")
    env = child_env(platform, device_index, Path(os.environ.get("TMPDIR", "/tmp")))
    try:
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=timeout,
                             text=True)
    except subprocess.TimeoutExpired:
        return False, f"health probe timed out after {timeout:.0f} s"
    if res.returncode != 0 or "ok" not in res.stdout:
        return False, f"health probe failed: {(res.stderr or res.stdout)[-500:]}"
    return True, "ok"
