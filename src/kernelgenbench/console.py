"""The terminal the command line writes to (``console``), and how a failed job's failure is shown
(:func:`failure_lines`). Shared by ``kgb`` (cli.py) and the commands that the LLM and agent tracks register
on it (llm/commands.py, agent/commands.py), which import this module, never cli.py (no import cycle)."""
from __future__ import annotations

import copy
import dataclasses
import os
import re
import signal
import sys
import threading
from typing import Any, Callable, NoReturn

from rich.cells import cell_len
from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column, Table
from rich.text import Text

#: Failure classes of an L1 rejection (their message lists the scan's findings).
_L1_CLASSES = frozenset({"syntax", "static_scan", "dispatch_recursion"})


#: The width of the output when it is not a terminal (a pipe, ``tee``, a CI log): no screen limits a log's lines.
LOG_WIDTH = 140


def _cell_width(con: Console, cell: Any) -> int:
    """The cells of a table cell's widest line (markup rendered)."""
    if isinstance(cell, str):
        cell = con.render_str(cell)
    if isinstance(cell, Text):
        return max((cell_len(line) for line in cell.plain.splitlines()), default=0)
    return con.measure(cell).maximum


def _column_need(con: Console, column: Column) -> int:
    """The fewest cells ``column`` can take with nothing cut: a column that never wraps, its widest cell or header;
    one that wraps, its longest word, header included (rich wraps the rest), leaving out cells made to be cut (a
    Text that never wraps and ellipsizes: the first failure, printed in full below the tables); a fixed width as
    it is."""
    if column.width is not None:  # a width fixed by the caller (kgb report's groups)
        return column.width
    header = _cell_width(con, column.header)
    if column.no_wrap:
        return max([header, column.min_width or 0] + [_cell_width(con, c) for c in column._cells])
    words = [con.measure(con.render_str(c) if isinstance(c, str) else c).minimum
             for c in [column.header, *column._cells]
             if not (isinstance(c, Text) and c.no_wrap and c.overflow in ("ellipsis", "crop"))]  # made to be cut
    return max(words + [column.min_width or 0])


def fit_table(con: Console, table: Table) -> list[Any]:
    """A rich table as the renderables to print on ``con``: its title, the table, its caption, title and caption
    as lines of their own as wide as the output (a table's title and caption wrap to the table's width: a summary's
    three notes came out as six centred lines of 80 cells in a 140-cell log, fresh user 41). A table whose columns do
    not fit the width whole is printed as several tables of consecutive columns, each repeating the first column
    (what names a row), so that no number is cut: at 80 columns rich shrank every column alike and cut cases
    (``648/…``), speedups and whole columns at the edge. A table at most four cells too wide loses its outer border
    and padding instead."""
    width = con.width
    cols = table.columns
    pad = table.padding[1] + table.padding[3] if len(table.padding) == 4 else 2
    frame = pad + (1 if table.box else 0)
    need = [_column_need(con, c) for c in cols]
    groups: list[list[int]] = [list(range(len(cols)))]
    whole = 1 + sum(n + frame for n in need)
    edgeless = whole > width and table.box is not None and table.show_edge and whole - 4 <= width
    if len(cols) > 2 and whole > width and not edgeless:
        groups, cur = [], [0]
        for i in range(1, len(cols)):
            if len(cur) > 1 and 1 + sum(need[j] + frame for j in cur + [i]) > width:
                groups.append(cur)
                cur = [0]
            cur.append(i)
        groups.append(cur)
    out: list[Any] = []
    if table.title:
        out.append(con.render_str(table.title, style="table.title") if isinstance(table.title, str)
                   else table.title)
    for n, group in enumerate(groups):
        part = copy.copy(table)
        part.title = part.caption = None
        if edgeless:  # four cells short: no outer border and padding (the summary table at 80 columns)
            part.show_edge = part.pad_edge = False
        if len(groups) > 1:
            part.columns = [dataclasses.replace(cols[j], _index=k) for k, j in enumerate(group)]
            if n:
                out.append(Text(f"(continued, {n + 1}/{len(groups)})", style="table.title"))
        out.append(part)
    if table.caption:
        out.append(con.render_str(table.caption, style="table.caption") if isinstance(table.caption, str)
                   else table.caption)
    return out


class _Console(Console):
    """The command line's console: every rich table it prints goes through :func:`fit_table` (title and caption as
    lines as wide as the output, the columns in several tables where they do not fit)."""

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Rich's ``Console.print``, each Table laid out by :func:`fit_table` first."""
        laid: list[Any] = []
        for o in objects:
            laid.extend(fit_table(self, o) if isinstance(o, Table) else [o])
        if len(laid) > len(objects):  # a table became several renderables: each on its own lines
            laid = [Group(*laid)]
        super().print(*laid, **kwargs)


