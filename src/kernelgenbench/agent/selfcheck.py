"""The agent's self-check: ``./check [FILE] [--tier smoke|full]`` in the workspace, and ``kgb check``.

The workspace's ``check`` is a small stdlib client (:data:`CLIENT`, any ``python3``): it reads the file
*itself*, with the agent's own permissions, and sends its bytes over a Unix socket to
:class:`CheckServer`, a thread of the harness process. The server writes them into the run directory
and judges them with :func:`kernelgenbench.evaluate_file` -- the pipeline of ``kgb eval``, anti-hack tiers
included -- on the tier asked for, which must be one of the run's check tiers (``SHOWN_TIERS``: smoke or
full, never held-out), then answers with the text of :func:`format_check`: the verdict, the first failure
in full (its case and message), and on GPUs the speedup. The agent never needs the harness's code, its
checkout or its run directory; the server never opens a path the agent names (a symlink in the
workspace cannot make it read a file the agent cannot).

Every call is counted and logged (``agents/<op>/checks.jsonl``: time, tier, the file's sha256, verdict,
failure class, first failing case, wall time; each checked file under ``agents/<op>/checks/<n>/``).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..suite.tiers import SHOWN_TIERS, tier_name, tier_parts

#: The socket's file name inside its folder (the client connects from inside the folder: socket paths are
#: limited to 107 bytes, workspace paths are not).
SOCKET_NAME = "check.sock"
#: The largest file a self-check accepts (bytes).
MAX_FILE = 4 << 20

CLIENT = r'''#!/usr/bin/env python3
"""Self-check of {op_id}: judge a file on the smoke or full tier (never held-out).

    ./check [FILE] [--tier {tiers_bar}]     (FILE defaults to {filename}; --tier defaults to {default_tier})

Prints the verdict, the first failing case with its message{gpu_note}. Exit status 0 when every case
passed, 1 when one failed, 3 when no case can be judged on this platform, 2 on a usage error.
Every call is counted. The grade runs every tier (smoke, full and held-out cases).
"""
import base64, json, os, socket, sys

SOCKET_DIR = {sock_dir!r}
DEFAULT_FILE = {filename!r}
TIERS = {tiers!r}


def main():
    args, tier, files = sys.argv[1:], TIERS[0], []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a == "--tier" and args:
            tier = args.pop(0)
        elif a.startswith("--tier="):
            tier = a.split("=", 1)[1]
        elif a.startswith("-"):
            print("check: unknown option %s (./check --help)" % a, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if tier not in TIERS:
        print("check: --tier must be one of %s (the held-out tier is never shown)" % ", ".join(TIERS), file=sys.stderr)
        return 2
    if len(files) > 1:
        print("check: one file at a time", file=sys.stderr)
        return 2
    path = files[0] if files else DEFAULT_FILE
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        print("check: cannot read %s: %s" % (path, exc), file=sys.stderr)
        return 2
    req = {{"tier": tier, "file": os.path.basename(path), "content": base64.b64encode(data).decode()}}
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cwd = os.getcwd()
    try:
        os.chdir(SOCKET_DIR)
        s.connect({socket_name!r})
    except OSError as exc:
        print("check: the self-check service is not reachable (%s)" % exc, file=sys.stderr)
        return 2
    finally:
        os.chdir(cwd)
    s.sendall(json.dumps(req).encode() + b"\n")
    s.shutdown(socket.SHUT_WR)
    chunks = []
    while True:
        b = s.recv(65536)
        if not b:
            break
        chunks.append(b)
    try:
        resp = json.loads(b"".join(chunks) or b"{{}}")
    except ValueError:
        print("check: malformed answer from the self-check service", file=sys.stderr)
        return 2
    sys.stdout.write(resp.get("text", ""))
    sys.stdout.flush()
    return int(resp.get("code", 2))


if __name__ == "__main__":
    sys.exit(main())
'''


def check_tiers(spec: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The tiers a self-check may run: a comma list (or sequence) of :data:`SHOWN_TIERS`, in order.

    Raises:
        ValueError: a tier that is not shown (``heldout``, ``all``) or an unknown one.
    """
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for n in (x.strip() for x in names):
        if n not in SHOWN_TIERS:
            raise ValueError(f"self-check tier {n!r}: a self-check runs {' or '.join(SHOWN_TIERS)} only (the "
                             f"held-out tier is never shown to an agent)")
        if n not in out:
            out.append(n)
    if not out:
        raise ValueError("no self-check tier given")
    return tuple(t for t in SHOWN_TIERS if t in out)


