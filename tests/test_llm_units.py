"""Unit tests of the LLM track: code extraction, pass@k, usage parsing, retries, keys, scoring."""
from __future__ import annotations

import threading
import time
from math import comb

import pytest

from kernelgenbench.llm import clients
from kernelgenbench.llm.clients import (
    Completion,
    LLMAuthError,
    LLMError,
    Usage,
    _Retryable,
    anthropic_usage,
    openai_usage,
    resolve_api_key,
    split_model,
)
from kernelgenbench.llm.extract import extract_code
from kernelgenbench.llm.generate import GenerateConfig
from kernelgenbench.llm.summary import operator_scores, pass_at_k


# -- extraction -------------------------------------------------------------------------------------
def test_last_complete_python_block_wins() -> None:
    text = "a\n```python\nx = 1\n```\nthen\n```py\ny = 2\n```\nand\n```python\nz = 3\n"  # last one unclosed
    ex = extract_code(text)
    assert (ex.status, ex.code) == ("ok", "y = 2\n")


def test_untagged_block_only_as_fallback() -> None:
    assert extract_code("```\nu = 1\n```\n```python\np = 1\n```").code == "p = 1\n"
    assert extract_code("```\nu = 1\n```").code == "u = 1\n"
    assert extract_code("```cpp\nint x;\n```").status == "no_code"


def test_no_code_and_truncated() -> None:
    assert extract_code("just prose").status == "no_code"
    assert extract_code(None).status == "no_code"
    assert extract_code("```python\nimport torch\n", truncated=True).status == "truncated"
    ok = extract_code("```python\nk = 1\n```\nmore text cut her", truncated=True)
    assert ok.status == "ok" and ok.truncated and ok.code == "k = 1\n"


def test_longer_fences_and_inner_backticks() -> None:
    text = "````python\ns = '```'\nprint(s)\n````\n"
    assert extract_code(text).code == "s = '```'\nprint(s)\n"


# -- pass@k -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,c,k", [(1, 0, 1), (1, 1, 1), (5, 2, 1), (10, 3, 4), (10, 9, 3), (20, 1, 5), (4, 4, 2)])
def test_pass_at_k_matches_the_combinatorial_form(n: int, c: int, k: int) -> None:
    exact = 1.0 - comb(n - c, k) / comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact)


