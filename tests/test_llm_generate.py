"""``kgb generate`` end to end against a scripted local server (issue 4, "Tests").

A stdlib HTTP server on 127.0.0.1 (``llm_server.py``) answers OpenAI chat completions and Anthropic
messages from a script: a correct kernel, a wrong kernel then a correct one (reflection fixes it in
round 2), a reply with no code, a reply truncated at the token limit, a 429 then success, usage with
cached and reasoning tokens. Every sample is judged by the real pipeline on the CPU interpreter: on the
smoke tier where a test is about something else (vLLM operators, a few seconds per job; their full tiers
take minutes on the interpreter), on the default tier (``all``: every case of the three tiers) where the
default is what is tested (an operator whose tiers are small).
"""
from __future__ import annotations

import json
import re
import shlex
import uuid
from pathlib import Path
from typing import Any

import pytest
from llm_server import DEMO, SOLUTIONS, ScriptedServer, generate_command
from typer.testing import CliRunner

from kernelgenbench.llm.clients import LLMAuthError, make_client
from kernelgenbench.llm.generate import GenerateConfig, Generation, open_run
from kernelgenbench.platforms import PROFILES
from kernelgenbench.suite.registry import select

INTERP = PROFILES["interpreter"]


def _run(cfg: GenerateConfig, out: Path, key_env: str | None = None) -> tuple[Generation, dict[str, Any]]:
    client = None
    if cfg.replay is None:
        client = make_client(str(cfg.model), cfg.base_url, backoff_s=0.01, max_retries=3, concurrency=cfg.concurrency,
                             timeout_s=60, api_key_env=key_env)
    rd = open_run(cfg, INTERP, out, Path("unused"), None)
    gen = Generation(cfg, rd, INTERP, client)
    summary = gen.run(select(cfg.ops, cfg.source))
    return gen, summary


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def _no_secret_on_disk(root: Path, secret: str) -> None:
    for f in root.rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f"the API key reached {f}"


def _served_totals(served: list[dict[str, Any]]) -> dict[str, int]:
    return {"prompt": sum(s["usage"]["prompt"] for s in served), "cached": sum(s["usage"]["cached"] for s in served),
            "completion": sum(s["usage"]["completion"] for s in served),
            "reasoning": sum(s["usage"]["reasoning"] for s in served),
            "cache_write": sum(s["usage"]["cache_write"] for s in served)}


# -- OpenAI: wrong then correct (reflection), early stopping, tokens, resume, replay -------------------------
@pytest.fixture(scope="module")
def openai_run(tmp_path_factory: pytest.TempPathFactory):
    secret = f"sk-kgb-test-{uuid.uuid4().hex}"
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", secret)
    # sample 1 exists in the script only to catch a request after the first correct sample
    srv = ScriptedServer({"vllm::rms_norm": [[["wrong"], ["correct"]], [["correct"]]]})
    port = srv.start()
    out = tmp_path_factory.mktemp("openai") / "run"
    cfg = GenerateConfig(model="openai/scripted-model", base_url=f"http://127.0.0.1:{port}/v1",
                         ops=["vllm::rms_norm"], tier="smoke", k=3, rounds=2, reflection=True, max_tokens=2048)
    gen, summary = _run(cfg, out)
    yield {"srv": srv, "out": out, "cfg": cfg, "gen": gen, "summary": summary, "secret": secret}
    srv.stop()
    mp.undo()


@pytest.mark.slow
def test_records_link_samples(openai_run) -> None:
    out = openai_run["out"]
    samples = _lines(out / "samples.jsonl")
    records = _lines(out / "results.jsonl")
    assert [(s["sample"], s["round"], s["label"]) for s in samples] == [(0, 0, "s0r0"), (0, 1, "s0r1")]
    assert [(r["label"], r["status"], r["failure_class"]) for r in records] == [
        ("s0r0", "failed", "wrong_result"), ("s0r1", "passed", None)]
    for s, r in zip(samples, records):
        assert r["op"] == s["op"] == "vllm::rms_norm"
        assert Path(r["submission"]) == out / "kernels" / s["label"] / "vllm__rms_norm.py"
        assert s["model"] == "scripted-model" and s["model_served"] == "scripted-model-served"
        assert len(s["prompt_hash"]) == 64 and s["finish_reason"] == "stop"
        assert s["timing"]["wall_s"] > 0 and s["timing"]["attempts"] == 1
    assert samples[0]["prompt_hash"] != samples[1]["prompt_hash"]
    assert samples[0]["task_prompt_hash"] == samples[1]["task_prompt_hash"]
    solved = out / "kernels" / "solved" / "vllm__rms_norm.py"
    assert solved.read_text() == (SOLUTIONS / "vllm__rms_norm.py").read_text().rstrip() + "\n"
    assert (out / "prompts" / "vllm__rms_norm.txt").exists()


