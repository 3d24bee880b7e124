"""``kgb``: the command line of KernelGenBench.

    kgb list [--source S] [--category C]
    kgb show OP
    kgb eval DIR [--op OP ...] [--source S] [--tier smoke|full|heldout|all|T1,T2] [--out RUN_DIR] [--name N]
    kgb summary RUN_DIR [--failures]
    kgb report RUN... [--label NAME ...] [--html FILE] [--md FILE] [--csv DIR] [--latex DIR] [--matched]
    kgb compare RUN_A RUN_B [--threshold 0.05]
    kgb show OP --cases [--tier smoke|full] · kgb init OP [DIR] · kgb repro RUN OP CASE · kgb --version
"""
from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from .clihelp import PlainHelpGroup
from .console import TermAsInterrupt, cases_passed, console, exit_interrupted, run_progress, sandbox_line, shard_tag
from .console import exc_text as _err
from .platforms import INTERPRETER_MAX_MB_ENV
from .settings import INTERPRETER_MAX_MB, TIMING_HOLDS
from .tables import (
    _cases_cell,
    _ops_table,
    _plural,
    _print_failures,
    _summary_table,
    _time_line,
    cut_off_line,
    mixed_commits_line,
    not_recorded,
    plural,
    print_unsupported,
    run_tier,
    sol_note,
    unsupported_lines,
    untimed_line,
)

#: Help in click's plain layout (``rich_markup_mode=None``): option names in a column of at most 30 cells, the help
#: beside them wrapped to the terminal (78 cells at most), a longer name on a line of its own. Rich's panels gave the
#: name column the width of the longest name and its type, so at 80 columns every help text wrapped to 12 cells a
#: line and long names and env vars were cut with an ellipsis (fresh user 41).
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, cls=PlainHelpGroup,
                  help="KernelGenBench: verify and time Triton kernels that replace ATen, vLLM and cuBLAS operators.")




def version_text() -> str:
    """``kgb <version>`` (the installed distribution's) and the checkout's commit where there is one."""
    import subprocess
    from importlib import metadata

    try:
        v = metadata.version("kernelgenbench")
    except metadata.PackageNotFoundError:
        v = "unknown (not installed)"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                                capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return f"kgb (kernelgenbench) {v}" + (f", commit {commit}" if commit else "")


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                       help="print the version and exit")) -> None:
    """KernelGenBench: verify and time Triton kernels that replace ATen, vLLM and cuBLAS operators."""



@app.command("list")
def list_ops(source: Optional[str] = typer.Option(None, help="aten, vllm or cublas"),
             category: Optional[str] = typer.Option(None, help="substring of the category")) -> None:
    """List the operators with their case counts per tier."""
    from .suite.registry import all_operators, select

    try:
        ops = select(None, source, category)
    except (KeyError, ValueError) as exc:
        raise typer.BadParameter(_err(exc)) from None
    if not ops and category:
        cats = sorted({o.category.split(" (")[0] for o in all_operators() if source is None or o.source == source})
        raise typer.BadParameter(f"no operator{' of source ' + source if source else ''} has a category containing "
                                 f"{category!r} (a case-insensitive substring); categories begin with: "
                                 f"{', '.join(cats)}", param_hint="'--category'")
    t = Table(title=plural(len(ops), "operator"),
              caption="smoke, full, heldout: cases per tier; timed: the full tier's cases that GPUs time (an "
                      "operator's speedup is over those); `kgb show OP` for one operator, `--cases` to list them")
    for c in ("operator", "source", "category", "smoke", "full", "timed", "heldout"):
        # every column but the category keeps its header and values whole; the category folds last
        t.add_column(c, justify="right" if c in ("smoke", "full", "timed", "heldout") else "left",
                     no_wrap=c != "category", min_width=len(c), overflow="fold")
    for op in ops:
        full = op.cases("full")
        t.add_row(op.id, op.source, op.category, str(len(op.grid("smoke"))), str(len(full)),
                  str(sum(c.timed for c in full)), str(len(op.grid("heldout"))))
    console.print(t)


@app.command("platforms")
def platforms_cmd(name: Optional[str] = typer.Argument(None, metavar="PROFILE",
                                                    help="one profile (cuda, rocm, ascend, ...): its facts"),
                  as_json: bool = typer.Option(False, "--json", help="the profile(s) as JSON")) -> None:
    """List the platform profiles, or print one profile: detection, device, dispatch key, pinning, timing,
    dtype limits, tolerance, anti-hack tiers, prompt constraints, failure patterns, sources and guesses."""
    from .platforms import PROFILES

    if name is not None and name not in PROFILES:
        raise typer.BadParameter(f"unknown platform profile {name!r}; known: {', '.join(PROFILES)}")
    chosen = [PROFILES[name]] if name else list(PROFILES.values())
    if as_json:
        typer.echo(json.dumps({p.name: p.to_json() for p in chosen}, indent=1))
        return
    if name is None:
        t = Table(title=f"{len(chosen)} platform profiles (kgb platforms NAME: sources and guesses)")
        for c in ("profile", "platform", "device", "dispatch key", "pinning", "timed", "kernel list",
                  "unsupported dtypes", "tolerance", "guesses"):
            t.add_column(c, overflow="fold")
        for p in chosen:
            t.add_row(p.name, p.title, p.device, p.dispatch_key or "— (called directly)", p.visible_devices_var or "—",
                      "yes" if p.timing else "no", "yes" if p.profiler else "no",
                      ", ".join(sorted(p.unsupported_dtypes)) or "—", f"{p.tolerance_scale:g}", str(len(p.guesses)))
        console.print(t)
        return
    p = chosen[0]
    det = p.detection
    lines = [f"[bold]{p.name}[/bold]: {escape(p.title)}",
             f"detection: {escape(str(det)) if det else 'by --platform only'}",
             f"device {p.device!r} · dispatch key {p.dispatch_key or '— (wrappers called directly)'} · pinning "
             f"{p.visible_devices_var or '—'} · timing {escape(p.timing_api or 'none') if p.timing else 'off'}",
             f"tolerance x{p.tolerance_scale:g}" + (f" ({escape(p.tolerance_reason)})" if p.tolerance_reason else ""),
             *(f"unsupported {k}: {escape(v)}" for k, v in sorted(p.unsupported_dtypes.items())),
             *(f"{k}: {escape(v)}" for k, v in p.anti_hack_tiers().items()),
             *(f"prompt: {escape(n)}" for n in p.prompt_notes),
             *(f"platform failure /{escape(pat)}/: {escape(why)}" for pat, why in p.failure_patterns),
             *(f"[green]documented[/green] {escape(s)}" for s in p.sources),
             *(f"[yellow]guess[/yellow] {escape(g)}" for g in p.guesses)]
    for line in lines:
        console.print(line, soft_wrap=True)