def test_pass_at_k_edges() -> None:
    assert pass_at_k(2, 1, 5) == 1.0 and pass_at_k(2, 0, 5) == 0.0  # n < k
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    with pytest.raises(ValueError):
        pass_at_k(0, 0, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def _sample(i: int, r: int, inp: int = 10, out: int = 5, **kw) -> dict:
    return {"sample_id": f"x::y:s{i}r{r}", "op": "x::y", "sample": i, "round": r, "label": f"s{i}r{r}",
            "usage": {"input_tokens": inp, "output_tokens": out, "cached_input_tokens": None,
                      "cache_write_tokens": None, "reasoning_tokens": None},
            "timing": {"total_s": 1.0}, **kw}


def _rec(i: int, r: int, status: str, speedup=None) -> tuple:
    return ("x::y", f"s{i}r{r}"), {"status": status, "wall_s": 2.0, "speedup": speedup,
                                   "failure_class": None if status != "failed" else "wrong_result"}


def test_unbiased_estimator_without_early_stopping() -> None:
    # n = 5 samples, samples 1 and 3 correct (3 via reflection), k = 2
    samples = [_sample(i, 0) for i in range(5)] + [_sample(3, 1)]
    recs = dict([_rec(0, 0, "failed"), _rec(1, 0, "passed", 2.0), _rec(2, 0, "failed"), _rec(3, 0, "failed"),
                 _rec(3, 1, "passed", 3.0), _rec(4, 0, "failed")])
    s = operator_scores("x::y", "vllm", samples, recs, k=2, early_stop=False)
    assert s["correct_samples"] == 2 and s["judged_samples"] == 5
    assert s["pass_at_1"] == pytest.approx(0.4)
    assert s["pass_at_k"] == pytest.approx(1 - comb(3, 2) / comb(5, 2))
    assert s["pass_at_1_round0"] == pytest.approx(0.2)
    assert s["solved_by"] == "s1r0" and s["speedup"] == 2.0
    assert s["tokens"]["total"] == 6 * 15 and s["tokens"]["input_tokens"] == 60
    assert s["tokens"]["reasoning_tokens"] is None  # never reported
    assert s["wall_s"] == pytest.approx(6 * 1.0 + 6 * 2.0)


def test_early_stopping_scores() -> None:
    samples = [_sample(0, 0), _sample(1, 0)]
    recs = dict([_rec(0, 0, "failed"), _rec(1, 0, "passed")])
    s = operator_scores("x::y", "vllm", samples, recs, k=3, early_stop=True)
    assert (s["pass_at_1"], s["pass_at_k"], s["status"]) == (0.0, 1.0, "solved")
    s = operator_scores("x::y", "vllm", samples, recs, k=1, early_stop=True)
    assert s["pass_at_k"] == 0.0  # the correct sample lies beyond k
    unsup = operator_scores("x::y", "vllm", [_sample(0, 0)], dict([_rec(0, 0, "unsupported")]), k=1, early_stop=True)
    assert unsup["status"] == "unsupported" and unsup["pass_at_k"] is None


# -- usage ---------------------------------------------------------------------------------------------
def test_openai_usage_fields() -> None:
    u = openai_usage({"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140,
                      "prompt_tokens_details": {"cached_tokens": 64},
                      "completion_tokens_details": {"reasoning_tokens": 30}})
    assert (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.output_tokens, u.reasoning_tokens) == \
        (100, 64, None, 40, 30)
    assert u.total_tokens == 140 and u.raw["total_tokens"] == 140
    d = openai_usage({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_hit_tokens": 8})  # DeepSeek
    assert d.cached_input_tokens == 8 and d.reasoning_tokens is None


def test_anthropic_usage_counts_cache_tokens_as_input() -> None:
    u = anthropic_usage({"input_tokens": 20, "output_tokens": 7, "cache_read_input_tokens": 300,
                         "cache_creation_input_tokens": 50})
    assert (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.output_tokens, u.reasoning_tokens) == \
        (370, 300, 50, 7, None)
    assert Usage.from_json(u.to_json()) == u


# -- keys and models ----------------------------------------------------------------------------------------
def test_keys_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MY_GATEWAY_KEY", raising=False)
    assert resolve_api_key("openai", "http://127.0.0.1:8000/v1") == "EMPTY"
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY"):
        resolve_api_key("openai", "https://api.example.com/v1")
    monkeypatch.setenv("MY_GATEWAY_KEY", "k-1")
    assert resolve_api_key("openai", "https://api.example.com/v1", "MY_GATEWAY_KEY") == "k-1"


def test_split_model() -> None:
    assert split_model("openai/meta-llama/Llama-3-70B") == ("openai", "meta-llama/Llama-3-70B")
    for bad in ("gpt-4o", "mistral/x", "openai/"):
        with pytest.raises(ValueError):
            split_model(bad)


def test_config_validation() -> None:
    GenerateConfig(model="openai/x", k=3, rounds=2, reflection=True).validate()
    for kw in ({"rounds": 2}, {"k": 0}, {"k": 3, "n": 2}, {"model": None}):
        with pytest.raises(ValueError):
            GenerateConfig(**{"model": "openai/x", **kw}).validate()
    assert GenerateConfig(model="openai/x", k=3).early
    assert not GenerateConfig(model="openai/x", k=3, n=6).early


# -- retries and the concurrency bound ----------------------------------------------------------------------
class _Fake(clients.Client):
    provider = "openai"

    def __init__(self, script, **kw) -> None:
        super().__init__("fake", "http://127.0.0.1:1/v1", **kw)
        self.script = list(script)
        self.calls = 0
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()

    def _once(self, system, messages, temperature, max_tokens) -> Completion:
        with self.lock:
            self.calls += 1
            self.active += 1
            self.peak = max(self.peak, self.active)
            step = self.script.pop(0) if self.script else "ok"
        try:
            time.sleep(0.02)
            if isinstance(step, Exception):
                raise step
            return Completion("```python\nx=1\n```", None, "stop", False, "fake", Usage(1, 0, None, 1, None), 0, 0, 1)
        finally:
            with self.lock:
                self.active -= 1


def test_retries_with_backoff_then_success() -> None:
    slept: list[float] = []
    c = _Fake([_Retryable(429, "slow down", None), _Retryable(503, "busy", 0.5)], backoff_s=0.01, max_retries=3,
              sleep=slept.append)
    comp = c.complete("s", [{"role": "user", "content": "u"}], temperature=0, max_tokens=10)
    assert comp.attempts == 3 and [r["status"] for r in comp.retries] == [429, 503]
    assert len(slept) == 2 and slept[1] >= 0.5  # Retry-After honoured


def test_retries_are_bounded_and_errors_name_the_request() -> None:
    c = _Fake([_Retryable(500, "down", 0.0)] * 5, backoff_s=0.0, max_retries=2, sleep=lambda s: None)
    with pytest.raises(LLMError, match="vllm::rms_norm s0r0: giving up after 3 attempts"):
        c.complete("s", [], temperature=0, max_tokens=1, label="vllm::rms_norm s0r0")
    assert c.calls == 3
    c = _Fake([LLMError("bad request", 400)], sleep=lambda s: None)
    with pytest.raises(LLMError, match="bad request"):
        c.complete("s", [], temperature=0, max_tokens=1)
    assert c.calls == 1


def test_concurrency_bound() -> None:
    c = _Fake([], concurrency=2)
    threads = [threading.Thread(target=c.complete, args=("s", []), kwargs={"temperature": 0, "max_tokens": 1})
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.calls == 8 and c.peak <= 2


def _no_httpx() -> bool:
    import importlib.util

    return importlib.util.find_spec("httpx") is None


def test_sdk_errors_are_classified() -> None:
    import openai

    httpx = pytest.importorskip("httpx2") if _no_httpx() else pytest.importorskip("httpx")

    c = clients.OpenAIClient("m", "http://127.0.0.1:1/v1")
    req = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")

    def status(code: int, headers=None):
        resp = httpx.Response(code, request=req, headers=headers or {})
        return openai.APIStatusError("x", response=resp, body=None)

    assert isinstance(c._classify(openai.APITimeoutError(request=req), openai), _Retryable)
    r = c._classify(status(429, {"retry-after": "3"}), openai)
    assert isinstance(r, _Retryable) and r.retry_after == 3.0
    assert isinstance(c._classify(status(502), openai), _Retryable)
    assert isinstance(c._classify(status(401), openai), LLMAuthError)
    e = c._classify(status(400), openai)
    assert isinstance(e, LLMError) and not isinstance(e, LLMAuthError)


def test_sdks_stay_out_of_the_evaluation_path() -> None:
    """The SDKs are optional extras: importing the CLI, the pipeline and the LLM track's modules
    must not import them (only making a client does), and nothing outside llm/ names them."""
    import subprocess
    import sys
    from pathlib import Path

    import kernelgenbench.cli

    code = ("import sys, kernelgenbench.cli, kernelgenbench.run.job, kernelgenbench.run.scheduler, "
            "kernelgenbench.sandbox.child, kernelgenbench.llm.generate, kernelgenbench.llm.commands, "
            "kernelgenbench.llm.clients; print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    pkg = Path(kernelgenbench.cli.__file__).parent
    for sub in ("run", "verify", "sandbox", "suite"):
        for f in (pkg / sub).rglob("*.py"):
            text = f.read_text()
            assert "import openai" not in text and "import anthropic" not in text, f