@pytest.mark.slow
def test_reflection_carries_code_and_first_failure(openai_run) -> None:
    reqs = openai_run["srv"].requests_for("vllm::rms_norm")
    assert [(r["sample"], r["round"]) for r in reqs] == [(0, 0), (0, 1)]
    first, second = reqs[0]["body"], reqs[1]["body"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][1] == first["messages"][1]
    assert "mean_abs" in second["messages"][2]["content"]  # the previous (wrong) code
    feedback = second["messages"][3]["content"]
    assert "wrong_result" in feedback and "smoke/0" in feedback and "outside tolerance" in feedback
    assert first["max_tokens"] == 2048 and first["temperature"] == 0.0 and first["model"] == "scripted-model"


@pytest.mark.slow
def test_early_stopping(openai_run) -> None:
    srv = openai_run["srv"]
    assert not [r for r in srv.log if r["sample"] >= 1], "a request was made after the first correct sample"
    s = openai_run["summary"]["operators"]["vllm::rms_norm"]
    assert (s["status"], s["solved_by"], s["samples"], s["responses"]) == ("solved", "s0r1", 1, 2)
    o = openai_run["summary"]["overall"]
    assert (o["operators"], o["solved"], o["pass_at_1"], o["pass_at_k"], o["pass_at_1_round0"]) == (1, 1, 1.0, 1.0, 0.0)


@pytest.mark.slow
def test_token_totals(openai_run) -> None:
    served = _served_totals(openai_run["srv"].served)
    for scope in (openai_run["summary"]["overall"], openai_run["summary"]["by_source"]["vllm"]):
        tk = scope["tokens"]
        assert tk["input_tokens"] == served["prompt"]
        assert tk["cached_input_tokens"] == served["cached"]
        assert tk["output_tokens"] == served["completion"]
        assert tk["reasoning_tokens"] == served["reasoning"]
        assert tk["cache_write_tokens"] is None  # OpenAI does not report cache writes
        assert tk["total"] == served["prompt"] + served["completion"]
        assert scope["tokens_per_solved"] == tk["total"]
    on_disk = json.loads((openai_run["out"] / "summary.json").read_text())
    assert on_disk["overall"]["tokens"] == openai_run["summary"]["overall"]["tokens"]
    raw = _lines(openai_run["out"] / "samples.jsonl")[0]["usage"]["raw"]
    assert raw["prompt_tokens_details"]["cached_tokens"] == 128
    assert raw["completion_tokens_details"]["reasoning_tokens"] == 100


@pytest.mark.slow
def test_key_sent_but_never_on_disk(openai_run) -> None:
    secret = openai_run["secret"]
    assert all(r["headers"].get("authorization") == f"Bearer {secret}" for r in openai_run["srv"].log)
    _no_secret_on_disk(openai_run["out"], secret)


@pytest.mark.slow
def test_resume_makes_no_requests(openai_run) -> None:
    srv = openai_run["srv"]
    before = len(srv.log)
    results_before = (openai_run["out"] / "results.jsonl").read_text()
    gen, summary = _run(openai_run["cfg"], openai_run["out"])
    assert len(srv.log) == before and gen.requests_made == 0
    assert (openai_run["out"] / "results.jsonl").read_text() == results_before  # nothing re-evaluated
    assert summary["overall"]["tokens"] == openai_run["summary"]["overall"]["tokens"]
    assert summary["operators"]["vllm::rms_norm"]["solved_by"] == "s0r1"