@app.command("eval")
def eval_cmd(
    directory: Path = typer.Argument(..., metavar="DIRECTORY",
                                     help="a directory of submission files (aten__add.py, vllm__rms_norm.py, ...)"),
    op: Optional[list[str]] = typer.Option(None, "--op", metavar="OP",
                                           help="evaluate only these operators (repeatable)"),
    sources: Optional[list[str]] = typer.Option(None, "--source", metavar="SOURCE",
                                                help="evaluate only this source: aten, vllm or cublas (once)"),
    tier: str = typer.Option("smoke", help="smoke, full, heldout, all (every case of the three: a whole verdict), "
                                          "or a comma list such as smoke,heldout"),
    out: Optional[Path] = typer.Option(None, help="run directory (default runs/<timestamp>-<name>)"),
    name: str = typer.Option("eval", help="run name (re-running the same command with the same name resumes)"),
    platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection: cuda, interpreter, ..."),
    as_profile: Optional[str] = typer.Option(None, "--as-profile", help="run the CPU interpreter under a vendor's "
                                                                        "profile (rocm, ascend, musa, dcu, iluvatar, "
                                                                        "metax, cuda): its pinning variable, dtype "
                                                                        "limits, tolerance scale, anti-hack tiers, "
                                                                        "failure patterns; with --platform "
                                                                        "interpreter"),
    jobs: Optional[int] = typer.Option(None, min=1, help="parallel slots (default: one per GPU; 2 on the "
                                                        "interpreter); the slots of one GPU overlap their untimed "
                                                        "work, and a job that times its cases has the GPU to "
                                                        "itself meanwhile"),
    reps: int = typer.Option(30, min=1, help="timed repetitions per side per case (GPU)"),
    warmup_ms: float = typer.Option(25.0, min=0.0, help="warm-up per side per case in ms (GPU; at least 3 calls)"),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="time vLLM operators against this baseline: vllm "
                                                                   "(vllm._custom_ops), native-compiled (the native "
                                                                   "reference under torch.compile) or native-eager "
                                                                   "(default: vllm where importable, else "
                                                                   "native-compiled, eager where compilation fails)"),
    fresh: bool = typer.Option(False, help="start over instead of resuming (with --out: the old records are set "
                                           "aside)"),
    runs_root: Path = typer.Option(Path("runs"), help="where run directories go"),
    case_timeout: float = typer.Option(300.0, min=1.0, help="seconds one case may take before the job fails as "
                                                             "timeout"),
    import_timeout: float = typer.Option(180.0, min=1.0, help="seconds the sandbox may take to import a submission "
                                                             "(its module-level code) before the job fails as "
                                                             "timeout"),
    log_limit_mb: float = typer.Option(4.0, min=0.0, help="MiB of a job's sandbox output (prints, warnings) kept in "
                                                         "its child.log; the rest is dropped but for the last "
                                                         "64 KiB, and the record says so"),
    fork_server: Optional[bool] = typer.Option(None, "--fork-server/--no-fork-server",
                                               help="fork each job's sandbox from a clean pre-imported "
                                                    "interpreter instead of starting a fresh one (default: "
                                                    "on; a job falls back to a fresh process where the "
                                                    "server cannot fork)"),
    timing_hold: str = typer.Option("job", "--timing-hold",
                                    help="GPU platforms: how long a job holds its GPU alone while it times. job: "
                                         "from its first timed case to its last; case: only each case's warm-up "
                                         "and timed blocks (making a vLLM case's compiled baseline and judging "
                                         "the checked repetitions share the GPU with other slots' untimed work)"),
    interpreter_max_mb: float = typer.Option(
        INTERPRETER_MAX_MB, "--interpreter-max-mb", envvar=INTERPRETER_MAX_MB_ENV, min=0.0,
        help="CPU interpreter only: the most MiB one case's tensors may move (its cost model's bytes: inputs read "
             "once, outputs written once); a case over it is reported unsupported at once, never run nor failed "
             "(0: no budget). GPU platforms never apply it"),
    backend: str = typer.Option("local", help="local (slots in this process) or ray (each job a Ray task holding "
                                              "one GPU, or CPUs on the interpreter; pip install "
                                              "'kernelgenbench[ray]')"),
    address: Optional[str] = typer.Option(None, help="with --backend ray: the cluster to join (host:port, or auto); "
                                                     "default: a Ray instance on this machine for the run"),
    baseline_ahead: bool = typer.Option(True, "--baseline-ahead/--no-baseline-ahead",
                                        help="GPU platforms: make every timed case's compiled baseline (a vLLM "
                                             "reference's torch.compile) before the job's first timed case, sharing "
                                             "the GPU, instead of in each case (the same baseline either way)"),
    shard_cases: int = typer.Option(0, "--shard-cases", min=0, help="judge a job of more than N cases as "
                                    "ceil(cases/N) shards (shard i: cases[i::n]), each a whole job of its own "
                                    "(sandbox, L1, L2, L3, timing), merged into one record (shards: n); 0: off"),
) -> None:
    """Evaluate a directory of submissions: verify every case, run the anti-hack tiers, time on GPUs."""
    from .run.evaluate import EvaluationError, EvaluationInterrupted, RunStart, evaluate
    from .run.job import Settings
    from .suite.tiers import tier_label, tier_parts

    if sources and len(set(sources)) > 1:
        raise typer.BadParameter(f"--source was given {len(sources)} times ({', '.join(sources)}): give one source, "
                                 f"or leave it out for all of them (--op picks operators of any source)")
    if timing_hold not in TIMING_HOLDS:
        raise typer.BadParameter(f"--timing-hold {timing_hold!r}: expected one of {', '.join(TIMING_HOLDS)}")
    settings = Settings(reps=reps, warmup_ms=warmup_ms, case_timeout_s=case_timeout,
                        import_timeout_s=import_timeout, log_limit_bytes=int(log_limit_mb * (1 << 20)),
                        baseline=baseline, fork_server=fork_server, interpreter_max_mb=interpreter_max_mb or None,
                        timing_hold=timing_hold, shard_cases=shard_cases, baseline_ahead=baseline_ahead)
    progress = run_progress(console)
    task = None

    def started(info: RunStart) -> None:
        nonlocal task
        console.print(f"[bold]kgb eval[/bold] {directory} · {_plural(info.jobs, 'job')} · tier {tier_label(info.tier)} "
                      f"· platform {info.platform} ({info.device}) · {_plural(info.slots, 'slot')}"
                      f"{f' ({info.backend})' if info.backend else ''} · run {info.path}")
        if info.platform.startswith("interpreter"):
            budget = f"{info.interpreter_max_mb:g} MiB" if info.interpreter_max_mb else "none"
            console.print(f"[dim]case size budget: {budget} (--interpreter-max-mb, {INTERPRETER_MAX_MB_ENV}): cases "
                          f"moving more are reported unsupported without running[/dim]", soft_wrap=True)
        if baseline is not None and (info.platform.startswith("interpreter") or "full" not in tier_parts(info.tier)):
            why = ("the interpreter times nothing" if info.platform.startswith("interpreter")
                   else f"the {tier_label(info.tier)} tier times nothing (the full tier's cases are timed)")
            console.print(f"[dim]--baseline {baseline}: {why}, so no case is compared against it here; it is part of "
                          "the run's configuration all the same (a resume needs the same --baseline)[/dim]",
                          soft_wrap=True)
        if info.shards[0]:
            console.print(f"case shards: {_plural(info.shards[0], 'job')} of more than {shard_cases} cases split into "
                          f"{info.shards[1]} shards (--shard-cases), each judged as a job, merged into one record")
        if info.to_run < info.jobs:
            console.print(f"resuming: {info.jobs - info.to_run} of {_plural(info.jobs, 'job')} already recorded in "
                          f"this run directory, {info.to_run} to run (--fresh starts over)")
        if info.judged_again:
            shown = ", ".join(info.judged_again[:5]) + (f", ... ({len(info.judged_again) - 5} more)"
                                                        if len(info.judged_again) > 5 else "")
            console.print(f"judged again (the new record replaces the earlier one in the tables): {escape(shown)}",
                          soft_wrap=True)
        if info.ignored:
            console.print(f"[yellow]ignored files that name no operator: {escape(', '.join(info.ignored))}[/yellow]")
        progress.start()
        task = progress.add_task("jobs", total=info.jobs, completed=info.jobs - info.to_run,
                                 earlier=info.jobs - info.to_run)  # eta: the mean time per job run now

    job_bars: dict[tuple[str, str], Any] = {}   # (op, label) -> its bar while the job runs
    job_state: dict[tuple[str, str], tuple[str, int, int]] = {}   # (op, label) -> (what, done, total) likewise
    bars_lock = threading.Lock()

    def job_progress(spec: Any, stage: str, n: int, total: int) -> None:
        # one bar per running job: its correctness runs, then its timed cases (from the slots' threads)
        key = (spec.op.id + shard_tag(spec.shard), spec.label)
        what = "timed cases" if stage == "timing" else "cases"
        with bars_lock:
            if key not in job_bars:
                job_bars[key] = progress.add_task("", total=total)
            progress.update(job_bars[key], description=f"  {escape(key[0])} · {what}", completed=n, total=total)
            job_state[key] = (what, n, total)

    def done(rec: dict[str, Any]) -> None:
        mark = "[green]✓[/green]" if rec.get("status") == "passed" else (
            "[yellow]~[/yellow]" if rec.get("status") == "unsupported" else "[red]✗[/red]")
        extra = f" · speedup {rec['speedup']:.3f}x" if rec.get("speedup") else ""
        cls = f" · {rec.get('failure_class')}" if rec.get("failure_class") else ""
        name = str(rec.get("op")) + shard_tag(rec.get("shard"))
        with bars_lock:
            bar = job_bars.pop((name, str(rec.get("label") or "")), None)
            job_state.pop((name, str(rec.get("label") or "")), None)
            if bar is not None:
                progress.remove_task(bar)
        progress.console.print(f"{mark} {escape(name)} · {cases_passed(_cases_cell(rec))}{cls}{extra} · "
                               f"{rec.get('wall_s') or 0:.1f} s")
        if rec.get("shard"):
            return  # a shard: its job's merged record says the rest, and counts as the job
        for line in unsupported_lines(rec):
            progress.console.print(f"    [yellow]~[/yellow] {escape(line)}", soft_wrap=True)
        if task is not None:
            progress.advance(task)

    if out is not None and fresh and any((out / f).exists() for f in ("results.jsonl", "shards.jsonl")):
        console.print(f"[yellow]--fresh: the earlier records in {out} are set aside as *.replaced-<time>[/yellow]")
    term = TermAsInterrupt()  # SIGTERM (kill, timeout, a batch scheduler) stops the run as Ctrl-C does
    try:
        with term:
            run = evaluate(directory, ops=op, source=sources[0] if sources else None, tier=tier,
                           platform=platform_name, out=out, jobs=jobs, name=name, fresh=fresh, runs_root=runs_root,
                           settings=settings, on_start=started, on_record=done, on_status=console.status,
                           as_profile=as_profile, backend=backend, address=address, on_progress=job_progress)
    except EvaluationError as exc:
        msg = str(exc)
        if msg.startswith("no submission files"):
            console.print(f"[red]{escape(msg)}[/red]")
            raise typer.Exit(2) from None
        raise typer.BadParameter(msg) from None
    except EvaluationInterrupted as exc:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break the exit
        progress.stop()
        what = "terminated (SIGTERM)" if term.fired else "interrupted"
        if exc.recorded == exc.selected:
            console.print(f"[yellow]{what} after all {_plural(exc.selected, 'job')} were recorded in {exc.path}; "
                          f"`kgb summary {exc.path}` prints the tables (running the same command again writes "
                          f"summary.json)[/yellow]")
        else:
            console.print(f"[yellow]{what}: {exc.recorded} of {_plural(exc.selected, 'job')} recorded in "
                          f"{exc.path}; run the same command again to resume[/yellow]")
            with bars_lock:
                ops = [op for op, _ in job_state]
                # an operator run for several submissions (labels) is named with its label
                cut = cut_off_line({(f"{op} ({lab})" if ops.count(op) > 1 and lab else op): v
                                    for (op, lab), v in job_state.items()})
            if cut:
                console.print(f"[yellow]{escape(cut)}[/yellow]", soft_wrap=True)
        exit_interrupted(143 if term.fired else 130)
    finally:
        progress.stop()
    # Every job is recorded and summary.json written: a Ctrl-C now cuts nothing short, so the tables are printed
    # all the same (with a line that says so) and the exit status is the run's.
    late: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: late.append(signum))
    try:
        _print_eval_result(run, tier, late, fork_server)
    finally:
        signal.signal(signal.SIGINT, previous)


