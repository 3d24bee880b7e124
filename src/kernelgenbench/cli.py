"""``kgb``: the command line of KernelGenBench.

    kgb list [--source S] [--category C]
    kgb show OP
    kgb eval DIR [--op OP ...] [--source S] [--tier smoke|full|heldout] [--out RUN_DIR] [--name N]
    kgb summary RUN_DIR
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="KernelGenBench: verify and time Triton kernels that replace ATen, vLLM and cuBLAS operators.")
console = Console()



def _err(exc: BaseException) -> str:
    """An exception's message as written (``str(KeyError("x"))`` is ``"'x'"``, with quotes)."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def _fmt(v: Any, pct: bool = False, x: bool = False) -> str:
    if v is None:
        return "—"
    if pct:
        return f"{100 * v:.1f}%"
    if x:
        return f"{v:.3f}x"
    return str(v)


@app.command("list")
def list_ops(source: Optional[str] = typer.Option(None, help="aten, vllm or cublas"),
             category: Optional[str] = typer.Option(None, help="substring of the category")) -> None:
    """List the operators with their case counts per tier."""
    from .suite.registry import select

    from .suite.registry import all_operators

    try:
        ops = select(None, source, category)
    except (KeyError, ValueError) as exc:
        raise typer.BadParameter(_err(exc)) from None
    if not ops and category:
        cats = sorted({o.category.split(" (")[0] for o in all_operators() if source is None or o.source == source})
        raise typer.BadParameter(f"no operator{' of source ' + source if source else ''} has a category containing "
                                 f"{category!r} (a case-insensitive substring); categories begin with: "
                                 f"{', '.join(cats)}", param_hint="'--category'")
    t = Table(title=f"{len(ops)} operators")
    for c in ("operator", "source", "category", "smoke", "full", "timed", "heldout"):
        t.add_column(c, justify="right" if c in ("smoke", "full", "timed", "heldout") else "left",
                     no_wrap=c == "operator")
    for op in ops:
        full = op.cases("full")
        t.add_row(op.id, op.source, op.category, str(len(op.grid("smoke"))), str(len(full)),
                  str(sum(c.timed for c in full)), str(len(op.grid("heldout"))))
    console.print(t)


@app.command()
def show(op: str = typer.Argument(..., metavar="OP", help="operator id, e.g. aten::add or vllm::rms_norm")) -> None:
    """Show one operator: interface, semantics, tiers with case counts, tolerance, anti-hack rules."""
    from .suite.registry import get_operator

    try:
        o = get_operator(op)
    except KeyError as exc:
        raise typer.BadParameter(_err(exc)) from None
    console.print(f"[bold]{o.id}[/bold]  ({o.category}; {o.section})")
    console.print(f"submission file: [cyan]{o.filename}[/cyan]")
    console.print(f"\n[bold]Semantics[/bold]\n{escape(o.semantics)}")
    console.print("\n[bold]Interface[/bold]")
    iface = o.interface
    if iface.function is None:
        t = Table()
        for c in ("wrapper", "overload", "kind", "required", "schema"):
            t.add_column(c)
        for w in iface.wrappers:
            t.add_row(w.name, w.overload, w.kind + (" (exercised)" if w.exercised else ""),
                      "yes" if w.required else "no", escape(w.schema))
        console.print(t)
        console.print("ATen wrappers are registered at the device's dispatch key on GPUs and driven through the "
                      "public PyTorch API; on the CPU interpreter they are called directly with the dispatcher's "
                      "arguments.")
    else:
        console.print(f"  {escape(iface.signature)}")
        for p in iface.params:
            console.print(f"    {p}: {escape(iface.args_doc.get(p, ''))}")
    console.print("\n[bold]Tiers[/bold]")
    t = Table()
    for c in ("tier", "cases", "timed", "first case"):
        t.add_column(c)
    for tier in ("smoke", "full", "heldout"):
        cases = o.cases(tier)
        first = cases[0].describe() if cases and tier != "heldout" else ("(held out)" if cases else "—")
        t.add_row(tier, str(len(cases)), str(sum(c.timed for c in cases)), escape(first))
    console.print(t)
    rule = o.nothing_to_compute
    if rule:
        console.print("\n[bold]Tolerance[/bold]: none: values are compared exactly (allocations: not at all); see "
                      "the nothing-to-compute rule below.")
    elif getattr(o, "tolerance_text", None):  # an operator's own judge (random operators: statistics)
        console.print(f"\n[bold]Tolerance[/bold]: {escape(o.tolerance_text)}")
    else:
        console.print("\n[bold]Tolerance[/bold]: rtol by dtype (fp16 1e-3, bf16 1.6e-2, fp32 1e-5, fp64 1e-5); "
                      "atol = 1e-4 x reduce_dim; integers, indices and bools exact; NaN positions must match.")
    if rule:
        console.print(f"[bold]Anti-hack[/bold]: L1 static scan, L3 dispatch trace and kernel list; L2 ghost replay "
                      f"only where a case needs a launch.")
        console.print(f"\n[bold]Nothing to compute ({rule.kind})[/bold] (aten.md §4.6, §6b.7)")
        for what, text in (("aliasing", rule.aliasing), ("layout", rule.layout), ("values", rule.values),
                           ("Triton launch", rule.launch)):
            console.print(f"  {what}: {escape(text)}")
        if rule.methods:
            console.print(f"  allowed for this kind: {', '.join(f'.{m}()' for m in rule.methods)}")
    else:
        console.print("[bold]Anti-hack[/bold]: L1 static scan, L2 ghost replay, L3 dispatch trace and kernel list. "
                      "Every case must launch a Triton kernel, except cases with nothing to compute: an empty "
                      "result, a result a no-op already gives, or a result PyTorch returns as the input itself.")
    if o.notes:
        console.print(f"\n[bold]Notes[/bold]: {escape(o.notes)}")


