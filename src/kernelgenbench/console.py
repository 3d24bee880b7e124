"""The terminal the command line writes to (``console``), and how a failed job's failure is shown
(:func:`failure_lines`). Shared by ``kgb`` (cli.py) and the commands that the LLM and agent tracks register
on it (llm/commands.py, agent/commands.py), which import this module, never cli.py (no import cycle)."""
from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, NoReturn

from rich.console import Console

#: Failure classes of an L1 rejection (their message lists the scan's findings).
_L1_CLASSES = frozenset({"syntax", "static_scan", "dispatch_recursion"})


def _console() -> Console:
    """Rich's console; when the output is not a terminal (a pipe, ``tee``, a CI log) and COLUMNS is not
    set, 140 columns instead of rich's 80, so that the tables keep one line per row."""
    c = Console()
    if not c.is_terminal and not os.environ.get("COLUMNS"):
        c = Console(width=140)
    return c


console = _console()


def failure_lines(r: dict[str, Any]) -> list[str]:
    """The lines that show a failed job's first failure in full: its message (for an exception, the
    submission's own frames and the exceptions: verify/failures.py ``condense_traceback``; the whole traceback
    is in the job's log), and for an L1 rejection every finding, one a line with its line and rule,
    the most relevant first. The message lists them (verify.scan.describe_findings); for a record
    written before it did (its ``anti_hack.L1`` has no ``count``), the findings the record keeps that
    the message lacks are added."""
    ff = r.get("first_failure") or {}
    lines = (ff.get("message") or "").splitlines()
    l1 = (r.get("anti_hack") or {}).get("L1") or {}
    if r.get("failure_class") in _L1_CLASSES and isinstance(l1, dict) and l1.get("ok") is False \
            and "count" not in l1:
        text = "\n".join(lines)
        extra = [m for m in l1.get("findings") or [] if isinstance(m, str) and m not in text]
        if extra:
            lines += [f"{len(extra)} more L1 findings in the record:", *extra]
    return lines


#: Name prefixes of the harness's worker threads: ``kgb eval``'s slots (run/scheduler.py), ``kgb generate``'s
#: operators (llm/generate.py) and ``kgb agent``'s sessions (agent/run.py).
WORKER_THREADS = ("slot-", "kgb-op-", "agent-slot-")


def exit_interrupted(code: int = 130) -> NoReturn:
    """End a command after Ctrl-C, once its message is printed: a second Ctrl-C is ignored from now on, and
    when a worker thread is still busy in the harness's own work in this process (a case's reference computed
    by torch, which no flag stops), the process ends at once with ``code`` (output flushed, every record
    already on disk): finalising the interpreter under such a thread aborts it (``terminate called without an
    active exception``, exit 134). Otherwise raises ``typer.Exit(code)``."""
    import typer

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    busy = [t for t in threading.enumerate()
            if t is not threading.current_thread() and t.is_alive() and t.name.startswith(WORKER_THREADS)]
    if busy:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise typer.Exit(code)