def client_script(op_id: str, filename: str, sock_dir: Path, tiers: tuple[str, ...], gpu: bool) -> str:
    """The workspace's ``check`` program."""
    return CLIENT.format(op_id=op_id, filename=filename, sock_dir=str(sock_dir), tiers=list(tiers),
                         tiers_bar="|".join(tiers), default_tier=tiers[0], socket_name=SOCKET_NAME,
                         gpu_note=" and, on GPUs, the speedup (full tier)" if gpu else "")


def format_check(rec: dict[str, Any], tier: str, filename: str, platform: str,
                 number: int | None = None) -> tuple[str, int]:
    """The text a self-check prints for a record of ``evaluate_file`` and its exit status (0 passed,
    1 failed, 3 unsupported): the verdict with case counts, the first failure in full (case id,
    parameters, message), the speedup when timed."""
    from ..console import failure_lines
    from ..suite.spec import describe_params  # as show, eval, repro and summary write a case

    head = f"self-check{f' #{number}' if number else ''} of {filename} on the {tier} tier ({platform})"
    status = rec.get("status")
    counts = f"{rec.get('cases_passed', 0)} of {rec.get('cases_total', 0)} cases passed"
    if rec.get("cases_unsupported"):
        counts += f", {rec['cases_unsupported']} not judged on this platform (unsupported, not a failure)"
    lines = [head]
    if status == "passed":
        lines.append(f"verdict: PASSED ({counts})")
        code = 0
    elif status == "unsupported":
        lines.append(f"verdict: UNSUPPORTED: no case of this tier can be judged on this platform "
                     f"({rec.get('unsupported_reason') or 'see the platform notes'})")
        code = 3
    else:
        lines.append(f"verdict: FAILED [{rec.get('failure_class')}] ({counts})")
        ff = rec.get("first_failure") or {}
        if ff.get("case_id"):
            case = ff.get("case")
            params = describe_params(case) if isinstance(case, dict) else ""
            lines.append(f"first failing case: {ff['case_id']}" + (f" ({params})" if params else ""))
        msg = failure_lines(rec)
        if msg:
            lines.append("message:")
            lines += ["  " + m for m in msg]
        code = 1
    if rec.get("speedup"):
        lines.append(f"speedup: {rec['speedup']:.3f}x over the production baseline (geometric mean over the timed "
                     f"cases)" + (f", {rec['sol_pct']:.1f}% of speed-of-light" if rec.get("sol_pct") else ""))
    lines.append("the grade runs every tier (smoke, full and held-out cases); a self-check shows "
                 f"{' and '.join(SHOWN_TIERS)} only")
    return "\n".join(lines) + "\n", code


