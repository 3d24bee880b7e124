"""``kgb agent`` and ``kgb check`` (registered into the ``kgb`` app by :func:`register`).

    kgb agent --agent claude-code|codex|opencode|gemini|command [--command TEMPLATE] [--model M]
              [--base-url URL] [--op OP ...] [--source S] [--budget-minutes 30] [--check-tier smoke,full]
              [--final-tier all] [--jobs N] [--out RUN] [--isolation auto|namespace|user|none]
    kgb check FILE --op OP [--tier smoke|full]
"""
from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..record import cases_cell
from ..suite.tiers import SHOWN_TIERS, VERDICT_TIER
from ..tables import plural, seconds


def _console() -> Any:
    from ..console import console

    return console


def _fmt(v: Any, pct: bool = False, x: bool = False, s: bool = False, usd: bool = False) -> str:
    if v is None:
        return "—"
    if pct:
        return f"{100 * v:.1f}%"
    if x:
        return f"{v:.3f}x"
    if s:
        return seconds(v)
    if usd:
        return f"${v:.4f}"
    return str(v)


def failure_gist(message: str | None, case_id: str | None) -> str:
    """The first line of a failure ``message`` with the case's parameters left out (``case full/428 (form=st,
    ...): return: ...`` -> ``case full/428: return: ...``), so that a narrow table cell shows what went wrong;
    the parameters are printed with the whole failure after the tables."""
    text = (message or "").splitlines()[0] if message else ""
    if case_id:
        text = re.sub(rf"^case {re.escape(case_id)} \(.*?\): ", f"case {case_id}: ", text, count=1)
    return text


def operators_table(summary: dict[str, Any], timing: bool) -> Table:
    """One row per operator: verdict, how the session ended, self-checks, tokens, cost, wall-clock."""
    from ..llm.summary import fmt_tokens

    t = Table(title="operators")
    cols = ["operator", "status", "cases", "exit", "checks", "requests", "tokens", "cost", "wall", "failure"]
    if timing:
        cols.insert(3, "speedup")
    for c in cols:
        t.add_column(c, overflow="fold", no_wrap=c != "failure")
    for op_id, o in sorted(summary["operators"].items()):
        color = {"solved": "green", "failed": "red"}.get(o["status"], "yellow")
        why = ""
        if o["status"] == "failed":
            why = f"{o['failure_class']}: {failure_gist(o.get('message'), o.get('failure_case'))}"[:90]
        if o.get("exit_reason") == "error" and o.get("error"):
            why = (why + " · " if why else "") + f"session error: {str(o['error']).splitlines()[0][:80]}"
        row = [op_id, f"[{color}]{o['status']}[/{color}]", o.get("cases") or "", o.get("exit_reason") or "",
               str(o["self_checks"]), _fmt(o.get("requests")), fmt_tokens(o["tokens"]["total"]),
               _fmt(o.get("cost_usd"), usd=True), _fmt(o.get("wall_s"), s=True), escape(why)]
        if timing:
            row.insert(3, _fmt(o.get("speedup"), x=True))
        t.add_row(*row)
    return t


def cost_table(summary: dict[str, Any]) -> Table:
    """Tokens by kind, requests and reported cost, per source and overall."""
    from ..llm.summary import fmt_tokens

    t = Table(title="cost", caption="input: uncached input tokens; cache read/write: prompt-cache tokens; output: "
                                    "every generated token, reasoning included (reasoning: its part); cost: what the "
                                    "CLI reports (— where it reports none)")
    for c in ("source", "sessions", "requests", "input", "cache read", "cache write", "output", "reasoning", "total",
              "cost"):
        t.add_column(c, justify="left" if c == "source" else "right")
    for name, g in [*summary["by_source"].items(), ("overall", summary["overall"])]:
        tk = g["tokens"]
        t.add_row(name, str(g["sessions"]), _fmt(g["requests"]), fmt_tokens(tk["input_tokens"]),
                  fmt_tokens(tk["cache_read_tokens"]), fmt_tokens(tk["cache_write_tokens"]),
                  fmt_tokens(tk["output_tokens"]), fmt_tokens(tk["reasoning_tokens"]), fmt_tokens(tk["total"]),
                  _fmt(g["cost_usd"], usd=True))
    return t