def _summary_table(summary: dict[str, Any], title: str) -> Table:
    t = Table(title=title)
    for c in ("source", "ops", "passed", "accuracy", "geomean", "median", "IQM", "timed", "unsupported"):
        t.add_column(c, justify="right" if c != "source" else "left", no_wrap=True)
    rows = list(summary["by_source"].items()) + [("overall", summary["overall"])]
    for name, s in rows:
        t.add_row(name, str(s["operators"]), str(s["passed"]), _fmt(s["accuracy"], pct=True),
                  _fmt(s["geomean_speedup"], x=True), _fmt(s["median_speedup"], x=True), _fmt(s["iqm_speedup"], x=True),
                  str(s["timed_operators"]), str(s["unsupported"]))
    return t


def _ops_table(records: list[dict[str, Any]], timing: bool) -> Table:
    t = Table(title="operators")
    cols = ["operator", "status", "cases", "failure", "first failure"]
    if timing:
        cols[3:3] = ["speedup", "% SOL"]
    for c in cols:
        t.add_column(c, overflow="fold", no_wrap=c == "operator")
    for r in sorted(records, key=lambda r: (r.get("source", ""), r.get("op", ""))):
        status = r.get("status")
        color = {"passed": "green", "failed": "red"}.get(status, "yellow")
        cases = f"{r.get('cases_passed', 0)}/{r.get('cases_total', 0)}"
        if r.get("cases_unsupported"):
            cases += f" ({r['cases_unsupported']} unsupported)"
        ff = r.get("first_failure") or {}
        msg = (ff.get("message") or "").splitlines()[0][:110] if ff else ""
        row = [r.get("op"), f"[{color}]{status}[/{color}]", cases, r.get("failure_class") or "", escape(msg)]
        if timing:
            row[3:3] = [_fmt(r.get("speedup"), x=True), _fmt(r.get("sol_pct"))]
        t.add_row(*[str(x) if x is not None else "" for x in row])
    return t


