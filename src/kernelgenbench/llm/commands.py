"""``kgb prompt`` and ``kgb generate`` (registered into the ``kgb`` app by :func:`register`).

    kgb prompt OP [--platform P] [--mode sampling|agent]
    kgb generate --model PROVIDER/NAME [--base-url URL] [--op OP ...] [--source S] [--tier T (default all)]
                 [--k K] [--n N] [--temperature T] [--max-tokens N] [--rounds R --reflection]
                 [--out RUN] [--concurrency C] [--platform P]
    kgb generate --replay samples.jsonl [--op OP ...] [--source S] [--out RUN]
"""
from __future__ import annotations

import json
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..console import OperatorBar, TermAsInterrupt, cases_passed, exit_interrupted
from ..suite.tiers import VERDICT_TIER
from ..tables import plural, seconds


def _console() -> Any:
    from ..console import console

    return console


def _fmt(v: Any, pct: bool = False, x: bool = False, s: bool = False) -> str:
    if v is None:
        return "—"
    if pct:
        return f"{100 * v:.1f}%"
    if x:
        return f"{v:.3f}x"
    if s:
        return seconds(v)
    return str(v)


def summary_table(summary: dict[str, Any], k: int, title: str, tier: str | None = None) -> Table:
    """Accuracy, speedup, tokens and wall-clock per source and overall; the footer says which tiers the
    verdicts cover (``tier``, else the summary's own ``tier``)."""
    from ..suite.tiers import verdict_scope
    from .summary import fmt_tokens

    tier = tier or summary.get("tier")
    t = Table(title=title, caption=verdict_scope(tier) if tier else None)
    # with k = 1, Pass@k is Pass@1: one column, not two headed alike
    cols = ["source", "ops", "solved", "Pass@1"] + ([f"Pass@{k}"] if k != 1 else []) + [
        "geomean", "median", "IQM", "tokens", "tok/solved", "wall/solved"]
    for c in cols:
        t.add_column(c, justify="left" if c == "source" else "right")
    rows = list(summary["by_source"].items()) + [("overall", summary["overall"])]
    for name, g in rows:
        cells = [name, str(g["operators"]), str(g["solved"]), _fmt(g["pass_at_1"], pct=True)]
        if k != 1:
            cells.append(_fmt(g["pass_at_k"], pct=True))
        t.add_row(*cells, _fmt(g["geomean_speedup"], x=True), _fmt(g["median_speedup"], x=True),
                  _fmt(g["iqm_speedup"], x=True), fmt_tokens(g["tokens"]["total"]), fmt_tokens(g["tokens_per_solved"]),
                  _fmt(g["wall_s_per_solved"], s=True))
    return t


def tokens_table(summary: dict[str, Any]) -> Table:
    """Token totals by kind, per source and overall."""
    from .summary import fmt_tokens

    t = Table(title="tokens (every reply the run directory holds, resumed ones included)")
    for c in ("source", "responses", "input", "cached in", "cache write", "output", "reasoning", "total"):
        t.add_column(c, justify="left" if c == "source" else "right")
    rows = list(summary["by_source"].items()) + [("overall", summary["overall"])]
    for name, g in rows:
        tk = g["tokens"]
        t.add_row(name, str(g["responses"]), fmt_tokens(tk["input_tokens"]), fmt_tokens(tk["cached_input_tokens"]),
                  fmt_tokens(tk["cache_write_tokens"]), fmt_tokens(tk["output_tokens"]),
                  fmt_tokens(tk["reasoning_tokens"]), fmt_tokens(tk["total"]))
    return t


def operators_table(summary: dict[str, Any], timing: bool) -> Table:
    """One row per operator: status, the sample that solved it, samples drawn, tokens, last failure."""
    from .summary import fmt_tokens

    t = Table(title="operators")
    cols = ["operator", "status", "solved by", "samples", "responses", "tokens", "last failure"]
    if timing:
        cols.insert(3, "speedup")
    for c in cols:
        t.add_column(c, overflow="fold")
    for op_id, o in sorted(summary["operators"].items()):
        color = {"solved": "green", "failed": "red"}.get(o["status"], "yellow")
        lf = o.get("last_failure") or {}
        why = o.get("error") or (f"{lf.get('failure_class')}: {lf.get('message', '').splitlines()[0][:70]}"
                                  if lf and lf.get("message") else (lf.get("failure_class") or ""))
        row = [op_id, f"[{color}]{o['status']}[/{color}]", o.get("solved_by") or "", str(o["samples"]),
               str(o["responses"]), fmt_tokens(o["tokens"]["total"]), why]
        if timing:
            row.insert(3, _fmt(o.get("speedup"), x=True))
        t.add_row(*row)
    return t