def summary_table(summary: dict[str, Any], title: str) -> Table:
    """Accuracy, speedups, and tokens, wall-clock and cost per solved operator, self-checks per operator; the
    footer says which tiers the verdicts cover."""
    from ..llm.summary import fmt_tokens
    from ..suite.tiers import verdict_scope

    tier = summary.get("tier")
    scope = verdict_scope(tier).replace("--tier all", "--final-tier all") if tier else None
    t = Table(title=title, caption=scope)
    for c in ("source", "ops", "solved", "accuracy", "geomean", "median", "IQM", "tok/solved", "wall/solved",
              "cost/solved", "checks/op"):
        t.add_column(c, justify="left" if c == "source" else "right")
    for name, g in [*summary["by_source"].items(), ("overall", summary["overall"])]:
        t.add_row(name, str(g["operators"]), str(g["solved"]), _fmt(g["accuracy"], pct=True),
                  _fmt(g["geomean_speedup"], x=True), _fmt(g["median_speedup"], x=True), _fmt(g["iqm_speedup"], x=True),
                  fmt_tokens(g["tokens_per_solved"]), _fmt(g["wall_s_per_solved"], s=True),
                  _fmt(g["cost_per_solved"], usd=True),
                  f"{g['self_checks_per_op']:.1f}" if g["self_checks_per_op"] is not None else "—")
    return t


def canary_warning(summary: dict[str, Any], level: str, expose: list[str]) -> str | None:
    """The warning of a run whose operators' session files hold the oracle solution's text (their records'
    ``oracle_overlap`` canary), None when none does."""
    canary = sorted(op for op, o in summary["operators"].items() if o.get("oracle_text_found"))
    if not canary:
        return None
    return (f"WARNING: the session files of {plural(len(canary), 'operator')} hold the oracle solution's text "
            f"(oracle_overlap in results.jsonl: five or more of its distinctive lines): {', '.join(canary)}; the agent "
            f"had the oracle (isolation {level}{', --expose ' + ', '.join(expose) if expose else ''}): a verdict of "
            f"these is not the agent's own work")


def print_run_summary(run_dir: Path, config: dict[str, Any], console: Any) -> None:
    """``kgb summary`` of a ``kgb agent`` run: the tables the run printed at its end (operators with how each
    session ended, tokens and cost, the summary), and the oracle canary's warning."""
    from ..platforms import PROFILES
    from ..report.load import read_records
    from ..suite.tiers import tier_label
    from .summary import latest_records, oracle_text_found

    s = load_summary(run_dir)
    plat, tier = str(config.get("platform") or ""), s.get("tier") or config.get("tier")
    latest = latest_records(read_records(run_dir / "results.jsonl"), tier=str(tier), platform=plat)
    for op, o in s["operators"].items():  # from the records: a summary.json of before session 39 lacks the flag
        o["oracle_text_found"] = op in latest and oracle_text_found(latest[op])
    timing = plat in PROFILES and PROFILES[plat].timing and not PROFILES[plat].interpreter
    console.print(operators_table(s, timing))
    console.print(cost_table(s))
    console.print(summary_table(s, f"summary · {run_dir.name}" + (f" · tier {tier_label(tier)}" if tier else "")
                                + (f" · {plat}" if plat else "")))
    warning = canary_warning(s, str(config.get("isolation") or "not recorded"), list(config.get("expose") or []))
    if warning:
        console.print(f"[bold yellow]{escape(warning)}[/bold yellow]")


