"""The terminal tables and lines of a run (``kgb eval``, ``kgb summary``): the summary per source, one row per
operator with its cases, the failures below them, and where the jobs' time went. Rich renderables only; the
numbers come from the records and ``summary.json`` (``metrics.py``)."""
from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .console import cases_passed, console, failure_lines
from .record import cases_cell
from .suite.tiers import shown_failure


def _fmt(v: Any, pct: bool = False, x: bool = False) -> str:
    if v is None:
        return "—"
    if pct:
        return f"{100 * v:.1f}%"
    if x:
        return f"{v:.3f}x"
    return str(v)


def seconds(v: float) -> str:
    """A duration as every line and table of the CLI writes it: ``"7.0 s"`` (one decimal, a space before the unit;
    fresh user 44 met ``7.0s`` in kgb generate's and kgb agent's lines only)."""
    return f"{v:.1f} s"


def _summary_table(summary: dict[str, Any], title: str, selected: dict[str, int] | None = None,
                   tier: str | None = None) -> Table:
    """Per-source and overall scores. ``selected``: jobs selected per source (and ``overall``) when some
    are not recorded (an interrupted run): a ``recorded`` column says how many of them the scores cover.
    ``tier``: the run's tier selection; the footer says which tiers its verdicts cover."""
    from .suite.tiers import verdict_scope

    caption = ("unsupp.: operators left out of ops and accuracy: none of their cases could be judged on this "
               "platform, or their kernels made some cases unjudgeable here and every other case passed; a job's "
               "\"(N unsupported)\" counts its cases")
    if tier:
        o = summary.get("overall") or {}
        caption = f"{verdict_scope(tier, o.get('unjudged_cases') or 0, o.get('partly_judged') or 0)}\n{caption}"
    t = Table(title=title, caption=caption)
    cols = ["source", "ops", "passed", "accuracy", "geomean", "median", "IQM", "timed", "unsupp."]
    if selected:
        cols[1:1] = ["recorded"]
    for c in cols:
        t.add_column(c, justify="right" if c != "source" else "left", no_wrap=True,
                     min_width=7 if c == "source" else len(c))
    rows = list(summary["by_source"].items()) + [("overall", summary["overall"])]
    for name, s in rows:
        row = [name, str(s["operators"]), str(s["passed"]), _fmt(s["accuracy"], pct=True),
               _fmt(s["geomean_speedup"], x=True), _fmt(s["median_speedup"], x=True), _fmt(s["iqm_speedup"], x=True),
               str(s["timed_operators"]), str(s["unsupported"])]
        if selected:
            rec = s["operators"] + s["unsupported"]
            row[1:1] = [f"{rec}/{selected.get(name, rec)}"]
        t.add_row(*row)
        kinds = s.get("by_baseline") or {}
        if name != "overall" and len(kinds) > 1:  # a source timed against several kinds of baseline: each apart
            for kind, k in kinds.items():
                sub = [f"  vs {kind}", "", "", "", _fmt(k["geomean_speedup"], x=True),
                       _fmt(k["median_speedup"], x=True), _fmt(k["iqm_speedup"], x=True), str(k["timed_operators"]), ""]
                if selected:
                    sub[1:1] = [""]
                t.add_row(*sub, style="dim")
    return t


_cases_cell = cases_cell


def _baseline_cell(r: dict[str, Any]) -> str:
    """What a timed job's speedup is against, in a word: ATen, cuBLAS, or the vLLM baseline kind (``vllm``,
    ``native-compiled``: the spec's reference under torch.compile, ``native-eager``); empty when untimed."""
    from .suite.baselines import baseline_kind

    if r.get("speedup") is None:
        return ""
    kind = baseline_kind(r.get("baseline"))
    return kind or {"aten": "ATen", "cublas": "cuBLAS"}.get(str(r.get("source")), str(r.get("source") or ""))