@pytest.mark.slow
def test_replay_reevaluates_without_a_model(openai_run, tmp_path: Path) -> None:
    srv = openai_run["srv"]
    before = len(srv.log)
    cfg = GenerateConfig(replay=openai_run["out"] / "samples.jsonl", ops=["vllm::rms_norm"], tier="smoke", k=3,
                         rounds=2, reflection=True)
    gen, summary = _run(cfg, tmp_path / "replay")
    assert len(srv.log) == before
    recs = _lines(tmp_path / "replay" / "results.jsonl")
    assert [(r["label"], r["status"], r["failure_class"]) for r in recs] == [
        ("s0r0", "failed", "wrong_result"), ("s0r1", "passed", None)]
    assert summary["overall"]["pass_at_k"] == 1.0 and summary["overall"]["pass_at_1"] == 1.0
    assert summary["overall"]["tokens"] == openai_run["summary"]["overall"]["tokens"]


# -- OpenAI: no code, truncated, 429 then success ----------------------------------------------------------
@pytest.mark.slow
def test_no_code_truncated_and_429(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # local endpoint: a dummy key is used
    srv = ScriptedServer({"vllm::rms_norm": [[["no_code"], ["truncated"]], [["429", "correct"]]]})
    port = srv.start()
    try:
        cfg = GenerateConfig(model="openai/m", base_url=f"http://127.0.0.1:{port}/v1", ops=["vllm::rms_norm"],
                             tier="smoke", k=2, rounds=2, reflection=True)
        gen, summary = _run(cfg, tmp_path / "run")
    finally:
        srv.stop()
    assert [(r["sample"], r["round"], r["kind"]) for r in srv.log] == [
        (0, 0, "no_code"), (0, 1, "truncated"), (1, 0, "429"), (1, 0, "correct")]
    assert srv.log[0]["headers"]["authorization"] == "Bearer EMPTY"
    recs = _lines(tmp_path / "run" / "results.jsonl")
    assert [(r["label"], r["status"], r["failure_class"]) for r in recs] == [
        ("s0r0", "failed", "no_code"), ("s0r1", "failed", "truncated"), ("s1r0", "passed", None)]
    samples = {s["label"]: s for s in _lines(tmp_path / "run" / "samples.jsonl")}
    assert samples["s0r1"]["truncated"] and samples["s0r1"]["finish_reason"] == "length"
    assert samples["s1r0"]["timing"]["attempts"] == 2 and samples["s1r0"]["timing"]["retries"][0]["status"] == 429
    # the round after a no-code reply shows that reply and says what was wrong
    msgs = srv.log[1]["body"]["messages"]
    assert "will not show code" in msgs[2]["content"] and "no complete ```python code block" in msgs[3]["content"]
    o = summary["overall"]
    assert (o["pass_at_1"], o["pass_at_k"], o["solved"]) == (0.0, 1.0, 1)
    assert o["failure_classes"] == {"no_code": 1, "truncated": 1}
    assert o["responses"] == 3 and gen.http_attempts == 4
    assert o["tokens"]["input_tokens"] == _served_totals(srv.served)["prompt"]


def test_auth_error_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    srv = ScriptedServer({"vllm::rms_norm": [[["401"]]], "vllm::topk_softmax": [[["401"]]]})
    port = srv.start()
    try:
        cfg = GenerateConfig(model="openai/m", base_url=f"http://127.0.0.1:{port}/v1", source="vllm",
                             ops=["vllm::rms_norm", "vllm::topk_softmax"], tier="smoke", k=1, concurrency=1)
        with pytest.raises(LLMAuthError, match="401"):
            _run(cfg, tmp_path / "run")
    finally:
        srv.stop()
    assert len(srv.log) == 1  # the run stopped at the first refusal
    assert not (tmp_path / "run" / "samples.jsonl").exists() or not _lines(tmp_path / "run" / "samples.jsonl")
    _no_secret_on_disk(tmp_path / "run", "sk-wrong")


# -- Anthropic Messages ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_anthropic_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sk-ant-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    srv = ScriptedServer({"vllm::rms_norm": [[["truncated"], ["429", "wrong"], ["correct"]], [["correct"]]]})
    port = srv.start()
    try:
        cfg = GenerateConfig(model="anthropic/claude-scripted", base_url=f"http://127.0.0.1:{port}/v1",
                             ops=["vllm::rms_norm"], tier="smoke", k=2, rounds=3, reflection=True, max_tokens=1000)
        gen, summary = _run(cfg, tmp_path / "run")
        assert [(r["path"], r["sample"], r["round"], r["kind"]) for r in srv.log] == [
            ("/v1/messages", 0, 0, "truncated"), ("/v1/messages", 0, 1, "429"), ("/v1/messages", 0, 1, "wrong"),
            ("/v1/messages", 0, 2, "correct")]
        body = srv.log[-1]["body"]
        assert "expert GPU kernel engineer" in body["system"] and body["max_tokens"] == 1000
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        assert "mean_abs" in body["messages"][1]["content"] and "wrong_result" in body["messages"][2]["content"]
        # the SDK sends the key as x-api-key (or, in recent versions, as a bearer token)
        assert all(secret in (r["headers"].get("x-api-key"), r["headers"].get("authorization", "")[7:])
                   for r in srv.log)
        recs = _lines(tmp_path / "run" / "results.jsonl")
        assert [(r["label"], r["failure_class"]) for r in recs] == [("s0r0", "truncated"), ("s0r1", "wrong_result"),
                                                                    ("s0r2", None)]
        samples = _lines(tmp_path / "run" / "samples.jsonl")
        assert samples[0]["finish_reason"] == "max_tokens" and samples[0]["truncated"]
        assert samples[0]["usage"]["raw"]["cache_read_input_tokens"] == 128
        served = _served_totals(srv.served)
        tk = summary["overall"]["tokens"]
        assert tk["input_tokens"] == served["prompt"]  # input + cache reads + cache writes
        assert tk["cached_input_tokens"] == served["cached"]
        assert tk["cache_write_tokens"] == served["cache_write"]
        assert tk["output_tokens"] == served["completion"]
        assert tk["reasoning_tokens"] is None
        o = summary["overall"]
        assert (o["pass_at_1"], o["pass_at_k"]) == (1.0, 1.0)
        assert summary["operators"]["vllm::rms_norm"]["solved_by"] == "s0r2"
        # resume: no request
        n = len(srv.log)
        gen2, summary2 = _run(cfg, tmp_path / "run")
        assert len(srv.log) == n and gen2.requests_made == 0
        assert summary2["overall"]["tokens"] == tk
        _no_secret_on_disk(tmp_path / "run", secret)
    finally:
        srv.stop()


# -- the done-when command --------------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_done_when(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.cli import app

    secret = f"sk-kgb-cli-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("COLUMNS", "160")
    srv = ScriptedServer(DEMO)
    port = srv.start()
    out = tmp_path / "run"
    # the command the standalone server prints when it is ready (the three operators it serves), plus a run folder
    shown = shlex.split(generate_command(DEMO, port))
    assert shown[:2] == [".venv/bin/kgb", "generate"] and shown.count("--op") == 3, shown
    args = [*shown[1:], "--out", str(out), "--backoff", "0.01"]
    try:
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 1, res.output  # vllm::topk_softmax is not solved: exit 1, as kgb eval
        assert "1 of 3 operators not solved (exit code 1)" in " ".join(res.output.split())
        n = len(srv.log)
        again = CliRunner().invoke(app, args)
        assert again.exit_code == 1, again.output
        assert len(srv.log) == n
    finally:
        srv.stop()
    assert "33.3%" in res.output and "66.7%" in res.output and "Pass@3" in res.output
    s = json.loads((out / "summary.json").read_text())
    o = s["overall"]
    assert (o["operators"], o["solved"]) == (3, 2)
    assert o["pass_at_1"] == pytest.approx(1 / 3) and o["pass_at_k"] == pytest.approx(2 / 3)
    assert {k: v["solved_by"] for k, v in s["operators"].items()} == {
        "vllm::fused_add_rms_norm": "s1r0", "vllm::rms_norm": "s0r1", "vllm::topk_softmax": None}
    assert o["tokens"]["total"] == sum(x["usage"]["prompt"] + x["usage"]["completion"] for x in srv.served)
    assert o["responses"] == 11
    _no_secret_on_disk(out, secret)


# -- final verdicts cover every tier by default ------------------------------------------------------------------
def test_generate_defaults_to_every_tier() -> None:
    from kernelgenbench.suite.tiers import VERDICT_TIER

    assert VERDICT_TIER == "all"
    assert GenerateConfig(model="openai/x").tier == VERDICT_TIER
    assert GenerateConfig(model="openai/x", tier="heldout, full,smoke").tier == "all"  # canonical
    with pytest.raises(ValueError, match="--tier"):
        GenerateConfig(model="openai/x", tier="everything").validate()


def test_a_run_of_another_tier_is_another_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    open_run(GenerateConfig(model="openai/x"), INTERP, out, Path("unused"), None)
    open_run(GenerateConfig(model="openai/x", tier="smoke,full,heldout"), INTERP, out, Path("unused"), None)
    with pytest.raises(ValueError, match="tier"):
        open_run(GenerateConfig(model="openai/x", tier="full"), INTERP, out, Path("unused"), None)
    runs = tmp_path / "runs"
    a = open_run(GenerateConfig(model="openai/x"), INTERP, None, runs, "n")
    assert open_run(GenerateConfig(model="openai/x"), INTERP, None, runs, "n").path == a.path  # resumed
    assert open_run(GenerateConfig(model="openai/x", tier="smoke"), INTERP, None, runs, "n").path != a.path


@pytest.mark.slow
def test_cli_final_verdicts_cover_every_tier_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kgb generate`` without ``--tier``: the sample's record is a verdict on every case of the smoke, full
    and held-out tiers, and every summary says so."""
    from kernelgenbench.cli import app
    from kernelgenbench.suite.registry import get_operator

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    op = get_operator("aten::item")  # 5 + 6 + 3 small cases: seconds on the interpreter
    srv = ScriptedServer({op.id: [[["correct"]]]})
    port = srv.start()
    out = tmp_path / "run"
    try:
        res = CliRunner().invoke(app, ["generate", "--model", "openai/scripted", "--base-url",
                                       f"http://127.0.0.1:{port}/v1", "--op", op.id, "--platform", "interpreter",
                                       "--out", str(out)], env={"COLUMNS": "200"})
    finally:
        srv.stop()
    assert res.exit_code == 0, res.output
    (rec,) = _lines(out / "results.jsonl")
    assert rec["status"] == "passed" and rec["tier"] == "all"
    assert [c["id"] for c in rec["cases"]] == [c.id for c in op.cases("all")]
    assert rec["cases_total"] == sum(len(op.cases(t)) for t in ("smoke", "full", "heldout")) == 14
    assert json.loads((out / "config.json").read_text())["tier"] == "all"
    s = json.loads((out / "summary.json").read_text())
    assert (s["tier"], s["tiers"], s["config"]["tier"]) == ("all", ["smoke", "full", "heldout"], "all")
    flat = " ".join(res.output.split())
    assert "tier all (smoke + full + heldout)" in flat and "verdicts cover every tier (smoke, full, heldout)" in flat
    again = " ".join(CliRunner().invoke(app, ["summary", str(out)], env={"COLUMNS": "200"}).output.split())
    assert "tier all (smoke + full + heldout)" in again and "verdicts cover every tier" in again


# -- --replay defaults, Ctrl-C, exit codes (fast: evaluate_file is faked) ------------------------------------------
def _replayed_run(run: Path, ops: list[str], tier: str) -> Path:
    """A generate run directory as ``kgb generate`` leaves it: config.json (its tier) and one correct reply per
    operator in samples.jsonl."""
    from llm_server import reply_text

    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"command": "kgb generate", "model": "openai/x", "tier": tier}))
    with open(run / "samples.jsonl", "w") as f:
        for op in ops:
            f.write(json.dumps({"sample_id": f"{op}:s0r0", "op": op, "source": op.split("::")[0], "sample": 0,
                                "round": 0, "label": "s0r0", "response": reply_text("correct", op),
                                "truncated": False, "usage": {"input_tokens": 10, "output_tokens": 20}}) + "\n")
    return run / "samples.jsonl"


class _FakeJudge:
    """Stands in for evaluate_file: a verdict per operator (``fail``: failed, else passed); at the operator
    ``interrupt_at`` it sends Ctrl-C to the process and returns a second later (as a killed sandbox does)."""

    def __init__(self, fail: tuple[str, ...] = (), interrupt_at: str | None = None, sig: str = "SIGINT") -> None:
        self.fail, self.interrupt_at, self.calls, self.sig = fail, interrupt_at, [], sig

    def __call__(self, path, op, tier, **kw) -> dict[str, Any]:
        import hashlib
        import os
        import signal
        import time

        self.calls.append((op, tier))
        if op == self.interrupt_at:
            os.kill(os.getpid(), getattr(signal, self.sig))
            time.sleep(1.0)
        ok = op not in self.fail
        sha = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        return {"op": op, "source": op.split("::")[0], "label": kw.get("label"), "tier": tier,
                "platform": kw.get("platform"), "submission_sha256": sha,
                "status": "passed" if ok else "failed", "failure_class": None if ok else "wrong_result",
                "cases_total": 3, "cases_passed": 3 if ok else 1, "cases": [], "wall_s": 0.1}


def _generate(args: list[str]) -> Any:
    from kernelgenbench.cli import app

    return CliRunner().invoke(app, ["generate", *args, "--platform", "interpreter"], env={"COLUMNS": "200"})


def test_replay_defaults_to_the_replayed_runs_operators_and_tier(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.llm.commands import replay_source
    from kernelgenbench.run import evaluate as ev

    samples = _replayed_run(tmp_path / "old", ["aten::add", "aten::mul"], "smoke")
    src = replay_source(samples)
    assert (src.ops, src.tier, src.run) == (["aten::add", "aten::mul"], "smoke", "old")
    judge = _FakeJudge()
    monkeypatch.setattr(ev, "evaluate_file", judge)
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "(run old: its 2 operators · its tier) · 2 operators · tier smoke" in flat, flat
    assert sorted(judge.calls) == [("aten::add", "smoke"), ("aten::mul", "smoke")]
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert (s["tier"], sorted(s["operators"])) == ("smoke", ["aten::add", "aten::mul"])
    assert "→ aten::add s0r0: judging on tier smoke" in flat
    # --op and --tier override
    judge.calls.clear()
    res = _generate(["--replay", str(samples), "--op", "aten::mul", "--tier", "full", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "(run old: 1 selected operator (it has replies for 2) · it ran smoke) · 1 operator · tier full" in flat
    assert judge.calls == [("aten::mul", "full")]
    # a tier list reads as the header writes it (fresh user 40: "judging on tier smoke,heldout" under "tier smoke +
    # heldout")
    res = _generate(["--replay", str(samples), "--op", "aten::mul", "--tier", "smoke,heldout", "--out",
                     str(tmp_path / "d")])
    flat = " ".join(res.output.split())
    assert res.exit_code == 0 and "→ aten::mul s0r0: judging on tier smoke + heldout" in flat, flat
    # a file with no reply is a usage error naming it
    (tmp_path / "empty.jsonl").write_text("")
    res = _generate(["--replay", str(tmp_path / "empty.jsonl"), "--out", str(tmp_path / "c")])
    assert res.exit_code == 2 and "holds no reply" in res.output


def test_replay_scores_with_the_replayed_runs_k_and_rounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay judges every recorded sample and round, so it scores pass@k with the replayed run's k, n and
    rounds (fresh user 32: a replay of a k=3 run printed k=1 n=1 rounds=1 and lost its Pass@3); an option
    given overrides them."""
    from kernelgenbench.run import evaluate as ev

    samples = _replayed_run(tmp_path / "old", ["aten::add"], "smoke")
    conf = json.loads((tmp_path / "old" / "config.json").read_text())
    conf.update(k=3, n=3, rounds=2, reflection=True, early_stop=True)
    (tmp_path / "old" / "config.json").write_text(json.dumps(conf))
    monkeypatch.setattr(ev, "evaluate_file", _FakeJudge())
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    assert "k=3 n=3 rounds=2 (reflection) · early stop on" in " ".join(res.output.split()), res.output
    got = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (got["k"], got["n"], got["rounds"], got["reflection"]) == (3, 3, 2, True)
    res = _generate(["--replay", str(samples), "--k", "1", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert "k=1 n=1 rounds=2 (reflection)" in " ".join(res.output.split()), res.output
    # kgb summary of a generate run names its platform and why no speedup is shown, as kgb eval's does
    from kernelgenbench.cli import app

    res = CliRunner().invoke(app, ["summary", str(tmp_path / "a")], env={"COLUMNS": "200"})
    flat = " ".join(res.output.split())
    assert res.exit_code == 0 and "Pass@3" in flat and "tier smoke · interpreter" in flat, res.output
    assert "speedups: not applicable on the interpreter platform" in flat, res.output


def test_generate_exits_1_when_an_operator_is_unsolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.run import evaluate as ev

    samples = _replayed_run(tmp_path / "old", ["aten::add", "aten::mul"], "smoke")
    monkeypatch.setattr(ev, "evaluate_file", _FakeJudge(fail=("aten::mul",)))
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "a")])
    assert res.exit_code == 1, res.output
    assert "1 of 2 operators not solved (exit code 1)" in " ".join(res.output.split())
    # the bar of operators done (a long run's progress and estimate of the time left), unsolved ones counted
    assert re.search(r"^operators\b.*\b2/2\b.*eta", res.output, re.MULTILINE), res.output
    monkeypatch.setattr(ev, "evaluate_file", _FakeJudge())
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "b")])
    assert res.exit_code == 0 and "not solved" not in res.output, res.output