def register(app: typer.Typer) -> None:
    """Add ``agent`` and ``check`` to the ``kgb`` app."""

    @app.command("agent")
    def agent_cmd(
        agent: str = typer.Option(..., help="claude-code, codex, opencode, gemini, or command (any program: "
                                            "--command)"),
        command: Optional[str] = typer.Option(None, help="--agent command: a shell command line; {prompt}, "
                                                         "{prompt_file}, {workspace}, {submission}, {check} and "
                                                         "{device} are replaced (shell-quoted)"),
        stream_format: Optional[str] = typer.Option(None, help="--agent command: the program prints this CLI's "
                                                               "stream on stdout (claude-code, codex, opencode, "
                                                               "gemini), so its tokens are read"),
        model: Optional[str] = typer.Option(None, help="the model the CLI uses (default: the CLI's own)"),
        base_url: Optional[str] = typer.Option(None, help="model endpoint (Claude Code: ANTHROPIC_BASE_URL; Codex "
                                                          "and OpenCode: an OpenAI-compatible .../v1; Gemini: "
                                                          "GOOGLE_GEMINI_BASE_URL); default: the CLI's own"),
        api_key_env: Optional[str] = typer.Option(None, help="variable holding the key for --base-url (Codex, "
                                                             "OpenCode; default OPENAI_API_KEY)"),
        op: Optional[list[str]] = typer.Option(None, "--op", metavar="OP", help="only these operators (repeatable)"),
        source: Optional[str] = typer.Option(None, help="every operator of this source: aten, vllm or cublas"),
        budget_minutes: float = typer.Option(30.0, help="wall-clock budget of each session, minutes (self-checks "
                                                        "included); the session is killed at its end"),
        check_tier: str = typer.Option(",".join(SHOWN_TIERS), help="tiers the self-check may run: smoke, full or "
                                                                   "smoke,full (the first is its default); never "
                                                                   "held-out"),
        final_tier: str = typer.Option(VERDICT_TIER, help="tier selection of the verdict: all (default: smoke + "
                                                          "full + heldout), a tier, or a comma list"),
        jobs: Optional[int] = typer.Option(None, min=1, help="sessions in parallel (default: one per GPU; 2 on "
                                                             "the interpreter)"),
        max_turns: Optional[int] = typer.Option(None, min=1, help="turn cap for CLIs that have one (Claude Code, "
                                                                  "Gemini CLI); exit reason turn_cap"),
        isolation: str = typer.Option("auto", help="auto, namespace (own user + private filesystem view), user "
                                                   "(own user), none (not root: the agent can read what the "
                                                   "harness can)"),
        env: Optional[list[str]] = typer.Option(None, "--env", metavar="NAME",
                                                help="pass this environment variable to every session (repeatable; "
                                                     "credentials of --agent command)"),
        expose: Optional[list[Path]] = typer.Option(None, "--expose", metavar="PATH",
                                                    help="a path the session may read (read-only; repeatable)"),
        agent_python: bool = typer.Option(True, "--agent-python/--no-agent-python",
                                          help="give sessions the harness's Python (torch, triton) without the "
                                               "harness package"),
        workspaces: Optional[Path] = typer.Option(None, help="where workspaces go (default "
                                                             "$TMPDIR/kgb-agent/<run>-<hash>)"),
        retry_errors: bool = typer.Option(False, help="re-run operators whose recorded session ended in error"),
        out: Optional[Path] = typer.Option(None, help="run directory (default runs/<timestamp>-<name>, resumed "
                                                      "when the same configuration ran before)"),
        name: Optional[str] = typer.Option(None, help="run name (default agent-<agent>[-<model>])"),
        runs_root: Path = typer.Option(Path("runs"), help="where run directories go"),
        fresh: bool = typer.Option(False, help="start a new run directory instead of resuming"),
        platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection: cuda, "
                                                                             "interpreter, ..."),
        as_profile: Optional[str] = typer.Option(None, "--as-profile", help="run on the CPU interpreter under a "
                                                 "vendor's profile (rocm, ascend, musa, dcu, iluvatar, metax): its "
                                                 "prompt section, dtype limits, tolerance and failure patterns "
                                                 "for the session's prompt, self-checks and verdict"),
        case_timeout: float = typer.Option(300.0, min=1.0, help="seconds one case may take (self-checks and "
                                                                "verdicts)"),
        reps: int = typer.Option(30, min=1, help="timed repetitions per side per case (GPU)"),
    ) -> None:
        """Run a coding agent headless on each operator (own workspace, self-check, time budget), judge the
        file it leaves with the pipeline of kgb eval, report accuracy, speedup, tokens and cost."""
        from .. import platforms
        from ..llm.commands import _device_name
        from ..run.job import Settings
        from ..settings import interpreter_max_mb_default
        from ..suite.registry import select
        from ..suite.tiers import tier_label
        from . import isolation as iso_mod
        from .clis import AgentError, get_agent
        from .run import AgentConfig, AgentRun, Event, Interrupted, open_run

        console = _console()
        try:
            cfg = AgentConfig(agent=agent, command=command, stream_format=stream_format, model=model,
                              base_url=base_url, api_key_env=api_key_env, ops=list(op) if op else None, source=source,
                              tier=final_tier, check_tiers=tuple(check_tier.split(",")), budget_s=budget_minutes * 60,
                              max_turns=max_turns, isolation=isolation, env=list(env or []),
                              expose=[p.resolve() for p in expose or []], agent_python=agent_python,
                              workspaces=workspaces.resolve() if workspaces else None, retry_errors=retry_errors)
            cli = get_agent(agent, command, stream_format)
            cli_path = cli.require()
            ops = select(cfg.ops, source)
            plat = platforms.detect(platform_name, as_profile)
            interpreter_max_mb_default()  # KGB_INTERPRETER_MAX_MB: a bad value is a usage error before anything runs
        except (AgentError, KeyError, ValueError) as exc:
            raise typer.BadParameter(str(exc.args[0] if exc.args else exc)) from None
        if not ops:
            raise typer.BadParameter("no operator selected (--op OP or --source S)")
        if not op and not source:
            raise typer.BadParameter("select operators with --op OP (repeatable) or --source aten|vllm|cublas")
        if agent == "command" and command:
            rel = workspace_relative_paths(command, Path.cwd())
            if rel:
                raise typer.BadParameter(
                    f"{', '.join(rel)}: a path relative to this directory, but the command runs in each operator's "
                    f"own workspace, where it does not exist; give it absolute (e.g. "
                    f"{Path.cwd() / rel[0]})", param_hint="'--command'")
        for p in cfg.expose:
            if not p.exists():
                raise typer.BadParameter(f"--expose {p}: no such path")
        try:
            version = cli.version(cli_path)
            from ..run.scheduler import make_slots

            n_slots = len(make_slots(plat, jobs))
            iso = iso_mod.choose(isolation, n_slots)
        except (AgentError, ValueError, RuntimeError) as exc:
            raise typer.BadParameter(str(exc)) from None
        try:
            rundir = open_run(cfg, plat, version, iso.level, out, runs_root, name, fresh)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        if iso.level == "user":
            ws_root = cfg.workspaces or AgentRun.default_workspaces(rundir.path)
            ws_root.mkdir(parents=True, exist_ok=True)
            os.chmod(ws_root, 0o711)
            far = iso_mod.unreachable_by(iso.users[0], [ws_root, cli_path])
            if far:
                raise typer.BadParameter(f"isolation level 'user': the agent's user {iso.users[0].name} cannot reach "
                                         f"{', '.join(far)} (a folder on the way is not traversable by other users): "
                                         f"use --workspaces under /tmp, install the CLI where every user can run it, "
                                         f"or chmod o+x the folders")
            iso.readable = iso_mod.readable_by(iso.users[0], iso_mod.protected_paths([rundir.path]))
            if iso.readable:
                iso.warnings.append("readable by the agent's user: " + ", ".join(iso.readable))
        what = f"command {command!r}" if agent == "command" else f"{cli.name} {version} ({cli_path})"
        console.print(f"[bold]kgb agent[/bold] {what}"
                      + (f" · model {model}" if model else "") + (f" @ {base_url}" if base_url else "")
                      + f" · {plural(len(ops), 'operator')} · budget {budget_minutes:g} min · self-check "
                        f"{' or '.join(cfg.check_tiers)} · verdict tier {tier_label(cfg.tier)} · platform {plat.key}"
                        f" · run {rundir.path}")
        console.print(f"isolation: {iso.level} ({iso.reason})")
        for w in iso.warnings:
            console.print(f"[bold yellow]WARNING: {escape(w)}[/bold yellow]")
        settings = Settings(reps=reps, case_timeout_s=case_timeout)

        from ..console import OperatorBar

        bar = OperatorBar(console, len(ops))  # operators recorded (earlier ones included), elapsed, eta

        def on_event(e: Event) -> None:
            if e.kind == "start":
                console.print(f"[dim]→ {e.op}: session started[/dim]")
                return
            console.print(operator_line(e.op, e.record or {}, resumed=e.kind == "resumed"))
            bar.advance(earlier=e.kind == "resumed")  # after the operator's line: in a log, the count follows it

        runner = AgentRun(cfg, rundir, plat, cli, cli_path, version, iso, settings=settings, jobs=jobs,
                          on_event=on_event, device_name=_device_name(plat))
        from ..console import TermAsInterrupt, exit_interrupted

        term = TermAsInterrupt()
        try:
            with term, bar:  # SIGTERM stops the sessions as Ctrl-C does
                summary = runner.run(ops)
        except Interrupted as exc:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            console.print(f"[yellow]{'terminated (SIGTERM)' if term.fired else 'interrupted'}: {exc.recorded} of "
                          f"{plural(exc.selected, 'operator')} recorded in {exc.path}; run the same command again to "
                          f"resume[/yellow]")
            exit_interrupted(143 if term.fired else 130)
        console.print(operators_table(summary, plat.timing and not plat.interpreter))
        console.print(cost_table(summary))
        who = "command" if agent == "command" else f"{cli.name} {version}"
        console.print(summary_table(summary, f"summary · {who}" + (f" · {model}" if model else "")
                                    + f" · tier {tier_label(cfg.tier)} · {plat.key} · {summary.get('wall_s', 0):.1f} s"
                                    + f" ({plural(summary['sessions_run'], 'session')} run now)"))
        if not summary["sessions_run"]:
            console.print("[dim]no session run now: every selected operator was already recorded (--fresh starts "
                          "over, --retry-errors re-runs sessions that ended in error)[/dim]")
        if not plat.timing:
            console.print(f"[dim]speedups: not applicable on the {plat.name} platform (timing is reported on GPUs "
                          f"only)[/dim]")
        from ..tables import _print_failures
        from .summary import latest_records

        latest = latest_records(rundir.records(), tier=cfg.tier, platform=plat.name)
        _print_failures([latest[o.id] for o in ops if o.id in latest])  # each failed verdict's first failure in full
        warning = canary_warning(summary, iso.level, [str(p) for p in cfg.expose])
        if warning:
            console.print(f"[bold yellow]{escape(warning)}[/bold yellow]")
        console.print(f"results: {rundir.results}\nsummary: {rundir.path / 'summary.json'}\n"
                      f"workspaces: {runner.workspaces}")
        from ..llm.commands import unsolved_operators

        unsolved = unsolved_operators(summary)
        if unsolved:
            console.print(f"[dim]{len(unsolved)} of {plural(len(ops), 'operator')} not solved (exit code 1)[/dim]")
            raise typer.Exit(1)

    @app.command("check")
    def check_cmd(
        file: Path = typer.Argument(..., metavar="FILE", help="the submission file"),
        op: Optional[str] = typer.Option(None, "--op", help="the operator it implements, e.g. vllm::rms_norm "
                                                            "(default: the one the file is named after, "
                                                            "vllm__rms_norm.py)"),
        tier: str = typer.Option("smoke", help="smoke or full (a self-check never runs held-out cases)"),
        platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection"),
        as_profile: Optional[str] = typer.Option(None, "--as-profile", help="the CPU interpreter under a vendor's "
                                                                            "profile (as kgb agent --as-profile)"),
    ) -> None:
        """Self-check one file on the smoke or full tier: verdict, first failure, speedup on GPUs (what an
        agent's ./check prints)."""
        from .. import platforms
        from ..run.evaluate import EvaluationError, evaluate_file
        from .selfcheck import check_tiers, format_check

        if op is None:
            from ..suite.registry import by_filename

            named = by_filename(file.name)
            if named is None:
                from ..run.evaluate import closest_filename
                from ..suite.registry import all_operators

                # the operator of that bare name (neg.py), else a close file name (aten__ad.py)
                same = [o for o in all_operators() if o.id.split("::", 1)[1] == file.stem]
                close = same[0] if len(same) == 1 else by_filename(closest_filename(file.name, 0.75) or "")
                raise typer.BadParameter(f"{file.name} is not named after an operator (<source>__<op>.py, e.g. "
                                         f"vllm__rms_norm.py): name the operator with --op"
                                         + (f" (did you mean --op {close.id}?)" if close else ""),
                                         param_hint="'--op'")
            op = named.id
        try:
            tiers = check_tiers(tier)
            if len(tiers) != 1:
                raise ValueError("--tier: one tier (smoke or full)")
            plat = platforms.detect(platform_name, as_profile)
            rec = evaluate_file(file, op, tiers[0], platform=plat.name, as_profile=plat.profile)
        except (ValueError, EvaluationError) as exc:
            raise typer.BadParameter(str(exc)) from None
        text, code = format_check(rec, tiers[0], file.name, plat.key)
        typer.echo(text, nl=False)
        raise typer.Exit(code)


