"""Unit tests of the agent track: each CLI's parser on recorded real output, a killed stream counted once per
message, the self-check's client and server, tiers, templates, scores, isolation levels, errors.

``tests/agent_fixtures/<cli>/<case>/`` are real sessions of the pinned CLIs against ``tests/llm_server.py``
(recorded by ``KGB_RECORD_AGENT_FIXTURES=1 pytest tests/test_agent_e2e.py -k "fixes or killed"``):
``transcript.jsonl`` (the CLI's stdout), ``home/`` (its session logs), ``expected.json`` (what the server
served and what the harness recorded). These run without the CLIs installed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.agent import isolation
from kernelgenbench.agent.clis import AGENTS, AgentError, Command, LaunchContext, get_agent
from kernelgenbench.agent.run import AgentConfig, not_found_hint, oracle_overlap
from kernelgenbench.agent.selfcheck import CheckServer, check_tiers, client_script, format_check
from kernelgenbench.agent.summary import summarize_agent_run
from kernelgenbench.agent.usage import PARSERS, parse_claude, parse_codex, parse_gemini, parse_opencode
from kernelgenbench.cli import app
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.tiers import SHOWN_TIERS, VERDICT_TIER

FIXTURES = Path(__file__).resolve().parent / "agent_fixtures"
CASES = sorted(p for p in FIXTURES.glob("*/*") if (p / "expected.json").is_file())


# -- the parsers, on recorded output of the real CLIs ------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_parser_reads_recorded_session(case: Path) -> None:
    exp = json.loads((case / "expected.json").read_text())
    home = case / "home" if (case / "home").is_dir() else None
    info = PARSERS[exp["cli"]](case / "transcript.jsonl", home)
    u = info.usage
    got = {"tokens_in": u.input_tokens, "cache_read": u.cache_read_tokens, "cache_write": u.cache_write_tokens,
           "tokens_out": u.output_tokens, "reasoning": u.reasoning_tokens, "requests": u.requests, "turns": u.turns,
           "cost_usd": u.cost_usd, "usage_complete": u.complete, "usage_source": u.source}
    assert got == {k: exp[k] for k in got}
    served = exp["served"]
    if exp["usage_complete"] or exp["cli"] != "opencode":  # OpenCode's killed session lacks its last response
        assert u.input_tokens == served["input"] and u.output_tokens == served["output"]
        assert u.cache_read_tokens == served["cache_read"] and u.requests == served["responses"]
    assert info.status == ("success" if exp["exit_reason"] == "done" else None)


def test_every_cli_has_recorded_fixtures() -> None:
    have = {(p.parent.name, p.name) for p in CASES}
    for cli in ("claude-code", "codex", "opencode", "gemini"):
        assert {(cli, "done"), (cli, "killed")} <= have, f"no recorded fixture of {cli}"


def test_claude_killed_stream_counts_each_message_once(tmp_path: Path) -> None:
    """Claude Code repeats one API message in one ``assistant`` event per content block, and in the partial
    stream and the session log: a killed session's usage counts each message id once, its output from the
    message's last (cumulative) ``message_delta``."""
    case = FIXTURES / "claude-code" / "killed"
    if not case.is_dir():
        pytest.skip("no recorded Claude Code fixture")
    exp = json.loads((case / "expected.json").read_text())
    events = [json.loads(ln) for ln in (case / "transcript.jsonl").read_text().splitlines() if ln.strip()]
    ids = [e["message"]["id"] for e in events if e.get("type") == "assistant"]
    assert len(ids) > len(set(ids))  # repeated in the stream
    naive_in = sum(e["message"]["usage"]["input_tokens"] for e in events if e.get("type") == "assistant")
    info = parse_claude(case / "transcript.jsonl", case / "home")
    assert info.usage.input_tokens == exp["served"]["input"] < naive_in
    assert info.usage.output_tokens == exp["served"]["output"]
    # the stream alone (no session log) gives the same: the output count of message_delta
    alone = parse_claude(case / "transcript.jsonl", tmp_path)
    assert (alone.usage.output_tokens, alone.usage.source) == (exp["served"]["output"], "stream")
    # the session log alone, with the stream cut before any message: still every finished message
    cut = tmp_path / "cut.jsonl"
    cut.write_text((case / "transcript.jsonl").read_text().splitlines()[0] + "\n")
    log_only = parse_claude(cut, case / "home")
    assert log_only.usage.source == "session_log" and log_only.usage.output_tokens == exp["served"]["output"]