def test_ctrl_c_stops_generate_keeps_records_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while a sample is judged: the sandboxes are killed, the judged samples' records are kept, the
    one cut short is not recorded, the command says so and exits 130 at once; the same command resumes."""
    import signal
    import time

    from kernelgenbench.run import evaluate as ev
    from kernelgenbench.sandbox import runner

    ops = ["aten::add", "aten::mul", "aten::sub"]
    samples = _replayed_run(tmp_path / "old", ops, "smoke")
    kills = []
    monkeypatch.setattr(runner, "kill_all", lambda: kills.append(1) or 0)
    judge = _FakeJudge(interrupt_at="aten::mul")
    monkeypatch.setattr(ev, "evaluate_file", judge)
    out = tmp_path / "run"
    args = ["--replay", str(samples), "--out", str(out), "--concurrency", "1"]
    handler = signal.getsignal(signal.SIGINT)
    t0 = time.time()
    try:
        res = _generate(args)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert res.exit_code == 130, res.output
    assert time.time() - t0 < 30
    flat = " ".join(res.output.split())
    assert f"interrupted: 1 of 3 operators finished, 1 evaluations recorded in {out}" in flat, flat
    assert "run the same command again to resume" in flat
    assert kills == [1]
    assert [r["op"] for r in _lines(out / "results.jsonl")] == ["aten::add"]  # aten::mul was cut short
    assert [c[0] for c in judge.calls] == ["aten::add", "aten::mul"]  # aten::sub never started
    judge2 = _FakeJudge()
    monkeypatch.setattr(ev, "evaluate_file", judge2)
    again = _generate(args)
    assert again.exit_code == 0, again.output
    assert sorted(c[0] for c in judge2.calls) == ["aten::mul", "aten::sub"]  # aten::add's record is reused
    # only the reused verdict reads as resumed (fresh user 40: a replay said none was, a sampled run also those
    # judged now); the bar's estimate leaves it out, so in a log only the operators judged now have a line
    assert [ln.split()[1] for ln in again.output.splitlines() if ln.endswith("(resumed)")] == ["aten::add"], \
        again.output
    assert re.findall(r"^operators \d/3\b", again.output, re.MULTILINE) == ["operators 2/3", "operators 3/3"], \
        again.output
    assert sorted(r["op"] for r in _lines(out / "results.jsonl")) == ops


def test_sigterm_stops_generate_as_ctrl_c_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fresh user 39: SIGTERM (kill, timeout, a batch scheduler) ended kgb generate at once, with no line of what
    was recorded; it now stops the run as Ctrl-C does, and exits 143."""
    import signal

    from kernelgenbench.run import evaluate as ev
    from kernelgenbench.sandbox import runner

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("SIGTERM has a handler in this process: the test would not see kgb's")
    samples = _replayed_run(tmp_path / "old", ["aten::add", "aten::mul", "aten::sub"], "smoke")
    monkeypatch.setattr(runner, "kill_all", lambda: 0)
    monkeypatch.setattr(ev, "evaluate_file", _FakeJudge(interrupt_at="aten::mul", sig="SIGTERM"))
    out = tmp_path / "run"
    handler = signal.getsignal(signal.SIGINT)
    try:
        res = _generate(["--replay", str(samples), "--out", str(out), "--concurrency", "1"])
    finally:
        signal.signal(signal.SIGINT, handler)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back
    assert res.exit_code == 143, res.output
    flat = " ".join(res.output.split())
    assert f"terminated (SIGTERM): 1 of 3 operators finished, 1 evaluations recorded in {out}" in flat, flat
    assert [r["op"] for r in _lines(out / "results.jsonl")] == ["aten::add"]