class CheckServer:
    """Serves one agent session's self-checks (one at a time) until :meth:`close`.

    Args:
        op_id: the operator.
        filename: the operator's submission file name.
        sock_dir: the folder of the socket (reachable by the agent only).
        store: where checked files, job folders and ``checks.jsonl`` go (the run directory's
            ``agents/<op>/``, never readable by the agent).
        tiers: the tiers a check may run (:func:`check_tiers`).
        judge: ``judge(path, tier, workdir, label) -> record``, i.e. :func:`kernelgenbench.evaluate_file`
            with the run's platform, settings and device bound.
        platform: the platform's name (for the text).
        owner: ``(uid, gid)`` to give the socket's folder (the agent's user), or None.
    """

    def __init__(self, op_id: str, filename: str, sock_dir: Path, store: Path, tiers: tuple[str, ...],
                 judge: Callable[[Path, str, Path, str], dict[str, Any]], platform: str,
                 owner: tuple[int, int] | None = None) -> None:
        self.op_id, self.filename, self.sock_dir, self.store = op_id, filename, sock_dir, store
        self.tiers, self.judge, self.platform = tiers, judge, platform
        self.count = 0
        self.log = store / "checks.jsonl"
        self._stop = threading.Event()
        self._busy = threading.Lock()
        sock_dir.mkdir(parents=True, exist_ok=True)
        (sock_dir / SOCKET_NAME).unlink(missing_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        fd = os.open(sock_dir, os.O_RDONLY | os.O_DIRECTORY)
        try:  # bound through the folder's descriptor: the full path may pass the 107-byte limit
            self.sock.bind(f"/proc/self/fd/{fd}/{SOCKET_NAME}")
        finally:
            os.close(fd)
        os.chmod(sock_dir / SOCKET_NAME, 0o666)  # the folder (mode 0700, the agent's) is the lock
        if owner is not None:
            os.chown(sock_dir, *owner)
            os.chmod(sock_dir, 0o700)
        self.sock.listen(4)
        self.sock.settimeout(0.5)
        self.thread = threading.Thread(target=self._serve, daemon=True, name=f"check-{op_id}")
        self.thread.start()

    def close(self, wait_s: float = 900.0) -> None:
        """Stop taking checks; wait (up to ``wait_s``) for one in progress to finish."""
        self._stop.set()
        self.thread.join(timeout=wait_s)
        try:
            self.sock.close()
        except OSError:
            pass
        (self.sock_dir / SOCKET_NAME).unlink(missing_ok=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(60)
                try:
                    answer = self._answer(self._read(conn))
                except Exception as exc:  # noqa: BLE001 - the agent gets the reason; the session goes on
                    answer = {"text": f"check: the self-check failed inside the harness: {type(exc).__name__}: "
                                      f"{exc}\n", "code": 2}
                try:
                    conn.sendall(json.dumps(answer).encode())
                except OSError:
                    pass

    @staticmethod
    def _read(conn: socket.socket) -> dict[str, Any]:
        chunks, size = [], 0
        while True:
            b = conn.recv(1 << 16)
            if not b:
                break
            size += len(b)
            if size > 2 * MAX_FILE:
                raise ValueError(f"request larger than {2 * MAX_FILE} bytes")
            chunks.append(b)
        req = json.loads(b"".join(chunks) or b"{}")
        if not isinstance(req, dict):
            raise ValueError("malformed request")
        return req

    def _answer(self, req: dict[str, Any]) -> dict[str, Any]:
        tier = str(req.get("tier") or self.tiers[0])
        try:
            if tier_name(tier) not in self.tiers or not set(tier_parts(tier)) <= set(SHOWN_TIERS):
                raise ValueError
        except ValueError:
            return {"text": f"check: tier {tier!r} is not offered; use --tier {' or --tier '.join(self.tiers)} "
                            f"(the held-out tier is never shown)\n", "code": 2}
        data = base64.b64decode(str(req.get("content") or ""), validate=False)
        if len(data) > MAX_FILE:
            return {"text": f"check: the file has {len(data)} bytes; the limit is {MAX_FILE}\n", "code": 2}
        with self._busy:
            self.count += 1
            n = self.count
            folder = self.store / "checks" / str(n)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / self.filename
            path.write_bytes(data)
            t0 = time.time()
            rec = self.judge(path, tier, folder / "job", f"check{n}")
            wall = time.time() - t0
            text, code = format_check(rec, tier, str(req.get("file") or self.filename), self.platform, n)
            ff = rec.get("first_failure") or {}
            line = {"n": n, "time": round(t0, 3), "tier": tier, "file": str(req.get("file") or ""),
                    "sha256": hashlib.sha256(data).hexdigest(), "status": rec.get("status"),
                    "failure_class": rec.get("failure_class"), "case_id": ff.get("case_id"),
                    "cases_passed": rec.get("cases_passed"), "cases_total": rec.get("cases_total"),
                    "speedup": rec.get("speedup"), "wall_s": round(wall, 3), "exit_code": code,
                    "submission": str(path), "log": rec.get("log")}
            with open(self.log, "a") as f:
                f.write(json.dumps(line) + "\n")
        return {"text": text, "code": code}