@app.command("eval")
def eval_cmd(
    directory: Path = typer.Argument(..., metavar="DIRECTORY", help="a directory of submission files (aten__add.py, vllm__rms_norm.py, ...)"),
    op: Optional[list[str]] = typer.Option(None, "--op", help="evaluate only these operators (repeatable)"),
    source: Optional[str] = typer.Option(None, help="evaluate only this source: aten, vllm or cublas"),
    tier: str = typer.Option("smoke", help="smoke, full or heldout"),
    out: Optional[Path] = typer.Option(None, help="run directory (default runs/<timestamp>-<name>)"),
    name: str = typer.Option("eval", help="run name (re-running the same command with the same name resumes)"),
    platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection: cuda, interpreter, ..."),
    jobs: Optional[int] = typer.Option(None, min=1, help="parallel slots (default: one per GPU; 2 on the "
                                                        "interpreter); the slots of one GPU overlap their untimed "
                                                        "work, and a job that times its cases has the GPU to "
                                                        "itself meanwhile"),
    reps: int = typer.Option(30, min=1, help="timed repetitions per side per case (GPU)"),
    warmup_ms: float = typer.Option(25.0, min=0.0, help="warm-up per side per case in ms (GPU; at least 3 calls)"),
    fresh: bool = typer.Option(False, help="start over instead of resuming (with --out: the old records are set aside)"),
    runs_root: Path = typer.Option(Path("runs"), help="where run directories go"),
    case_timeout: float = typer.Option(300.0, min=1.0, help="seconds one case may take before the job fails as timeout"),
) -> None:
    """Evaluate a directory of submissions: verify every case, run the anti-hack tiers, time on GPUs."""
    from . import platforms
    from .metrics import summarize
    from .run.job import Settings
    from .run.rundir import RunDir, environment
    from .run.scheduler import collect_specs, make_slots, run_jobs
    from .suite.registry import select
    from .suite.spec import TIERS

    if tier not in TIERS:
        raise typer.BadParameter(f"--tier must be one of {', '.join(TIERS)}")
    if not directory.is_dir():
        raise typer.BadParameter(f"{directory} is not a directory")
    try:
        ops = select(op, source)
        plat = platforms.detect(platform_name)
    except (KeyError, ValueError) as exc:
        raise typer.BadParameter(_err(exc)) from None
    try:  # before any run directory exists: a platform without a device leaves nothing behind
        slots = make_slots(plat, jobs, share=True)
    except RuntimeError as exc:
        raise typer.BadParameter(f"{exc} (use --platform interpreter, or run on a machine with the device)",
                                 param_hint="'--platform'") from None
    specs = collect_specs(directory, ops, tier, directory.name, explicit=bool(op) or bool(source))
    if not specs:
        console.print(f"[red]no submission files for the selected operators in {directory}[/red] "
                      f"(expected names like aten__add.py, vllm__rms_norm.py, cublas__cublasSgemm_v2.py)")
        raise typer.Exit(2)
    unknown = sorted(p.name for p in directory.glob("*.py")
                     if not any(s.submission and s.submission.name == p.name for s in specs)
                     and not p.name.startswith("_"))
    config = {"submissions": str(directory.resolve()), "ops": sorted(o.id for o in ops) if (op or source) else None,
              "source": source, "tier": tier, "platform": plat.name, "reps": reps, "command": "kgb eval"}
    if out is not None and fresh and (out / "results.jsonl").exists():
        # --fresh with --out: keep nothing of the old run in place (its records are set aside, not deleted).
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for f in ("results.jsonl", "summary.json", "config.json"):
            if (out / f).exists():
                (out / f).rename(out / f"{f}.replaced-{stamp}")
        console.print(f"[yellow]--fresh: the earlier records in {out} were set aside as *.replaced-{stamp}[/yellow]")
    if out is not None and (out / "config.json").exists():
        old = json.loads((out / "config.json").read_text())
        diff = [k for k in ("submissions", "ops", "source", "tier", "platform") if old.get(k) != config.get(k)]
        if diff:
            raise typer.BadParameter(f"{out} holds a run with another configuration ({', '.join(f'{k}: {old.get(k)!r}' for k in diff)}); "
                                     f"use another --out (or --name) so results are not mixed")
    rundir = RunDir.open(out) if out else RunDir.create(runs_root, name, config, fresh=fresh)
    rundir.write_config(config)
    env = environment(plat)
    ceilings: dict[Any, dict[str, Any]] = {}
    if plat.timing and not plat.interpreter and tier == "full":  # only the full tier times cases
        from .verify.ceilings import measure
        import torch

        with console.status("measuring device ceilings (copy bandwidth, matmul rates)"):
            for s in slots:
                if s.device not in ceilings:
                    ceilings[s.device] = measure(torch.device(plat.device, s.device or 0))
        env["ceilings"] = ceilings
    rundir.write_env(env)
    console.print(f"[bold]kgb eval[/bold] {directory} · {len(specs)} jobs · tier {tier} · platform {plat.name} "
                  f"({env.get('devices', ['cpu'])[0] if not plat.interpreter else 'Triton CPU interpreter'}) · "
                  f"{len(slots)} slot(s) · run {rundir.path}")
    if unknown and not (op or source):
        console.print(f"[yellow]ignored files that name no operator: {', '.join(unknown[:8])}[/yellow]")
    t0 = time.time()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        task = progress.add_task("jobs", total=len(specs))
        already = len(specs)

        def done(rec: dict[str, Any]) -> None:
            mark = "[green]✓[/green]" if rec.get("status") == "passed" else (
                "[yellow]~[/yellow]" if rec.get("status") == "unsupported" else "[red]✗[/red]")
            extra = f" {rec['speedup']:.3f}x" if rec.get("speedup") else ""
            cls = f" {rec.get('failure_class')}" if rec.get("failure_class") else ""
            uns = f" ({rec['cases_unsupported']} unsupported)" if rec.get("cases_unsupported") else ""
            progress.console.print(f"{mark} {rec['op']} {rec.get('cases_passed', 0)}/{rec.get('cases_total', 0)}"
                                   f"{uns}{cls}{extra} ({rec.get('wall_s', 0):.1f}s)")
            progress.advance(task)

        settings = Settings(reps=reps, warmup_ms=warmup_ms, case_timeout_s=case_timeout)
        written = run_jobs(specs, plat, rundir, settings, slots, ceilings, on_done=done)
        progress.update(task, completed=already)
    wall = time.time() - t0
    records = rundir.records()
    summary = summarize(records)
    summary["wall_s"] = round(wall, 2)
    summary["jobs_run"] = len(written)
    summary["tier"] = tier
    summary["platform"] = plat.name
    rundir.write_summary(summary)
    from .metrics import latest_records

    latest = latest_records(records)
    console.print(_ops_table(latest, plat.timing))
    console.print(_summary_table(summary, f"summary · tier {tier} · {plat.name} · {wall:.1f} s "
                                          f"({len(written)} jobs run, {len(latest) - len(written)} resumed)"))
    tb = summary.get("time_s") or {}
    if tb.get("jobs_wall_s"):
        busy = tb.get("candidate_s", 0.0) + tb.get("timing_s", 0.0)
        overhead = tb["jobs_wall_s"] - busy
        parts = {"sandbox start-up/import/compile": tb.get("import_s", 0.0),
                 "inputs+references": tb.get("reference_s", 0.0),
                 "transfer": tb.get("save_s", 0.0) + tb.get("load_s", 0.0), "judging": tb.get("judge_s", 0.0),
                 "ghost": tb.get("ghost_s", 0.0),
                 "waiting while another slot of the GPU timed": tb.get("gate_wait_s", 0.0)}
        parts["other (process and case bookkeeping)"] = max(0.0, overhead - sum(parts.values()))
        console.print(f"[dim]job time {tb['jobs_wall_s']:.1f} s, summed over the jobs of all slots: candidate calls "
                      f"{tb.get('candidate_s', 0):.1f} s, timing {tb.get('timing_s', 0):.1f} s, harness overhead "
                      f"{overhead:.1f} s ({', '.join(f'{k} {v:.1f}' for k, v in parts.items())})[/dim]")
    if not plat.timing:
        console.print(f"[dim]speedups: not applicable on the {plat.name} platform (timing is reported on GPUs only)[/dim]")
    failed = [r for r in latest if r.get("status") == "failed"]
    for r in failed:
        ff = r.get("first_failure") or {}
        lines = (ff.get("message") or "").splitlines()
        # in full: the message holds the submission's own frames and the exceptions (run/job.py
        # condense_traceback); the whole traceback is in the job's log
        console.print(f"[red]{r['op']}[/red] " + escape(f"[{r.get('failure_class')}] " + "\n    ".join(lines)),
                      soft_wrap=True)
    console.print(f"results: {rundir.results}\nsummary: {rundir.path / 'summary.json'}")
    if failed:
        console.print(f"[dim]{len(failed)} of {len(latest)} jobs failed (exit code 1); every case's record is in "
                      f"results.jsonl[/dim]")
        raise typer.Exit(1)