def unsolved_operators(summary: dict[str, Any]) -> list[str]:
    """The operators of a ``kgb generate`` or ``kgb agent`` summary that make the command exit with 1, the rule
    of ``kgb eval`` (a job that failed): status ``failed`` or ``not_run`` (never judged: a request or session
    error, or a run stopped early). ``solved`` and ``unsupported`` (the platform cannot judge its cases) do
    not."""
    return sorted(op for op, o in (summary.get("operators") or {}).items()
                  if o.get("status") not in ("solved", "unsupported"))


@dataclass
class ReplaySource:
    """What ``kgb generate --replay FILE`` replays by default.

    Attributes:
        path: the ``samples.jsonl``.
        ops: the operators that have a reply in it, in first-reply order.
        tier: the tier of the run that wrote it (its ``config.json`` beside the file), None when unknown.
        run: that run directory's name.
        sampling: that run's ``k``, ``n``, ``rounds``, ``reflection`` and ``early_stop`` (those its config
            holds): a replay scores pass@k as the replayed run did unless the options say otherwise.
    """

    path: Path
    ops: list[str]
    tier: str | None
    run: str
    sampling: dict[str, Any] = field(default_factory=dict)

    def describe(self, ops: list[str], tier: str) -> str:
        """The header's words: which run, and whether the operators (ids) and tier are the replayed run's."""
        n = len(self.ops)
        what = (f"its {n} operator{'' if n == 1 else 's'}" if set(ops) == set(self.ops) else
                f"{len(ops)} selected operator{'' if len(ops) == 1 else 's'} (it has replies for {n})")
        how = "its tier" if tier == self.tier else ("tier unknown" if self.tier is None else f"it ran {self.tier}")
        return f"run {self.run}: {what} · {how}"


def replay_source(path: Path) -> ReplaySource:
    """Read a ``samples.jsonl`` to replay: its operators (those with replies) and its run's tier.

    Raises:
        ValueError: no such file, or it holds no reply.
    """
    from ..suite.tiers import tier_name
    from .generate import read_jsonl

    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    ops: list[str] = []
    for line in read_jsonl(path):
        if "sample_id" in line and isinstance(line.get("op"), str) and line["op"] not in ops:
            ops.append(line["op"])
    if not ops:
        raise ValueError(f"{path} holds no reply (no line with a sample_id and an op)")
    tier = None
    sampling: dict[str, Any] = {}
    try:
        conf = json.loads((path.parent / "config.json").read_text())
        if conf.get("command") == "kgb generate":
            if conf.get("tier"):
                tier = tier_name(str(conf["tier"]))
            sampling = {key: conf[key] for key in ("k", "n", "rounds", "reflection", "early_stop")
                        if conf.get(key) is not None}
    except (OSError, ValueError):
        tier = None
    return ReplaySource(path, ops, tier, path.resolve().parent.name, sampling)