#: %SOL above this is faster than the run's measured ceilings allow (the cost model's floor time over the measured
#: median): the ceiling (env.json), the cost model or the timing is wrong, and the number is marked, never hidden
SOL_IMPOSSIBLE = 100.0


def sol_cell(v: Any) -> str:
    """An operator's median % of speed-of-light for a table, marked ``!`` above :data:`SOL_IMPOSSIBLE`
    (:func:`sol_note` says what the mark means); an em dash when untimed."""
    if v is None:
        return "—"
    return f"{v}" + (" !" if float(v) > SOL_IMPOSSIBLE else "")


def sol_note(records: list[dict[str, Any]]) -> str | None:
    """The line printed under a table with a marked %SOL (:func:`sol_cell`): which operators and what the mark
    means; None when none is above :data:`SOL_IMPOSSIBLE`. Found so: cutlass_scaled_mm read 612% of SOL against an
    int8 ceiling timed with a row-major right operand (a tenth of the device's int8 rate)."""
    over = sorted(str(r.get("op")) for r in records
                  if isinstance(r.get("sol_pct"), (int, float)) and r["sol_pct"] > SOL_IMPOSSIBLE)
    if not over:
        return None
    return (f"! % SOL above {SOL_IMPOSSIBLE:.0f} ({', '.join(over)}): faster than this run's measured ceilings "
            f"allow; the ceiling (env.json), the operator's cost model or its timing is wrong: read it as suspect")


def _ops_table(records: list[dict[str, Any]], timing: bool) -> Table:
    t = Table(title="operators")
    cols = ["operator", "status", "cases", "failure", "first failure"]
    if timing:
        cols[3:3] = ["speedup", "baseline", "% SOL"]
    for c in cols:
        # one line per row: the other columns keep their width, the first failure (printed in full below
        # the tables) gets what is left and is cut with an ellipsis
        t.add_column(c, no_wrap=c != "first failure", min_width=len(c))
    for r in sorted(records, key=lambda r: (r.get("source", ""), r.get("op", ""))):
        status = r.get("status")
        color = {"passed": "green", "failed": "red"}.get(status, "yellow")
        shown = shown_failure(r)
        msg = shown.splitlines()[0][:110] if shown else ""
        row: list[Any] = [r.get("op") or "", f"[{color}]{status}[/{color}]", _cases_cell(r),
                          r.get("failure_class") or "", Text(msg, no_wrap=True, overflow="ellipsis")]
        if timing:
            row[3:3] = [_fmt(r.get("speedup"), x=True), _baseline_cell(r), sol_cell(r.get("sol_pct"))]
        t.add_row(*[x if isinstance(x, Text) else str(x) if x is not None else "" for x in row])
    return t


#: Failure classes the L1 static scan reports (``dispatch_recursion`` also comes from the L3 trace).