def _print_eval_result(run: Any, tier: str, late: list[int], fork_server: bool | None = None) -> None:
    """The end of ``kgb eval``: the operator and summary tables, the first failure of each failed job, where
    the records are; raises typer.Exit(1) when a job failed. ``late`` is non-empty when Ctrl-C came meanwhile;
    ``fork_server`` is the ``--fork-server/--no-fork-server`` setting (None: the default)."""
    from .suite.tiers import tier_label

    rundir_results, summary, wall, written = run.path / "results.jsonl", run.summary, run.wall_s, run.written
    records = run.records
    tier = summary["tier"]
    from .platforms import PROFILES

    plat = PROFILES[summary["platform"]]
    from .metrics import latest_records, time_breakdown

    latest = latest_records(records)
    console.print(_ops_table(latest, plat.timing))
    note = sol_note(latest) if plat.timing else None
    if note:
        console.print(f"[yellow]{escape(note)}[/yellow]")
    where = f"{plat.name} as {summary['profile']}" if summary.get("profile") else plat.name
    console.print(_summary_table(summary, f"summary · tier {tier_label(tier)} · {where} · {wall:.1f} s wall "
                                          f"({_plural(len(written), 'job')} run now, {len(latest) - len(written)} "
                                          f"recorded earlier)", tier=tier))
    mixed = mixed_commits_line(latest)
    if mixed:
        console.print(f"[yellow]{escape(mixed)}[/yellow]")
    gpu = plat.timing and not plat.interpreter
    if written:
        line = _time_line(time_breakdown(written), gpu, f"the {_plural(len(written), 'job')} run now")
        if line:
            console.print(f"[dim]{escape(line)}[/dim]")
        sandboxes = sandbox_line(fork_server)
        if sandboxes:
            console.print(f"[dim]{escape(sandboxes)}[/dim]", soft_wrap=True)
    else:
        console.print("[dim]no job run now: every selected job was already recorded (--fresh starts over)[/dim]")
    if not plat.timing:
        console.print(f"[dim]{untimed_line(plat.name)}[/dim]")
    failed = _print_failures(latest)
    for r in latest:
        cut = r.get("log_truncated")
        if cut:
            console.print(f"[yellow]{r['op']}[/yellow] " + escape(
                f"its sandbox wrote {cut['bytes_written'] / 1e6:.1f} MB of output; the log ({r.get('log')}) keeps "
                f"the first {cut['limit'] / 1e6:.1f} MB and the last 64 KiB (--log-limit-mb)"), soft_wrap=True)
    console.print(f"results: {rundir_results}\nsummary: {run.path / 'summary.json'}")
    from .suite.tiers import SHOWN_TIERS

    held = [r for r in failed if (r.get("first_failure") or {}).get("case_id")
            and str(r["first_failure"]["case_id"]).split("/")[0] not in SHOWN_TIERS]
    if held:
        console.print(f"[dim]{_plural(len(held), 'job')} failed on a held-out case: displays withhold its parameters "
                      f"and message (they are never shown to generators or agents); the record keeps them "
                      f"(results.jsonl, first_failure)[/dim]", soft_wrap=True)
    if late:
        console.print("[yellow]Ctrl-C after every job was recorded: the run is complete, the tables above are its "
                      "summary[/yellow]")
    if failed:
        console.print(f"[dim]{len(failed)} of {_plural(len(latest), 'job')} failed (exit code 1); every case's record "
                      f"is in results.jsonl[/dim]")
        raise typer.Exit(1)


