"""``kgb agent`` end to end: the real agent CLIs against the scripted local model server (issue 16, "Tests").

The CLIs are the pinned npm packages ``tools/install_agent_clis.sh`` puts in ``.agents/`` (``make agent-clis``;
CI runs it before ``make test``); a test of a CLI that is not installed is skipped with the command that
installs it. ``tests/llm_server.py``'s :class:`AgentServer` answers every CLI in its own streaming protocol
with tool calls: write a wrong kernel, run ``./check``, write the fix, run ``./check``, stop. Every verdict is
judged by the real pipeline on the CPU interpreter, on the smoke tier (the final tier is set explicitly;
``test_default_final_tier_is_verdict_tier`` runs the default), so a session takes seconds.

What is asserted: the verdict; the tokens each CLI reports equal, field by field, the usage the server handed
out; the self-check count and log; resume (a second run makes no request: the server counts them); that the
fake API key reaches no file of the run directory or the workspaces; a session killed at its budget (its usage
recovered from the partial stream and the CLI's session log, a message repeated in the stream counted once);
a cheat rejected by the same tiers as ``kgb eval``; an agent that looks for the oracle solutions, the harness's
source (held-out parameters), the run directory and another session's workspace (and finds nothing); a
session that fails at start (``error``, not a lost record); Ctrl-C keeping what finished.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from llm_server import BAD, SOLUTIONS, AgentServer
from typer.testing import CliRunner

from kernelgenbench.agent import isolation
from kernelgenbench.agent.clis import get_agent
from kernelgenbench.cli import app
from kernelgenbench.run.evaluate import evaluate_file
from kernelgenbench.suite.tiers import VERDICT_TIER

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent / "agent_scripts"
FIXTURES = Path(__file__).resolve().parent / "agent_fixtures"
HANG = ("run", 'python3 -c "import time; time.sleep(1000)"')  # an experiment that never ends
FIX = [("write", "wrong"), ("check", ""), ("write", "correct"), ("check", "")]
pytestmark = pytest.mark.slow


def need(cli: str) -> Path:
    path = get_agent(cli).find()
    if path is None:
        pytest.skip(f"{cli} is not installed here: run tools/install_agent_clis.sh {cli} (make agent-clis)")
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in Path(path).read_text().splitlines() if ln.strip()]


def no_secret(roots: list[Path], secret: str) -> None:
    for root in roots:
        for f in Path(root).rglob("*"):
            if f.is_file() and not f.is_symlink():
                assert secret.encode() not in f.read_bytes(), f"the API key reached {f}"


def cli_env(cli: str, port: int, secret: str) -> tuple[dict[str, str], list[str]]:
    """(environment, extra arguments) pointing ``cli`` at the scripted server."""
    if cli == "claude-code":
        return {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": secret}, []
    if cli == "gemini":
        return {"GEMINI_API_KEY": secret}, ["--base-url", f"http://127.0.0.1:{port}", "--model", "gemini-2.5-pro"]
    return {"OPENAI_API_KEY": secret}, ["--base-url", f"http://127.0.0.1:{port}/v1", "--model", "scripted"]


def kgb_agent(args: list[str], env: dict[str, str]) -> Any:
    res = CliRunner().invoke(app, ["agent", *args], env=env, catch_exceptions=False)
    return res


def expect_usage(rec: dict[str, Any], served: dict[str, int], cli: str) -> None:
    """The record's tokens equal what the server handed out (the fields the CLI reports)."""
    assert rec["tokens_in"] == served["input"], rec
    assert rec["cache_read"] == served["cache_read"], rec
    assert rec["tokens_out"] == served["output"], rec
    if cli == "gemini":
        assert rec["cache_write"] is None  # Gemini CLI reports no cache writes
    else:
        assert rec["cache_write"] == served["cache_write"], rec
    if cli != "claude-code":  # the Anthropic protocol has no separate reasoning count
        assert rec["reasoning"] == served["reasoning"], rec
    assert rec["requests"] == served["responses"], rec
    u = rec["usage"]  # kgb generate's / kgb report's convention
    assert u["input_tokens"] == (served["input"] + served["cache_read"]
                                 + (served["cache_write"] if cli != "gemini" else 0))
    assert u["output_tokens"] == served["output"]