def test_parsers_survive_garbage(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'not json\n{"type": "result", "subtype"\n\x00\xff\n[1,2]\n')
    for name, parse in PARSERS.items():
        info = parse(f, tmp_path)
        assert info.usage.input_tokens is None and info.status is None, name
        info = parse(tmp_path / "missing.jsonl", None)
        assert info.usage.total is None


def test_opencode_semantics_from_synthetic_steps(tmp_path: Path) -> None:
    """OpenCode's tokens.input is uncached, tokens.output excludes reasoning; steps are summed."""
    f = tmp_path / "t.jsonl"
    steps = [{"type": "step_finish", "part": {"id": f"p{i}", "reason": r, "cost": 0.5,
                                              "tokens": {"input": 10, "output": 3, "reasoning": 2,
                                                         "cache": {"read": 4, "write": 1}}}}
             for i, r in enumerate(("tool-calls", "stop"))]
    f.write_text("\n".join(json.dumps(s) for s in steps) + "\n")
    u = parse_opencode(f).usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens, u.cache_write_tokens) == \
        (20, 10, 4, 8, 2)
    assert (u.requests, u.cost_usd, u.complete, u.total) == (2, 1.0, True, 20 + 8 + 2 + 10)


def test_codex_and_gemini_semantics_from_synthetic_events(tmp_path: Path) -> None:
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps({"type": "turn.completed", "usage": {"input_tokens": 100, "cached_input_tokens": 30,
                                                                  "output_tokens": 20, "reasoning_output_tokens": 5}}))
    u = parse_codex(f).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens) == (70, 30, 20, 5)
    g = tmp_path / "g.jsonl"
    g.write_text(json.dumps({"type": "result", "status": "success", "stats": {
        "input_tokens": 100, "input": 70, "cached": 30, "output_tokens": 20, "total_tokens": 125}}))
    u = parse_gemini(g).usage
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens, u.cache_write_tokens) == \
        (70, 30, 25, 5, None)


# -- the self-check ---------------------------------------------------------------------------------------
def test_check_tiers_never_heldout() -> None:
    assert check_tiers("smoke,full") == ("smoke", "full") == check_tiers("full,smoke")
    assert check_tiers(["full"]) == ("full",)
    for bad in ("heldout", "all", "smoke,heldout", ""):
        with pytest.raises(ValueError):
            check_tiers(bad)
    assert AgentConfig("command", command="x").check_tiers == SHOWN_TIERS