def _console() -> Console:
    """Rich's console; when the output is not a terminal (a pipe, ``tee``, a CI log), :data:`LOG_WIDTH` columns or
    COLUMNS where that is wider: a log keeps one line per table row even where the shell exported COLUMNS=80
    (fresh user 41's piped ``kgb summary`` wrapped at 80)."""
    c = _Console()
    if not c.is_terminal:
        try:
            cols = int(os.environ.get("COLUMNS") or 0)
        except ValueError:
            cols = 0
        c = _Console(width=max(LOG_WIDTH, cols))
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


def run_progress(con: Console) -> Progress:
    """The bars of a long run on console ``con`` (``kgb eval``: the run's jobs and one per running job, its cases
    then its timed cases; ``kgb generate`` and ``kgb agent`` have :class:`OperatorBar`), each with the elapsed time and
    an estimate of the time left (``eta``, :class:`TimeLeft`: for the bar of jobs, whose field ``earlier`` counts the
    jobs recorded before, the mean time per job of this call; for a job's bar, rich's estimate from the rate so far:
    a job's cases grow in size within a tier, so its estimate early on is a lower bound). Shown on a terminal only:
    in a log (a pipe, ``tee``, a CI file) rich drew no frame while the run went on but one at its end
    (``jobs ━━━ 13/13 0:00:11 eta 0:00:00``, fresh user 41); there each job's line says what the bar would."""
    return _bars(con, transient=False, disable=not con.is_terminal)