def record_fixture(cli: str, case: str, run: Path, op_stem: str, served: dict[str, int], rec: dict[str, Any]) -> None:
    """With KGB_RECORD_AGENT_FIXTURES=1: keep this real session's transcript and session logs as the parser
    fixtures of tests/test_agent_units.py."""
    if os.environ.get("KGB_RECORD_AGENT_FIXTURES") != "1":
        return
    dst = FIXTURES / cli / case
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    src = run / "agents" / op_stem
    shutil.copyfile(src / "transcript.jsonl", dst / "transcript.jsonl")
    if (src / "session").is_dir():
        shutil.copytree(src / "session", dst / "home")
    keys = ("tokens_in", "cache_read", "cache_write", "tokens_out", "reasoning", "requests", "turns", "cost_usd",
            "usage_complete", "usage_source", "model_served", "exit_reason", "cli_version")
    (dst / "expected.json").write_text(json.dumps({"cli": cli, "served": served, **{k: rec[k] for k in keys}},
                                                  indent=1))


@pytest.fixture()
def secret() -> str:
    return f"sk-kgb-agent-test-{uuid.uuid4().hex}"


@pytest.fixture()
def ws() -> Any:
    """The workspaces folder: under /tmp, which the agent's user can traverse at the ``user`` isolation level
    (pytest's own tmp folder is mode 0700)."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="kgb-test-ws-", dir="/tmp"))
    os.chmod(d, 0o711)
    yield d
    shutil.rmtree(d, ignore_errors=True)


# -- every CLI: wrong kernel, self-check, fix, self-check, stop; then resume ------------------------------------
@pytest.mark.parametrize("cli", ["claude-code", "codex", "opencode", "gemini"])
def test_cli_fixes_its_kernel(cli: str, tmp_path: Path, ws: Path, secret: str) -> None:
    need(cli)
    srv = AgentServer({"vllm::rms_norm": FIX})
    port = srv.start()
    try:
        env, extra = cli_env(cli, port, secret)
        args = ["--agent", cli, "--op", "vllm::rms_norm", "--budget-minutes", "5", "--final-tier", "smoke",
                "--platform", "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws),
                *extra]
        res = kgb_agent(args, env)
        assert res.exit_code == 0, res.output
        rec = lines(tmp_path / "run" / "results.jsonl")[-1]
        assert (rec["op"], rec["status"], rec["tier"], rec["label"], rec["exit_reason"]) == \
            ("vllm::rms_norm", "passed", "smoke", "agent", "done"), rec
        assert rec["agent"] == cli and rec["cli_version"] and rec["isolation"] in isolation.LEVELS
        # the self-check: twice, the wrong kernel first
        checks = lines(Path(rec["checks_log"]))
        assert rec["self_checks"] == 2 and [c["status"] for c in checks] == ["failed", "passed"]
        assert checks[0]["failure_class"] == "wrong_result" and checks[0]["tier"] == "smoke"
        # the request after the first ./check carries its output
        wrong_out = next((r["last_output"] for r in srv.log if "self-check #1" in (r["last_output"] or "")), "")
        assert "FAILED [wrong_result]" in wrong_out and "first failing case: smoke/" in wrong_out, wrong_out
        # tokens: exactly what the server handed out
        served = srv.totals("vllm::rms_norm")
        assert served["responses"] == 5 == len(srv.requests("vllm::rms_norm"))
        expect_usage(rec, served, cli)
        assert rec["usage_complete"] is True and rec["usage_source"] == "result"
        if cli in ("claude-code", "opencode"):
            assert rec["cost_usd"] is not None  # the CLI reports a cost (OpenCode: 0 for an unpriced model)
        else:
            assert rec["cost_usd"] is None
        # the record links the workspace, the transcript, the self-check log; the judged file is a copy
        assert Path(rec["transcript"]).stat().st_size > 0 and Path(rec["prompt"]).is_file()
        assert Path(rec["workspace"]).is_dir() and Path(rec["workspace"]).parent.parent == ws
        assert Path(rec["submission"]).read_text().strip() == (SOLUTIONS / "vllm__rms_norm.py").read_text().strip()
        assert Path(rec["submission"]).is_relative_to(tmp_path / "run")
        assert rec["oracle_overlap"]["oracle_text_found"] is True  # the scripted model served the oracle
        assert "operators" in res.output and "cost" in res.output and "summary" in res.output
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["overall"]["solved"] == 1 and summary["overall"]["self_checks"] == 2
        assert summary["overall"]["tokens"]["input_tokens"] == served["input"]
        record_fixture(cli, "done", tmp_path / "run", "vllm__rms_norm", served, rec)
        # the key went to the server, and nowhere on disk
        seen = json.dumps([r["headers"] for r in srv.log])
        assert secret in seen
        no_secret([tmp_path / "run", ws], secret)
        # resume: nothing is requested again
        n = len(srv.log)
        res2 = kgb_agent(args, env)
        assert res2.exit_code == 0, res2.output
        assert len(srv.log) == n, "a resumed run made a request"
        assert "no session run now" in res2.output
        assert len(lines(tmp_path / "run" / "results.jsonl")) == 1
    finally:
        srv.stop()


# -- a session that never stops: killed at its budget, its usage recovered -------------------------------------
@pytest.mark.parametrize("cli", ["claude-code", "codex", "opencode", "gemini"])
def test_cli_killed_at_budget(cli: str, tmp_path: Path, ws: Path, secret: str) -> None:
    need(cli)
    srv = AgentServer({"aten::neg": [("write", "correct"), ("check", ""), HANG]})
    port = srv.start()
    try:
        env, extra = cli_env(cli, port, secret)
        budget = 0.5
        t0 = time.time()
        res = kgb_agent(["--agent", cli, "--op", "aten::neg", "--budget-minutes", str(budget), "--final-tier", "smoke",
                         "--platform", "interpreter", "--out", str(tmp_path / "run"), "--workspaces",
                         str(ws), *extra], env)
        assert res.exit_code == 0, res.output
        rec = lines(tmp_path / "run" / "results.jsonl")[-1]
        # the file as it stands is graded; on failure show why the session ended (a CI run under heavy load once
        # saw codex exit with an error before the budget: its stderr tail is in rec["error"])
        assert rec["exit_reason"] == "budget" and rec["status"] == "passed", \
            {k: rec.get(k) for k in ("exit_reason", "exit_code", "error", "status", "failure_class", "session_wall_s",
                                     "self_checks", "requests")}
        assert budget * 60 <= rec["session_wall_s"] < budget * 60 + 20
        assert time.time() - t0 < budget * 60 + 120
        assert rec["self_checks"] == 1
        assert rec["usage_complete"] is False
        served = srv.totals("aten::neg")
        assert served["responses"] == 3
        if cli == "opencode":
            # OpenCode records a response's usage only when its tool calls finish: the response whose tool
            # call hung is missing, and the record says so
            last = srv.served[-1]["usage"]
            partial = {k: served[k] - last[k] for k in ("input", "cache_read", "cache_write", "output", "reasoning")}
            expect_usage(rec, {**partial, "responses": 2}, cli)
            assert any("still running is missing" in n for n in rec["usage_notes"])
        else:
            expect_usage(rec, served, cli)
            assert rec["usage_source"] in ("stream", "session_log", "stream+session_log")
        assert not _agent_processes(), "a process of the killed session is still running"
        record_fixture(cli, "killed", tmp_path / "run", "aten__neg", served, rec)
        no_secret([tmp_path / "run", ws], secret)
    finally:
        srv.stop()


def _agent_processes() -> list[str]:
    """Processes of the kgb-agent-* users still running."""
    out = []
    uids = {u.uid for u in isolation.claim_users(2)} if isolation.is_root() else set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if d.stat().st_uid in uids:
                    out.append((d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                pass
    return out


# -- the done-when: two operators in parallel, the tables, resume ------------------------------------------------
def test_claude_code_two_operators_and_tables(tmp_path: Path, ws: Path, secret: str) -> None:
    need("claude-code")
    srv = AgentServer({"vllm::rms_norm": FIX, "aten::add": [("write", "correct"), ("check", "")]})
    port = srv.start()
    try:
        env, _ = cli_env("claude-code", port, secret)
        args = ["--agent", "claude-code", "--op", "vllm::rms_norm", "--op", "aten::add", "--budget-minutes", "5",
                "--final-tier", "smoke", "--platform", "interpreter", "--jobs", "2", "--out", str(tmp_path / "run"),
                "--workspaces", str(ws)]
        res = kgb_agent(args, env)
        assert res.exit_code == 0, res.output
        recs = {r["op"]: r for r in lines(tmp_path / "run" / "results.jsonl")}
        assert {o: r["status"] for o, r in recs.items()} == {"vllm::rms_norm": "passed", "aten::add": "passed"}
        for op in recs:
            expect_usage(recs[op], srv.totals(op), "claude-code")
        assert recs["aten::add"]["self_checks"] == 1 and recs["vllm::rms_norm"]["self_checks"] == 2
        for title in ("operators", "cost", "summary"):
            assert title in res.output
        assert "100.0%" in res.output and "checks/op" in res.output and "cost/solved" in res.output
        config = json.loads((tmp_path / "run" / "config.json").read_text())
        assert config["command"] == "kgb agent" and config["agent"] == "claude-code" and config["tier"] == "smoke"
        n = len(srv.log)
        res2 = kgb_agent(args, env)
        assert res2.exit_code == 0 and len(srv.log) == n, res2.output
        assert res2.output.count("(recorded earlier)") == 2
        no_secret([tmp_path / "run", ws], secret)
    finally:
        srv.stop()


# -- a cheat is rejected by the same tiers as kgb eval ----------------------------------------------------------
def test_cheat_rejected_as_kgb_eval_does(tmp_path: Path, ws: Path, secret: str) -> None:
    need("claude-code")
    fixture = "hybrid_ops__vllm__rms_norm.py"  # passes L1; PyTorch compute that the L3 trace catches
    srv = AgentServer({"vllm::rms_norm": [("write", f"bad:{fixture}"), ("check", "")]})
    port = srv.start()
    try:
        env, _ = cli_env("claude-code", port, secret)
        res = kgb_agent(["--agent", "claude-code", "--op", "vllm::rms_norm", "--final-tier", "smoke", "--platform",
                         "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws)], env)
        assert res.exit_code == 1, res.output  # an unsolved operator: exit 1, as kgb eval
        rec = lines(tmp_path / "run" / "results.jsonl")[-1]
        direct = evaluate_file(BAD / fixture, "vllm::rms_norm", "smoke", platform="interpreter")
        assert rec["status"] == direct["status"] == "failed"
        assert rec["failure_class"] == direct["failure_class"] == "profile"
        assert lines(Path(rec["checks_log"]))[0]["failure_class"] == "profile"
        assert rec["exit_reason"] == "done"
    finally:
        srv.stop()


# -- an agent that looks for what it must not find ------------------------------------------------------------
def _snoop_targets(run: Path, ws: Path, other_stem: str) -> dict[str, Any]:
    import kernelgenbench

    pkg = Path(kernelgenbench.__file__).resolve().parent
    return {
        "read": {"oracle": str(ROOT / "solutions" / "vllm__rms_norm.py"),
                 "oracle_other": str(ROOT / "solutions" / "aten__add.py"),
                 "suite_rows": str(pkg / "suite" / "vllm" / "norms.py"),
                 "suite_tiers": str(pkg / "suite" / "tiers.py"),
                 "run_config": str(run / "config.json"),
                 "run_results": str(run / "results.jsonl"),
                 "other_workspace_prompt": str(ws / other_stem / "work" / "PROMPT.md"),
                 "shared_spec": "/work/shared/spec/vllm.md",
                 "root_bashrc": "/root/.bashrc", "shadow": "/etc/shadow"},
        "list": {"checkout": str(ROOT), "package": str(pkg), "run": str(run), "workspaces": str(ws),
                 "other_workspace": str(ws / other_stem / "work"), "work": "/work"},
        "write": {"checkout_file": str(ROOT / "solutions" / "snooped.py"), "etc": "/etc/snooped"},
    }


def test_snooping_agent_finds_nothing(tmp_path: Path, ws: Path) -> None:
    """A command agent (running beside another session) tries to read the oracle solutions, the harness's
    suite tables (held-out parameters), the run directory, the other session's workspace and the host; it
    must find nothing. Needs the namespace level (root with mount namespaces)."""
    if isolation.namespace_available()[0] is False:
        pytest.skip(f"the jail needs root and mount namespaces here ({isolation.namespace_available()[1]}); "
                    f"the user level records what the agent's user could read instead")
    run = tmp_path / "run"
    run.mkdir()
    snoop = SCRIPTS / "snoop.py"
    targets = {op: _snoop_targets(run, ws, other) for op, other in
               (("vllm::rms_norm", "aten__add"), ("aten::add", "vllm__rms_norm"))}
    tfile = tmp_path / "targets.json"
    tfile.write_text(json.dumps(targets))
    # each session snoops, then waits a little so that the other session exists while it runs
    cmd = (f"python3 -c 'import json,sys,subprocess,time; t=json.load(open(sys.argv[1]))[sys.argv[2]]; "
           f"time.sleep(2); subprocess.run([sys.executable, sys.argv[3], json.dumps(t)])' "
           f"{tfile} \"$KGB_OP\" {snoop}; sleep 2")
    cmd = cmd.replace('"$KGB_OP"', "$(basename {submission} .py | sed s/__/::/)")
    res = kgb_agent(["--agent", "command", "--command", cmd, "--op", "vllm::rms_norm", "--op", "aten::add",
                     "--jobs", "2", "--final-tier", "smoke", "--platform", "interpreter", "--budget-minutes", "2",
                     "--out", str(run), "--workspaces", str(ws)], {})
    assert res.exit_code == 1, res.output  # both missing: exit 1
    for rec in lines(run / "results.jsonl"):
        assert rec["isolation"] == "namespace" and rec["status"] == "failed" and rec["failure_class"] == "missing"
        assert rec["oracle_overlap"]["oracle_text_found"] is False, rec["oracle_overlap"]
        report = json.loads((Path(rec["workspace"]) / "snoop.json").read_text())
        assert report["uid"] != 0
        for kind in ("reads", "writes"):
            leaked = {k: v for k, v in report[kind].items() if not v.startswith("DENIED")}
            assert not leaked, f"{rec['op']}: {kind}: {leaked}"
        # folders: only the empty skeleton of the jail's mount points can be listed (the checkout shows
        # tests/, the parent of the exposed snoop.py; /work the folders holding the CLI and the Python)
        lists = report["lists"]
        for name in ("package", "run", "other_workspace"):
            assert lists[name].startswith("DENIED"), (name, lists[name])
        names = {k: set(v.removeprefix("LISTED ").split(",")) for k, v in lists.items() if v.startswith("LISTED")}
        assert not names.get("checkout", set()) & {"solutions", "src", ".git", "runs"}, lists
        assert names.get("workspaces", set()) <= {Path(rec["workspace"]).parent.name}, lists
        assert not names.get("work", set()) & {"shared"}, lists
        assert (report["python_import"].startswith("DENIED")
                and "No module named 'kernelgenbench'" in report["python_import"])
        assert report["torch"].startswith("2."), report["torch"]  # the agent's Python works, without the harness
        assert report["procs"] <= 12, report  # its own processes only (a private PID namespace)
        assert not any(k.startswith(("ANTHROPIC", "OPENAI", "GEMINI")) for k in report["environ_keys"])
    assert not (ROOT / "solutions" / "snooped.py").exists()


def test_claude_code_cannot_read_solutions(tmp_path: Path, ws: Path, secret: str) -> None:
    """The real CLI's own Bash tool, asked to read the oracle and the harness's source, gets nothing."""
    need("claude-code")
    if isolation.namespace_available()[0] is False:
        pytest.skip("needs the namespace level")
    probe = (f"for p in {ROOT}/solutions/vllm__rms_norm.py {ROOT}/src/kernelgenbench/suite/vllm/norms.py "
             f"{tmp_path}/run/config.json; do if cat $p >/dev/null 2>&1; then echo LEAK:$p; else echo DENIED:$p; fi; "
             f"done; python3 -c 'import kernelgenbench' 2>&1 | tail -1; echo \"my key: $ANTHROPIC_API_KEY\"")
    srv = AgentServer({"vllm::rms_norm": [("run", probe)]})
    port = srv.start()
    try:
        env, _ = cli_env("claude-code", port, secret)
        res = kgb_agent(["--agent", "claude-code", "--op", "vllm::rms_norm", "--final-tier", "smoke", "--platform",
                         "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws)], env)
        assert res.exit_code == 1, res.output  # missing: exit 1
        out = next((r["last_output"] for r in srv.log if "DENIED:" in (r["last_output"] or "")), "")
        assert out.count("DENIED:") == 3 and "LEAK:" not in out, out
        assert "No module named" in out
        assert f"my key: {secret}" in out  # the agent printed its own key: it is in its transcript...
        rec = lines(tmp_path / "run" / "results.jsonl")[-1]
        assert rec["failure_class"] == "missing" and rec["oracle_overlap"]["oracle_text_found"] is False
        assert any("transcript.jsonl" in f for f in rec["secrets_redacted"])  # ...and masked there
        no_secret([tmp_path / "run", ws], secret)
    finally:
        srv.stop()


# -- sessions that fail at start ---------------------------------------------------------------------------------
def test_claude_code_refused_by_the_endpoint_is_error(tmp_path: Path, ws: Path, secret: str) -> None:
    """The endpoint refuses every request (HTTP 400: Claude Code 2.1.328 gives up at once; it retries a 401
    for three minutes): the session ends in ``error`` with the CLI's message, and the operator is recorded."""
    need("claude-code")
    srv = AgentServer({}, fail={"vllm::rms_norm": 400})
    port = srv.start()
    try:
        env, _ = cli_env("claude-code", port, secret)
        res = kgb_agent(["--agent", "claude-code", "--op", "vllm::rms_norm", "--final-tier", "smoke", "--platform",
                         "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws),
                         "--budget-minutes", "2"], env)
        assert res.exit_code == 1, res.output  # unsolved: exit 1
        rec = lines(tmp_path / "run" / "results.jsonl")[-1]
        assert rec["exit_reason"] == "error" and "400" in rec["error"], rec
        assert rec["status"] == "failed" and rec["failure_class"] == "missing"
        no_secret([tmp_path / "run", ws], secret)
    finally:
        srv.stop()