def test_check_client_and_server(tmp_path: Path) -> None:
    """The workspace's ./check (stdlib, run by the system python3) sends the file's bytes over the socket;
    the server judges them (a stub judge here), counts and logs the call, and refuses held-out tiers."""
    seen = []

    def judge(path: Path, tier: str, workdir: Path, label: str) -> dict:
        seen.append((path.read_text(), tier, label))
        ok = "good" in path.read_text()
        return {"status": "passed" if ok else "failed", "failure_class": None if ok else "wrong_result",
                "cases_passed": 4 if ok else 0, "cases_total": 4,
                "first_failure": None if ok else {"case_id": "smoke/0", "case": {"n": 3},
                                                  "message": "outside tolerance"}}

    sock = tmp_path / ("s" * 90) / "sock"  # a socket path past the 107-byte limit
    work = tmp_path / "work"
    work.mkdir()
    store = tmp_path / "store"
    store.mkdir()
    srv = CheckServer("vllm::rms_norm", "vllm__rms_norm.py", sock, store, ("smoke", "full"), judge, "interpreter")
    try:
        (work / "check").write_text(client_script("vllm::rms_norm", "vllm__rms_norm.py", sock, ("smoke", "full"),
                                                  False))
        (work / "vllm__rms_norm.py").write_text("bad")
        (work / "other.py").write_text("good")

        def run(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(["/usr/bin/env", "python3", "check", *args], cwd=work, capture_output=True, text=True,
                                  timeout=60, env={"PATH": "/usr/bin:/bin"})

        r = run()
        assert r.returncode == 1 and "FAILED [wrong_result]" in r.stdout and "smoke/0 (n=3)" in r.stdout
        assert "outside tolerance" in r.stdout and "self-check #1" in r.stdout
        r = run("other.py", "--tier", "full")
        assert r.returncode == 0 and "PASSED (4 of 4 cases passed)" in r.stdout and "full tier" in r.stdout
        r = run("--tier", "heldout")
        assert r.returncode == 2 and "never shown" in r.stderr
        r = run("--tier=all")
        assert r.returncode == 2
        assert [(t, tier, label) for t, tier, label in seen] == [("bad", "smoke", "check1"), ("good", "full", "check2")]
        assert srv.count == 2
        log = [json.loads(ln) for ln in (store / "checks.jsonl").read_text().splitlines()]
        assert [(c["n"], c["tier"], c["status"], c["exit_code"]) for c in log] == [(1, "smoke", "failed", 1),
                                                                                     (2, "full", "passed", 0)]
        # a request for a tier the run does not offer, sent by hand, is refused by the server too
        assert srv._answer({"tier": "heldout", "content": ""})["code"] == 2
        assert srv.count == 2
    finally:
        srv.close()


def test_format_check_shows_speedup_and_unsupported() -> None:
    text, code = format_check({"status": "passed", "cases_passed": 3, "cases_total": 3, "speedup": 1.5,
                               "sol_pct": 40.0},
                              "full", "x.py", "cuda")
    assert code == 0 and "speedup: 1.500x" in text and "40.0% of speed-of-light" in text
    text, code = format_check({"status": "unsupported", "cases_total": 2, "unsupported_reason": "bf16"}, "smoke",
                              "x.py", "interpreter")
    assert code == 3 and "UNSUPPORTED" in text


def test_kgb_check_command(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    res = CliRunner().invoke(app, ["check", str(root / "tests" / "bad" / "wrong_values__vllm__rms_norm.py"), "--op",
                                   "vllm::rms_norm", "--platform", "interpreter"])
    assert res.exit_code == 1 and "FAILED [wrong_result]" in res.output, res.output
    res = CliRunner().invoke(app, ["check", "x.py", "--op", "vllm::rms_norm", "--tier", "heldout"])
    assert res.exit_code == 2 and "never shown" in res.output


# -- configuration, agents, templates ---------------------------------------------------------------------
def test_defaults() -> None:
    cfg = AgentConfig("claude-code")
    assert cfg.tier == VERDICT_TIER and cfg.budget_s == 1800 and cfg.check_tiers == SHOWN_TIERS
    assert cfg.to_json()["command_template"] is None and "command" not in cfg.to_json()
    import typer.main

    cmd = typer.main.get_command(app).commands["agent"]  # type: ignore[attr-defined]
    defaults = {p.name: p.default for p in cmd.params}
    assert defaults["final_tier"] == VERDICT_TIER and defaults["budget_minutes"] == 30.0
    assert defaults["check_tier"] == ",".join(SHOWN_TIERS) and defaults["isolation"] == "auto"
    with pytest.raises(ValueError):
        AgentConfig("codex", budget_s=0)
    with pytest.raises(ValueError):
        AgentConfig("codex", tier="nope")


def test_agent_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="unknown agent"):
        get_agent("cursor")
    with pytest.raises(AgentError, match="needs --command"):
        get_agent("command")
    with pytest.raises(AgentError, match="for --agent command"):
        get_agent("codex", command="x")
    with pytest.raises(AgentError, match="bad template"):
        get_agent("command", command="run {nope}")
    monkeypatch.setenv("KGB_CODEX_BIN", str(tmp_path / "missing"))
    cli = get_agent("codex")
    assert cli.find() is None
    with pytest.raises(AgentError, match=r"install_agent_clis.sh codex.*@openai/codex@0\.171\.0"):
        cli.require()
    res = CliRunner().invoke(app, ["agent", "--agent", "codex", "--op", "aten::neg"])
    assert res.exit_code == 2 and "not installed" in res.output
    res = CliRunner().invoke(app, ["agent", "--agent", "command", "--command", "true"])
    assert res.exit_code == 2 and "--op" in res.output
    res = CliRunner().invoke(app, ["agent", "--agent", "command", "--command", "true", "--op", "aten::neg",
                                   "--check-tier", "heldout"])
    assert res.exit_code == 2 and "never shown" in res.output
    assert set(AGENTS) == {"claude-code", "codex", "opencode", "gemini", "command"}


def test_command_template_is_quoted_and_named_paths_exposed(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("true")
    cmd = Command(f"sh {script} --prompt {{prompt}} --ws={{workspace}} {{device}}; echo done")
    ctx = LaunchContext("aten::neg", tmp_path / "w", tmp_path / "h", tmp_path / "w" / "PROMPT.md", "it's $HOME `x`",
                        tmp_path / "w" / "aten__neg.py", "./check", None)
    launch = cmd.launch(ctx, Path("/bin/sh"))
    line = launch.argv[2]
    assert "'it'\"'\"'s $HOME `x`'" in line and line.endswith("cpu; echo done")
    out = subprocess.run(["/bin/sh", "-c", line.replace(f"sh {script}", "printf '%s\\n'")], capture_output=True,
                         text=True)
    assert "it's $HOME `x`" in out.stdout  # reached the program verbatim
    assert launch.expose == [script] and launch.env["KGB_DEVICE"] == "cpu"


def test_cli_launch_lines(tmp_path: Path) -> None:
    """Headless flags, web tools off, private state, the endpoint: the command lines of the pinned CLIs."""
    home = tmp_path / "home"
    ctx = LaunchContext("aten::neg", tmp_path / "w", home, tmp_path / "p", "PROMPT", tmp_path / "w" / "aten__neg.py",
                        "./check", 0, model="m", base_url="http://127.0.0.1:9/v1", api_key_env="MY_KEY", max_turns=7,
                        as_root=True)
    c = get_agent("claude-code").launch(ctx, Path("/x/claude"))
    assert c.argv[:6] == ["/x/claude", "-p", "--output-format", "stream-json", "--verbose",
                          "--include-partial-messages"]
    assert "WebFetch WebSearch" in c.argv and ["--max-turns", "7"] == c.argv[-2:] and c.stdin == ctx.prompt_file
    assert c.env["CLAUDE_CONFIG_DIR"] == str(home / ".claude") and c.env["IS_SANDBOX"] == "1"
    x = get_agent("codex").launch(ctx, Path("/x/codex"))
    conf = (home / ".codex" / "config.toml").read_text()
    assert 'web_search = "disabled"' in conf and 'env_key = "MY_KEY"' in conf and "shell_snapshot = false" in conf
    assert x.argv[-1] == "-" and x.env["CODEX_HOME"] == str(home / ".codex")
    o = get_agent("opencode").launch(ctx, Path("/x/opencode"))
    conf = json.loads((home / ".config" / "opencode" / "opencode.json").read_text())
    assert conf["agent"]["title"]["disable"] is True and conf["permission"]["webfetch"] == "deny"
    assert conf["provider"]["kgb"]["options"]["apiKey"] == "{env:MY_KEY}" and o.argv[-1] == "PROMPT"
    g = get_agent("gemini").launch(ctx, Path("/x/gemini"))
    conf = json.loads((home / ".gemini" / "settings.json").read_text())
    assert "google_web_search" in conf["tools"]["exclude"] and conf["model"]["maxSessionTurns"] == 7
    assert g.env["GOOGLE_GEMINI_BASE_URL"] == ctx.base_url and get_agent("gemini").turn_cap_exit(53)
    for text in (json.dumps(conf), (home / ".codex" / "config.toml").read_text()):
        assert "sk-" not in text  # keys stay in the environment


# -- scores --------------------------------------------------------------------------------------------------
def _rec(op: str, status: str, **kw) -> dict:
    return {"op": op, "source": op.split("::")[0], "label": "agent", "tier": "all", "platform": "cuda",
            "status": status, "failure_class": None if status == "passed" else "wrong_result",
            "cases_passed": 1, "cases_total": 2, **kw}


def test_summary_scores() -> None:
    recs = [_rec("aten::add", "passed", speedup=2.0, tokens_in=100, cache_read=10, cache_write=None, tokens_out=50,
                 reasoning=5, cost_usd=0.5, wall_s=100.0, self_checks=3, exit_reason="done", requests=4),
            _rec("aten::neg", "failed", tokens_in=200, cache_read=0, tokens_out=20, cost_usd=None, wall_s=50.0,
                 self_checks=1, exit_reason="budget"),
            _rec("vllm::rms_norm", "passed", speedup=0.5, tokens_in=None, wall_s=10.0, self_checks=0,
                 exit_reason="done"),
            _rec("vllm::rms_norm", "passed", tier="smoke")]  # another tier: not this run's verdict
    s = summarize_agent_run([("aten::add", "aten"), ("aten::neg", "aten"), ("vllm::rms_norm", "vllm"),
                             ("cublas::cublasSaxpy_v2", "cublas")], recs, tier="all", platform="cuda")
    o = s["overall"]
    assert (o["operators"], o["solved"], o["accuracy"], o["not_run"]) == (3, 2, 2 / 3, 1)
    assert o["geomean_speedup"] == pytest.approx(1.0) and o["median_speedup"] == pytest.approx(1.25)
    assert o["tokens"]["input_tokens"] == 300 and o["tokens"]["total"] == 160 + 220
    assert o["tokens"]["cache_write_tokens"] is None  # never reported
    assert o["tokens_per_solved"] == pytest.approx(380 / 2) and o["cost_usd"] == 0.5 and o["cost_per_solved"] == 0.25
    assert o["wall_s_per_solved"] == pytest.approx(80.0) and o["self_checks_per_op"] == pytest.approx(4 / 3)
    assert o["exit_reasons"] == {"done": 2, "budget": 1}
    assert s["by_source"]["aten"]["accuracy"] == 0.5 and s["operators"]["cublas::cublasSaxpy_v2"]["status"] == "not_run"



def test_kgb_summary_of_an_agent_run_shows_its_sessions_and_the_canary(tmp_path: Path) -> None:
    """fresh user 39: `kgb summary` of a kgb agent run printed kgb eval's tables (no exit reason, self-checks,
    tokens or cost; its footer named --tier instead of --final-tier) and nothing of the oracle canary."""
    canary = {"oracle": "/x/solutions/aten__neg.py", "distinctive_lines": 61, "found_in": {"/ws/aten__neg.py": 61},
              "oracle_text_found": True}
    recs = [_rec("aten::neg", "passed", tier="smoke", platform="interpreter", tokens_in=100, cache_read=2000,
                 cache_write=300, tokens_out=400, cost_usd=0.0123, wall_s=5.5, self_checks=1, exit_reason="done",
                 oracle_overlap=canary),
            _rec("vllm::rms_norm", "failed", tier="smoke", platform="interpreter", wall_s=1.0, self_checks=0,
                 exit_reason="error", error="exit status 3: agent crashing")]
    run = tmp_path / "20261207-064454-ag"
    run.mkdir()
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    s = summarize_agent_run([("aten::neg", "aten"), ("vllm::rms_norm", "vllm")], recs, tier="smoke",
                            platform="interpreter")
    for o in s["operators"].values():  # as a run of before session 39 wrote it: the flag comes from the records
        o.pop("oracle_text_found")
    (run / "summary.json").write_text(json.dumps({**s, "tier": "smoke"}))
    (run / "config.json").write_text(json.dumps({"command": "kgb agent", "platform": "interpreter", "tier": "smoke",
                                                 "isolation": "namespace", "expose": ["/data/kernels"]}))
    res = CliRunner().invoke(app, ["summary", str(run)], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "aten::neg │ solved │ 1/2 │ done │ 1 │ — │ 2,800 │ $0.0123 │ 5.5 s" in out, out
    assert "error │ 0 │ — │ — │ — │ 1.0 s │ wrong_result: · session error: exit status 3:" in out, out
    assert "--final-tier all judges every case" in out
    assert ("WARNING: the session files of 1 operator hold the oracle solution's text (oracle_overlap in "
            "results.jsonl: five or more of its distinctive lines): aten::neg; the agent had the oracle (isolation "
            "namespace, --expose /data/kernels)") in out
    assert "speedups: not applicable on the interpreter platform" in out


def test_failed_operator_row_shows_what_went_wrong() -> None:
    """The operators table's narrow failure cell leaves the case's parameters out (they are printed with the
    whole failure after the tables), so it shows the failing comparison, not a cut-off parameter list."""
    from rich.console import Console

    from kernelgenbench.agent.commands import failure_gist, operators_table

    msg = ("case full/428 (form=st, dtype=fp16, alpha=100.001, scalar=-111.999, shape=[1024, 1024]): return: 8265 of "
           "1048576 elements outside tolerance (rtol[fp16]=0.001 atol=1e-4*1); first at (0, 29): got 0.6953125\nmore")
    rec = _rec("aten::add", "failed", first_failure={"case_id": "full/428", "message": msg})
    s = summarize_agent_run([("aten::add", "aten")], [rec], tier="all", platform="cuda")
    o = s["operators"]["aten::add"]
    assert o["failure_case"] == "full/428" and o["message"] == msg.splitlines()[0]
    assert failure_gist(o["message"], o["failure_case"]) == (
        "case full/428: return: 8265 of 1048576 elements outside tolerance (rtol[fp16]=0.001 atol=1e-4*1); first at "
        "(0, 29): got 0.6953125")
    # another case id, or no case: the message as it is
    assert failure_gist(o["message"], "full/4").startswith("case full/428 (form=st")
    assert failure_gist("import failed: boom\ntraceback", None) == "import failed: boom"
    con = Console(width=300, record=True)
    con.print(operators_table(s, timing=False))
    assert "wrong_result: case full/428: return: 8265 of 1048576 elements" in con.export_text()

# -- isolation ------------------------------------------------------------------------------------------------
def test_no_root_means_no_isolation_and_a_loud_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "is_root", lambda: False)
    monkeypatch.setattr(isolation, "namespace_available", lambda: (False, "not root"))
    iso = isolation.choose("auto", 2)
    assert iso.level == "none" and not iso.users
    assert iso.warnings and "NO ISOLATION" in iso.warnings[0] and "held-out" in iso.warnings[0]
    with pytest.raises(ValueError, match="not available"):
        isolation.choose("namespace", 1)
    with pytest.raises(ValueError, match="needs root"):
        isolation.choose("user", 1)
    with pytest.raises(ValueError):
        isolation.choose("docker", 1)


@pytest.mark.skipif(not isolation.is_root(), reason="creating the agent users needs root")
def test_user_level_probes_what_the_agent_could_read() -> None:
    import shutil
    import tempfile

    iso = isolation.choose("user", 1)
    assert iso.level == "user" and iso.users[0].name.startswith("kgb-agent-") and iso.users[0].uid != 0
    base = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's own tmp folder is not traversable by other users
    try:
        os.chmod(base, 0o755)
        secret = base / "secret"
        secret.mkdir(mode=0o700)
        (secret / "f").write_text("x")
        world = base / "world"
        world.mkdir(mode=0o755)
        assert isolation.readable_by(iso.users[0], [secret, world]) == [str(world)]
    finally:
        shutil.rmtree(base)


def test_redact_masks_keys_with_the_same_length(tmp_path: Path) -> None:
    key = "sk-kgb-unit-0123456789abcdef"
    (tmp_path / "a.jsonl").write_text(f'{{"out": "my key is {key}"}}\n')
    (tmp_path / "db").write_bytes(b"\x00\x01" + key.encode() + b"\x02")
    (tmp_path / "clean").write_text("nothing")
    changed = isolation.redact([tmp_path], isolation.secret_values({"OPENAI_API_KEY": key, "OPENAI_BASE_URL": "http://x"}))
    assert sorted(Path(c).name for c in changed) == ["a.jsonl", "db"]
    assert (key.encode() not in (tmp_path / "a.jsonl").read_bytes()
            and len((tmp_path / "db").read_bytes()) == 3 + len(key))
    assert isolation.secret_values({"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "X_TOKEN": "short"}) == {}


def test_oracle_overlap_canary(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    op = get_operator("vllm::rms_norm")
    copy = tmp_path / "copy.py"
    copy.write_text((root / "solutions" / "vllm__rms_norm.py").read_text())
    other = tmp_path / "other.py"
    other.write_text((root / "tests" / "bad" / "wrong_values__vllm__rms_norm.py").read_text())
    r = oracle_overlap(op, [copy, other])
    assert r["oracle_text_found"] is True and r["found_in"][str(copy)] == r["distinctive_lines"]
    assert oracle_overlap(op, [other])["oracle_text_found"] is False


def test_jail_refuses_cleanly_without_privileges(tmp_path: Path) -> None:
    """Run as a user without CAP_SYS_ADMIN, the jail reports why on one line and exits 125."""
    if not isolation.is_root():
        env = {"PATH": "/usr/bin:/bin", "KGB_JAIL_SPEC": json.dumps({"probe": True})}
        r = subprocess.run([sys.executable, "-I", str(isolation.JAIL)], env=env, capture_output=True, text=True)
        assert r.returncode == 125 and r.stderr.startswith("kgb-jail:")
        return
    u = isolation.ensure_user(0)
    env = {"PATH": "/usr/bin:/bin", "KGB_JAIL_SPEC": json.dumps({"probe": True})}
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable  # one the user can run
    r = subprocess.run([python, "-I", str(isolation.JAIL)], env=env, capture_output=True, text=True,
                       user=u.uid, group=u.gid, extra_groups=[], cwd="/")
    assert r.returncode == 125 and r.stderr.startswith("kgb-jail:") and "unshare" in r.stderr


def test_command_with_a_path_relative_to_here_is_refused_with_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command runs in each operator's workspace: a path relative to the directory kgb agent was started in
    (trivial.sh's old usage line) would not be found there; kgb agent says so before any session starts."""
    from kernelgenbench.agent.commands import workspace_relative_paths

    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    cmd = f"sh tests/agent_scripts/trivial.sh {root}/solutions {{submission}}"
    assert workspace_relative_paths(cmd, root) == ["tests/agent_scripts/trivial.sh"]
    assert workspace_relative_paths(f"sh {root}/tests/agent_scripts/trivial.sh {root}/solutions {{submission}}",
                                    root) == []
    assert workspace_relative_paths("./check {submission}; sed s/a/b/ x; python -m x --out=tests/y", root) == []
    res = CliRunner().invoke(app, ["agent", "--agent", "command", "--command", cmd, "--op", "aten::add",
                                   "--platform", "interpreter"], env={"COLUMNS": "300"})
    flat = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert "tests/agent_scripts/trivial.sh: a path relative to this directory" in flat
    assert f"give it absolute (e.g. {root}/tests/agent_scripts/trivial.sh)" in flat
    # the usage line of trivial.sh works as written: both of its paths are absolute
    script = (root / "tests/agent_scripts/trivial.sh").read_text()
    usage = next(ln for ln in script.splitlines() if '--command "' in ln)
    line = usage.split("--command ", 1)[1].split('"')[1].replace("$PWD", str(root))
    assert workspace_relative_paths(line, root) == [] and line.startswith(f"sh {root}/tests/agent_scripts/")


def test_not_found_hint_names_a_path_the_jail_hid(tmp_path: Path) -> None:
    """fresh user 39: an agent script named by an absolute path copied its kernel from a folder the command line
    did not name; in the namespace jail that folder does not exist, and the session's error told the user to
    give absolute paths, which they had. The hint now names the hidden path and --expose."""
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "aten__neg.py").write_text("# the agent's kernel\n")
    work = tmp_path / "ws" / "aten__neg" / "work"
    tail = (f"agent: starting\ncp: cannot stat '{kernels}/aten__neg.py': No such file or directory\n"
            f"sh: 1: cannot open {work}/notes.txt: No such file\n")
    hint = not_found_hint(tail, "namespace", work)
    assert (f": {kernels}/aten__neg.py exists on this machine but not there; name it in --command or pass "
            "--expose PATH") in hint
    assert str(work) not in hint and "give absolute paths" not in hint
    # any path outside the jail, and a relative one: the relative-path hint
    for t, level in ((tail, "user"), (tail, "none"), ("sh: 1: scripts/agent.sh: not found", "namespace")):
        assert "a program or file named by a relative path is looked up there" in not_found_hint(t, level, work)
    # an absolute path that exists nowhere (a mistyped program, a kernel the script never had) is named as such,
    # at every level (fresh user 40: 'cp: cannot stat /abs/aten__cos.py' got 'give absolute paths')
    for level in ("namespace", "user", "none"):
        for t in (f"/bin/sh: 1: {tmp_path}/nonexistent/agent: not found",
                  f"cp: cannot stat '{kernels}/aten__cos.py': No such file or directory"):
            hint = not_found_hint(t, level, work)
            assert "does not exist on this machine either" in hint and "give absolute paths" not in hint, hint
            assert ("nonexistent/agent" in hint) != ("aten__cos.py" in hint), hint


def test_check_names_the_operator_from_the_file_and_no_removed_log(tmp_path: Path) -> None:
    """fresh user 33: `kgb check FILE` wanted --op although the file's name says it, and its message pointed at
    the child.log of a temporary folder removed before it printed."""
    root = Path(__file__).resolve().parents[1]
    res = CliRunner().invoke(app, ["check", str(root / "solutions" / "aten__neg.py"), "--platform", "interpreter"])
    assert res.exit_code == 0, res.output
    assert "self-check of aten__neg.py" in res.output and "verdict: PASSED" in res.output
    odd = tmp_path / "mine.py"
    odd.write_text("pass\n")
    res = CliRunner().invoke(app, ["check", str(odd)])
    assert res.exit_code == 2 and "is not named after an operator" in res.output
    assert "did you mean" not in res.output, res.output
    # a name close to an operator's file: the --op it likely means (fresh user 40: neg.py)
    (tmp_path / "neg.py").write_text("pass\n")
    res = CliRunner().invoke(app, ["check", str(tmp_path / "neg.py")], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "(did you mean --op aten::neg?)" in res.output, res.output
    (tmp_path / "aten__ad.py").write_text("pass\n")
    res = CliRunner().invoke(app, ["check", str(tmp_path / "aten__ad.py")], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "(did you mean --op aten::add?)" in res.output, res.output
    # a wrapper that raises: its message's pointer to the removed log says so (run/evaluate.py evaluate_file)
    bad = tmp_path / "aten__neg.py"
    bad.write_text("def neg(x):\n    raise RuntimeError('boom')\n\n\ndef neg_out(x, *, out):\n"
                   "    raise RuntimeError('boom')\n")
    res = CliRunner().invoke(app, ["check", str(bad), "--platform", "interpreter"])
    assert res.exit_code == 1, res.output
    assert "removed with its temporary folder" in res.output and "kgb-job-" not in res.output


@pytest.mark.skipif(not isolation.is_root(), reason="creating the agent users needs root")
def test_concurrent_runs_get_different_agent_users() -> None:
    """Each session ends by killing every process of its slot's user: two runs on one machine that shared
    kgb-agent-0 killed each other's agent CLIs (exit status 137). A process holds its users (flock) while it lives and
    reuses them; another process gets others, and gets them back once the first exits."""
    mine = isolation.claim_users(2)
    assert len({u.uid for u in mine}) == 2 and isolation.claim_users(2) == mine  # reused by later runs here
    code = ("import json, sys; from kernelgenbench.agent import isolation as i; "
            "print(json.dumps([u.uid for u in i.claim_users(2)]))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    theirs = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                       check=True).stdout)
    assert len(set(theirs)) == 2 and not set(theirs) & {u.uid for u in mine}, (theirs, mine)