def register(app: typer.Typer) -> None:
    """Add ``prompt`` and ``generate`` to the ``kgb`` app."""

    @app.command("prompt")
    def prompt_cmd(
        op: str = typer.Argument(..., metavar="OP", help="operator id, e.g. vllm::rms_norm"),
        platform_name: Optional[str] = typer.Option(None, "--platform",
                                                    help="cuda, interpreter, ... (default: detected)"),
        mode: str = typer.Option("sampling", help="sampling (answer with a code block) or agent (write the file)"),
        as_profile: Optional[str] = typer.Option(None, "--as-profile", help="the interpreter under a vendor's "
                                                                            "profile (rocm, ascend, ...): its "
                                                                            "platform section"),
    ) -> None:
        """Print the prompt of one operator for a platform (what `kgb generate` sends)."""
        from .. import platforms
        from ..suite.registry import get_operator
        from .prompt import MODES, build_prompt

        if mode not in MODES:
            raise typer.BadParameter(f"--mode must be one of {', '.join(MODES)}")
        try:
            o = get_operator(op)
            plat = platforms.detect(platform_name, as_profile)
        except (KeyError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from None
        p = build_prompt(o, plat, mode, _device_name(plat))
        typer.echo(p.text(), nl=False)

    @app.command("generate")
    def generate_cmd(
        model: Optional[str] = typer.Option(None, help="PROVIDER/NAME: openai/<model> (any OpenAI-compatible "
                                                       "endpoint) or anthropic/<model>"),
        base_url: Optional[str] = typer.Option(None, help="endpoint, e.g. http://127.0.0.1:8000/v1 (default: the "
                                                          "provider's)"),
        op: Optional[list[str]] = typer.Option(None, "--op", metavar="OP", help="only these operators (repeatable)"),
        source: Optional[str] = typer.Option(None, help="only this source: aten, vllm or cublas"),
        tier: Optional[str] = typer.Option(None, help="tier every sample is judged on: all (default: smoke + full "
                                                      "+ heldout, a whole verdict; with --replay: the replayed "
                                                      "run's), smoke, full, heldout or a comma list; reflection "
                                                      "never shows a held-out case"),
        k: Optional[int] = typer.Option(None, "--k", help="k of pass@k (samples per operator unless --n is "
                                                          "given; default 1, with --replay the replayed run's)"),
        n: Optional[int] = typer.Option(None, "--n", help="samples per operator (>= k); n > k draws all n "
                                                          "(no early stopping) for the unbiased estimator; with "
                                                          "--replay: the replayed run's"),
        temperature: float = typer.Option(0.0, help="sampling temperature"),
        max_tokens: int = typer.Option(8192, help="output token limit per request"),
        rounds: Optional[int] = typer.Option(None, help="rounds per sample, the first included (default 1; 2 "
                                                        "with --reflection)"),
        reflection: bool = typer.Option(False, "--reflection", help="later rounds carry the previous code and its "
                                                                    "first failing case"),
        early_stop: Optional[bool] = typer.Option(None, "--early-stop/--no-early-stop",
                                                  help="stop an operator at its first correct sample (default: on "
                                                       "when n == k)"),
        out: Optional[Path] = typer.Option(None, help="run directory (default runs/<timestamp>-<name>, resumed "
                                                      "when the same model/tier/platform/temperature ran before)"),
        name: Optional[str] = typer.Option(None, help="run name (default gen-<provider>-<model>)"),
        runs_root: Path = typer.Option(Path("runs"), help="where run directories go"),
        fresh: bool = typer.Option(False, help="start a new run directory instead of resuming"),
        replay: Optional[Path] = typer.Option(None, help="re-extract and re-evaluate the replies of this "
                                                         "samples.jsonl (no model); by default the operators that "
                                                         "have replies there, on the replayed run's tier"),
        concurrency: int = typer.Option(4, help="requests in flight (and operators sampled) at once"),
        platform_name: Optional[str] = typer.Option(None, "--platform", help="override detection: cuda, "
                                                                             "interpreter, ..."),
        as_profile: Optional[str] = typer.Option(None, "--as-profile", help="prompt and judge on the CPU "
                                                                            "interpreter under a vendor's profile "
                                                                            "(rocm, ascend, ...; with --platform "
                                                                            "interpreter)"),
        jobs: Optional[int] = typer.Option(None, help="evaluation slots (default: one per GPU; 2 on the "
                                                      "interpreter)"),
        timeout: float = typer.Option(600.0, help="per-request timeout, seconds"),
        max_retries: int = typer.Option(6, help="retries per request on 429/5xx/connection errors"),
        backoff: float = typer.Option(2.0, help="first retry backoff, seconds (doubles, jittered, capped at 60)"),
        api_key_env: Optional[str] = typer.Option(None, help="environment variable holding the API key (default "
                                                             "OPENAI_API_KEY / ANTHROPIC_API_KEY)"),
        extra_body: Optional[str] = typer.Option(None, help="JSON object of provider-specific request fields"),
        mode: str = typer.Option("sampling", help="prompt mode"),
        reps: int = typer.Option(30, help="timed repetitions per side per case (GPU)"),
        backend: str = typer.Option("local", help="local (evaluation slots in this process) or ray (each sample "
                                                  "judged by a Ray task holding one GPU, or CPUs on the "
                                                  "interpreter; pip install 'kernelgenbench[ray]')"),
        address: Optional[str] = typer.Option(None, help="with --backend ray: the cluster to join (host:port, or "
                                                         "auto); default: a Ray instance on this machine"),
    ) -> None:
        """Sample kernels from a model (pass@k, reflection), evaluate every sample, report accuracy,
        speedup and tokens."""
        from .. import platforms
        from ..run.job import Settings
        from ..settings import interpreter_max_mb_default
        from ..suite.registry import select
        from ..suite.tiers import tier_label, tier_name
        from .clients import LLMAuthError, LLMError, make_client
        from .generate import Event, GenerateConfig, Generation, GenerationInterrupted, open_run

        console = _console()
        replayed: ReplaySource | None = None
        if replay is not None:
            try:
                replayed = replay_source(replay)
            except ValueError as exc:
                raise typer.BadParameter(str(exc), param_hint="'--replay'") from None
            if not op and not source:
                op = replayed.ops  # exactly the replayed run's operators (those with replies)
            if tier is None and replayed.tier is not None:
                tier = replayed.tier
            # score as the replayed run did (pass@k of its k, its rounds) unless an option says otherwise
            old = replayed.sampling
            if k is None and n is None:  # the replayed run's k and n together (a given --k or --n: its defaults)
                k, n = old.get("k"), old.get("n")
                early_stop = early_stop if early_stop is not None else old.get("early_stop")
            rounds = rounds if rounds is not None else old.get("rounds")
            reflection = reflection or bool(old.get("reflection"))
        k = 1 if k is None else int(k)
        try:
            tier = tier_name(tier if tier is not None else VERDICT_TIER)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="'--tier'") from None
        try:
            body = json.loads(extra_body) if extra_body else None
            if body is not None and not isinstance(body, dict):
                raise ValueError("--extra-body must be a JSON object")
        except json.JSONDecodeError as exc:
            raise typer.BadParameter(f"--extra-body is not JSON: {exc}") from None
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        cfg = GenerateConfig(model=model, base_url=base_url, ops=list(op) if op else None, source=source, tier=tier,
                             k=k, n=n, temperature=temperature, max_tokens=max_tokens,
                             rounds=rounds if rounds is not None else (2 if reflection else 1), reflection=reflection,
                             concurrency=concurrency, early_stop=early_stop, mode=mode, timeout_s=timeout,
                             max_retries=max_retries, backoff_s=backoff, api_key_env=api_key_env, extra_body=body,
                             replay=replay)
        try:
            cfg.validate()
            ops = select(cfg.ops, source)
            plat = platforms.detect(platform_name, as_profile)
            interpreter_max_mb_default()  # KGB_INTERPRETER_MAX_MB: a bad value is a usage error before anything runs
        except (KeyError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from None
        if not ops:
            raise typer.BadParameter("no operator selected")
        client = None
        if replay is None:
            try:
                client = make_client(str(model), base_url, timeout_s=timeout, max_retries=max_retries,
                                     backoff_s=backoff, concurrency=concurrency, api_key_env=api_key_env,
                                     extra_body=body)
            except (ValueError, LLMError) as exc:
                raise typer.BadParameter(str(exc)) from None

            def retrying(label: str, attempt: int, attempts: int, error: str, wait_s: float) -> None:
                console.print(f"[yellow]{escape(label)}: attempt {attempt} of {attempts} failed "
                              f"({escape(error)}); retrying in {wait_s:.0f} s (--max-retries, --backoff)[/yellow]",
                              soft_wrap=True)

            client.on_retry = retrying
        try:
            rundir = open_run(cfg, plat, out, runs_root, name, fresh)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        if replay is None and temperature == 0.0 and cfg.samples_per_op > 1:
            console.print("[yellow]note: temperature 0 with several samples per operator; samples may repeat "
                          "(pass --temperature for diverse samples)[/yellow]")
        what = f"{model}" + (f" @ {base_url}" if base_url else "")
        if replayed is not None:
            what = f"replay {replay} ({replayed.describe([o.id for o in ops], tier)})"
        console.print(f"[bold]kgb generate[/bold] {what} · {plural(len(ops), 'operator')} · tier {tier_label(tier)} · "
                      f"platform {plat.name} · "
                      f"k={cfg.k} n={cfg.samples_per_op} rounds={cfg.rounds}{' (reflection)' if cfg.reflection else ''}"
                      f" · early stop {'on' if cfg.early else 'off'} · T={temperature} · run {rundir.path}")

        resumed_ops: set[str] = set()   # operators with a reply recorded by an earlier call
        fresh_ops: set[str] = set()     # operators with a reply requested or judged by this one

        def on_event(e: Event) -> None:
            (resumed_ops if e.resumed else fresh_ops).add(e.op)
            mark = {"passed": "[green]✓[/green]", "unsupported": "[yellow]~[/yellow]"}.get(e.status, "[red]✗[/red]")
            cls = f" · {e.failure_class}" if e.failure_class else ""
            src = " (resumed)" if e.resumed else ""
            # a replay requests nothing: the request time is the recorded one
            req = "recorded request" if replayed is not None else "request"
            console.print(f"{mark} {e.op} {e.label} · {cases_passed(e.cases)}{cls} · tokens {e.tokens_in} in + "
                          f"{e.tokens_out} out · "
                          f"{req} {e.request_s:.1f} s + eval {e.eval_s:.1f} s{src}")

        def on_judge(op_id: str, label: str) -> None:
            fresh_ops.add(op_id)  # judged by this call, even where its reply was recorded earlier
            console.print(f"[dim]→ {op_id} {label}: judging on tier {tier_label(tier)}[/dim]")

        ray_backend = None
        if backend not in ("local", "ray"):
            raise typer.BadParameter(f"unknown backend {backend!r}; known: local, ray", param_hint="'--backend'")
        if address is not None and backend != "ray":
            raise typer.BadParameter("an address is a Ray cluster's: use it with --backend ray")
        if backend == "ray":
            from ..run.ray_backend import RayBackend, RayOptions

            ray_backend = RayBackend(plat, RayOptions(address=address,
                                                      local_cpus=(jobs or 2) if plat.interpreter else None))
            try:
                info = ray_backend.start()
            except RuntimeError as exc:
                raise typer.BadParameter(str(exc), param_hint="'--backend'") from None
            console.print(f"Ray: {info['nodes']} node(s), {info['slots']} job(s) at once"
                          + (f" at {address}" if address else " (a local instance for this run)"))
        bar = OperatorBar(console, len(ops))  # operators done, elapsed, eta; the lines above print over it

        def on_operator(op_id: str) -> None:
            # an operator every reply of which was recorded by an earlier call is left out of the estimate
            bar.advance(earlier=op_id in resumed_ops and op_id not in fresh_ops)

        gen = Generation(cfg, rundir, plat, client, settings=Settings(reps=reps), jobs=jobs, on_event=on_event,
                         device_name=_device_name(plat), ray=ray_backend, on_judge=on_judge,
                         on_operator=on_operator)
        code = 0
        term = TermAsInterrupt()  # SIGTERM (kill, timeout, a batch scheduler) stops the run as Ctrl-C does
        try:
            with term, bar:
                summary = gen.run(ops)
        except GenerationInterrupted as exc:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break the exit
            console.print(f"[yellow]{'terminated (SIGTERM)' if term.fired else 'interrupted'}: {exc.finished} of "
                          f"{exc.selected} operators finished, "
                          f"{exc.recorded} evaluations recorded in {exc.path}; run the same command again to "
                          f"resume[/yellow]")
            if ray_backend is not None:
                ray_backend.close()
            exit_interrupted(143 if term.fired else 130)
        except LLMAuthError as exc:
            console.print(f"[red]stopped: {exc}[/red]")
            summary = json.loads((rundir.path / "summary.json").read_text())
            code = 1
        finally:
            if ray_backend is not None:
                ray_backend.close()
        for op_id, err in sorted(gen.errors.items()):
            # a request's error already names its operator and sample ("aten::add s0r0: giving up ...")
            console.print(f"[red]{escape(str(err) if str(err).startswith(op_id) else f'{op_id}: {err}')}[/red]")
        console.print(operators_table(summary, plat.timing))
        console.print(tokens_table(summary))
        resumed = "" if replay else (f", {summary.get('requests_made', 0)} replies received by this call "
                                     f"({summary.get('http_attempts', 0)} HTTP attempts, retries and failed "
                                     f"requests included)")
        console.print(summary_table(summary, cfg.k, f"summary · {cfg.model or 'replay'} · tier {tier_label(tier)} · "
                                                    f"{plat.name} · {summary.get('wall_s', 0):.1f} s{resumed}",
                                    tier=tier))
        if not plat.timing:
            console.print(f"[dim]speedups: not applicable on the {plat.name} platform (timing is reported on GPUs "
                          f"only)[/dim]")
        console.print(f"samples: {rundir.path / 'samples.jsonl'}\nresults: {rundir.results}\n"
                      f"summary: {rundir.path / 'summary.json'}")
        unsolved = unsolved_operators(summary)
        if unsolved or gen.errors:
            console.print(f"[dim]{len(set(unsolved) | set(gen.errors))} of {plural(len(ops), 'operator')} not solved "
                          f"(exit code 1)[/dim]")
            code = 1
        if code:
            raise typer.Exit(code)


def _device_name(plat: Any) -> str | None:
    """The GPU's name for the prompt on GPU platforms (None on the interpreter or without a device)."""
    if plat.interpreter:
        return None
    try:
        import torch

        if plat.device == "cuda" and torch.cuda.is_available():
            return f"{torch.cuda.get_device_name(0)} ({plat.name})"
    except Exception:  # noqa: BLE001 - the prompt falls back to the platform's description
        return None
    return None