@pytest.mark.parametrize("command", ["exit 3", "/nonexistent/agent {prompt_file}"])
def test_command_that_crashes_is_error(command: str, tmp_path: Path, ws: Path) -> None:
    res = kgb_agent(["--agent", "command", "--command", command, "--op", "aten::neg", "--final-tier", "smoke",
                     "--platform", "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws)],
                    {})
    assert res.exit_code == 1 and "1 of 1 operator not solved (exit code 1)" in res.output, res.output
    rec = lines(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["exit_reason"] == "error" and rec["failure_class"] == "missing" and rec["self_checks"] == 0
    assert rec["exit_code"] in (3, 127) and "exit status" in rec["error"]
    # a program that is not found: the error says so of its absolute path (fresh user 40: it said to give
    # absolute paths)
    assert ("/nonexistent/agent does not exist on this machine either" in rec["error"]) == \
        command.startswith("/nonexistent"), rec["error"]
    assert "give absolute paths" not in rec["error"], rec["error"]
    # --retry-errors runs it again; a plain re-run does not
    res2 = kgb_agent(["--agent", "command", "--command", command, "--op", "aten::neg", "--final-tier", "smoke",
                      "--platform", "interpreter", "--out", str(tmp_path / "run"), "--workspaces", str(ws)],
                     {})
    assert len(lines(tmp_path / "run" / "results.jsonl")) == 1 and "no session run now" in res2.output


# -- --agent command: the done-when's trivial script, resume; the default verdict tier ---------------------------
def test_command_trivial_script_two_operators(tmp_path: Path, ws: Path) -> None:
    cmd = f"sh {SCRIPTS / 'trivial.sh'} {ROOT / 'solutions'} {{submission}}"
    args = ["--agent", "command", "--command", cmd, "--op", "vllm::rms_norm", "--op", "aten::add", "--final-tier",
            "smoke", "--platform", "interpreter", "--jobs", "2", "--out", str(tmp_path / "run"), "--workspaces",
            str(ws)]
    res = kgb_agent(args, {})
    assert res.exit_code == 0, res.output
    recs = {r["op"]: r for r in lines(tmp_path / "run" / "results.jsonl")}
    assert {o: (r["status"], r["exit_reason"], r["self_checks"]) for o, r in recs.items()} == {
        "vllm::rms_norm": ("passed", "done", 1), "aten::add": ("passed", "done", 1)}
    assert recs["aten::add"]["tokens_in"] is None and "reports no tokens" in " ".join(recs["aten::add"]["usage_notes"])
    assert "operators" in res.output and "cost" in res.output and "summary" in res.output
    assert "verdict: PASSED" in Path(recs["aten::add"]["transcript"]).read_text()
    # the bar of operators recorded (a run of agent sessions takes up to 30 minutes an operator)
    assert re.search(r"^operators\b.*\b2/2\b.*eta", res.output, re.MULTILINE), res.output
    res2 = kgb_agent(args, {})
    assert res2.exit_code == 0 and "session started" not in res2.output and "no session run now" in res2.output
    assert re.search(r"^operators\b.*\b2/2\b", res2.output, re.MULTILINE), res2.output   # resumed ones count


def test_command_reading_a_path_it_does_not_name(tmp_path: Path, ws: Path) -> None:
    """fresh user 39: a script (named by its absolute path) that copies its kernel from a folder the command line
    does not name finds nothing in the jail; the error names that folder's file and --expose (it used to say "give
    absolute paths", which the script did), and with --expose the same command solves the operator."""
    if isolation.namespace_available()[0] is False:
        pytest.skip("needs the namespace level")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    shutil.copy(ROOT / "solutions" / "aten__neg.py", kernels / "aten__neg.py")
    script = tmp_path / "agent.sh"
    script.write_text(f'#!/bin/sh\ncp "{kernels}/$(basename "$1")" "$1" || exit 1\n')
    args = ["--agent", "command", "--command", f"sh {script} {{submission}}", "--op", "aten::neg", "--final-tier",
            "smoke", "--platform", "interpreter", "--workspaces", str(ws)]
    res = kgb_agent([*args, "--out", str(tmp_path / "run")], {})
    assert res.exit_code == 1, res.output
    rec = lines(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["isolation"] == "namespace" and rec["exit_reason"] == "error", rec
    assert f"{kernels}/aten__neg.py exists on this machine but not there" in rec["error"], rec["error"]
    assert "pass --expose PATH" in rec["error"] and "give absolute paths" not in rec["error"]
    res = kgb_agent([*args, "--out", str(tmp_path / "run2"), "--expose", str(kernels)], {})
    assert res.exit_code == 0, res.output
    assert lines(tmp_path / "run2" / "results.jsonl")[-1]["status"] == "passed"
    # the kernel it brought is the oracle's: the run says so (the record's oracle_overlap canary)
    out = " ".join(res.output.split())
    assert ("WARNING: the session files of 1 operator hold the oracle solution's text (oracle_overlap in "
            "results.jsonl: five or more of its distinctive lines): aten::neg; the agent had the oracle "
            "(isolation namespace, --expose") in out, out


def test_command_under_a_vendor_profile(tmp_path: Path, ws: Path) -> None:
    """kgb agent --platform interpreter --as-profile musa (issue 20): the session's prompt has the MUSA platform
    section, its self-check and verdict apply the profile (fp64 cases unsupported), the run's identity, records
    and summary carry the profile, and kgb report reads the run as interpreter/musa."""
    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.report.load import load_run

    cmd = f"sh {SCRIPTS / 'trivial.sh'} {ROOT / 'solutions'} {{submission}}"
    args = ["--agent", "command", "--command", cmd, "--op", "aten::zeros", "--final-tier", "smoke", "--platform",
            "interpreter", "--as-profile", "musa", "--out", str(tmp_path / "run"), "--workspaces", str(ws)]
    res = kgb_agent(args, {})
    assert res.exit_code == 0, res.output
    assert "platform interpreter/musa" in res.output
    (rec,) = lines(tmp_path / "run" / "results.jsonl")
    assert (rec["status"], rec["profile"], rec["self_checks"]) == ("passed", "musa", 1)
    assert rec["platform_profile"]["visible_devices_var"] == "MUSA_VISIBLE_DEVICES"
    fp64 = next(c for c in rec["cases"] if c["params"].get("dtype") == "fp64")
    assert fp64["status"] == "unsupported" and "float64" in fp64.get("unsupported_reason", "float64")
    prompt = Path(rec["prompt"]).read_text()
    assert all(note in prompt for note in PROFILES["musa"].prompt_notes)
    assert "(interpreter/musa)" in Path(rec["transcript"]).read_text()  # the ./check text names the profile
    assert json.loads((tmp_path / "run" / "config.json").read_text())["profile"] == "musa"
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["profile"] == "musa"
    assert load_run(tmp_path / "run", "agent").platform == "interpreter/musa"
    # the same directory under another profile is another run
    res2 = kgb_agent([*args[:-5], "rocm", *args[-4:]], {})
    assert res2.exit_code != 0 and "profile" in res2.output


@pytest.mark.skipif(not isolation.is_root(), reason="the user level runs the agent as another user: needs root")
def test_user_level_runs_and_warns(tmp_path: Path, ws: Path) -> None:
    """Without the jail (--isolation user, what root gets where mount namespaces are refused) the session runs
    as the slot's own user, and config.json and the output say which protected paths that user could read."""
    cmd = f"sh {SCRIPTS / 'trivial.sh'} {ROOT / 'solutions'} {{submission}}; id -u > uid.txt"
    res = kgb_agent(["--agent", "command", "--command", cmd, "--op", "aten::neg", "--final-tier", "smoke",
                     "--platform", "interpreter", "--isolation", "user", "--out", str(tmp_path / "run"),
                     "--workspaces", str(ws)], {})
    assert res.exit_code == 0, res.output
    rec = lines(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["isolation"] == "user" and rec["status"] == "passed" and rec["self_checks"] == 1
    assert (Path(rec["workspace"]) / "uid.txt").read_text().strip() == str(isolation.claim_users(1)[0].uid)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    readable = config["isolation_detail"]["readable"]
    if (ROOT / "solutions").stat().st_mode & 0o005 == 0o005:  # a world-readable checkout: said loudly
        assert str(ROOT / "solutions") in readable and "WARNING: readable by the agent's user" in res.output
    assert config["warnings"] and "isolation level 'user'" in config["warnings"][0]


def test_default_final_tier_is_verdict_tier(tmp_path: Path, ws: Path) -> None:
    cmd = f"sh {SCRIPTS / 'trivial.sh'} {ROOT / 'solutions'} {{submission}}"
    res = kgb_agent(["--agent", "command", "--command", cmd, "--op", "aten::neg", "--platform", "interpreter",
                     "--check-tier", "smoke", "--out", str(tmp_path / "run"), "--workspaces", str(ws)], {})
    assert res.exit_code == 0, res.output
    rec = lines(tmp_path / "run" / "results.jsonl")[-1]
    assert rec["tier"] == VERDICT_TIER == "all" and rec["status"] == "passed"
    assert any(c["id"].startswith("heldout/") for c in rec["cases"])  # held-out cases were judged
    assert lines(Path(rec["checks_log"]))[0]["tier"] == "smoke"  # the self-check never runs them
    assert "verdicts cover every tier" in res.output


# -- Ctrl-C keeps what finished ----------------------------------------------------------------------------------
def _processes_with(marker: str) -> dict[int, str]:
    """Process id -> command line of the running processes that hold ``marker`` as an argument of their own
    (``python3 -c CODE MARKER``; not kgb, whose --command holds it)."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmd and cmd.startswith("python3 -c"):
                out[int(d.name)] = cmd
    return out


def test_sigterm_stops_the_sessions_as_ctrl_c_does(tmp_path: Path, ws: Path) -> None:
    """fresh user 39: `timeout 8 kgb agent ...` (SIGTERM) ended kgb agent at once and left its session running,
    orphaned, in its jail and past any budget. SIGTERM now stops the run as Ctrl-C does: the session killed, the
    message, exit 143 (128 + SIGTERM), and the same command resumes."""
    marker = f"kgb-sigterm-{uuid.uuid4().hex[:12]}"
    cmd = f"exec python3 -c 'import time; time.sleep(1000)' {marker}"
    args = [sys.executable, "-m", "kernelgenbench.cli", "agent", "--agent", "command", "--command", cmd, "--op",
            "aten::neg", "--final-tier", "smoke", "--platform", "interpreter", "--out", str(tmp_path / "run"),
            "--workspaces", str(ws), "--budget-minutes", "5"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not _processes_with(marker):
            time.sleep(0.3)
        assert _processes_with(marker), "the session never started"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 143, out
        assert "terminated (SIGTERM): 0 of 1 operator recorded" in out, out
        time.sleep(0.5)
        assert not _processes_with(marker), "the session outlived kgb agent"
    finally:
        proc.kill()
        for pid in _processes_with(marker):  # a failed run of this test leaves nothing behind
            os.kill(pid, signal.SIGKILL)


def test_interrupt_keeps_finished_sessions(tmp_path: Path, ws: Path) -> None:
    fast = f"sh {SCRIPTS / 'trivial.sh'} {ROOT / 'solutions'} {{submission}}"
    marker = f"kgb-sigint-{uuid.uuid4().hex[:12]}"
    cmd = (f"case {{submission}} in *aten__neg.py) {fast};; *) exec python3 -c 'import time; time.sleep(1000)' "
           f"{marker};; esac")
    args = [sys.executable, "-m", "kernelgenbench.cli", "agent", "--agent", "command", "--command", cmd, "--op",
            "aten::neg", "--op", "aten::add", "--jobs", "2", "--final-tier", "smoke", "--platform", "interpreter",
            "--out", str(tmp_path / "run"), "--workspaces", str(ws), "--budget-minutes", "5"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    results = tmp_path / "run" / "results.jsonl"
    deadline = time.time() + 240
    while time.time() < deadline and not (results.exists() and results.read_text().strip()):
        time.sleep(0.5)
    assert results.exists(), "the fast session never finished"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "interrupted: 1 of 2 operators recorded" in out, out
    recs = lines(results)
    assert [r["op"] for r in recs] == ["aten::neg"] and recs[0]["status"] == "passed"
    assert not _agent_processes(), "the interrupted session's processes survived"
    # the subprocess may have had other agent users than this process (claim_users: a process keeps its users,
    # another gets others): its session is found by the marker in its command line
    assert not _processes_with(marker), "the interrupted session's processes survived"