def _bars(con: Console, **options: Any) -> Progress:
    """A rich Progress on ``con`` with the columns every bar of a run has: description, bar, done/total, elapsed,
    ``eta`` (:class:`TimeLeft`); ``options`` go to Progress."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("eta"), TimeLeft(), console=con, **options)


def cases_passed(cell: str) -> str:
    """A job's cases (``record.cases_cell``: ``"5/6 (1 unsupported)"``) for a line of its own, where no column
    header says what the fraction counts: ``"5/6 cases passed (1 unsupported)"`` (fresh user 41 read ``✓ aten::cos
    6/6 (3.1s)`` on kgb eval, generate and agent lines without knowing what 6/6 counted)."""
    fraction, _, notes = cell.partition(" ")
    return f"{fraction} cases passed" + (f" {notes}" if notes else "")


def clock(seconds: float | None) -> str:
    """``h:mm:ss`` as rich's elapsed column writes it; ``-:--:--`` for an unknown time."""
    if seconds is None:
        return "-:--:--"
    s = max(0, int(round(seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def operators_left_s(total: float, completed: float, earlier: float, elapsed: float | None) -> float | None:
    """Seconds left of a bar of operators: those still to do times the mean wall time of the operators done since
    the bar started (``completed - earlier``; ``earlier``: recorded by an earlier call, counted done at once).
    None until one is done."""
    now = completed - earlier
    if total - completed <= 0:
        return 0.0
    if now <= 0 or not elapsed or elapsed <= 0:
        return None
    return (total - completed) * elapsed / now


class TimeLeft(ProgressColumn):
    """The estimate of the time left of a bar, ``h:mm:ss``: 0 once the bar is full (a resumed run's full bar of
    jobs showed an unknown time left); for a bar with the field ``earlier`` (a bar of jobs or operators: those
    recorded by an earlier call), :func:`operators_left_s`; else rich's estimate. Rich's estimate is the rate of the
    last 30 s: operators that take minutes each (a sampled operator judged on every tier, an agent session) never
    showed one, and the operators a resumed run found recorded, counted at once, made it about 0:00 until the next
    one ended."""

    def render(self, task: Task) -> Text:
        """The time left, ``h:mm:ss``."""
        if task.total is not None and task.completed >= task.total:
            left: float | None = 0.0
        elif "earlier" in task.fields:
            left = operators_left_s(task.total or 0, task.completed, task.fields["earlier"], task.elapsed)
        else:
            left = task.time_remaining
        return Text(clock(left), style="progress.remaining")


class OperatorBar:
    """The bar of operators done of ``kgb generate`` and ``kgb agent``: done/total, elapsed, ``eta`` (the mean
    time per operator done by this call, :class:`TimeLeft`). On a terminal a live bar; in a log (a pipe,
    ``tee``, a CI file) no bar, whose one frame came at the end, but a line per operator done by this call
    (``operators 3/10 · 0:04:12 elapsed · eta 0:09:48``). Use it as a context manager around the run."""

    def __init__(self, con: Console, total: int, get_time: Callable[[], float] | None = None) -> None:
        self.con = con
        self.live = con.is_terminal
        self.progress = _bars(con, disable=not self.live, get_time=get_time)
        self.task = self.progress.add_task("operators", total=total, earlier=0)
        self._lock = threading.Lock()
        self._unlogged = False  # the last advance printed no line (a log's)

    def __enter__(self) -> "OperatorBar":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)
        if not self.live and self._unlogged:  # in a log, the count as the run ends (resumed operators included)
            self.con.print(self.line(), highlight=False)

    def advance(self, earlier: bool = False) -> None:
        """One more operator done; ``earlier``: recorded by an earlier call (a resumed run), which the estimate
        leaves out (in a log it gets no line of its own)."""
        with self._lock:
            t = self.progress.tasks[0]
            self.progress.update(self.task, advance=1, earlier=t.fields.get("earlier", 0) + (1 if earlier else 0))
            line = None if self.live or earlier else self.line()
            self._unlogged = earlier
        if line is not None:
            self.con.print(line, highlight=False)

    def line(self) -> str:
        """The bar as one line of text."""
        t = self.progress.tasks[0]
        left = operators_left_s(t.total or 0, t.completed, t.fields.get("earlier", 0), t.elapsed)
        return f"operators {int(t.completed)}/{int(t.total or 0)} · {clock(t.elapsed)} elapsed · eta {clock(left)}"


console = _console()
console.on_broken_pipe = _on_broken_pipe  # type: ignore[method-assign]


#: An exception line of a traceback as condense_traceback keeps it: ``<dotted type>: <message>`` at column 0.
_EXCEPTION_LINE = re.compile(r"([A-Za-z_][\w.]*): (.+)")
#: A message that is one exception's repr: ``OutOfBoundsAccess("...")`` (how Triton's InterpreterError wraps it).
_WRAPPED = re.compile(r"[A-Za-z_]\w*\((['\"])(.*)\1\)")
#: Messages at least this long are written once; shorter ones cost less to repeat than to refer to.
_REPEAT_MIN = 40


def message_once(lines: list[str]) -> list[str]:
    """A failure's lines with its message written once: the first line (``case smoke/1 (...): Type: message``)
    keeps it, and an exception line of the traceback below whose message (or the message inside its
    ``Type("...")`` wrapper) is already on the first line and at least :data:`_REPEAT_MIN` characters long
    reads ``Type: (message as on the first line)``. An out-of-bounds access of an interpreted kernel was
    printed three times (the headline and both exceptions of the chain, fresh27 REPORT item 7). For the
    terminal only: the record keeps the whole text."""
    if not lines:
        return lines
    head, out = lines[0], [lines[0]]
    for ln in lines[1:]:
        m = _EXCEPTION_LINE.fullmatch(ln)
        if m:
            inner = _WRAPPED.fullmatch(m.group(2))
            core = inner.group(2) if inner else m.group(2)
            if len(core) >= _REPEAT_MIN and core in head:
                ln = f"{m.group(1)}: (message as on the first line)"
        out.append(ln)
    return out


def failure_lines(r: dict[str, Any]) -> list[str]:
    """The lines that show a failed job's first failure in full (a held-out case's by id and class only:
    :func:`~kernelgenbench.suite.tiers.shown_failure`): its message (for an exception, the
    submission's own frames and the exceptions: verify/failures.py ``condense_traceback``; the whole traceback
    is in the job's log; a long message the traceback repeats is written once: :func:`message_once`), and for an
    L1 rejection every finding, one a line with its line and rule,
    the most relevant first. The message lists them (verify.scan.describe_findings); for a record
    written before it did (its ``anti_hack.L1`` has no ``count``), the findings the record keeps that
    the message lacks are added."""
    from .suite.tiers import shown_failure

    lines = message_once(shown_failure(r).splitlines())
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


class TermAsInterrupt:
    """While it is entered (in the main thread, where SIGTERM has its default action): SIGTERM raises
    KeyboardInterrupt, so that ``kill``, ``timeout`` or a batch scheduler stops a run as Ctrl-C does (the
    sessions and sandboxes in flight killed, the records kept). Without it a SIGTERM ended ``kgb agent`` at once
    and left its sessions running (each in its own process group and jail, no longer under the budget).
    ``fired`` says whether it did; the handler in place before is put back on exit."""

    def __init__(self) -> None:
        self.fired = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.fired = True
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the stop that follows must not be cut short
        raise KeyboardInterrupt

    def __enter__(self) -> "TermAsInterrupt":
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._previous = signal.signal(signal.SIGTERM, self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)


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


def exc_text(exc: BaseException) -> str:
    """An exception's message as written (``str(KeyError("x"))`` is ``"'x'"``, with quotes): what a command
    line error shows of a lookup that failed."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def sandbox_line(fork_server: bool | None) -> str:
    """How this command started its jobs' sandbox children: forked from the fork server, or fresh processes
    (``sandbox/forkserver.py``; neither the run's config nor its records say so, and a server that cannot fork
    falls back to fresh processes). Empty where this process started none (a Ray backend's workers do)."""
    from .sandbox import forkserver

    forks, fresh = forkserver.STATS["forks"], forkserver.STATS["fallbacks"]
    if fork_server is False:
        return "sandboxes: fresh processes (--no-fork-server)"
    if not forks and not fresh:
        return ""
    line = f"sandboxes: {forks} forked from the fork server"
    if fresh:
        line += (f", {fresh} started as fresh processes because the server refused, died or did not start (a "
                 f"warning above says why)")
    return line + " (--no-fork-server starts every one fresh)"


def shard_tag(shard: Any) -> str:
    """`` [shard 2/4]`` for a case shard ``[1, 4]`` (a record's or a JobSpec's ``shard``; 1-based as shown), else
    empty. Escape it in rich markup."""
    return f" [shard {shard[0] + 1}/{shard[1]}]" if shard else ""
