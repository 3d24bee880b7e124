"""The agent's jail: run one command as an unprivileged user in a private filesystem view (stdlib only).

Run by the harness as root, as a script (``python -I jail.py``), with the jail's description in the
environment variable ``KGB_JAIL_SPEC`` (JSON, no secrets: the command's own environment is this process's
environment, minus that variable, so API keys never touch the disk). What it does, in order:

1. ``unshare(CLONE_NEWNS | CLONE_NEWPID)``: a private mount namespace (nothing mounted here is seen
   outside) and a new PID namespace, whose first process is forked next.
2. In that process (PID 1 of the namespace, still root): an empty tmpfs at ``root`` becomes the new ``/``.
   Only these appear in it: the system directories (``/usr``, ``/bin``, ``/lib*``, ``/sbin``, ``/etc``,
   read-only), ``/dev`` (with a private ``/dev/shm``), a fresh ``/proc`` of the new PID namespace (the
   agent sees its own processes only), ``/sys`` read-only, a private ``/tmp``, the ``ro`` paths
   read-only (the agent CLI's install, the Python the agent may use) and the ``rw`` paths writable (the
   workspace, the agent's home, the self-check socket's folder), each at its own absolute path; the
   ``hide`` paths (inside an exposed one) are covered by an empty read-only tmpfs. Everything else on the
   machine -- the harness checkout with its oracle solutions and suite tables (held-out parameters), its
   installation, run directories, other agents' workspaces, ``/root``, ``/home``, ``/work`` -- does not
   exist in this view. Then ``chroot`` into it.
3. PID 1 forks the command: supplementary groups dropped, ``setgid``/``setuid`` to the agent's user,
   ``PR_SET_NO_NEW_PRIVS`` (no set-uid binary can raise it again), ``chdir`` to ``cwd``, ``execve``.
   PID 1 reaps orphans and exits with the command's status when the command exits; the kernel then
   kills whatever the command left running in the namespace.
4. The outer process forwards SIGTERM/SIGINT/SIGHUP to PID 1 (which forwards them to every process of
   the namespace) and exits with the same status. SIGKILL of the outer process group (the harness's
   budget) also kills PID 1, and with it the whole namespace.

Exit statuses of its own: 125 when the jail could not be set up (the reason on stderr, one line starting
``kgb-jail:``), 127 when the command could not be executed.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1

#: Top-level system directories shared read-only with the agent (those that exist; symlinks such as
#: ``/bin -> usr/bin`` are recreated as symlinks).
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc")

_libc = ctypes.CDLL(None, use_errno=True)


class JailError(RuntimeError):
    pass


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise JailError(f"{what}: {os.strerror(err)} (errno {err})")


def _mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(src.encode() if src else None, dst.encode(), fstype.encode() if fstype else None,
                       ctypes.c_ulong(flags), data.encode() if data else None), f"mount {src or fstype} on {dst}")


def _bind(src: str, dst: str, readonly: bool) -> None:
    _mount(src, dst, None, MS_BIND | MS_REC)
    if readonly:
        _mount(None, dst, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)


def _target(root: str, path: str) -> str:
    return os.path.join(root, path.lstrip("/"))


def _make_point(root: str, src: str) -> str:
    """Create the mount point of ``src`` inside the new root (a directory, or an empty file for a file)."""
    dst = _target(root, src)
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            open(dst, "w").close()
    return dst


def build_root(spec: dict) -> None:
    """Mount the new root's view (step 2 of the module docstring), before ``chroot``."""
    root = spec["root"]
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m")
    for name in SYSTEM_DIRS:
        src = "/" + name
        if os.path.islink(src):
            os.symlink(os.readlink(src), _target(root, src))
        elif os.path.isdir(src):
            os.makedirs(_target(root, src))
            _bind(src, _target(root, src), readonly=True)
    os.makedirs(_target(root, "/dev"))
    _bind("/dev", _target(root, "/dev"), readonly=False)
    if os.path.isdir(_target(root, "/dev/shm")):
        _mount("tmpfs", _target(root, "/dev/shm"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=1g")
    os.makedirs(_target(root, "/proc"))
    _mount("proc", _target(root, "/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if os.path.isdir("/sys"):
        os.makedirs(_target(root, "/sys"))
        _bind("/sys", _target(root, "/sys"), readonly=True)
    for t in ("/tmp", "/var/tmp"):
        os.makedirs(_target(root, t), exist_ok=True)
        _mount("tmpfs", _target(root, t), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=4g")
    for src in spec.get("ro", []):
        if os.path.exists(src):
            _bind(src, _make_point(root, src), readonly=True)
    for src in spec.get("rw", []):
        _bind(src, _make_point(root, src), readonly=False)
    for path in spec.get("hide", []):
        dst = _target(root, path)
        if os.path.isdir(dst):
            _mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "mode=0755,size=4k")
        elif os.path.exists(dst):
            _bind("/dev/null", dst, readonly=True)
    # the new root itself: read-only (its directories are only mount points)
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755")


def _become(spec: dict) -> None:
    """Drop to the agent's user (step 3), then exec the command; never returns."""
    try:
        os.setgroups([])
        os.setgid(int(spec["gid"]))
        os.setuid(int(spec["uid"]))
        _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        os.chdir(spec["cwd"])
    except OSError as exc:
        print(f"kgb-jail: cannot become uid {spec['uid']}: {exc}", file=sys.stderr, flush=True)
        os._exit(125)
    argv = spec["argv"]
    try:
        os.execvpe(argv[0], argv, dict(os.environ))
    except OSError as exc:
        print(f"kgb-jail: cannot execute {argv[0]}: {exc}", file=sys.stderr, flush=True)
        os._exit(127)


def _status(status: int) -> int:
    return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8


def _init(spec: dict) -> None:
    """PID 1 of the new PID namespace; never returns."""
    try:
        build_root(spec)
        os.chroot(spec["root"])
        os.chdir("/")
    except (JailError, OSError) as exc:
        print(f"kgb-jail: cannot build the agent's filesystem view: {exc}", file=sys.stderr, flush=True)
        os._exit(125)
    child = os.fork()
    if child == 0:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        _become(spec)

    def forward(sig: int, _frame: object) -> None:
        try:
            os.kill(-1, sig)  # every other process of the namespace
        except OSError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    code = 1
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            code = _status(status)
            break
    os._exit(code if code >= 0 else 128 - code)


def main() -> None:
    spec = json.loads(os.environ.pop("KGB_JAIL_SPEC"))
    try:
        _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID), "unshare(CLONE_NEWNS | CLONE_NEWPID)")
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
    except JailError as exc:
        print(f"kgb-jail: {exc}", file=sys.stderr, flush=True)
        sys.exit(125)
    if spec.get("probe"):
        sys.exit(0)
    pid = os.fork()
    if pid == 0:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the outer process gone: the namespace goes
        _init(spec)

    def forward(sig: int, _frame: object) -> None:
        try:
            os.kill(pid, sig)
        except OSError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = _status(status)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