def test_a_run_of_other_rounds_reflection_or_samples_is_another_run(tmp_path: Path) -> None:
    """Fresh-user report 29: a 2-round reflection run resumed with ``--rounds 1`` showed pass@1 from the older run's
    second round. Samples per operator, rounds, reflection and early stopping are part of a run's identity; the
    operator selection is not (the summary covers the selected operators)."""
    out = tmp_path / "run"
    base = dict(model="openai/x", rounds=2, reflection=True)
    open_run(GenerateConfig(**base), INTERP, out, Path("unused"), None)
    open_run(GenerateConfig(**base, ops=["aten::neg"]), INTERP, out, Path("unused"), None)  # another selection: ok
    for other in (dict(rounds=1), dict(reflection=False), dict(k=2), dict(n=3)):
        with pytest.raises(ValueError, match="different"):
            open_run(GenerateConfig(**{**base, **other}), INTERP, out, Path("unused"), None)
    runs = tmp_path / "runs"
    a = open_run(GenerateConfig(**base), INTERP, None, runs, "r")
    assert open_run(GenerateConfig(**base), INTERP, None, runs, "r").path == a.path
    assert open_run(GenerateConfig(**{**base, "rounds": 1}), INTERP, None, runs, "r").path != a.path


def test_a_refused_endpoint_is_retried_aloud_and_its_attempts_counted(tmp_path: Path) -> None:
    """fresh user 33: an endpoint that refused connections cost minutes of backoff in silence, and the summary said
    '0 HTTP attempts': each retry now reaches on_retry (the CLI prints it), and a request that failed for good
    counts its attempts."""
    import socket

    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = GenerateConfig(model="openai/m", base_url=f"http://127.0.0.1:{port}/v1", ops=["aten::add"], tier="smoke",
                         k=1, rounds=1)
    client = make_client("openai/m", cfg.base_url, backoff_s=0.01, max_retries=2, timeout_s=10)
    seen: list[tuple] = []
    client.on_retry = lambda label, attempt, attempts, error, wait: seen.append((label, attempt, attempts))
    gen = Generation(cfg, open_run(cfg, INTERP, tmp_path / "run", Path("unused"), None), INTERP, client)
    gen.run(select(cfg.ops, cfg.source))
    assert seen == [("aten::add s0r0", 1, 3), ("aten::add s0r0", 2, 3)]
    assert gen.requests_made == 0 and gen.http_attempts == 3
    assert gen.errors["aten::add"].startswith("aten::add s0r0: giving up after 3 attempts")