def _print_failures(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Print every failed job of ``records`` with its failure in full (:func:`failure_lines`); returns
    the failed records."""
    failed = [r for r in records if r.get("status") == "failed"]
    for r in sorted(failed, key=lambda r: (r.get("source", ""), r.get("op", ""))):
        console.print(f"[red]{escape(str(r.get('op')))}[/red] "
                      + escape(f"[{r.get('failure_class')}] " + "\n    ".join(failure_lines(r))), soft_wrap=True)
    return failed


def print_unsupported(records: list[dict[str, Any]]) -> None:
    """Print, for every job of ``records`` with cases the platform could not judge, the job and why
    (:func:`unsupported_lines`, held-out parameters withheld): ``kgb summary``'s account of what its verdicts
    leave out, which ``kgb eval`` prints under each job's line as it finishes."""
    for r in sorted(records, key=lambda r: (r.get("source", ""), r.get("op", ""))):
        lines = unsupported_lines(r)
        if lines:
            n = sum(1 for c in r.get("cases") or [] if isinstance(c, dict) and c.get("status") == "unsupported")
            console.print(f"[yellow]~[/yellow] {escape(str(r.get('op')))} · {escape(cases_passed(_cases_cell(r)))}: "
                          f"{plural(n, 'case')} not judged on this platform (left out of its verdict):", soft_wrap=True)
            for line in lines:
                console.print(f"    {escape(line)}", soft_wrap=True)


def unsupported_lines(r: dict[str, Any], limit: int = 5) -> list[str]:
    """Why a job record's cases were not judged on the platform (status ``unsupported``), one line per case, for
    ``kgb eval``'s terminal: ``"<case id>: <reason>"``, a size-budget reason (``platforms.TOO_LARGE``: it names the
    operator, the case and its size) as it is, and the next ones of the job by case id and size only. A held-out
    case's reason is shown only when it is a size-budget one (it names no parameter); other reasons of held-out
    cases (an interpreter limit's message, a dtype) may carry its parameters and are withheld, as
    :func:`~kernelgenbench.suite.tiers.shown_failure` withholds failures. At most ``limit`` cases, then a line
    naming the rest by id (with the size where the budget is the reason; at most 20 ids, then a count; every
    reason is in results.jsonl)."""
    import re

    from .platforms import TOO_LARGE
    from .suite.tiers import SHOWN_TIERS

    cases = [c for c in r.get("cases") or [] if isinstance(c, dict) and c.get("status") == "unsupported"]
    out: list[str] = []
    budget_said = False
    for c in cases[:limit]:
        cid, msg = str(c.get("id")), str(c.get("message") or "no reason recorded")
        size = re.search(r" moves (\S+ MiB) ", msg)
        if msg.startswith(TOO_LARGE) and budget_said and size:
            out.append(f"{cid}: {TOO_LARGE} too, it moves {size.group(1)} (the same budget)")
        elif msg.startswith(TOO_LARGE):
            out.append(msg)
            budget_said = True
        elif cid.split("/")[0] in SHOWN_TIERS:
            out.append(f"{cid}: {msg}")
        else:
            out.append(f"{cid}: held-out case: reason withheld (held-out cases are never shown)")
    rest = cases[limit:]
    if rest:
        # which cases, by id (and size where the budget is the reason: it names no parameter), at most 20 of them
        items = []
        for c in rest[:20]:
            size = re.search(r" moves (\S+ MiB) ", str(c.get("message") or ""))
            big = str(c.get("message") or "").startswith(TOO_LARGE) and size
            items.append(f"{c.get('id')} ({size.group(1)}, over the budget)" if big else str(c.get("id")))
        more = f" and {len(rest) - 20} more" if len(rest) > 20 else ""
        out.append(f"... {plural(len(rest), 'more unsupported case')}: {', '.join(items)}{more}; every reason is in "
                   f"results.jsonl")
    return out


def not_recorded(config: dict[str, Any], latest: list[dict[str, Any]]) -> list[str] | None:
    """The operators the run's command selected (``config.json``'s ``selected``) that have no record of
    the run's tier and platform, or None where the config does not say (a run of an older version)."""
    sel = config.get("selected")
    if not isinstance(sel, list):
        return None
    have = {r.get("op") for r in latest if r.get("tier") == config.get("tier")
            and r.get("platform") == config.get("platform")}
    return [o for o in sel if o not in have]


def run_tier(config: dict[str, Any], records: list[dict[str, Any]]) -> str | None:
    """The tier selection a run's verdicts cover: its config's (``kgb eval`` writes it), else the one
    tier its records share; None when they hold several (a run of an older version) or none."""
    if config.get("tier"):
        return str(config["tier"])
    tiers = {r.get("tier") for r in records if r.get("tier")}
    return str(tiers.pop()) if len(tiers) == 1 else None


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 operator"``, ``"2 operators"``: ``n`` and ``word``, in the plural (``many``, default ``word + "s"``)
    unless ``n`` is 1. Every count-and-noun of the CLI's summaries goes through it."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


_plural = plural  # the name the CLI modules import


def cut_off_line(in_flight: dict[str, tuple[str, int, int]]) -> str | None:
    """What an interrupted ``kgb eval`` loses: the jobs that were running, each with how far its bar had got.
    A job's record is written once every case of it is judged and its checks are done, so these start over on
    resume (README "Evaluate your own kernels"). A job whose bar was full was cut off after its cases, during its
    checks (L2 re-runs and replays, L3) or before its record: it says so, where "at 9/9 cases" read as if nothing had
    been left to do (fresh user 44). ``in_flight``: operator id (with `` (label)`` where several submissions share
    it) -> (``"cases"`` or ``"timed cases"``, cases done, cases in all). None when no job was running."""
    if not in_flight:
        return None

    def where(what: str, n: int, total: int) -> str:
        if n < total:
            return f"at {n}/{total} {what}"
        if what == "cases":
            return f"during its checks, after {n}/{total} cases judged"
        return f"before its record, after {n}/{total} {what}"

    parts = [f"{op} {where(*state)}" for op, state in sorted(in_flight.items())]
    return (f"cut off mid-way, so judged again from their first case on resume (a job's record is written when "
            f"all its cases are judged and its checks done): {', '.join(parts)}")


def _time_line(tb: dict[str, float], gpu: bool, what: str) -> str | None:
    """Where the jobs' time went (``tb``: :func:`~kernelgenbench.metrics.time_breakdown`); GPU-only items
    (timing, the device gate) only on GPUs. None where the jobs took no measurable time (every job rejected
    before its sandbox started, by the static scan): a line of zeros said nothing."""
    if tb.get("jobs_wall_s", 0.0) < 0.05:
        return None
    busy = tb.get("candidate_s", 0.0) + tb.get("hung_s", 0.0) + (tb.get("timing_s", 0.0) if gpu else 0.0)
    overhead = tb["jobs_wall_s"] - busy
    parts = {"sandbox start-up/import/compile": tb.get("import_s", 0.0),
             "inputs+references": tb.get("reference_s", 0.0),
             "transfer": tb.get("save_s", 0.0) + tb.get("load_s", 0.0), "judging": tb.get("judge_s", 0.0),
             "ghost replay": tb.get("ghost_s", 0.0)}
    if gpu:
        parts["profiling"] = tb.get("profile_s", 0.0)
        parts["waiting while another slot of the GPU timed"] = tb.get("gate_wait_s", 0.0)
        parts["waiting to time until the GPU's other slots finished their untimed work"] = \
            tb.get("gate_wait_timing_s", 0.0)
    parts["other (process and case bookkeeping)"] = max(0.0, overhead - sum(parts.values()))
    busy_txt = f"candidate calls {tb.get('candidate_s', 0):.1f} s"
    if tb.get("hung_s"):
        busy_txt += f", cases that hung until --case-timeout {tb['hung_s']:.1f} s"
    if gpu:
        busy_txt += f", timing {tb.get('timing_s', 0):.1f} s"
    return (f"job time {tb['jobs_wall_s']:.1f} s ({what}, summed over all slots): {busy_txt}, harness overhead "
            f"{overhead:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in parts.items())})")


def untimed_line(platform: str) -> str:
    """Why a run on ``platform`` (one that times nothing: the interpreter) shows no speedup (kgb eval, kgb summary)."""
    return f"speedups: not applicable on the {platform} platform (timing is reported on GPUs only)"


def mixed_commits_line(records: list[dict[str, Any]]) -> str | None:
    """A warning when ``records`` (the latest per job) were judged by more than one harness commit (a run resumed
    on a newer checkout): which commits and how many jobs each, so that no one reads one table as one harness
    version. None when every record names one commit (or none)."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("harness_commit"):
            counts[str(r["harness_commit"])[:10]] = counts.get(str(r["harness_commit"])[:10], 0) + 1
    if len(counts) < 2:
        return None
    parts = ", ".join(f"{c} ({n} jobs)" for c, n in counts.items())
    return (f"these records were judged by {len(counts)} harness commits ({parts}): a resumed run mixes harness "
            f"versions; each record's harness_commit says which judged it")