@app.command()
def summary(run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="a run directory"),
            failures: bool = typer.Option(False, "--failures", help="after the tables, every failed job's failing "
                                                                    "cases in full (messages uncut)")) -> None:
    """Print the operator and summary tables of a run directory, and which tiers its verdicts cover.

    With --failures: each failed job's failing cases in full."""
    _summary(run_dir)
    if failures:
        _print_failing_cases(run_dir)


def _print_failing_cases(run_dir: Path) -> None:
    """Every failed job of the run (the latest record of each operator and label): its failing cases with
    their parameters and whole messages (held-out cases by id and class only: their parameters are never
    shown), or its failure when no case ran (L1, import, missing wrapper)."""
    from .metrics import latest_records
    from .report.load import read_records
    from .suite.tiers import SHOWN_TIERS

    records = read_records(run_dir / "results.jsonl")
    failed = [r for r in latest_records(records) if r.get("status") == "failed"]
    if not failed:
        console.print("[green]no failed job[/green]")
        return
    from .suite.spec import describe_params  # imports torch: only where a case is shown
    console.print(f"\n[bold]{_plural(len(failed), 'failed job')}[/bold], every failing case in full")
    for r in sorted(failed, key=lambda r: (str(r.get("op")), str(r.get("label")))):
        bad = [c for c in r.get("cases") or [] if c.get("status") == "failed"]
        console.print(f"\n[red]{escape(str(r.get('op')))}[/red] \\[{escape(str(r.get('failure_class')))}] label "
                      f"{escape(str(r.get('label')))} · {_cases_cell(r)} cases passed · submission "
                      f"{escape(str(r.get('submission')))}", soft_wrap=True)
        if not bad:
            ff = r.get("first_failure") or {}
            cid = ff.get("case_id")
            if cid and str(cid).split("/")[0] not in SHOWN_TIERS:
                console.print(f"  {cid}: held-out case: parameters and message withheld", soft_wrap=True)
            else:
                console.print("  " + escape(str(ff.get("message") or "(no message)")).replace("\n", "\n  "),
                              soft_wrap=True)
            continue
        for c in bad:
            cid = str(c.get("id"))
            cls = c.get("failure_class") or r.get("failure_class")
            if cid.split("/")[0] not in SHOWN_TIERS:
                console.print(f"  [bold]{cid}[/bold] \\[{escape(str(cls))}]: held-out case: parameters and message "
                              f"withheld (held-out cases are never shown)", soft_wrap=True)
                continue
            params = describe_params(c.get("params") or {})
            seed = f" · input seed {c['input_seed']}" if c.get("input_seed") is not None else ""
            console.print(f"  [bold]{cid}[/bold] \\[{escape(str(cls))}] ({escape(params)}){seed}", soft_wrap=True)
            console.print("    " + escape(str(c.get("message") or "")).replace("\n", "\n    "), soft_wrap=True)
        shown = [c for c in bad if str(c.get("id")).split("/")[0] in SHOWN_TIERS]
        if shown:
            several = len({x.get("label") for x in records if x.get("op") == r.get("op")}) > 1
            console.print(f"  [dim]rerun a case in the foreground: kgb repro {run_dir} {r.get('op')} "
                          f"{shown[0].get('id')}" + (f" --label {r.get('label')}" if several else "") + "[/dim]",
                          soft_wrap=True)