@app.command()
def summary(run_dir: Path = typer.Argument(..., help="a run directory")) -> None:
    """Print the operator and summary tables of a run directory."""
    from .metrics import latest_records, summarize
    from .run.rundir import RunDir

    if not run_dir.is_dir():
        raise typer.BadParameter(f"{run_dir} does not exist")
    if not (run_dir / "results.jsonl").exists():
        raise typer.BadParameter(f"{run_dir} has no results.jsonl (not a run directory?)")
    config = json.loads((run_dir / "config.json").read_text()) if (run_dir / "config.json").exists() else {}
    plat = config.get("platform", "")
    if config.get("command") == "kgb generate" and (run_dir / "summary.json").exists():
        # An LLM run: records are per sample; its summary scores operators (pass@k, tokens).
        from .llm.commands import operators_table, summary_table, tokens_table

        gs = json.loads((run_dir / "summary.json").read_text())
        console.print(operators_table(gs, plat != "interpreter"))
        console.print(tokens_table(gs))
        console.print(summary_table(gs, int(config.get("k", 1)), f"summary · {run_dir.name}"))
        return
    records = RunDir.open(run_dir).records()
    s = summarize(records)
    console.print(_ops_table(latest_records(records), plat != "interpreter"))
    console.print(_summary_table(s, f"summary · {run_dir.name}"))


def _register_extensions() -> None:
    """Commands of the LLM and agent tracks live in their own packages and register here."""
    if not (Path(__file__).parent / "llm" / "commands.py").is_file():
        return
    from .llm.commands import register

    register(app)


_register_extensions()


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