def test_generate_logs_a_line_per_operator_done_with_the_time_left(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped into a log, kgb generate's bar of operators printed one frame, at the end ("eta 00:00"): a log of a
    long run said nothing of how far it was (fresh user 40). Now each operator done is a line with the count,
    the elapsed time and the estimate."""
    from kernelgenbench.run import evaluate as ev

    samples = _replayed_run(tmp_path / "old", ["aten::add", "aten::mul"], "smoke")
    monkeypatch.setattr(ev, "evaluate_file", _FakeJudge())
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    counts = re.findall(r"^operators (\d/2) · \d:\d\d:\d\d elapsed · eta (\S+)$", res.output, re.MULTILINE)
    assert [c for c, _ in counts] == ["1/2", "2/2"] and counts[-1][1] == "0:00:00", res.output
    assert re.match(r"\d:\d\d:\d\d$", counts[0][1]), res.output   # an estimate once one operator is done
    assert not re.search(r"^operators ━", res.output, re.MULTILINE), res.output   # no bar frame in a log
    res = _generate(["--replay", str(samples), "--out", str(tmp_path / "a")])   # every verdict recorded
    assert res.exit_code == 0, res.output
    assert re.findall(r"^operators \d/2 .*$", res.output, re.MULTILINE) == [
        "operators 2/2 · 0:00:00 elapsed · eta 0:00:00"], res.output