def _summary(run_dir: Path) -> None:
    from .metrics import latest_records, summarize
    from .report.load import no_record_yet
    from .run.rundir import RunDir
    from .suite.tiers import tier_label

    if not run_dir.is_dir():
        raise typer.BadParameter(f"{run_dir} does not exist")
    empty = no_record_yet(run_dir)
    if empty:  # a run Ctrl-C'd before its first record is a run, not a usage error (fresh user 44)
        console.print(f"[yellow]{escape(empty)}[/yellow]", soft_wrap=True)
        return
    if not (run_dir / "results.jsonl").exists():
        raise typer.BadParameter(f"{run_dir} has no results.jsonl (not a run directory?)")
    config = json.loads((run_dir / "config.json").read_text()) if (run_dir / "config.json").exists() else {}
    plat = config.get("platform", "")
    from .platforms import PROFILES

    untimed = plat in PROFILES and not PROFILES[plat].timing  # why no speedup is shown, as kgb eval says it
    if config.get("command") == "kgb agent" and (run_dir / "summary.json").exists():
        from .agent.commands import print_run_summary

        print_run_summary(run_dir, config, console)
        if untimed:
            console.print(f"[dim]{untimed_line(plat)}[/dim]")
        return
    if config.get("command") == "kgb generate" and (run_dir / "summary.json").exists():
        # An LLM run: records are per sample; its summary scores operators (pass@k, tokens).
        from .llm.commands import operators_table, summary_table, tokens_table

        gs = json.loads((run_dir / "summary.json").read_text())
        tier = gs.get("tier") or config.get("tier")
        console.print(operators_table(gs, plat != "interpreter"))
        console.print(tokens_table(gs))
        console.print(summary_table(gs, int(config.get("k", 1)), f"summary · {run_dir.name}"
                                    + (f" · tier {tier_label(tier)}" if tier else "") + (f" · {plat}" if plat else ""),
                                    tier=tier))
        if untimed:
            console.print(f"[dim]{untimed_line(plat)}[/dim]")
        return
    records = RunDir.open(run_dir).records()
    s = summarize(records)
    latest = latest_records(records)
    tier = run_tier(config, latest)
    on = (f" · tier {tier_label(tier)}" if tier else "") + (f" · {plat}" if plat else "")
    console.print(_ops_table(latest, plat != "interpreter"))
    note = sol_note(latest)
    if note:
        console.print(f"[yellow]{escape(note)}[/yellow]")
    if tier is None and latest:
        tiers = ", ".join(sorted({str(r.get("tier")) for r in latest}))
        console.print(f"[yellow]the records mix tiers ({escape(tiers)}): each job's verdict covers its own record's "
                      f"tier[/yellow]")
    mixed = mixed_commits_line(latest)
    if mixed:
        console.print(f"[yellow]{escape(mixed)}[/yellow]")
    missing = not_recorded(config, latest)
    if missing is None:
        console.print(_summary_table(s, f"summary · {run_dir.name}{on}", tier=tier))
        if untimed:  # under the table whose dashes it explains, as kgb eval prints it (fresh users 31, 32)
            console.print(f"[dim]{untimed_line(plat)}[/dim]")
        print_unsupported(latest)
        _print_failures(latest)
        return
    n_sel = len(config["selected"])
    per_source: dict[str, int] = {"overall": n_sel}
    for op_id in config["selected"]:
        src = op_id.split("::", 1)[0]
        per_source[src] = per_source.get(src, 0) + 1
    console.print(_summary_table(s, f"summary · {run_dir.name}{on} · {n_sel - len(missing)}/{n_sel} selected jobs "
                                    f"recorded", per_source if missing else None, tier=tier))
    if untimed:
        console.print(f"[dim]{untimed_line(plat)}[/dim]")
    print_unsupported(latest)
    _print_failures(latest)
    if missing:
        console.print(f"[yellow]{len(missing)} of {_plural(n_sel, 'selected job')} not recorded (an interrupted or "
                      f"unfinished run: {escape(', '.join(missing[:5]))}{', ...' if len(missing) > 5 else ''}); the "
                      f"scores cover the recorded jobs only. Run the same kgb eval command again to resume.[/yellow]")


