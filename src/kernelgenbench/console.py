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


def _on_broken_pipe() -> None:
    """The console's answer to a reader that closed the pipe (``kgb eval ... | head``): the output ends, the run
    does not. Rich's own answer raises SystemExit, which, raised in a slot's thread by a job's line, ended that
    thread silently: the jobs left were recorded as 'no healthy device left'. Here standard output goes to
    /dev/null for the rest of the process and the console falls quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
    console.quiet = True


console = _console()
console.on_broken_pipe = _on_broken_pipe  # type: ignore[method-assign]


def failure_lines(r: dict[str, Any]) -> list[str]:
    """The lines that show a failed job's first failure in full (a held-out case's by id and class only:
    :func:`~kernelgenbench.suite.tiers.shown_failure`): its message (for an exception, the
    submission's own frames and the exceptions: verify/failures.py ``condense_traceback``; the whole traceback
    is in the job's log), and for an L1 rejection every finding, one a line with its line and rule,
    the most relevant first. The message lists them (verify.scan.describe_findings); for a record
    written before it did (its ``anti_hack.L1`` has no ``count``), the findings the record keeps that
    the message lacks are added."""
    from .suite.tiers import shown_failure

    lines = shown_failure(r).splitlines()
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


def exit_interrupted(code: int = 130, wait_s: float = 3.0) -> NoReturn:
    """End a command after Ctrl-C, once its message is printed: a second Ctrl-C is ignored from now on. When a
    worker thread of the harness (:data:`WORKER_THREADS`) is still running after ``wait_s`` seconds (its own
    work in this process, such as a case's reference computed by torch, which no flag stops), the process
    ends at once with ``code``, output flushed (every record is already on disk): finalising the interpreter
    under such a thread aborts it (``terminate called without an active exception``, exit 134). A thread
    counts until it has left ``threading.enumerate()``: after a Ctrl-C inside ``Thread.join`` its
    ``is_alive()`` may be False while it still runs (CPython gh-90882). Otherwise raises
    ``typer.Exit(code)``."""
    import time

    import typer

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    me = threading.current_thread()
    deadline = time.monotonic() + wait_s
    while True:
        busy = [t for t in threading.enumerate() if t is not me and t.name.startswith(WORKER_THREADS)]
        if not busy:
            raise typer.Exit(code)
        if time.monotonic() >= deadline:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        time.sleep(0.05)