def operator_line(op: str, r: dict[str, Any], resumed: bool = False) -> str:
    """``kgb agent``'s line (Rich markup) for an operator's record ``r``: its mark, cases, failure class, exit
    reason, self-checks, tokens, and the session's and the verdict's wall time (``seconds``, as every other line
    writes a duration); ``resumed``: recorded by an earlier invocation."""
    from ..console import cases_passed

    mark = {"passed": "[green]✓[/green]", "unsupported": "[yellow]~[/yellow]"}.get(r.get("status"), "[red]✗[/red]")
    cls = f" · {r.get('failure_class')}" if r.get("failure_class") else ""
    n_checks = r.get("self_checks", 0)
    tok = [r.get(k) for k in ("tokens_in", "cache_read", "cache_write", "tokens_out")]
    tok_txt = f"{sum(t or 0 for t in tok):,} tok" if any(t is not None for t in tok) else "tokens not reported"
    return (f"{mark} {op} · {cases_passed(cases_cell(r))}{cls} · exit {r.get('exit_reason')} · "
            f"{n_checks} self-check{'' if n_checks == 1 else 's'} · {tok_txt} · session "
            f"{seconds(r.get('session_wall_s') or 0)} + verdict {seconds(r.get('judge_wall_s') or 0)}"
            + (" (recorded earlier)" if resumed else ""))


def workspace_relative_paths(command: str, cwd: Path) -> list[str]:
    """The words of a ``--agent command`` command line that name a file or folder relative to ``cwd`` (the
    directory ``kgb agent`` was started in) by a relative path: the command runs in each operator's workspace,
    where such a path does not exist. Words with a ``{placeholder}``, options (``-x``, ``--x=...``) and words
    without a ``/`` (a program on PATH, a plain argument) are not looked at; an unparsable line gives []."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return []
    found = []
    for w in words:
        if "/" not in w or w.startswith(("/", "-", "~")) or "{" in w or "$" in w:
            continue
        if (cwd / w).exists():
            found.append(w)
    return found


def load_summary(run_dir: Path) -> dict[str, Any]:
    """An agent run's ``summary.json``."""
    return json.loads((run_dir / "summary.json").read_text())