def _parse_prices(values: list[str] | None) -> dict[str, tuple[float, float, float]]:
    """``--price LABEL=IN,OUT[,CACHED]`` (USD per million tokens) -> {label: (in, out, cached)}."""
    out: dict[str, tuple[float, float, float]] = {}
    for v in values or []:
        label, sep, rest = v.partition("=")
        try:
            nums = [float(x) for x in rest.split(",")] if sep else []
        except ValueError:
            nums = []
        if not label or len(nums) not in (2, 3):
            raise typer.BadParameter(f"{v!r}: expected LABEL=IN,OUT[,CACHED] in USD per million tokens, e.g. "
                                     f"gpt=2.5,10,1.25", param_hint="'--price'")
        out[label] = (nums[0], nums[1], nums[2] if len(nums) == 3 else nums[0])
    return out


def _load_runs(runs: list[Path], labels: list[str] | None, names: tuple[str, ...] = ()) -> list[Any]:
    """The runs loaded as systems; a usage error names ``names[i]`` (compare's ``RUN_A``, ``RUN_B``), else RUN."""
    from .report.load import RunDirError, load_run

    if labels and len(labels) != len(runs):
        raise typer.BadParameter(f"{len(labels)} --label for {_plural(len(runs), 'run')}: give one --label per run, in "
                                 f"the order of the runs (or none: each run is named after its directory)",
                                 param_hint="'--label'")
    out = []
    for i, path in enumerate(runs):
        try:
            out.append(load_run(path, labels[i] if labels else None))
        except RunDirError as exc:
            raise typer.BadParameter(str(exc), param_hint=f"'{names[i] if i < len(names) else 'RUN'}'") from None
    return out


def _stdout_options(**outputs: Optional[Path]) -> str | None:
    """Which of the output options (``--md``, ``--json``) is ``-`` (stdout, instead of the terminal tables)."""
    dash = [name for name, path in outputs.items() if path is not None and str(path) == "-"]
    if len(dash) > 1:
        raise typer.BadParameter(f"{' and '.join('--' + d + ' -' for d in dash)} would both write to stdout: "
                                 "give all but one a file")
    return dash[0] if dash else None


@app.command()
def report(
    runs: list[Path] = typer.Argument(..., metavar="RUN", help="run directories of kgb eval, kgb generate or kgb "
                                                                 "agent: each one is a system"),
    label: Optional[list[str]] = typer.Option(None, "--label", metavar="NAME",
                                              help="a name per run, in order (repeat it once per run; the same label "
                                                   "on two platforms is one system on two platforms)"),
    html_out: Optional[Path] = typer.Option(None, "--html", help="write one self-contained HTML page (plots embedded)"),
    md: Optional[Path] = typer.Option(None, "--md", help="write the tables as Markdown to this file ('-': stdout, "
                                                         "instead of the terminal tables)"),
    csv_dir: Optional[Path] = typer.Option(None, "--csv", help="write one CSV per table (raw values) and report.json "
                                                               "into this directory"),
    latex_dir: Optional[Path] = typer.Option(None, "--latex", help="write one .tex table per table and report.tex "
                                                                   "into this directory"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write every number of the report as JSON to this "
                                                                 "file ('-': stdout, instead of the terminal tables)"),
    matched: bool = typer.Option(False, "--matched", help="score every system on the common set only: the operators "
                                                          "every system judged"),
    bootstrap: int = typer.Option(1000, min=0, help="bootstrap resamples of the matched-set intervals (0: none)"),
    seed: int = typer.Option(0, help="the bootstrap's seed: the same seed gives the same intervals"),
    ci: float = typer.Option(0.95, min=0.5, max=0.999, help="the intervals' confidence level"),
    allow_mixed_tiers: bool = typer.Option(False, help="report runs whose verdicts cover different tiers (labelled) "
                                                       "instead of refusing"),
    price: Optional[list[str]] = typer.Option(None, "--price", metavar="PRICE",
                                              help="LABEL=IN,OUT[,CACHED]: USD per million input, output and cached "
                                                   "input tokens, for systems whose records carry no cost"),
) -> None:
    """Report on runs as systems: accuracy, speedups, matched sets, difficulty, failures, cost, portability.

    Per system and source: accuracy (Pass@k for sampling runs), two-level geomean, median and IQM speedup over
    the solved set, fast_p; matched sets of each pair with bootstrap intervals; difficulty; failure taxonomy;
    anti-hack interceptions; tokens, wall-clock and cost per solved operator; the portability tax. As terminal
    tables, one self-contained HTML page with plots, Markdown, CSV and LaTeX."""
    from .report.load import RunDirError
    from .report.model import build_report
    from .report.render import markdown, rich_tables, write_csv, write_latex

    loaded = _load_runs(runs, label)
    try:
        rep = build_report(loaded, matched=matched, bootstrap=bootstrap, seed=seed, ci=ci,
                           allow_mixed_tiers=allow_mixed_tiers, prices=_parse_prices(price))
    except RunDirError as exc:
        raise typer.BadParameter(str(exc), param_hint="'RUN'") from None
    written: list[str] = []
    to_stdout = _stdout_options(md=md, json=json_out)
    if to_stdout:
        typer.echo(markdown(rep) if to_stdout == "md" else json.dumps(rep.to_json(), indent=1, default=str))
    else:
        for b in rep.banners:
            console.print(f"[bold yellow]{escape(b)}[/bold yellow]", soft_wrap=True)
        n_ops = len(rep.table("operators").rows)
        skip = ("difficulty", "operators") if n_ops > 40 else ()
        empty = [t for t in rep.tables if not t.rows]
        shown = tuple(t.name for t in rep.tables if t.name not in skip and t.rows)
        for t in rich_tables(rep, shown, width=console.width, list_limit=8 if skip else None):
            console.print(t)
        if empty:  # e.g. portability and multi-chip tables of runs on one platform: a line, not empty frames
            console.print(f"[dim]no rows in these runs, not printed: {escape(', '.join(t.title for t in empty))} "
                          f"(the files written with --md, --csv, --json keep every table)[/dim]", soft_wrap=True)
        if skip:
            console.print(f"[dim]{n_ops} operators: the per-operator tables (difficulty, operators) and the whole "
                          f"lists of operators (cut to 8 here) are in the files (--html, --md, --csv)[/dim]")
    if md is not None and to_stdout != "md":
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(markdown(rep))
        written.append(str(md))
    if html_out is not None:
        from .report.html import write_html

        written.append(str(write_html(rep, html_out)))
    if csv_dir is not None:
        written += [str(p) for p in write_csv(rep, csv_dir)]
    if latex_dir is not None:
        written += [str(p) for p in write_latex(rep, latex_dir)]
    if json_out is not None and to_stdout != "json":
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(rep.to_json(), indent=1, default=str))
        written.append(str(json_out))
    if written:
        line = ("written: " + ", ".join(written) if len(written) < 6 else
                f"written: {plural(len(written), 'file')} ({', '.join(written[:3])}, ...)")
        console.print(line) if not to_stdout else typer.echo(line, err=to_stdout == "json")  # JSON stays parseable


@app.command()
def compare(
    run_a: Path = typer.Argument(..., metavar="RUN_A", help="the earlier run (the baseline of the comparison)"),
    run_b: Path = typer.Argument(..., metavar="RUN_B", help="the later run"),
    threshold: float = typer.Option(0.05, min=0.0, help="a speedup change smaller than this share is noise (each "
                                                        "operator's own run-to-run timing spread widens it)"),
    md: Optional[Path] = typer.Option(None, "--md", help="write Markdown to this file ('-': stdout)"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the comparison as JSON ('-': stdout)"),
    allow_mixed_tiers: bool = typer.Option(False, help="compare runs whose verdicts cover different tiers (labelled)"),
    strict: bool = typer.Option(False, help="exit with 1 when an operator is newly failing or slower"),
    one_sided: bool = typer.Option(False, "--one-sided", help="also list, row by row, the operators that only one "
                                                              "run holds (by default they are counted)"),
) -> None:
    """Two runs operator by operator: status and speedup side by side, and what changed.

    Newly passing, newly failing, faster or slower beyond the run-to-run spread (--threshold, widened by each
    operator's recorded timing spread)."""
    from .report.compare import compare_runs
    from .report.load import RunDirError
    from .report.render import markdown, rich_tables

    a, b = _load_runs([run_a, run_b], None, ("RUN_A", "RUN_B"))
    try:
        rep = compare_runs(a, b, threshold, allow_mixed_tiers, one_sided)
    except RunDirError as exc:
        raise typer.BadParameter(str(exc), param_hint="'RUN_A RUN_B'") from None
    to_stdout = _stdout_options(md=md, json=json_out)
    if to_stdout:
        typer.echo(markdown(rep) if to_stdout == "md" else json.dumps(rep.to_json(), indent=1, default=str))
    else:
        for ban in rep.banners:
            console.print(f"[bold yellow]{escape(ban)}[/bold yellow]", soft_wrap=True)
        for t in rich_tables(rep, ("compare", "changes"), width=console.width):
            console.print(t)
    if md is not None and to_stdout != "md":
        md.write_text(markdown(rep))
    if json_out is not None and to_stdout != "json":
        json_out.write_text(json.dumps(rep.to_json(), indent=1, default=str))
    bad = [r for r in rep.table("compare").rows if r["change"] in ("newly failing", "slower")]
    if strict and bad:
        raise typer.Exit(1)


def _pythonpath_prefix() -> str:
    """``PYTHONPATH=<as given> `` when this package was imported from an entry of PYTHONPATH (a checkout run as
    ``PYTHONPATH=src python -m kernelgenbench.cli``, perhaps beside an installed copy), else ``""``: a command
    printed without it would not find the package, or would run another copy of it."""
    import os
    import shlex

    import kernelgenbench

    value = os.environ.get("PYTHONPATH", "")
    home = Path(kernelgenbench.__file__).resolve().parent.parent
    for entry in value.split(os.pathsep):
        if entry and Path(entry).resolve() == home:
            return f"PYTHONPATH={shlex.quote(value)} "
    return ""


def kgb_invocation() -> str:
    """How to run kgb again as it was run now, for the hints the CLI prints (``kgb init``'s ``next:`` line), a
    command the user can paste: ``kgb`` where that name on PATH is this very script, else the script's path as
    given or relative to the working directory (``.venv/bin/kgb``, as the README writes it); run as a module,
    ``kgb`` where PATH's ``kgb`` sits beside this Python (the same install), else ``<python> -m
    kernelgenbench.cli``. Where the package came from PYTHONPATH, the command keeps ``PYTHONPATH=...`` in front
    (:func:`_pythonpath_prefix`; fresh27 REPORT item 7: the hint dropped the ``PYTHONPATH=src`` the user ran
    with)."""
    import os
    import shutil
    import sys

    prefix = _pythonpath_prefix()
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "kgb"
    here = Path(argv0)

    def short(p: Path) -> str:
        if not p.is_absolute():
            return str(p) if len(p.parts) > 1 else f"./{p}"
        try:
            rel = p.relative_to(Path.cwd())
        except ValueError:
            return str(p)
        return str(rel) if len(rel.parts) > 1 else f"./{rel}"

    if here.name in ("cli.py", "__main__.py"):  # python -m kernelgenbench.cli
        found = shutil.which("kgb")
        if not prefix and found and Path(found).parent == Path(sys.executable).parent:
            return "kgb"  # installed in this Python's environment, on PATH
        return f"{prefix}{short(Path(sys.executable))} -m kernelgenbench.cli"
    if here.name.startswith("kgb"):
        found = shutil.which(here.name)
        if (len(here.parts) == 1 and not here.exists()) or (
                found and os.path.realpath(found) == os.path.realpath(argv0)):
            return prefix + here.name  # found on PATH: the bare name works
        return prefix + short(here)
    return prefix + "kgb"


@app.command()
def init(op: str = typer.Argument(..., metavar="OP", help="operator id, e.g. aten::add or vllm::rms_norm"),
         directory: Path = typer.Argument(Path("."), metavar="DIR", help="where to write the file (default: here)"),
         force: bool = typer.Option(False, help="overwrite an existing file")) -> None:
    """Write a submission skeleton for OP, with every required wrapper or function and its signature.

    ATen: one wrapper per required overload (optional ones listed); vLLM, cuBLAS: the interface function. It
    passes the L1 scan and fails every case as not written yet until you fill it in."""
    from .report.author import skeleton
    from .suite.registry import get_operator
    from .verify.scan import scan_file

    try:
        o = get_operator(op)
    except KeyError as exc:
        raise typer.BadParameter(_err(exc)) from None
    path = directory / o.filename
    if path.exists() and not force:
        raise typer.BadParameter(f"{path} exists (--force overwrites it)")
    directory.mkdir(parents=True, exist_ok=True)
    from importlib import metadata

    try:
        version = metadata.version("kernelgenbench")
    except metadata.PackageNotFoundError:
        version = ""
    path.write_text(skeleton(o, version))
    findings = scan_file(path, **o.scan_policy())
    n = len(o.interface.required_names())
    console.print(f"wrote {path}: {_plural(n, 'required function')} ({', '.join(o.interface.required_names())}), "
                  f"each raising until written; L1 static scan: "
                  + ("clean" if not findings else "; ".join(f.message for f in findings)))
    kgb = kgb_invocation()
    console.print(f"next: {kgb} show {o.id} --cases   ·   {kgb} eval {directory} --op {o.id}", soft_wrap=True)


#: The failure classes that only the sandbox's checks give, which kgb repro does not repeat: the check behind each.
_SANDBOX_ONLY_CLASSES = {"ghost": "L2, every launch replayed as a no-op", "profile": "L3, the dispatch trace",
                         "timer_tampering": "the timing checks", "not_exercised": "the launch count"}


@app.command()
def repro(run_dir: Path = typer.Argument(..., metavar="RUN", help="the run directory that recorded the failure"),
          op: str = typer.Argument(..., metavar="OP", help="the operator, e.g. vllm::rms_norm"),
          case: str = typer.Argument(..., metavar="CASE", help="the case id from the record, e.g. smoke/3"),
          label: Optional[str] = typer.Option(None, help="which submission of the run (kgb generate: the sample "
                                                         "round, e.g. s0r1); default: the latest failed one"),
          submission: Optional[Path] = typer.Option(None, help="run this file instead of the recorded one (your "
                                                               "fixed version)"),
          platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection: cuda, "
                                                                               "interpreter, ..."),
          pdb: bool = typer.Option(False, "--pdb", help="enter the debugger where the submission raises")) -> None:
    """Rerun a recorded case in the foreground, with no sandbox (your own code only).

    Rebuilds the case's inputs (its parameters and the recorded seed) and calls the submission IN THIS PROCESS
    (breakpoints and pdb work), judged by the verifier's comparison. NO SANDBOX: the submission's code runs in
    your process; use it on your own kernels only. Exit status 0 when the case passes, 1 when it fails."""
    from .report.author import ReproError
    from .report.author import repro as do_repro
    from .report.load import RunDirError

    try:
        res = do_repro(run_dir, op, case, label=label, submission=submission, platform_name=platform_name,
                       log=lambda m: console.print(escape(m), soft_wrap=True), post_mortem=pdb)
    except (ReproError, RunDirError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    if res.passed:
        recorded = f"; the run recorded \\[{res.recorded_class}] {escape(res.recorded or '')}" if res.recorded_class \
            else ""
        console.print(f"[green]PASSED[/green]: case {case} passes here (seed {res.seed})" + recorded, soft_wrap=True)
        if res.recorded_class in _SANDBOX_ONLY_CLASSES:
            # fresh user 37: a torch-computing cheat recorded as profile read "PASSED" here with no word on why
            console.print(f"note: \\[{res.recorded_class}] is a verdict of the sandbox's checks "
                          f"({_SANDBOX_ONLY_CLASSES[res.recorded_class]}), which kgb repro does not run: it judges "
                          f"the values only, so the case passing here does not clear the recorded failure",
                          soft_wrap=True)
        return
    console.print(f"[red]FAILED[/red] \\[{res.failure_class}] {escape(res.message or '')}", soft_wrap=True)
    if res.recorded is not None:
        recorded = res.recorded
        lines = recorded.splitlines()
        if res.same and len(lines) > 1:
            # the same exception: its traceback was printed above in full, the record's condensed copy adds nothing
            recorded = f"{lines[0]} (+ the record's condensed traceback, {len(lines) - 1} lines: the one above)"
        console.print(("[green]same as recorded[/green]" if res.same else "[yellow]the run recorded[/yellow]")
                      + f" \\[{res.recorded_class}] {escape(recorded)}", soft_wrap=True)
    raise typer.Exit(1)


from .show import register as _register_show  # noqa: E402 - kgb show lives in its own module

_register_show(app)


def _register_extensions() -> None:
    """Commands of the LLM and agent tracks live in their own packages and register here."""
    if not (Path(__file__).parent / "llm" / "commands.py").is_file():
        return
    from .agent.commands import register as register_agent
    from .llm.commands import register

    register(app)
    register_agent(app)


_register_extensions()


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
